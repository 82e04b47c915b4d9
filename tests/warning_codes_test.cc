// A report's warning codes (engine/src/diagnose/warning_codes.h): names are unique, engine/README.md
// documents the same table, and the engine really reports each code it can, and no code outside it.
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/warning_codes.h"
#include "doc_tables.h"
#include "log/segmenter.h"
#include "lua_test_rules.h"
#include "triage/evidence.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
TEST(WarningCodes, NamesAreUniqueKebabCase) {
  std::set<std::string> names;
  for (const WarningCodeInfo& info : kWarningCodes) {
    EXPECT_TRUE(std::regex_match(info.name, std::regex("[a-z]+(-[a-z]+)*"))) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "listed twice: " << info.name;
    EXPECT_EQ(WarningCodeName(info.code), std::string(info.name)) << "the table is out of enum order";
    EXPECT_TRUE(IsWarningCode(info.name));
  }
  EXPECT_FALSE(IsWarningCode("no-such-code"));
}

TEST(WarningCodes, EngineReadmeListsTheTable) {
  bool found = false;
  const std::vector<std::string> got = doc_tables::SectionRows(
      std::string(TRIAGE_SOURCE_DIR) + "/engine/README.md", "### Warning codes", std::regex("^\\| `([^`]+)` \\| (.*) \\|$"), &found);
  ASSERT_TRUE(found) << "engine/README.md has no \"### Warning codes\" section";
  std::vector<std::string> want;
  std::string rows;
  for (const WarningCodeInfo& info : kWarningCodes) {
    want.push_back(std::string(info.name) + " | " + info.summary);
    rows += "| `" + std::string(info.name) + "` | " + info.summary + " |\n";
  }
  EXPECT_EQ(got, want) << "engine/README.md \"Warning codes\" must list these rows, in this order:\n" << rows;
}

// A report from an engine with one Lua rule whose function `v` has `body`, on a log it matches.
Report WithFailingLua(const std::string& body) {
  LoadResult r = LoadRulesFromStrings({{"bad.yaml", lua_test::MatmulRule("bad", "values: lua:v\n")},
                                       {"bad.lua", "function v(ctx)\n  " + body + "\nend\n"}});
  EXPECT_TRUE(r.ok()) << body;
  if (!r.ok()) return Report();
  return Engine(r.rules).DiagnoseText(lua_test::kMatmul);
}

Report WithBundledRules(const std::string& log) {
  static const LoadResult rules = LoadRules({});
  return Engine(rules.rules).DiagnoseText(log);
}

// Every code of the table that the engine can report, it reports; every code it reports is listed.
TEST(WarningCodes, TheEngineReportsEachCode) {
  const std::map<std::string, std::function<Report()>> cases = {
      {"long-line", [] { return WithBundledRules(std::string(100 * 1024, 'x') + "\nstep 2\n"); }},
      {"too-many-incidents", [] {
         std::string log;
         for (int i = 0; i < 3 * SegmenterOptions().max_incidents; ++i) {
           log += "ValueError: bad record " + std::to_string(i) + "\n";
         }
         return WithBundledRules(log);
       }},
      {"lua-error", [] { return WithFailingLua("error('not today')"); }},
      {"lua-budget", [] { return WithFailingLua("while true do end"); }},
      {"lua-memory", [] { return WithFailingLua("return { s = string.rep('x', 1 << 28) }"); }},
      {"lua-bad-return", [] { return WithFailingLua("return 42"); }},
      {"probe-inconclusive", [] {
         Report r;
         ProbeEvidence e;
         e.probe = "init-loss";
         e.summary = "could not run";
         ApplyEvidence(r, {e});
         return r;
       }},
  };
  // Codes no input here can cause, and why.
  const std::map<std::string, std::string> not_caused = {
      {"lua-unavailable", "a Lua state fails to start only when memory runs out"},
      {"lua-missing-function",
       "the loader refuses a rule that names an undefined function, and while an input is diagnosed a rule's "
       "Lua cannot assign a global (so none can disappear)"},
      {"probe-failed", "reported by triage_probes' Guard (probes/src/guard.cc), outside the engine"},
  };

  for (const WarningCodeInfo& info : kWarningCodes) {
    const bool has_case = cases.count(info.name) > 0;
    EXPECT_NE(has_case, not_caused.count(info.name) > 0)
        << info.name << ": give it an input here, or say in not_caused why none can cause it (not both)";
    if (!has_case) continue;
    const Report r = cases.at(info.name)();
    std::string got;
    bool found = false;
    for (const Problem& p : r.warnings) {
      got += p.ToString() + "\n";
      EXPECT_TRUE(IsWarningCode(p.code)) << "an unlisted code: " << p.ToString();
      found = found || p.code == info.name;
    }
    EXPECT_TRUE(found) << info.name << " was not reported; the report's warnings:\n" << got;
  }
  for (const auto& [name, why] : not_caused) EXPECT_TRUE(IsWarningCode(name)) << name;
}

}  // namespace
}  // namespace triage
