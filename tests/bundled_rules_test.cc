// One test per bundled rule, generated from the rule's own examples (like `triage rules test`).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "doc_tables.h"
#include "rules/rule.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

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

// The rules a C++ trainer cannot meet: rules/README.md "Rules a C++ trainer cannot meet" lists
// categories (with a '.') and single rule ids, each with its reason.
struct PythonOnly {
  bool found = false;
  std::vector<std::string> rows;  // "name | reason"
  std::set<std::string> categories, rule_ids;
  bool Has(const Rule& rule) const { return categories.count(rule.category) || rule_ids.count(rule.id); }
};

const PythonOnly& PythonOnlyRules() {
  static const PythonOnly kList = [] {
    PythonOnly p;
    p.rows = doc_tables::SectionRows(std::string(TRIAGE_SOURCE_DIR) + "/rules/README.md", "#### Rules a C++ trainer cannot meet",
                                     std::regex(R"(\| `([a-z0-9_.-]+)` \| (.+) \|)"), &p.found);
    for (const std::string& row : p.rows) {
      const std::string name = row.substr(0, row.find(" | "));
      (name.find('.') != std::string::npos ? p.categories : p.rule_ids).insert(name);
    }
    return p;
  }();
  return kList;
}

// Note: [Audience]. Every rule a LibTorch C++ trainer can meet speaks C++: each hypothesis has a
// `cpp.fix`, a `cpp.test` unless its test is a probe, and the rule a `cpp.verify` when it has a
// verification text; otherwise the Guard and Monitor would show Python advice marked "(written for
// Python)". The table in rules/README.md is the only way out of this check, so the coverage cannot
// regress silently when a rule is added.
TEST(BundledRules, EveryRuleACxxTrainerCanMeetHasCxxAdvice) {
  const PythonOnly& list = PythonOnlyRules();
  ASSERT_TRUE(list.found) << "rules/README.md lost its section 'Rules a C++ trainer cannot meet'";
  ASSERT_FALSE(list.rows.empty());
  std::set<std::string> known_categories, known_ids;
  for (const Rule& rule : Bundled().rules->rules) {
    known_categories.insert(rule.category);
    known_ids.insert(rule.id);
  }
  for (const std::string& row : list.rows) {
    const std::string name = row.substr(0, row.find(" | "));
    EXPECT_GE(row.size(), name.size() + 3 + 20) << name << ": say why a C++ program cannot meet it";
    const bool category = name.find('.') != std::string::npos;
    EXPECT_TRUE(category ? known_categories.count(name) : known_ids.count(name))
        << name << ": no bundled rule has this " << (category ? "category" : "id");
  }
  int checked = 0;
  for (const Rule& rule : Bundled().rules->rules) {
    EXPECT_FALSE(list.categories.count(rule.category) && list.rule_ids.count(rule.id))
        << rule.id << " is listed on its own and through its category " << rule.category;
    bool any_cpp = !rule.cpp_verify.value.empty() || !rule.cpp_checks.empty();
    for (const HypothesisSpec& h : rule.hypotheses) any_cpp |= !h.cpp_fix.value.empty() || !h.cpp_test.value.empty();
    if (list.Has(rule)) {
      // A listed rule that gained C++ advice belongs off the list (the reason given there is stale).
      EXPECT_FALSE(any_cpp) << rule.file << ": has C++ advice but rules/README.md lists it as Python-only";
      continue;
    }
    ++checked;
    for (const HypothesisSpec& h : rule.hypotheses) {
      EXPECT_FALSE(h.cpp_fix.value.empty()) << rule.file << ": hypothesis '" << h.id << "' has no cpp.fix";
      if (h.probe.empty()) {
        EXPECT_FALSE(h.cpp_test.value.empty()) << rule.file << ": hypothesis '" << h.id << "' has no cpp.test";
      }
    }
    if (!rule.verify.value.empty()) {
      EXPECT_FALSE(rule.cpp_verify.value.empty()) << rule.file << ": no cpp.verify";
    }
  }
  EXPECT_GT(checked, 0);
}

// The same rules as a C++ trainer reads them: each rule's own `match` examples diagnosed for
// Audience::kCxx give that rule's diagnosis with a fix for every cause, nothing marked "(written for
// Python)", and no Python command among its tests and checks.
// rules/README.md "Wordings across releases" (Note: [Wordings]): every rule a row names is bundled and
// carries match examples, which the RuleExamples tests below hold against the rule's patterns; a row
// that names no rule, or a rule that was renamed or removed, fails here.
TEST(BundledRules, WordingsTableNamesRulesWithMatchExamples) {
  bool found = false;
  const std::vector<std::string> rows = doc_tables::SectionRows(
      std::string(TRIAGE_SOURCE_DIR) + "/rules/README.md", "## Wordings across releases",
      std::regex(R"(\| (.+?) \| (.+) \| (.+) \|)"), &found);
  ASSERT_TRUE(found) << "rules/README.md lost its section 'Wordings across releases'";
  std::map<std::string, const Rule*> by_id;
  for (const Rule& rule : Bundled().rules->rules) by_id[rule.id] = &rule;
  const std::regex id(R"(`([a-z0-9-]+)`)");
  int named = 0;
  for (const std::string& row : rows) {
    const std::string first = row.substr(0, row.find(" | "));
    if (first == "rule" || first.find("---") != std::string::npos) continue;
    int in_row = 0;
    for (std::sregex_iterator it(first.begin(), first.end(), id), end; it != end; ++it) {
      ++in_row;
      const std::string name = (*it)[1];
      const auto rule = by_id.find(name);
      if (rule == by_id.end()) {
        ADD_FAILURE() << "rules/README.md 'Wordings across releases' names " << name << ", which no bundled rule has";
        continue;
      }
      int match = 0;
      for (const Example& e : rule->second->examples) match += e.kind == ExampleKind::kMatch;
      EXPECT_GE(match, 1) << name << ": a rule in the wordings table needs a match example for each wording";
    }
    EXPECT_GE(in_row, 1) << "a row of 'Wordings across releases' names no rule: " << row;
    named += in_row;
  }
  EXPECT_GE(named, 40);
}

TEST(BundledRules, CxxReportsOfTheseRulesCarryNoPython) {
  const char* const kPython[] = {"(written for Python)", "python -c", "python3 -c", "python train", "pip install",
                                 "pip list", "--include=*.py", "import torch", "torch.nn.utils", "with torch.no_grad"};
  DiagnoseOptions o;
  o.audience = Audience::kCxx;
  o.min_confidence = 0;
  o.fold_signals = false;
  const Engine engine(Bundled().rules);
  int rendered = 0;
  for (const Rule& rule : Bundled().rules->rules) {
    if (PythonOnlyRules().Has(rule)) continue;
    bool seen = false;
    for (const Example& e : rule.examples) {
      if (e.kind != ExampleKind::kMatch) continue;
      const Report report = engine.DiagnoseText(e.text, o);
      for (const Diagnosis& d : report.diagnoses) {
        if (d.rule != rule.id) continue;
        seen = true;
        std::vector<std::string> texts = d.checks;
        texts.push_back(d.verify);
        for (const Hypothesis& h : d.hypotheses) {
          EXPECT_FALSE(h.fix.empty()) << rule.file << ": " << h.id;
          texts.push_back(h.test);
          texts.push_back(h.fix);
        }
        for (const std::string& t : texts) {
          for (const char* python : kPython) EXPECT_EQ(t.find(python), std::string::npos) << rule.file << ": " << t;
        }
      }
    }
    EXPECT_TRUE(seen) << rule.file << ": no match example gave this rule's diagnosis";
    rendered += seen;
  }
  EXPECT_GT(rendered, 100);
}

// A command is copied as it is printed: a value that is empty for this input (cuda-oom's {smi_sub} on
// CUDA) must not leave a blank at its end. Every bundled rule's match examples, both audiences.
TEST(BundledRules, RenderedChecksEndInNoBlank) {
  int checks = 0;
  for (Audience audience : {Audience::kPython, Audience::kCxx}) {
    DiagnoseOptions o;
    o.audience = audience;
    o.min_confidence = 0;
    o.fold_signals = false;
    const Engine engine(Bundled().rules);
    for (const Rule& rule : Bundled().rules->rules) {
      for (const Example& e : rule.examples) {
        if (e.kind != ExampleKind::kMatch) continue;
        for (const Diagnosis& d : engine.DiagnoseText(e.text, o).diagnoses) {
          for (const std::string& c : d.checks) {
            ++checks;
            EXPECT_TRUE(c.empty() || c.back() != ' ') << d.rule << ": '" << c << "'";
          }
        }
      }
    }
  }
  EXPECT_GT(checks, 500);
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
