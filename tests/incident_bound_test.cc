// An incident never outlives its evidence (Note: [Incident bound] and [Streams] in segmenter.cc).
//
// The regression case is the 1 GiB benchmark log's construction (issue 15): a traceback whose every
// line carries a `[timestamp][ERROR] ` prefix (corpus/formats/logging-timestamp-every-line), then
// progress lines and uncaught c10::Errors without the prefix. The traceback stayed open across the
// unprefixed lines, and a C++ block that ended it took the traceback's stream, so its own unprefixed
// lines were "another stream": it never closed, and swallowed the rest of the log.
//
// The property (ConcatenatedLogs below), on the log path: what a log's incidents are does not depend
// on what came before it. The incidents found in a concatenation of corpus logs are those found in
// each log alone, shifted by the lines before it.
//
// Each log is followed by a separator of kSeparatorLines ordinary lines, alone and in the
// concatenation, so that the deliberate windows (a log line within SegmenterOptions::context_window
// lines of an exception is its context, a chain separator links to an exception that close) do not
// reach across logs, and a log that ends inside an incident (a cut traceback) ends the same way in
// both. Differences that are by design and so not compared:
// - `handled` (Note: [Handled]): an exception followed by ordinary output and then another exception
//   was survived; the next log's first exception is such a later one.
// - Identical incidents of two logs merge into one (DedupIncidents, by design): combinations in which
//   two logs share an incident are skipped.
// - Metric signals read the whole input: signal incidents are left out.
// The sample is deterministic: pairs and triples across the corpus, and every log after each log that
// teaches a learned prefix (the 1 GiB benchmark's failure: a prefixed traceback, then other output).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.h"
#include "log/segmenter.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

std::string ReadFile(const std::string& relative) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

std::string Progress(int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i) {
    out += "epoch 3 step " + std::to_string(i) + "/5000  loss 0." + std::to_string(4000 + i % 97) +
           "  grad_norm 1.25  lr 1.00e-03\n";
  }
  return out;
}

std::shared_ptr<const RuleSet> BundledRules() {
  static const LoadResult kLoaded = [] {
    LoadOptions o;
    o.env_path = false;
    o.system = o.user = o.project = false;
    return LoadRules(o);
  }();
  return kLoaded.rules;
}

struct Want {
  Incident::Kind kind;
  std::string exception, message_starts;
  int line_start, line_end;
  size_t frames;
};

std::string Describe(const Incident& inc) {
  return std::string(IncidentKindName(inc.kind)) + " [" + inc.exception + "] " + inc.message.substr(0, 60) + " lines " +
         std::to_string(inc.line_start) + "-" + std::to_string(inc.line_end) + ", " + std::to_string(inc.frames.size()) +
         " frames";
}

void ExpectIncidents(const std::vector<Incident>& all, const std::vector<Want>& want) {
  std::vector<const Incident*> got;
  std::string dump;
  for (const Incident& inc : all) {
    if (inc.kind == Incident::Kind::kSignal || inc.kind == Incident::Kind::kLogLine) continue;
    got.push_back(&inc);
    dump += Describe(inc) + "\n";
  }
  SCOPED_TRACE("incidents found:\n" + dump);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Incident& inc = *got[i];
    const Want& w = want[i];
    EXPECT_EQ(inc.kind, w.kind) << "incident " << i;
    EXPECT_EQ(inc.exception, w.exception) << "incident " << i;
    EXPECT_EQ(inc.message.rfind(w.message_starts, 0), 0u) << "incident " << i << ": " << inc.message.substr(0, 200);
    EXPECT_EQ(inc.line_start, w.line_start) << "incident " << i;
    EXPECT_EQ(inc.line_end, w.line_end) << "incident " << i;
    EXPECT_EQ(inc.frames.size(), w.frames) << "incident " << i;
  }
}

TEST(IncidentBound, PrefixedTracebackThenCxxErrorsEachIncidentCloses) {
  const std::string prefixed = ReadFile("corpus/formats/logging-timestamp-every-line/log.txt");
  const std::string terminate = ReadFile("tests/formats/cxx_error/log.txt");      // ends with "Aborted"
  const std::string caught = ReadFile("tests/formats/cxx_error_caught/log.txt");  // what() then its backtrace
  const std::string chain = ReadFile("tests/formats/python_traceback/log.txt");
  ASSERT_FALSE(prefixed.empty() || terminate.empty() || caught.empty() || chain.empty());

  // progress, the prefixed traceback, progress, terminate, progress, caught, progress, a chained pair,
  // progress, the prefixed traceback again, progress.
  std::string log;
  std::vector<int> at;  // the line before each block
  auto add = [&](const std::string& block) {
    at.push_back(CountLines(log));
    log += block;
  };
  add(Progress(300));
  add(prefixed);
  add(Progress(300));
  add(terminate);
  add(Progress(300));
  add(caught);
  add(Progress(300));
  add(chain);
  add(Progress(300));
  add(prefixed);
  add(Progress(300));

  using K = Incident::Kind;
  const std::string conv = "Expected 3D (unbatched) or 4D (batched) input to conv2d";
  const std::vector<Want> want = {
      // The prefixed traceback: its lines 6-19 (lines 1-5 are INFO lines).
      {K::kTraceback, "RuntimeError", conv, at[1] + 6, at[1] + 19, 4},
      // terminate called ... (line 1) to the blank line that ends the backtrace (line 19): 15 frames;
      // "Aborted" after it is not part of it.
      {K::kCxxError, "c10::Error", "mat1 and mat2 shapes cannot be multiplied (8x300 and 256x64)", at[3] + 1, at[3] + 19, 15},
      // The what() line (line 2) to its last frame.
      {K::kCxxError, "c10::Error", "request 1 failed: index out of range in self", at[5] + 2, at[5] + CountLines(caught), 17},
      // A chain: header (line 1) to the blank line after the exception line (17), then 21-24.
      {K::kTraceback, "ValueError", "Expected input batch_size (16) to match target batch_size (8)", at[7] + 1, at[7] + 17, 5},
      {K::kTraceback, "TrainingStepError", "training step 0 failed", at[7] + 21, at[7] + 24, 1},
  };

  // Identical incidents merge (the second prefixed traceback is counted on the first): compare the
  // segmenter's own list too, where nothing is merged.
  Segmenter seg(SegmenterOptions(), nullptr);
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) seg.AddLine(line);
  seg.Finish();
  std::vector<Want> want_all = want;
  want_all.push_back({K::kTraceback, "RuntimeError", conv, at[9] + 6, at[9] + 19, 4});
  {
    SCOPED_TRACE("segmenter alone, every line read");
    ExpectIncidents(seg.incidents(), want_all);
  }

  // The log path: rules, the line prefilter, 1 MiB reads.
  Session session(BundledRules(), {}, "bench-construction");
  for (size_t i = 0; i < log.size(); i += 1 << 20) session.Feed(std::string_view(log).substr(i, 1 << 20));
  Report report = session.Finish();
  {
    SCOPED_TRACE("Session with the bundled rules");
    ExpectIncidents(report.incidents, want);
  }
  for (const Incident& inc : report.incidents) {
    if (inc.exception == "RuntimeError") {
      EXPECT_EQ(inc.count, 2) << "the prefixed traceback, twice";
    }
  }
}

// The segmenter goes back to idle (where the prefilter works) once a C++ block after a prefixed
// traceback ends, not at the end of the input.
TEST(IncidentBound, SegmenterIsIdleAfterEachBlock) {
  Segmenter seg(SegmenterOptions(), nullptr);
  auto feed = [&](const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) seg.AddLine(line);
  };
  feed(ReadFile("corpus/formats/logging-timestamp-every-line/log.txt"));
  feed("step 1 loss 0.5\n");
  feed(ReadFile("tests/formats/cxx_error/log.txt"));
  feed("step 2 loss 0.4\n");
  EXPECT_TRUE(seg.idle());
  EXPECT_EQ(seg.incidents().size(), 2u);
}

// A message that goes on with lines adding nothing (every line indented, past max_message) closes
// after max_quiet_lines of them; the lines after are read as idle lines again.
TEST(IncidentBound, MessageWithoutNewEvidenceCloses) {
  SegmenterOptions options;
  options.max_message = 64;
  options.max_quiet_lines = 50;
  Segmenter seg(options, nullptr);
  seg.AddLine("ValueError: something went wrong");
  for (int i = 0; i < 100; ++i) seg.AddLine("   an indented continuation line of some length " + std::to_string(i));
  EXPECT_TRUE(seg.idle());
  seg.AddLine("KeyError: 'later'");
  seg.Finish();
  ASSERT_EQ(seg.incidents().size(), 2u);
  EXPECT_EQ(seg.incidents()[0].exception, "ValueError");
  EXPECT_LT(seg.incidents()[0].line_end, 60);
  EXPECT_EQ(seg.incidents()[1].exception, "KeyError");
  EXPECT_EQ(seg.incidents()[1].line_start, 102);
}

// Lines of another stream do not extend an incident; after max_quiet_bytes of them it closes.
TEST(IncidentBound, OtherStreamsLinesCloseItAfterTheByteBound) {
  SegmenterOptions options;
  options.max_quiet_bytes = 4096;
  Segmenter seg(options, nullptr);
  seg.AddLine("[rank1]: Traceback (most recent call last):");
  seg.AddLine("[rank1]:   File \"train.py\", line 3, in <module>");
  const std::string other = "[rank0]: step 10 loss 0.25 " + std::string(200, '.');
  int fed = 0;
  while (!seg.idle() && fed < 1000) {
    seg.AddLine(other);
    ++fed;
  }
  EXPECT_TRUE(seg.idle());
  EXPECT_LE(fed * other.size(), 4096u + other.size());
  seg.Finish();
  ASSERT_EQ(seg.incidents().size(), 1u);
  EXPECT_EQ(seg.incidents()[0].line_end, 2);
  EXPECT_EQ(seg.incidents()[0].frames.size(), 1u);
}

// A chain of frames keeps an incident open as long as it goes on: every frame is evidence, kept or
// not (here past max_frames).
TEST(IncidentBound, LongTracebacksAreNotCut) {
  SegmenterOptions options;
  options.max_quiet_lines = 20;
  options.max_frames = 10;
  Segmenter seg(options, nullptr);
  seg.AddLine("Traceback (most recent call last):");
  for (int i = 0; i < 500; ++i) {
    seg.AddLine("  File \"model.py\", line " + std::to_string(i + 1) + ", in f");
    seg.AddLine("    return f(x)");
  }
  seg.AddLine("RecursionError: maximum recursion depth exceeded");
  seg.Finish();
  ASSERT_EQ(seg.incidents().size(), 1u);
  EXPECT_EQ(seg.incidents()[0].exception, "RecursionError");
  EXPECT_EQ(seg.incidents()[0].frames.size(), 10u);
  EXPECT_EQ(seg.incidents()[0].line_end, 1002);
}

// ---- The property: the incidents of concatenated logs are those of each log alone. ----

namespace fs = std::filesystem;

// More than SegmenterOptions::context_window (200) after the longest an incident may take of the
// separator itself (a C++ what() message without its end takes up to 100 lines: formats/cxx_error.cc).
constexpr int kSeparatorLines = 400;

struct Log {
  std::string name;
  std::string text;  // ends with the separator
  int lines = 0;
  std::vector<Incident> incidents;  // found alone
};

std::string Separator() {
  std::string s;
  for (int i = 0; i < kSeparatorLines; ++i) s += "== waiting for the next job ==\n";
  return s;
}

std::vector<Incident> IncidentsOf(const std::string& text) {
  Session session(BundledRules(), {}, "concat");
  session.Feed(text);
  Report report = session.Finish();
  std::vector<Incident> out;
  for (Incident& inc : report.incidents) {
    if (inc.kind != Incident::Kind::kSignal) out.push_back(std::move(inc));
  }
  return out;
}

std::vector<Log> CorpusLogs() {
  const fs::path root(TRIAGE_SOURCE_DIR);
  std::vector<fs::path> paths;
  for (const fs::path& dir : {root / "corpus", root / "tests" / "formats"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
      const std::string rel = fs::relative(e.path(), root).string();
      // corpus/heldout is frozen for evaluation only; corpus/wild holds others' logs, also scored only.
      if (rel.rfind("corpus/heldout", 0) == 0 || rel.rfind("corpus/wild", 0) == 0) continue;
      if (e.is_regular_file() && e.path().filename() == "log.txt" && e.file_size() < 256 * 1024) paths.push_back(e.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  const std::string separator = Separator();
  std::vector<Log> logs;
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    Log log;
    log.name = fs::relative(p, root).string();
    log.text = ss.str();
    // A concatenation is one-encoding text (Note: [One-encoding text] in tests/cli_support.h): after a log
    // whose tail is UTF-16, the logs that follow would be read as UTF-16 too.
    if (!triage_test::OneEncodingText(log.text)) continue;
    if (!log.text.empty() && log.text.back() != '\n') log.text += '\n';
    log.text += separator;
    log.lines = static_cast<int>(std::count(log.text.begin(), log.text.end(), '\n'));
    log.incidents = IncidentsOf(log.text);
    logs.push_back(std::move(log));
  }
  return logs;
}

std::string DedupKey(const Incident& inc) {
  return std::to_string(static_cast<int>(inc.kind)) + '\x1f' + inc.exception + '\x1f' + inc.message + '\x1f' +
         inc.CulpritText();
}

// Everything compared of an incident (not `handled`).
std::string Fingerprint(const Incident& inc) {
  std::ostringstream s;
  s << IncidentKindName(inc.kind) << " [" << inc.exception << "] lines " << inc.line_start << "-" << inc.line_end << " rank '" << inc.rank << "' count " << inc.count << " cause "
    << inc.caused_by << " culprit " << inc.culprit << " message '"
    << inc.message << "' frames";
  for (const Frame& f : inc.frames) s << " | " << f.file << ":" << f.line << " " << f.function << " " << f.source << (f.user ? " U" : "");
  s << " context";
  for (const std::string& c : inc.context) s << " | " << c;
  return s.str();
}

// Checks one combination; returns false when it was skipped (two logs share an incident).
bool CheckCombination(const std::vector<Log>& logs, const std::vector<size_t>& parts) {
  std::set<std::string> keys;
  std::string text, names;
  std::vector<std::string> want;
  int line_offset = 0, index_offset = 0;
  for (size_t i : parts) {
    const Log& log = logs[i];
    std::set<std::string> own;
    for (const Incident& inc : log.incidents) own.insert(DedupKey(inc));
    for (const std::string& k : own) {
      if (!keys.insert(k).second) return false;
    }
    for (const Incident& inc : log.incidents) {
      Incident shifted = inc;
      shifted.line_start += line_offset;
      shifted.line_end += line_offset;
      if (shifted.caused_by >= 0) shifted.caused_by += index_offset;
      want.push_back(Fingerprint(shifted));
    }
    text += log.text;
    names += " " + log.name;
    line_offset += log.lines;
    index_offset += static_cast<int>(log.incidents.size());
  }
  std::vector<std::string> got;
  for (const Incident& inc : IncidentsOf(text)) got.push_back(Fingerprint(inc));
  if (got != want) {
    std::string report;
    for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
      const std::string g = i < got.size() ? got[i] : "(none)";
      const std::string w = i < want.size() ? want[i] : "(none)";
      if (g == w) continue;
      // From a little before the first difference.
      size_t at = 0;
      while (at < g.size() && at < w.size() && g[at] == w[at]) ++at;
      at = at > 150 ? at - 150 : 0;
      report += "incident " + std::to_string(i) + " (from byte " + std::to_string(at) + ")\n  alone:  " + w.substr(at, 400) +
                "\n  joined: " + g.substr(at, 400) + "\n";
    }
    ADD_FAILURE() << "the concatenation of" << names << " differs from its logs alone:\n" << report;
  }
  return true;
}

TEST(ConcatenatedLogs, IncidentsAreThoseOfEachLogAlone) {
  const std::vector<Log> logs = CorpusLogs();
  ASSERT_GE(logs.size(), 100u);
  const size_t n = logs.size();
  std::vector<std::vector<size_t>> combos;
  for (size_t i = 0; i < n; ++i) combos.push_back({i, (i * 7 + 1) % n});
  for (size_t i = 0; i < n; i += 4) combos.push_back({i, (i + n / 3) % n, (i + 2 * n / 3) % n});
  // Logs that teach a learned prefix, each followed by every third log.
  for (size_t p = 0; p < n; ++p) {
    const std::string& name = logs[p].name;
    if (name.find("timestamp") == std::string::npos && name.find("journalctl") == std::string::npos &&
        name.find("learned_prefix") == std::string::npos) {
      continue;
    }
    for (size_t i = p % 3; i < n; i += 3) combos.push_back({p, i});
  }
  int checked = 0;
  for (std::vector<size_t>& c : combos) {
    if (std::set<size_t>(c.begin(), c.end()).size() != c.size()) continue;
    checked += CheckCombination(logs, c);
  }
  EXPECT_GE(checked, static_cast<int>(n));  // most combinations share no incident
}

}  // namespace
}  // namespace triage
