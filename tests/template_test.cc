#include <gtest/gtest.h>

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

}  // namespace
}  // namespace triage
