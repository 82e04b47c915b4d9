// One test per bundled rule, generated from the rule's own examples (like `triage rules test`).
#include <gtest/gtest.h>

#include "rules/rule.h"
#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {
namespace {

const LoadResult& Bundled() {
  static const LoadResult kRules = [] {
    LoadOptions o;
    o.env_path = false;
    return LoadRules(o);
  }();
  return kRules;
}

TEST(BundledRules, LoadWithoutErrorsOrWarnings) {
  const LoadResult& r = Bundled();
  std::string all;
  for (const Problem& p : r.problems) all += p.ToString() + "\n";
  EXPECT_TRUE(r.problems.empty()) << all;
  EXPECT_GT(r.rules->rules.size(), 0u);
}

TEST(BundledRules, EveryRuleHasAMatchAndANoMatchExample) {
  for (const Rule& rule : Bundled().rules->rules) {
    int match = 0, no_match = 0;
    for (const Example& e : rule.examples) {
      match += e.kind == ExampleKind::kMatch;
      no_match += e.kind == ExampleKind::kNoMatch;
    }
    EXPECT_GE(match, 1) << rule.file;
    EXPECT_GE(no_match, 1) << rule.file << ": guard a neighbour with a no_match example";
  }
}

class RuleExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleExamples, Hold) {
  RuleTestReport report = RunRuleExamples(*Bundled().rules, GetParam());
  ASSERT_EQ(report.rules, 1);
  for (const ExampleResult& r : report.results) {
    EXPECT_TRUE(r.passed) << r.file << ":" << r.line << ": " << ExampleKindName(r.kind) << ": " << r.detail;
    if (r.kind == ExampleKind::kKnownGap) {
      EXPECT_FALSE(r.detail.rfind("known gap now", 0) == 0) << r.file << ":" << r.line << ": " << r.detail;
    }
  }
}

std::vector<std::string> RuleIds() {
  std::vector<std::string> ids;
  for (const RuleInfo& r : ListRules(*Bundled().rules)) ids.push_back(r.id);
  return ids;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s) {
    if (c == '-') c = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Bundled, RuleExamples, ::testing::ValuesIn(RuleIds()), TestName);

}  // namespace
}  // namespace triage
