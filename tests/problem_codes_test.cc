// The rule loader's problem codes (engine/src/rules/problem_codes.h): names are unique and
// rules/README.md documents the same table. That the loader reports each code is tested in
// rule_loader_test.cc (RuleLoader.ReportsEveryCodeOfTheTable).
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rules/problem_codes.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

const char* SeverityName(Problem::Severity s) { return s == Problem::Severity::kError ? "error" : "warning"; }

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  const std::string readme = ReadFile(fs::path(TRIAGE_SOURCE_DIR) / "rules" / "README.md");
  const size_t start = readme.find("\n## Problem codes\n");
  ASSERT_NE(start, std::string::npos) << "rules/README.md has no \"## Problem codes\" section";
  const size_t end = readme.find("\n## ", start + 1);
  std::istringstream section(readme.substr(start, end == std::string::npos ? std::string::npos : end - start));
  const std::regex row("^\\| `([^`]+)` \\| (error|warning) \\| (.*) \\|$");
  std::vector<std::string> got;
  for (std::string line; std::getline(section, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) got.push_back(m[1].str() + " | " + m[2].str() + " | " + m[3].str());
  }
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
