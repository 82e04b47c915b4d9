// The segmenter against real-world log formats: every case in corpus/formats/ states, in its
// label.yaml `incident:` block, the primary incident the segmenter must extract (exception type,
// message start, culprit frame, number of incidents). Cases the segmenter does not handle yet carry
// `segmenter_gap: true` and a `gap_reason:`; the test prints them as a table (the work order for the
// segmenter) and fails when a gap case starts passing, so the flag gets removed.
//
// Incidents come from the whole log path (Engine::DiagnoseText with the bundled rules), because rank
// deduplication and the classification of stray log lines happen there; only the incidents are checked,
// not the diagnoses.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "diagnose/ranker.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

namespace fs = std::filesystem;

const fs::path kFormatsDir = fs::path(TRIAGE_SOURCE_DIR) / "corpus" / "formats";

// Fewer cases than this means the walk itself is broken (wrong directory, unreadable labels).
constexpr size_t kMinCases = 30;

struct Expected {
  bool has_exception = false;
  std::string exception;
  bool has_message = false;
  std::string message_starts;
  bool has_culprit = false;
  std::string culprit;  // "basename:line", or "" for "no culprit"
  int incidents = -1;   // -1: not checked
};

struct Case {
  std::string name;
  fs::path dir;
  YAML::Node label;
  Expected expected;
  bool gap = false;
  std::string gap_reason;
  std::string load_error;  // non-empty when the label could not be read
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  if (!fs::is_directory(kFormatsDir)) return cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(kFormatsDir)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "label.yaml")) continue;
    Case c;
    c.name = entry.path().filename().string();
    c.dir = entry.path();
    try {
      c.label = YAML::LoadFile((entry.path() / "label.yaml").string());
      YAML::Node inc = c.label["incident"];
      if (!inc || !inc.IsMap()) {
        c.load_error = "label.yaml has no `incident:` mapping";
      } else {
        Expected& e = c.expected;
        if (inc["exception"]) { e.has_exception = true; e.exception = inc["exception"].as<std::string>(); }
        if (inc["message_starts"]) { e.has_message = true; e.message_starts = inc["message_starts"].as<std::string>(); }
        if (inc["culprit"]) { e.has_culprit = true; e.culprit = inc["culprit"].as<std::string>(); }
        if (inc["incidents"]) e.incidents = inc["incidents"].as<int>();
      }
      if (c.label["segmenter_gap"]) c.gap = c.label["segmenter_gap"].as<bool>();
      if (c.label["gap_reason"]) c.gap_reason = c.label["gap_reason"].as<std::string>();
    } catch (const YAML::Exception& ex) {
      c.load_error = std::string("label.yaml: ") + ex.what();
    }
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

// Exception incidents (tracebacks, bare error lines, C++ errors), as opposed to log lines a rule
// recognised and metric signatures.
bool IsException(const Incident& inc) {
  return inc.kind == Incident::Kind::kTraceback || inc.kind == Incident::Kind::kErrorLine ||
         inc.kind == Incident::Kind::kCxxError;
}

// The primary incident: the engine's own choice (Note: [Ranking] rule 4, ranker.cc PrimaryIncident);
// with no exception incident at all, the first log-line incident.
int Primary(const std::vector<Incident>& incidents) {
  int primary = PrimaryIncident(incidents);
  for (int i = 0; primary < 0 && i < static_cast<int>(incidents.size()); ++i) {
    if (incidents[i].kind == Incident::Kind::kLogLine) primary = i;
  }
  return primary;
}

// Distinct incidents: incident groups (chains and wrappers count once) among exception incidents, or the
// log-line incidents when there is no exception at all.
int CountIncidents(const std::vector<Incident>& incidents) {
  std::set<int> roots;
  int log_lines = 0;
  for (int i = 0; i < static_cast<int>(incidents.size()); ++i) {
    if (IsException(incidents[i])) roots.insert(RootOf(incidents, i));
    if (incidents[i].kind == Incident::Kind::kLogLine) ++log_lines;
  }
  return roots.empty() ? log_lines : static_cast<int>(roots.size());
}

std::string CulpritOf(const Incident& inc) {
  if (inc.culprit < 0 || inc.culprit >= static_cast<int>(inc.frames.size())) return "";
  const Frame& f = inc.frames[inc.culprit];
  size_t slash = f.file.find_last_of("/\\");
  std::string base = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  return base + ":" + std::to_string(f.line);
}

std::string Quote(const std::string& s, size_t max = 70) {
  std::string one_line = s.substr(0, s.find('\n'));
  if (one_line.size() > max) one_line = one_line.substr(0, max) + "...";
  return "'" + one_line + "'";
}

struct Outcome {
  bool pass = false;
  std::vector<std::string> mismatches;  // "field: want X, got Y"
};

Outcome Check(const Case& c, const Report& report) {
  Outcome out;
  const Expected& e = c.expected;
  int primary = Primary(report.incidents);
  if (primary < 0) {
    out.mismatches.push_back("no incident found");
  } else {
    const Incident& inc = report.incidents[primary];
    if (e.has_exception && inc.exception != e.exception) {
      out.mismatches.push_back("exception: want " + Quote(e.exception) + ", got " + Quote(inc.exception));
    }
    if (e.has_message && inc.message.compare(0, e.message_starts.size(), e.message_starts) != 0) {
      out.mismatches.push_back("message: want " + Quote(e.message_starts) + "..., got " + Quote(inc.message));
    }
    if (e.has_culprit && CulpritOf(inc) != e.culprit) {
      out.mismatches.push_back("culprit: want " + Quote(e.culprit) + ", got " + Quote(CulpritOf(inc)));
    }
  }
  if (e.incidents >= 0) {
    int got = CountIncidents(report.incidents);
    if (got != e.incidents) {
      out.mismatches.push_back("incidents: want " + std::to_string(e.incidents) + ", got " + std::to_string(got));
    }
  }
  out.pass = out.mismatches.empty();
  return out;
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

TEST(SegmenterFormats, CorpusCasesExtractThePrimaryIncident) {
  std::vector<Case> cases = LoadCases();
  ASSERT_GE(cases.size(), kMinCases) << "too few cases under " << kFormatsDir;

  LoadOptions load;
  load.env_path = false;  // the bundled rules only: the result must not depend on the environment
  LoadResult rules = LoadRules(load);
  Engine engine(rules.rules);

  std::ostringstream table;
  int gaps = 0, passing = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(c.load_error.empty()) << c.name << ": " << c.load_error;
    ASSERT_TRUE(fs::exists(c.dir / "log.txt")) << c.name << ": no log.txt";
    Report report = engine.DiagnoseText(ReadFile(c.dir / "log.txt"));
    Outcome o = Check(c, report);
    if (o.pass) ++passing;
    const char* status = o.pass ? (c.gap ? "NOW PASSES" : "ok") : (c.gap ? "gap" : "FAIL");
    table << "  " << std::left << std::setw(30) << c.name << " " << std::setw(10) << status;
    if (c.gap) table << " " << c.gap_reason;
    table << "\n";
    if (!o.pass) table << "  " << std::setw(41) << "" << " got: " << Join(o.mismatches, "; ") << "\n";
    if (c.gap) {
      ++gaps;
      EXPECT_FALSE(c.gap_reason.empty()) << c.name << ": segmenter_gap without gap_reason";
      EXPECT_FALSE(o.pass) << c.name << ": marked segmenter_gap but now passes: remove segmenter_gap and "
                           << "gap_reason from its label.yaml";
    } else {
      EXPECT_TRUE(o.pass) << c.name << ": " << Join(o.mismatches, "; ");
    }
  }
  std::cout << "[ formats  ] " << cases.size() << " cases, " << passing << " pass, " << gaps
            << " known segmenter gaps (segmenter_gap: true); every case:\n"
            << table.str();
}

// The labels themselves: the keys corpus/README.md and this suite rely on, and categories that exist.
TEST(SegmenterFormats, LabelsAreComplete) {
  std::vector<Case> cases = LoadCases();
  ASSERT_GE(cases.size(), kMinCases);
  YAML::Node taxonomy = YAML::LoadFile((fs::path(TRIAGE_SOURCE_DIR) / "rules" / "taxonomy.yaml").string());
  ASSERT_TRUE(taxonomy["categories"].IsMap());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(c.load_error.empty()) << c.load_error;
    const YAML::Node& l = c.label;
    ASSERT_TRUE(l["category"]) << "no category";
    std::string category = l["category"].as<std::string>();
    EXPECT_TRUE(taxonomy["categories"][category]) << "unknown category " << category;
    if (l["also"]) {
      for (const YAML::Node& a : l["also"]) {
        EXPECT_TRUE(taxonomy["categories"][a.as<std::string>()]) << "unknown category in also: " << a.as<std::string>();
      }
    }
    ASSERT_TRUE(l["provenance"]) << "no provenance";
    std::string provenance = l["provenance"].as<std::string>();
    EXPECT_TRUE(provenance == "real" || provenance == "assembled" || provenance == "formatted") << provenance;
    if (provenance == "formatted") {
      EXPECT_TRUE(l["source"]) << "formatted case without source";
    }
    if (provenance != "formatted") {
      bool producer = fs::exists(c.dir / "program.py") || fs::exists(c.dir / "program.cc") ||
                      fs::exists(c.dir / "make.sh");
      EXPECT_TRUE(producer) << "a " << provenance << " case needs the program.py/program.cc/make.sh that produced it";
    }
    EXPECT_TRUE(l["produced_by"]) << "no produced_by";
    EXPECT_TRUE(l["notes"]) << "no notes";
    EXPECT_TRUE(c.expected.has_exception) << "incident.exception missing";
    EXPECT_TRUE(c.expected.has_message) << "incident.message_starts missing";
    EXPECT_TRUE(c.expected.has_culprit) << "incident.culprit missing";
    EXPECT_TRUE(fs::exists(c.dir / "log.txt")) << "no log.txt";
  }
}

}  // namespace
}  // namespace triage
