// Each log format reader (engine/src/log/formats/) against its fixtures: tests/formats/<format>/ (and
// tests/formats/<format>_<case>/ for more cases of one format, <format> the reader's file name) holds
// log.txt and expect.yaml, the incidents the segmenter alone (no rules) must find in it, in order:
//
//   source: where log.txt comes from
//   classify: ["Warning:"]      # optional: lines holding one of these are "rule hits" (log-line incidents)
//   incidents:
//     - {kind: traceback, exception: RuntimeError, message_starts: '...', culprit: 'program.py:12', caused_by: -1}
//       (optional: handled: true|false, Note: [Handled] in segmenter.cc; message: the whole message)
//
// Each fixture is read twice: every line through AddLine, and the way the log path reads it, where an
// idle segmenter never sees a line with no idle keyword (Note: [Line prefilter]); both must give the
// expected incidents, so a trigger whose keywords in formats/registry.cc miss its lines fails here.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "log/segmenter.h"
#include "../source_paths.h"

namespace triage {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(TRIAGE_SOURCE_DIR) / "tests" / "formats";
const fs::path kReaders = fs::path(TRIAGE_SOURCE_DIR) / "engine" / "src" / "log" / "formats";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Culprit(const Incident& inc) {
  if (inc.culprit < 0) return "";
  const Frame& f = inc.frames[inc.culprit];
  return fs::path(f.file).filename().string() + ":" + std::to_string(f.line);
}

// One incident as expect.yaml writes it (message: its first 60 bytes).
std::string Describe(const Incident& inc) {
  std::string msg = inc.message.substr(0, inc.message.find('\n')).substr(0, 60);
  std::string quoted;
  for (char c : msg) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return "  - {kind: " + std::string(IncidentKindName(inc.kind)) + ", exception: '" + inc.exception + "', message_starts: '" +
         quoted + "', culprit: '" + Culprit(inc) + "', caused_by: " + std::to_string(inc.caused_by) +
         (inc.handled ? ", handled: true}" : "}");
}

struct Expected {
  std::string kind, exception, message_starts, culprit;
  int caused_by = -1;
  std::optional<bool> handled;
  std::optional<std::string> message;
};

struct Fixture {
  std::string name;
  std::vector<std::string> lines;
  std::vector<std::string> classify;
  bool has_incidents = false;  // expect.yaml has an `incidents:` list
  std::vector<Expected> expected;
};

std::vector<Fixture> LoadFixtures() {
  std::vector<Fixture> out;
  for (const fs::directory_entry& e : fs::directory_iterator(kDir)) {
    if (!e.is_directory()) continue;
    Fixture f;
    f.name = e.path().filename().string();
    f.lines = Lines(ReadFile(e.path() / "log.txt"));
    YAML::Node spec = YAML::LoadFile((e.path() / "expect.yaml").string());
    if (spec["classify"]) f.classify = spec["classify"].as<std::vector<std::string>>();
    f.has_incidents = spec["incidents"] && spec["incidents"].IsSequence();
    for (const YAML::Node& e : spec["incidents"]) {
      f.expected.push_back({e["kind"].as<std::string>(), e["exception"].as<std::string>(),
                            e["message_starts"].as<std::string>(), e["culprit"].as<std::string>(), e["caused_by"].as<int>(),
                            e["handled"] ? std::optional<bool>(e["handled"].as<bool>()) : std::nullopt,
                            e["message"] ? std::optional<std::string>(e["message"].as<std::string>()) : std::nullopt});
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  return out;
}

Segmenter::Classifier ClassifierOf(const std::vector<std::string>& words) {
  return [words](std::string_view line) {
    for (const std::string& w : words) {
      if (line.find(w) != std::string_view::npos) return 0;
    }
    return -1;
  };
}

std::vector<Incident> ReadAll(const Fixture& f) {
  Segmenter seg(SegmenterOptions(), ClassifierOf(f.classify));
  for (const std::string& line : f.lines) seg.AddLine(line);
  seg.Finish();
  return seg.incidents();
}

// As the log path reads: while idle, lines with no idle keyword, no rule hit and no prefix a format
// reader strips (a rank prefix, an srun label, a debugger prompt) are skipped; of a run
// of skipped lines only the last non-blank one is replayed (the previous-line context).
std::vector<Incident> ReadPrefiltered(const Fixture& f) {
  Segmenter::Classifier classify = ClassifierOf(f.classify);
  Segmenter seg(SegmenterOptions(), classify);
  std::vector<std::string> keywords;
  for (const std::string& k : Segmenter::IdleKeywords()) keywords.push_back(Lower(k));
  std::vector<std::string> skipped;
  auto flush = [&]() {
    size_t last = skipped.size();
    for (size_t i = skipped.size(); i-- > 0;) {
      std::string text = Segmenter::Normalize(skipped[i]);
      if (text.find_first_not_of(" \t") != std::string::npos) { last = i; break; }
    }
    if (last == skipped.size()) {
      seg.SkipLines(skipped.size());
    } else {
      seg.SkipLines(last);
      seg.AddLine(skipped[last]);
      seg.SkipLines(skipped.size() - last - 1);
    }
    skipped.clear();
  };
  for (const std::string& line : f.lines) {
    std::string lower = Lower(line);
    bool keyword = std::any_of(keywords.begin(), keywords.end(),
                               [&](const std::string& k) { return lower.find(k) != std::string::npos; });
    if (seg.idle() && !seg.WantsLine(line) && !keyword && !MayCarryLinePrefix(line) && classify(line) < 0) {
      skipped.push_back(line);
      continue;
    }
    flush();
    seg.AddLine(line);
  }
  flush();
  seg.Finish();
  return seg.incidents();
}

void Check(const Fixture& f, const std::vector<Incident>& got, const char* how) {
  std::string actual;
  for (const Incident& inc : got) actual += Describe(inc) + "\n";
  SCOPED_TRACE(std::string(how) + " tests/formats/" + f.name + "; incidents found:\n" + actual);
  ASSERT_TRUE(f.has_incidents) << "expect.yaml needs an `incidents:` list";
  ASSERT_EQ(got.size(), f.expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const Expected& e = f.expected[i];
    const Incident& inc = got[i];
    EXPECT_EQ(IncidentKindName(inc.kind), e.kind) << "incident " << i;
    EXPECT_EQ(inc.exception, e.exception) << "incident " << i;
    EXPECT_EQ(inc.message.rfind(e.message_starts, 0), 0u) << "incident " << i << ": " << inc.message;
    EXPECT_EQ(Culprit(inc), e.culprit) << "incident " << i;
    EXPECT_EQ(inc.caused_by, e.caused_by) << "incident " << i;
    if (e.handled) {
      EXPECT_EQ(inc.handled, *e.handled) << "incident " << i;
    }
    if (e.message) {
      EXPECT_EQ(inc.message, *e.message) << "incident " << i;
    }
  }
}

TEST(LogFormats, EachReaderFindsItsFixturesIncidents) {
  std::vector<Fixture> fixtures = LoadFixtures();
  ASSERT_GE(fixtures.size(), 15u) << "tests/formats/ holds fewer fixtures than there are readers";
  for (const Fixture& f : fixtures) {
    Check(f, ReadAll(f), "every line read:");
    Check(f, ReadPrefiltered(f), "inert lines skipped:");
  }
}

// The trigger table is tied to the readers and their fixtures: a line a trigger takes while the
// segmenter is idle holds one of that trigger's own keywords (so each row's keywords are right, not
// only the table's union), and every trigger with a reader takes some line of tests/formats/.
TEST(LogFormats, EachTriggerTakesFixtureLinesHoldingItsKeywords) {
  std::set<std::string> fired;
  for (const Fixture& f : LoadFixtures()) {
    Segmenter seg(SegmenterOptions(), ClassifierOf(f.classify));
    for (size_t i = 0; i < f.lines.size(); ++i) {
      const bool idle = seg.idle();
      const bool wanted = seg.WantsLine(f.lines[i]);
      seg.AddLine(f.lines[i]);
      const FormatEntry* t = seg.taken_by();
      if (!t) continue;
      fired.insert(t->name);
      if (!idle) continue;  // read because a block was open: the prefilter does not apply
      if (wanted) continue;  // read because a line hook asked for it (Segmenter::ReadNextLine): likewise
      const std::string lower = Lower(f.lines[i]);
      EXPECT_TRUE(std::any_of(t->keywords.begin(), t->keywords.end(),
                              [&](const std::string& k) { return lower.find(Lower(k)) != std::string::npos; }))
          << "tests/formats/" << f.name << "/log.txt:" << i + 1 << " was taken by \"" << t->name
          << "\" but holds none of its keywords: " << f.lines[i];
    }
  }
  for (const FormatEntry& t : FormatTable()) {
    if (t.start) {
      EXPECT_EQ(fired.count(t.name), 1u) << "no line of tests/formats/ is taken by \"" << t.name << "\"";
    }
  }
}

// A format is one file and one test: every reader's file in engine/src/log/formats/ has a fixture folder
// named after it (NAME, or NAME_CASE), and every fixture folder is named after a reader's file.
TEST(LogFormats, EachFormatFileHasFixturesNamedAfterIt) {
  std::set<std::string> formats;
  for (const fs::directory_entry& e : fs::directory_iterator(kReaders)) {
    const std::string stem = e.path().stem().string();
    // The table, the reader interfaces and the text helpers are no format.
    if (e.path().extension() == ".h" && stem != "registry" && stem != "block" && stem != "text") formats.insert(stem);
  }
  ASSERT_GE(formats.size(), 15u);
  std::set<std::string> tested;
  for (const Fixture& f : LoadFixtures()) {
    std::string owner;
    for (const std::string& format : formats) {
      if ((f.name == format || f.name.rfind(format + "_", 0) == 0) && format.size() > owner.size()) owner = format;
    }
    EXPECT_FALSE(owner.empty()) << "tests/formats/" << f.name << " is named after no reader in engine/src/log/formats/";
    tested.insert(owner);
  }
  for (const std::string& format : formats) {
    EXPECT_EQ(tested.count(format), 1u) << "engine/src/log/formats/" << format << ".h has no fixture in tests/formats/";
  }
}

// The segmenter names no format: it reaches the readers only through the format table and the reader
// interfaces (formats/block.h), so no reader class of engine/src/log/formats/ appears in its source,
// and it calls no reader member (readers_.NAME).
TEST(LogFormats, TheSegmenterNamesNoReader) {
  std::vector<std::string> readers;
  for (const fs::directory_entry& e : fs::directory_iterator(kReaders)) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() != ".h" || stem == "registry" || stem == "block") continue;
    std::istringstream header(ReadFile(e.path()));
    for (std::string word; header >> word;) {
      if (word == "class" && header >> word && word.size() > 6 && word.compare(word.size() - 6, 6, "Reader") == 0) {
        readers.push_back(word);
      }
    }
  }
  ASSERT_GE(readers.size(), 15u);
  const fs::path log = kReaders.parent_path();
  for (const char* file : {"segmenter.h", "segmenter.cc"}) {
    const std::string source = ReadFile(log / file);
    ASSERT_FALSE(source.empty()) << file;
    for (const std::string& reader : readers) {
      EXPECT_EQ(source.find(reader), std::string::npos) << "engine/src/log/" << file << " names " << reader;
    }
    EXPECT_EQ(source.find("readers_."), std::string::npos) << "engine/src/log/" << file << " calls a reader by name";
  }
}

// The keywords the log path filters on are exactly those of the format table; a row with an idle
// trigger has keywords, and every row is there for a trigger, keywords or a hook.
TEST(LogFormats, IdleKeywordsComeFromTheTriggerTable) {
  std::vector<std::string> from_table;
  for (const FormatEntry& t : FormatTable()) {
    const FormatHooks& h = t.hooks;
    const bool hooked = h.raw_line || h.line || h.interrupts || h.log_line || h.emit || h.closed || h.unrecognised;
    if (t.start) {
      EXPECT_FALSE(t.keywords.empty()) << t.name;
    }
    EXPECT_TRUE(t.start || !t.keywords.empty() || hooked) << t.name << " has no trigger, keyword or hook";
    for (const std::string& k : t.keywords) {
      if (std::find(from_table.begin(), from_table.end(), k) == from_table.end()) from_table.push_back(k);
    }
  }
  EXPECT_EQ(Segmenter::IdleKeywords(), from_table);
}

}  // namespace
}  // namespace triage
