// The rule loader's problem codes (engine/src/rules/problem_codes.h): names are unique and
// rules/README.md documents the same table. That the loader reports each code is tested in
// rule_loader_test.cc (RuleLoader.ReportsEveryCodeOfTheTable).
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "doc_tables.h"
#include "rules/problem_codes.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

const char* SeverityName(Problem::Severity s) { return s == Problem::Severity::kError ? "error" : "warning"; }

TEST(ProblemCodes, NamesAreUniqueKebabCase) {
  std::set<std::string> names;
  for (const ProblemCodeInfo& info : kProblemCodes) {
    EXPECT_TRUE(std::regex_match(info.name, std::regex("[a-z]+(-[a-z]+)*"))) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "listed twice: " << info.name;
    ProblemCode back = ProblemCode::kBadType;
    ASSERT_TRUE(ProblemCodeFromName(info.name, &back)) << info.name;
    EXPECT_EQ(ProblemCodeName(back), std::string(info.name));
    EXPECT_EQ(ProblemCodeName(info.code), std::string(info.name)) << "the table is out of enum order";
  }
  ProblemCode none = ProblemCode::kBadType;
  EXPECT_FALSE(ProblemCodeFromName("no-such-code", &none));
}

TEST(ProblemCodes, RulesReadmeListsTheTable) {
  bool found = false;
  const std::vector<std::string> got =
      doc_tables::SectionRows(std::string(TRIAGE_SOURCE_DIR) + "/rules/README.md", "## Problem codes",
                              std::regex("^\\| `([^`]+)` \\| (error|warning) \\| (.*) \\|$"), &found);
  ASSERT_TRUE(found) << "rules/README.md has no \"## Problem codes\" section";
  std::vector<std::string> want;
  std::string rows;
  for (const ProblemCodeInfo& info : kProblemCodes) {
    want.push_back(std::string(info.name) + " | " + SeverityName(info.severity) + " | " + info.summary);
    rows += "| `" + std::string(info.name) + "` | " + SeverityName(info.severity) + " | " + info.summary + " |\n";
  }
  EXPECT_EQ(got, want) << "rules/README.md \"Problem codes\" must list these rows, in this order:\n" << rows;
}

}  // namespace
}  // namespace triage
