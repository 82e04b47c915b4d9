// Note: [Quote markers] (formats/quote_marker.h), Note: [Rank prefix] (formats/rank_prefix.h): a log
// whose every line carries the same prefix, a reply's Markdown quote marker or torch 2.x's rank prefix,
// gets the diagnosis of the log as printed. Every corpus log with a diagnosis (ours and the wild tuning
// split, never corpus/heldout) is prefixed line by line and must keep its first diagnosis (rule and
// category): tracebacks, error lines, lines the rules match, and the metric series the signal rules
// read, those read from a line's first column (epoch tables, CSV rows, the tutorial layouts) included.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// `text` with `prefix` before each of its lines.
std::string PrefixLines(const std::string& text, const std::string& prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 16 * prefix.size());
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out += prefix;
    out.append(text, at, end - at);
    at = end;
  }
  return out;
}

class LinePrefix : public ::testing::TestWithParam<const char*> {};

TEST_P(LinePrefix, EveryLinePrefixedKeepsTheDiagnosis) {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  LoadResult loaded = LoadRules(o);
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const std::string prefix = GetParam();
  int cases = 0, kept = 0, signal_cases = 0, signal_kept = 0;
  // One-encoding text only (Note: [One-encoding text] in tests/cli_support.h).
  for (const fs::path& log : triage_test::TextCorpusLogs()) {
    const std::string text = triage_test::ReadFile(log.string());
    const Report plain = engine.DiagnoseText(text, triage_test::LeaveOut(log));
    if (plain.diagnoses.empty()) continue;
    const Report prefixed = engine.DiagnoseText(PrefixLines(text, prefix), triage_test::LeaveOut(log));
    const bool signal = !plain.diagnoses[0].evidence.empty();
    ++cases;
    signal_cases += signal;
    EXPECT_FALSE(prefixed.diagnoses.empty()) << log << " with \"" << prefix << "\": no diagnosis";
    if (prefixed.diagnoses.empty()) continue;
    const bool same = prefixed.diagnoses[0].rule == plain.diagnoses[0].rule &&
                      prefixed.diagnoses[0].category == plain.diagnoses[0].category;
    EXPECT_TRUE(same) << log << " with \"" << prefix << "\": " << prefixed.diagnoses[0].rule << " instead of "
                      << plain.diagnoses[0].rule;
    kept += same;
    signal_kept += same && signal;
  }
  EXPECT_GE(signal_cases, 20) << "the corpus has logs diagnosed from their metrics";
  std::printf("prefix \"%s\": %d of %d diagnosed logs keep their diagnosis (%d of %d from metrics)\n",
              prefix.c_str(), kept, cases, signal_kept, signal_cases);
}

INSTANTIATE_TEST_SUITE_P(QuoteAndRank, LinePrefix, ::testing::Values("> ", "> > ", "[rank0]: "));

// Logging prefixes (Note: [Learned prefix]): Python's logging with a time and a level, a bracketed
// time and level, glog/absl's header (used by TensorFlow, JAX and XLA logs), and a container runtime's
// or CI runner's ISO time stamp.
INSTANTIATE_TEST_SUITE_P(Logging, LinePrefix,
                         ::testing::Values("2024-01-02 10:11:12,345 INFO ", "[2024-01-02 10:11:12] [ERROR] ",
                                           "I1128 10:11:12.345678 12345 file.py:42] ",
                                           "2024-03-02T10:15:31.4812345Z "));

// Docker Compose's service prefix with the names Compose gives containers itself, 1.x's and 2.x's (Note:
// [Compose runs]): read from the first line whether or not the log holds a traceback.
INSTANTIATE_TEST_SUITE_P(Compose, LinePrefix,
                         ::testing::Values("trainer_1  | ", "webui-docker-auto-1  | "));

}  // namespace
}  // namespace triage
