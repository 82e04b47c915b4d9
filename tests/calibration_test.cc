// The global calibration map (Note: [Calibration map] in rules/README.md): parsing, interpolation, how a
// rule directory provides it, and the ranker applying it before abstention.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "rules/calibration.h"
#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {
namespace {

namespace fs = std::filesystem;

CalibrationMap MustParse(const std::string& text) {
  CalibrationMap m;
  std::string error;
  int line = 0;
  EXPECT_TRUE(CalibrationMap::Parse(text, &m, &error, &line)) << error;
  return m;
}

std::string ParseError(const std::string& text, int* line = nullptr) {
  CalibrationMap m;
  std::string error;
  int l = 0;
  EXPECT_FALSE(CalibrationMap::Parse(text, &m, &error, &l)) << text;
  if (line) *line = l;
  return error;
}

TEST(CalibrationMap, InterpolatesBetweenKnots) {
  CalibrationMap m = MustParse("knots:\n  - [0, 0]\n  - [0.5, 0.2]\n  - [0.8, 0.9]\n  - [1, 1]\n");
  EXPECT_DOUBLE_EQ(m.Apply(0.0), 0.0);
  EXPECT_DOUBLE_EQ(m.Apply(0.25), 0.1);
  EXPECT_DOUBLE_EQ(m.Apply(0.5), 0.2);
  EXPECT_NEAR(m.Apply(0.65), 0.55, 1e-12);
  EXPECT_DOUBLE_EQ(m.Apply(0.9), 0.95);
  EXPECT_DOUBLE_EQ(m.Apply(1.0), 1.0);
  // Out-of-range input is clamped, not extrapolated.
  EXPECT_DOUBLE_EQ(m.Apply(1.3), 1.0);
  EXPECT_DOUBLE_EQ(m.Apply(-0.2), 0.0);
}

TEST(CalibrationMap, NeverReordersTwoConfidences) {
  CalibrationMap m = MustParse("knots: [[0, 0], [0.3, 0.05], [0.6, 0.6], [0.9, 0.99], [1, 1]]\n");
  double previous = -1;
  for (int i = 0; i <= 1000; ++i) {
    double y = m.Apply(i / 1000.0);
    EXPECT_GE(y, previous) << "at " << i / 1000.0;
    previous = y;
  }
}

TEST(CalibrationMap, RejectsMapsThatDoNotCoverOrThatDecrease) {
  EXPECT_NE(ParseError("knots: [[0.1, 0], [1, 1]]\n").find("start at before = 0"), std::string::npos);
  EXPECT_NE(ParseError("knots: [[0, 0], [0.9, 1]]\n").find("end at before = 1"), std::string::npos);
  EXPECT_NE(ParseError("knots: [[0, 0], [0.5, 0.5], [0.5, 0.6], [1, 1]]\n").find("strictly increasing"), std::string::npos);
  int line = 0;
  EXPECT_NE(ParseError("knots:\n  - [0, 0]\n  - [0.5, 0.7]\n  - [0.7, 0.6]\n  - [1, 1]\n", &line).find("must not decrease"),
            std::string::npos);
  EXPECT_EQ(line, 4);
  EXPECT_NE(ParseError("knots: [[0, 0], [0.5, 1.5], [1, 1]]\n").find("[0, 1]"), std::string::npos);
  EXPECT_NE(ParseError("knots: [[0, 0], [0.5, high], [1, 1]]\n").find("numbers"), std::string::npos);
  EXPECT_NE(ParseError("knots: [[0, 0], [0.5], [1, 1]]\n").find("pair"), std::string::npos);
  EXPECT_NE(ParseError("knots: [[0, 0], [1, 1]]\nscale: 2\n").find("unknown key 'scale'"), std::string::npos);
  EXPECT_NE(ParseError("- [0, 0]\n").find("mapping"), std::string::npos);
  EXPECT_FALSE(ParseError("knots: [[0, 0], [1, 1]\n").empty());  // YAML syntax error
}

constexpr char kRule[] = R"(id: oom
category: cuda.oom
title: t
confidence: 0.8
match:
  message: 'CUDA out of memory'
  exception: [RuntimeError]
explain: e
hypotheses:
  - id: h
    text: t
    test: t
    fix: f
verify: v
examples:
  - match: 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB'
)";

// A rule directory under the system temp directory, removed with the fixture.
class CalibrationDir : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("triage_calibration_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_ / "one");
    fs::create_directories(base_ / "two");
    std::ofstream(base_ / "one" / "oom.yaml") << kRule;
  }
  void TearDown() override { fs::remove_all(base_); }

  LoadResult Load(const std::vector<std::string>& dirs) {
    LoadOptions o;
    o.bundled = o.env_path = o.system = o.user = o.project = o.cache = false;
    for (const std::string& d : dirs) o.dirs.push_back((base_ / d).string());
    return LoadRules(o);
  }

  fs::path base_;
};

TEST_F(CalibrationDir, TheRankerAppliesTheMapToTheFinalConfidence) {
  std::ofstream(base_ / "one" / "calibration.yaml") << "knots: [[0, 0], [0.8, 0.9], [1, 1]]\n";
  LoadResult r = Load({"one"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.rules->rules.size(), 1u) << "calibration.yaml is not a rule";
  ASSERT_TRUE(r.rules->calibration);
  Engine e(r.rules);
  Report typed = e.DiagnoseText("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n");
  ASSERT_EQ(typed.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(typed.diagnoses[0].confidence, 0.9);
  // The type factor applies before the map: 0.8 * 0.85 = 0.68 -> 0.68 * 0.9 / 0.8.
  Report bare = e.DiagnoseText("CUDA out of memory. Tried to allocate 2.00 MiB\n");
  ASSERT_EQ(bare.diagnoses.size(), 1u);
  EXPECT_NEAR(bare.diagnoses[0].confidence, 0.765, 1e-12);
}

TEST_F(CalibrationDir, AbstentionUsesTheCalibratedConfidence) {
  std::ofstream(base_ / "one" / "calibration.yaml") << "knots: [[0, 0], [0.8, 0.3], [1, 1]]\n";
  LoadResult r = Load({"one"});
  ASSERT_TRUE(r.ok());
  Engine e(r.rules);
  EXPECT_TRUE(e.DiagnoseText("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n").diagnoses.empty());
}

TEST_F(CalibrationDir, TheLastDirectoryWithAMapProvidesIt) {
  std::ofstream(base_ / "one" / "calibration.yaml") << "knots: [[0, 0], [0.8, 0.9], [1, 1]]\n";
  std::ofstream(base_ / "two" / "calibration.yaml") << "knots: [[0, 0], [0.8, 0.6], [1, 1]]\n";
  LoadResult r = Load({"one", "two"});
  ASSERT_TRUE(r.ok());
  Engine e(r.rules);
  Report rep = e.DiagnoseText("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n");
  ASSERT_EQ(rep.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(rep.diagnoses[0].confidence, 0.6);
}

TEST_F(CalibrationDir, ABrokenMapIsAnErrorAndConfidencesStayUncalibrated) {
  std::ofstream(base_ / "one" / "calibration.yaml") << "knots: [[0, 0], [0.8, 0.9]]\n";
  LoadResult r = Load({"one"});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].code, "bad-calibration");
  EXPECT_EQ(r.problems[0].file, (base_ / "one" / "calibration.yaml").string());
  EXPECT_FALSE(r.rules->calibration);
  Engine e(r.rules);
  Report rep = e.DiagnoseText("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n");
  ASSERT_EQ(rep.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(rep.diagnoses[0].confidence, 0.8);
}

TEST(BundledCalibration, TheShippedMapLoads) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  LoadResult r = LoadRules(o);
  for (const Problem& p : r.problems) EXPECT_NE(p.code, "bad-calibration") << p.ToString();
  EXPECT_TRUE(r.rules->calibration) << "rules/calibration.yaml is missing (corpus/fit_calibration.py --write)";
}

}  // namespace
}  // namespace triage
