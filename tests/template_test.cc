#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "rules/template.h"

namespace triage {
namespace {

bool Lookup(const std::string& name, std::string* v) {
  if (name == "got") { *v = "57600"; return true; }
  return false;
}

TEST(RenderTemplate, FillsNamesAndKeepsBraces) {
  EXPECT_EQ(RenderTemplate("gets {got} features", Lookup), "gets 57600 features");
  EXPECT_EQ(RenderTemplate("{{literal}} {got}", Lookup), "{literal} 57600");
  EXPECT_EQ(RenderTemplate("unknown {nope}", Lookup), "unknown ?");
  EXPECT_EQ(RenderTemplate("", Lookup), "");
}

TEST(TemplateNames, ListsNamesAndReportsErrors) {
  std::string error;
  EXPECT_EQ(TemplateNames("{a} and {b_2} {{not}}", &error), (std::vector<std::string>{"a", "b_2"}));
  EXPECT_EQ(error, "");
  const char* bad[] = {"{unterminated", "{}", "{a b}", "dict {'k': 1}"};
  for (const char* t : bad) {
    TemplateNames(t, &error);
    EXPECT_NE(error, "") << t;
  }
}

// TemplateNames jumps from brace to brace; RenderTemplate's walk reads every byte. Both must give the
// same names and the same error (text and offset) on any template, braces doubled, tripled, lone or
// unterminated included.
TEST(TemplateNames, AnswersAsTheRenderingWalkDoes) {
  std::mt19937 rng(15);
  const std::string alphabet = "{{{}}}ab_1 -'x";
  size_t errors = 0, named = 0;
  for (int n = 0; n < 60000; ++n) {
    std::string t;
    const size_t len = rng() % 24;
    for (size_t i = 0; i < len; ++i) t += alphabet[rng() % alphabet.size()];
    std::string fast_error, walk_error = "stale";
    const std::vector<std::string> fast = TemplateNames(t, &fast_error);
    const std::vector<std::string> walk = TemplateNamesByWalk(t, &walk_error);
    ASSERT_EQ(fast, walk) << t;
    ASSERT_EQ(fast_error, walk_error) << t;
    errors += fast_error.empty() ? 0 : 1;
    named += fast.empty() ? 0 : 1;
  }
  // The made-up templates reach every case: some fail, some name something.
  EXPECT_GT(errors, 1000u);
  EXPECT_GT(named, 1000u);
  std::string error = "stale";
  EXPECT_TRUE(TemplateNames("no braces", &error).empty());
  EXPECT_EQ(error, "");
  EXPECT_EQ(TemplateNames("}}}{a}{{b}}{c", &error), (std::vector<std::string>{"a"}));
  EXPECT_EQ(error, "unterminated '{' at offset 11");
}

}  // namespace
}  // namespace triage
