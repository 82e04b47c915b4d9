// EvaluateCorpus and EvalReport (engine/src/diagnose/tools.cc, Note: [Eval splits]): which split a case
// belongs to, the per-slice figures, and the calibration error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

const std::string kLog = std::string(TRIAGE_SOURCE_DIR) + "/corpus/shape/linear-flattened-conv/log.txt";

void WriteCase(const fs::path& dir, const std::string& label) {
  fs::create_directories(dir);
  fs::copy_file(kLog, dir / "log.txt", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "label.yaml") << label;
}

class EvalSplits : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triage-eval-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    WriteCase(root_ / "shape" / "ours", "category: shape.matmul_mismatch\nprovenance: real\n");
    WriteCase(root_ / "wild" / "shape" / "right", "category: shape.matmul_mismatch\nprovenance: wild\nsource: x\n");
    // A wrong label: the log is a matmul mismatch, so this wild case is a top-1 miss.
    WriteCase(root_ / "wild" / "shape" / "wrong", "category: shape.view_invalid\nprovenance: wild\nsource: x\n");
    WriteCase(root_ / "heldout" / "shape" / "a", "category: shape.matmul_mismatch\nprovenance: wild\nsource: x\n");
    WriteCase(root_ / "heldout" / "negative" / "b", "category: none\nprovenance: wild\nsource: x\n");
    LoadOptions o;
    o.env_path = false;
    report_ = EvaluateCorpus(Engine(LoadRules(o).rules), root_.string());
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
  EvalReport report_;
};

TEST_F(EvalSplits, EachCaseGetsItsSplit) {
  ASSERT_EQ(report_.total, 5) << report_.ToText();
  for (const EvalCase& c : report_.cases) {
    std::string want = c.dir.find("/heldout/") != std::string::npos ? "heldout"
                       : c.dir.find("/wild/") != std::string::npos   ? "wild"
                                                                      : "ours";
    EXPECT_EQ(c.split, want) << c.dir;
  }
}

TEST_F(EvalSplits, SliceCountsOnlyItsCases) {
  EvalSlice wild = report_.Slice([](const EvalCase& c) { return c.split == "wild"; });
  EXPECT_EQ(wild.total, 2);
  EXPECT_EQ(wild.top1, 1);
  EXPECT_EQ(wild.answered, 2);
  EvalSlice held = report_.Slice([](const EvalCase& c) { return c.split == "heldout"; });
  EXPECT_EQ(held.total, 2);
  EXPECT_EQ(held.negatives, 1);
  // The negative holds a matmul traceback, so it is flagged: a negative is clean only without a diagnosis.
  EXPECT_EQ(held.negatives_flagged, 1);
  EXPECT_EQ(held.top1, 1);
}

TEST_F(EvalSplits, CalibrationErrorIsTheGapBetweenConfidenceAndAccuracy) {
  // The two wild answers share one confidence p (same log, same rule): one right, one wrong, so the
  // bucket's accuracy is 0.5 and its error |0.5 - p|.
  double p = -1;
  for (const EvalCase& c : report_.cases) {
    if (c.split == "wild") {
      ASSERT_FALSE(c.got.empty());
      if (p >= 0) {
        EXPECT_DOUBLE_EQ(c.got[0].confidence, p);
      }
      p = c.got[0].confidence;
    }
  }
  EvalSlice wild = report_.Slice([](const EvalCase& c) { return c.split == "wild"; });
  EXPECT_NEAR(wild.ece, std::abs(0.5 - p), 1e-9);
}

TEST_F(EvalSplits, TextReportsHeldOutOnItsOwnLine) {
  std::string text = report_.ToText();
  EXPECT_NE(text.find("eval heldout: 2 cases, top-1  50.0% (1/2)"), std::string::npos) << text;
  EXPECT_NE(text.find("eval wild: 2 cases, top-1  50.0% (1/2)"), std::string::npos) << text;
  EXPECT_NE(text.find("by family, heldout:"), std::string::npos) << text;
  EXPECT_NE(text.find("expected calibration error"), std::string::npos) << text;
}

// The held-out negative is a miss (it gets the matmul diagnosis): counted, not named, unless asked for.
TEST_F(EvalSplits, HeldOutMissesAreCountedNotNamed) {
  std::string text = report_.ToText();
  EXPECT_NE(text.find("wild/shape/wrong: expected shape.view_invalid"), std::string::npos) << text;
  EXPECT_EQ(text.find("heldout/negative/b"), std::string::npos) << text;
  EXPECT_NE(text.find("(1 held-out miss not named"), std::string::npos) << text;
  std::string listed = report_.ToText(/*list_heldout_misses=*/true);
  EXPECT_NE(listed.find("heldout/negative/b: expected none"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("held-out miss not named"), std::string::npos) << listed;
}

// Note: [Miss kinds]: each positive miss says what the engine had for it; the text counts them per split.
TEST(EvalMissKinds, EachMissSaysWhatTheEngineHad) {
  auto rule = [](const std::string& id, const std::string& pattern, const std::string& confidence) {
    return "id: " + id + "\ncategory: shape.matmul_mismatch\ntitle: t\nconfidence: " + confidence +
           "\nmatch:\n  message: '" + pattern + "'\nexplain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n" +
           "    fix: f\nverify: v\nexamples:\n  - match: 'RuntimeError: " + pattern + "'\n";
  };
  LoadResult loaded = LoadRulesFromStrings({{"weak.yaml", rule("weak", "weak signal here", "0.2")},
                                            {"strong.yaml", rule("strong", "strong signal here", "0.9")}});
  for (const Problem& p : loaded.problems) ADD_FAILURE() << p.ToString();
  const fs::path root = fs::temp_directory_path() / ("triage-eval-kinds-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& name, const std::string& log, const std::string& category) {
    fs::create_directories(root / "wild" / name);
    std::ofstream(root / "wild" / name / "log.txt") << log;
    std::ofstream(root / "wild" / name / "label.yaml") << "category: " << category << "\nprovenance: wild\nsource: x\n";
  };
  write("a-hit", "RuntimeError: strong signal here\n", "shape.matmul_mismatch");
  write("b-wrong", "RuntimeError: strong signal here\n", "shape.view_invalid");
  write("c-no-incident", "epoch 1 done\nepoch 2 done\n", "shape.view_invalid");
  write("d-no-rule", "RuntimeError: nothing any rule knows\n", "shape.view_invalid");
  write("e-under", "RuntimeError: weak signal here\n", "shape.view_invalid");
  write("f-under-right", "RuntimeError: weak signal here\n", "shape.matmul_mismatch");
  write("g-negative", "epoch 1 done\n", "none");
  EvalReport report = EvaluateCorpus(Engine(loaded.rules), root.string());
  fs::remove_all(root);
  std::vector<std::string> kinds;
  for (const EvalCase& c : report.cases) kinds.push_back(c.miss);
  EXPECT_EQ(kinds, (std::vector<std::string>{"", "wrong", "no-incident", "no-rule", "under-threshold",
                                             "under-threshold-right", ""}));
  const std::string text = report.ToText();
  EXPECT_NE(text.find("d-no-rule: expected shape.view_invalid, got nothing (no-rule)"), std::string::npos) << text;
  EXPECT_NE(text.find("  wild            1           1        1               1                     1\n"), std::string::npos)
      << text;
}

// Note: [Masked causes]: the eval counts the masked causes among the first three answers, how many are
// accepted, and how many turned a top-1 miss into a top-3 hit.
TEST(EvalMaskedCauses, CountsShownAcceptedAndRescued) {
  const std::string masking =
      "id: lib\ncategory: cuda.library_error\ntitle: t\nconfidence: 0.9\nmatch:\n  message: 'CUBLAS_STATUS'\n"
      "explain: e\nhypotheses:\n  - id: library\n    text: t\n    test: t\n    fix: f\n"
      "  - id: earlier-index\n    category: index.out_of_range\n    text: t2\n    test: t2\n    fix: f2\n"
      "verify: v\nexamples:\n  - match: 'CUBLAS_STATUS'\n";
  LoadResult loaded = LoadRulesFromStrings({{"lib.yaml", masking}});
  for (const Problem& p : loaded.problems) ADD_FAILURE() << p.ToString();
  const fs::path root = fs::temp_directory_path() / ("triage-eval-masked-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& name, const std::string& category) {
    fs::create_directories(root / "wild" / name);
    std::ofstream(root / "wild" / name / "log.txt") << "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED\n";
    std::ofstream(root / "wild" / name / "label.yaml") << "category: " << category << "\nprovenance: wild\nsource: x\n";
  };
  write("a-library", "cuda.library_error");  // shown, not accepted
  write("b-index", "index.out_of_range");    // shown, accepted, a top-1 miss made a top-3 hit
  write("c-other", "cuda.oom");              // shown, not accepted
  EvalReport report = EvaluateCorpus(Engine(loaded.rules), root.string());
  fs::remove_all(root);
  EXPECT_EQ(report.top1, 1);
  EXPECT_EQ(report.top3, 2);
  const std::string text = report.ToText();
  EXPECT_NE(text.find("  wild            3         1   33.3%                         1\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace triage
