// Rule loading: inline YAML, every problem asserted with its code and position.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>

#include <re2/re2.h>

#include "log/pattern_atoms.h"
#include "log/regex.h"
#include "rules/problem_codes.h"
#include "rules/rule.h"
#include "rules/rule_loader.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// A valid rule; tests derive broken variants from it.
constexpr char kGood[] = R"(id: good-rule
category: shape.matmul_mismatch
title: A good rule
confidence: 0.9
match:
  message: 'mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x(?P<got>\d+) and (?P<want>\d+)x(?P<out>\d+)\)'
  exception: [RuntimeError]
explain: 'expects {want}, gets {got}'
hypotheses:
  - id: flattened
    text: 'flattened {got}'
    test: { probe: shape-trace }
    fix: 'Linear({got}, {out})'
verify: 'runs'
examples:
  - match: 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)'
    captures: { got: 57600 }
)";

std::string Describe(const LoadResult& r) {
  std::string s;
  for (const Problem& p : r.problems) s += p.ToString() + "\n";
  return s;
}

const Problem* FindCode(const LoadResult& r, const std::string& code) {
  for (const Problem& p : r.problems) {
    if (p.code == code) return &p;
  }
  return nullptr;
}

// LoadResult::Notice: one line for what a quiet load's problems cost a diagnosis (Note: [Load notice]
// in bindings/cli/main.cc); warnings about style give none.
TEST(RuleLoader, NoticeNamesWhatTheProblemsCostAndNothingElse) {
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", kGood}});
  ASSERT_TRUE(r.problems.empty()) << Describe(r);
  EXPECT_EQ(r.Notice(), "");
  AddProblem(&r.problems, Problem::Severity::kWarning, ProblemCode::kUnknownKey, "a.yaml", 3, 1, "a", "unknown key 'x'");
  AddProblem(&r.problems, Problem::Severity::kWarning, ProblemCode::kWeakPattern, "a.yaml", 5, 7, "a", "weak");
  EXPECT_EQ(r.Notice(), "") << "style warnings cost a diagnosis nothing";
  AddProblem(&r.problems, Problem::Severity::kWarning, ProblemCode::kCompileFailed, "", 0, 0, "", "no set");
  EXPECT_EQ(r.Notice(), "the rule patterns did not compile into one set, so each is matched by its own regex "
                        "(slower on long logs)");
  AddProblem(&r.problems, Problem::Severity::kError, ProblemCode::kBadRegex, "b.yaml", 5, 7, "b", "bad");
  AddProblem(&r.problems, Problem::Severity::kError, ProblemCode::kMissingKey, "b.yaml", 1, 1, "b", "missing");
  AddProblem(&r.problems, Problem::Severity::kWarning, ProblemCode::kKeptPrevious, "c.yaml", 0, 0, "c", "kept");
  EXPECT_EQ(r.Notice(), "errors in 1 rule file: what they hold did not load; 1 rule file broken on reload, kept "
                        "at the last good version; the rule patterns did not compile into one set, so each is "
                        "matched by its own regex (slower on long logs)");
  AddProblem(&r.problems, Problem::Severity::kError, ProblemCode::kBadYaml, "d.yaml", 2, 1, "", "bad yaml");
  EXPECT_EQ(r.Notice().rfind("errors in 2 rule files: ", 0), 0u) << r.Notice();
}

// StemOf cuts plain paths as strings: every path made of these pieces (names with and without
// extensions, dot names, empty segments, doubled and trailing slashes, absolute and relative) gets the
// stem std::filesystem gives. Fails when the stem keeps a leading-dot name's only dot, drops the
// extension at the first dot rather than the last, or joins a parent "/" with one slash too many.
TEST(RuleLoader, StemOfAnswersAsTheFilesystemDoes) {
  const std::vector<std::string> pieces = {"rules", "cuda", "oom.yaml", "oom.lua", ".lua", ".hidden", "a.b.c",
                                           "x.", "...", ".", "..", "", "my rule.yaml", "é.yaml", "v1.2"};
  auto filesystem_stem = [](const std::string& path) {
    const fs::path p(path);
    return (p.parent_path() / p.stem()).string();
  };
  std::mt19937 rng(4);
  for (int round = 0; round < 20000; ++round) {
    std::string path = rng() % 3 == 0 ? "/" : "";
    const size_t segments = 1 + rng() % 4;
    for (size_t s = 0; s < segments; ++s) {
      if (s > 0) path += rng() % 8 == 0 ? "//" : "/";
      path += pieces[rng() % pieces.size()];
    }
    if (rng() % 10 == 0) path += "/";
    ASSERT_EQ(StemOf(path), filesystem_stem(path)) << "'" << path << "'";
  }
  for (const char* path : {"", "/", "//", "a", "/a.yaml", "rules/a.yaml", "./a.lua", "../r/a.lua", "a/./b.yaml"}) {
    EXPECT_EQ(StemOf(path), filesystem_stem(path)) << "'" << path << "'";
  }
}

TEST(RuleLoader, LoadsAValidRule) {
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", kGood}});
  EXPECT_TRUE(r.ok()) << Describe(r);
  EXPECT_TRUE(r.problems.empty()) << Describe(r);
  ASSERT_EQ(r.rules->rules.size(), 1u);
  const Rule& rule = r.rules->rules[0];
  EXPECT_EQ(rule.id, "good-rule");
  EXPECT_DOUBLE_EQ(rule.prior, 0.9);
  EXPECT_EQ(rule.hypotheses[0].probe, "shape-trace");
  EXPECT_EQ(rule.exceptions, std::vector<std::string>{"RuntimeError"});
}

struct BadCase {
  const char* name;
  std::string yaml;
  const char* code;
  int line;
  int column;
};

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  if (p == std::string::npos) return "<<replace failed: " + from + ">>";
  return s.replace(p, from.size(), to);
}

// Note: [Audience]: a rule's `cpp:` advice is what a C++ reader sees; advice written only for Python
// is marked, and Python checks are left out; a Python reader's report does not change.
TEST(RuleLoader, CppAdviceIsShownToTheCxxAudience) {
  const std::string y = Replace(Replace(kGood, "    fix: 'Linear({got}, {out})'\n",
                                                "    fix: 'Linear({got}, {out})'\n"
                                                "    cpp: { fix: 'torch::nn::Linear({got}, {out})' }\n"
                                                "  - id: python-only\n"
                                                "    text: 'other'\n"
                                                "    test: 'python -c \"print({got})\"'\n"
                                                "    fix: 'model.fc = nn.Linear({got}, {out})'\n"),
                                        "verify: 'runs'\n",
                                        "verify: 'runs'\n"
                                        "checks: ['python check.py {got}']\n"
                                        "cpp:\n"
                                        "  checks: ['std::cout << x.sizes() << \"\\n\";  // {got}']\n"
                                        "  verify: 'the step runs'\n");
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", y}});
  ASSERT_TRUE(r.ok()) << Describe(r);
  EXPECT_TRUE(r.problems.empty()) << Describe(r);
  const std::string log = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  Engine engine(r.rules);
  DiagnoseOptions cxx;
  cxx.audience = Audience::kCxx;
  Report py = engine.DiagnoseText(log);
  Report cpp = engine.DiagnoseText(log, cxx);
  ASSERT_EQ(py.diagnoses.size(), 1u);
  ASSERT_EQ(cpp.diagnoses.size(), 1u);
  EXPECT_EQ(py.audience, Audience::kPython);
  EXPECT_EQ(cpp.audience, Audience::kCxx);
  const Diagnosis& p = py.diagnoses[0];
  const Diagnosis& c = cpp.diagnoses[0];
  ASSERT_EQ(p.hypotheses.size(), 2u);
  ASSERT_EQ(c.hypotheses.size(), 2u);
  EXPECT_EQ(p.hypotheses[0].fix, "Linear(57600, 128)");
  EXPECT_EQ(c.hypotheses[0].fix, "torch::nn::Linear(57600, 128)");
  EXPECT_EQ(c.hypotheses[0].test, "probe shape-trace");
  EXPECT_EQ(p.hypotheses[1].test, "python -c \"print(57600)\"");
  EXPECT_EQ(c.hypotheses[1].test, "(written for Python) python -c \"print(57600)\"");
  EXPECT_EQ(c.hypotheses[1].fix, "(written for Python) model.fc = nn.Linear(57600, 128)");
  EXPECT_EQ(p.checks, std::vector<std::string>{"python check.py 57600"});
  EXPECT_EQ(c.checks, std::vector<std::string>{"std::cout << x.sizes() << \"\\n\";  // 57600"});
  EXPECT_EQ(p.verify, "runs");
  EXPECT_EQ(c.verify, "the step runs");
  EXPECT_EQ(c.title, p.title);
  EXPECT_EQ(c.explanation, p.explanation);

  // Without `cpp:` checks a C++ reader gets none (never the Python ones), and a Python-only
  // verification is marked.
  LoadResult plain = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "verify: 'runs'\n", "verify: 'runs'\nchecks: ['python check.py']\n")}});
  ASSERT_TRUE(plain.ok()) << Describe(plain);
  Report bare = Engine(plain.rules).DiagnoseText(log, cxx);
  ASSERT_EQ(bare.diagnoses.size(), 1u);
  EXPECT_TRUE(bare.diagnoses[0].checks.empty());
  EXPECT_EQ(bare.diagnoses[0].verify, "(written for Python) runs");
  EXPECT_EQ(bare.diagnoses[0].hypotheses[0].fix, "(written for Python) Linear(57600, 128)");
}

TEST(RuleLoader, CppSectionProblems) {
  struct Case {
    std::string from, to, code;
  };
  const Case cases[] = {
      {"verify: 'runs'\n", "verify: 'runs'\ncpp: 'fix it'\n", "bad-type"},
      {"verify: 'runs'\n", "verify: 'runs'\ncpp: { checks: ['x'], fix: 'y' }\n", "unknown-key"},
      {"    fix: 'Linear({got}, {out})'\n", "    fix: 'Linear({got}, {out})'\n    cpp: { fix: 'uses {nothing}' }\n", "unknown-capture"},
      {"    fix: 'Linear({got}, {out})'\n", "    fix: 'Linear({got}, {out})'\n    cpp: { test: 'a probe runs as it is' }\n", "unknown-key"},
      {"    fix: 'Linear({got}, {out})'\n", "    fix: 'Linear({got}, {out})'\n    cpp: [fix]\n", "bad-type"},
  };
  for (const Case& c : cases) {
    const std::string y = Replace(kGood, c.from, c.to);
    ASSERT_NE(y, kGood) << c.to;
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", y}});
    EXPECT_NE(FindCode(r, c.code), nullptr) << c.to << "\n" << Describe(r);
  }
}

TEST(RuleLoader, ReportsEachProblemWithItsPosition) {
  const std::string g = kGood;
  const std::vector<BadCase> cases = {
      {"unknown category", Replace(g, "shape.matmul_mismatch", "shape.nope"), "unknown-category", 2, 11},
      {"bad regex", Replace(g, "\\((?P<rows>", "((?P<rows>"), "bad-regex", 6, 12},
      {"unknown capture in explain", Replace(g, "gets {got}'", "gets {gotten}'"), "unknown-capture", 8, 10},
      {"missing title", Replace(g, "title: A good rule\n", ""), "missing-key", 1, 1},
      {"bad confidence", Replace(g, "confidence: 0.9", "confidence: 1.5"), "bad-value", 4, 13},
      {"unknown probe", Replace(g, "probe: shape-trace", "probe: crystal-ball"), "unknown-probe", 12, 11},
      {"id differs from file stem", Replace(g, "id: good-rule", "id: other-rule"), "id-not-file-stem", 1, 5},
      {"hypothesis without fix", Replace(g, "    fix: 'Linear({got}, {out})'\n", ""), "missing-key", 10, 5},
      {"example capture not defined", Replace(g, "captures: { got: 57600 }", "captures: { nope: 1 }"), "unknown-capture", 16, 5},
      {"no match example", Replace(g, "  - match: 'RuntimeError: mat1", "  - no_match: 'RuntimeError: mat1"), "missing-example", 16, 3},
      {"yaml syntax", Replace(g, "title: A good rule", "title: [unclosed"), "bad-yaml", 4, 11},
      {"unterminated template", Replace(g, "explain: 'expects {want}", "explain: 'expects {want"), "bad-template", 8, 10},
      {"hypotheses not a list", Replace(g, "hypotheses:\n  - id: flattened", "hypotheses: 3\nxx:\n  - id: flattened"), "bad-type", 9, 13},
      {"frames other than none", Replace(g, "  exception: [RuntimeError]\n", "  exception: [RuntimeError]\n  frames: some\n"), "bad-value", 8, 11},
      {"frames not a word", Replace(g, "  exception: [RuntimeError]\n", "  exception: [RuntimeError]\n  frames: [none]\n"), "bad-type", 8, 11},
      // Note: [Masked causes]: a hypothesis' category is a taxonomy key other than the rule's.
      {"hypothesis category unknown", Replace(g, "    text: 'flattened {got}'\n", "    category: shape.nope\n    text: 'flattened {got}'\n"), "unknown-category", 11, 15},
      {"hypothesis category is the rule's", Replace(g, "    text: 'flattened {got}'\n", "    category: shape.matmul_mismatch\n    text: 'flattened {got}'\n"), "bad-value", 11, 15},
  };
  for (const BadCase& c : cases) {
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", c.yaml}});
    const Problem* p = FindCode(r, c.code);
    ASSERT_NE(p, nullptr) << c.name << ": expected code " << c.code << ", got:\n" << Describe(r) << "\n" << c.yaml;
    EXPECT_EQ(p->severity, Problem::Severity::kError) << c.name << ": " << p->ToString();
    EXPECT_EQ(p->line, c.line) << c.name << ": " << p->ToString();
    EXPECT_EQ(p->column, c.column) << c.name << ": " << p->ToString();
    EXPECT_EQ(p->file, "good-rule.yaml") << c.name;
    EXPECT_TRUE(r.rules->rules.empty()) << c.name << ": a broken rule must be skipped";
  }
}

// `match.frames: none` is read into the rule, a known key of `match:` (no unknown-key warning).
TEST(RuleLoader, ReadsFramesNone) {
  LoadResult r = LoadRulesFromStrings(
      {{"good-rule.yaml", Replace(kGood, "  exception: [RuntimeError]\n", "  exception: [RuntimeError]\n  frames: none\n")}});
  EXPECT_TRUE(r.problems.empty()) << Describe(r);
  ASSERT_EQ(r.rules->rules.size(), 1u);
  EXPECT_TRUE(r.rules->rules[0].frames_none);
  LoadResult plain = LoadRulesFromStrings({{"good-rule.yaml", kGood}});
  ASSERT_EQ(plain.rules->rules.size(), 1u);
  EXPECT_FALSE(plain.rules->rules[0].frames_none);
}

TEST(RuleLoader, NamesTheRuleInEveryProblem) {
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "shape.matmul_mismatch", "nope")}});
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].rule_id, "good-rule") << r.problems[0].ToString();
  EXPECT_EQ(r.problems[0].ToString(),
            "good-rule.yaml:2:11: error: unknown category 'nope' (see rules/taxonomy.yaml) [unknown-category] (rule good-rule)");
}

TEST(RuleLoader, ReportsEveryProblemOfAFileAtOnce) {
  std::string y = Replace(kGood, "shape.matmul_mismatch", "nope");
  y = Replace(y, "probe: shape-trace", "probe: crystal-ball");
  y = Replace(y, "gets {got}'", "gets {gotten}'");
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", y}});
  EXPECT_TRUE(FindCode(r, "unknown-category")) << Describe(r);
  EXPECT_TRUE(FindCode(r, "unknown-probe")) << Describe(r);
  EXPECT_TRUE(FindCode(r, "unknown-capture")) << Describe(r);
  EXPECT_EQ(r.errors(), 3) << Describe(r);
}

TEST(RuleLoader, SkipsBadRulesAndKeepsLoadingTheRest) {
  std::string other = Replace(kGood, "id: good-rule", "id: other-rule");
  LoadResult r = LoadRulesFromStrings({{"bad-rule.yaml", "id: bad-rule\ncategory: [\n"},
                                       {"good-rule.yaml", kGood},
                                       {"other-rule.yaml", other}});
  EXPECT_EQ(r.errors(), 1) << Describe(r);
  EXPECT_EQ(r.rules->rules.size(), 2u);
  Engine engine(r.rules);
  Report rep = engine.DiagnoseText("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n");
  EXPECT_FALSE(rep.diagnoses.empty());
}

TEST(RuleLoader, UnknownKeysAreWarningsUnlessStrict) {
  std::string y = Replace(kGood, "title: A good rule", "title: A good rule\nsevertiy: high");
  LoadResult lax = LoadRulesFromStrings({{"good-rule.yaml", y}});
  ASSERT_TRUE(FindCode(lax, "unknown-key")) << Describe(lax);
  EXPECT_EQ(FindCode(lax, "unknown-key")->severity, Problem::Severity::kWarning);
  EXPECT_EQ(FindCode(lax, "unknown-key")->line, 4);
  EXPECT_EQ(lax.rules->rules.size(), 1u);
  EXPECT_TRUE(lax.ok());

  LoadResult strict = LoadRulesFromStrings({{"good-rule.yaml", y}}, /*strict=*/true);
  ASSERT_TRUE(FindCode(strict, "unknown-key")) << Describe(strict);
  EXPECT_EQ(FindCode(strict, "unknown-key")->severity, Problem::Severity::kError);
  EXPECT_TRUE(strict.rules->rules.empty());
}

TEST(RuleLoader, PartialCaptureIsAWarning) {
  std::string y = Replace(kGood, "  exception: [RuntimeError]",
                          "    - 'size mismatch, m1: \\[(?P<rows>\\d+) x (?P<got>\\d+)\\]'\n  exception: [RuntimeError]");
  y = Replace(y, "  message: 'mat1", "  message:\n    - 'mat1");
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", y}});
  const Problem* p = FindCode(r, "partial-capture");
  ASSERT_NE(p, nullptr) << Describe(r) << y;
  EXPECT_EQ(p->severity, Problem::Severity::kWarning);
  EXPECT_EQ(r.rules->rules.size(), 1u) << Describe(r);
}

TEST(RuleLoader, DuplicateIdInOneSourceIsAnError) {
  LoadResult r = LoadRulesFromStrings({{"a/good-rule.yaml", kGood}, {"b/good-rule.yaml", "# the same rule\n" + std::string(kGood)}});
  const Problem* p = FindCode(r, "duplicate-id");
  ASSERT_TRUE(p) << Describe(r);
  EXPECT_EQ(r.rules->rules.size(), 1u);
  // Both places: the second definition's position, and the first's in the message.
  EXPECT_EQ(p->file, "b/good-rule.yaml");
  EXPECT_EQ(p->line, 2);
  EXPECT_EQ(p->column, 1);
  EXPECT_NE(p->message.find("a/good-rule.yaml:1:1"), std::string::npos) << p->message;
}

// Issue 14 item 4: what one rule file could do to every rule.
TEST(RuleLoaderRefuses, AHugePatternDropsOnlyItsRule) {
  // A class repeated 1000 times (the issue's), and a plain literal of 6000 characters.
  for (const std::string& pattern : {std::string("[\\pL\\pN]{1000}x"), std::string(6000, 'x')}) {
    const std::string dir = (fs::temp_directory_path() / ("triage_huge_" + std::to_string(getpid()))).string();
    fs::create_directories(dir);
    std::ofstream(dir + "/good-rule.yaml") << Replace(kGood, "  message: 'mat1", "  message:\n    - '" + pattern + "'\n    - 'mat1");
    LoadOptions o;
    o.env_path = o.system = o.user = o.project = false;
    o.cache = false;
    o.dirs = {dir};
    LoadResult r = LoadRules(o);
    fs::remove_all(dir);
    const Problem* p = FindCode(r, "pattern-too-big");
    ASSERT_NE(p, nullptr) << Describe(r);
    EXPECT_EQ(p->file, dir + "/good-rule.yaml");
    EXPECT_EQ(p->line, 7);
    EXPECT_EQ(p->column, 7);
    EXPECT_EQ(FindCode(r, "compile-failed"), nullptr) << Describe(r);
    // The bundled rules still match: the set compiled without the refused rule.
    ASSERT_TRUE(r.rules->Set()) << Describe(r);
    Report rep = Engine(r.rules).DiagnoseText("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
    ASSERT_FALSE(rep.diagnoses.empty());
    EXPECT_EQ(rep.diagnoses[0].rule, "linear-in-features");
    for (const Rule& rule : r.rules->rules) EXPECT_NE(rule.file, dir + "/good-rule.yaml");
  }
}

// Note: [Program size bound]: a pattern whose bound is within the budget is not compiled; one whose
// bound is over it is compiled, and refused only when its program is over, with the program's size.
TEST(RuleLoaderRefuses, TheBudgetIsTheProgramsNotTheBounds) {
  int bounded = 0, compiled_kept = 0, refused = 0;
  for (int n : {4900, 4990, 4993, 4994, 4995, 4996, 4997, 4998, 5000, 5100}) {
    const std::string pattern = "mat9 " + std::string(static_cast<size_t>(n), 'x');
    const int program = RE2(pattern, RegexOptions()).ProgramSize();
    const int bound = ProgramSizeBound(pattern).value_or(-1);
    ASSERT_GE(bound, program) << n;
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "  message: 'mat1", "  message:\n    - '" +
                                                                     pattern + "'\n    - 'mat1")}});
    const Problem* p = FindCode(r, "pattern-too-big");
    if (program > 5000) {
      ++refused;
      ASSERT_NE(p, nullptr) << n << "\n" << Describe(r);
      EXPECT_NE(p->message.find("compiles to " + std::to_string(program) + " instructions"), std::string::npos) << p->message;
      EXPECT_EQ(p->line, 7);
      EXPECT_EQ(p->column, 7);
      continue;
    }
    EXPECT_EQ(p, nullptr) << n << "\n" << Describe(r);
    ASSERT_EQ(r.rules->rules.size(), 1u) << n << "\n" << Describe(r);
    const std::vector<int>& sizes = r.rules->rules[0].pattern_programs;
    ASSERT_EQ(sizes.size(), 2u);
    if (bound <= 5000) {
      ++bounded;
      EXPECT_EQ(sizes[0], bound) << n;  // counted, not compiled
    } else {
      ++compiled_kept;
      EXPECT_EQ(sizes[0], program) << n;  // compiled: the program's own size
    }
  }
  // Each way is taken.
  EXPECT_GT(bounded, 0);
  EXPECT_GT(compiled_kept, 0);
  EXPECT_GT(refused, 0);
}

TEST(RuleLoaderRefuses, APatternWhoseDfaExplodes) {
  // The same look-back written out, or built from different classes, is refused too.
  for (const char* pattern : {"[a-q][^u-z]{13}x", "(?:ab|c){9,}", "\\d{1,20} items", ".{12}",
                              "[a-q][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z][^u-z]x",
                              "[a-q][^u-z][^t-z][^s-z][^r-z][^q-z][^p-z]\\S\\w\\d.[^o-z][^n-z]x",
                              "[a-q][^u-z]{6}[^t-z]{6}x"}) {
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "  message: 'mat1", "  message:\n    - '" +
                                                                     std::string(pattern) + "'\n    - 'mat1")}});
    const Problem* p = FindCode(r, "pattern-too-big");
    ASSERT_NE(p, nullptr) << pattern << "\n" << Describe(r);
    EXPECT_EQ(p->line, 7) << pattern;
    EXPECT_TRUE(r.rules->rules.empty()) << pattern;
  }
  // Counted repetitions within the bound, and of literal characters, are fine.
  for (const char* pattern : {"[a-q][^u-z]{8}x", "={20} end", "\\[x\\]{12}", "x{30} end",
                              "\\d\\d\\d\\d-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d", "[a-z]+[0-9]+[a-z]+[0-9]+[a-z]+[0-9]+[a-z]+ end"}) {
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "  message: 'mat1", "  message:\n    - 'mat9 " +
                                                                     std::string(pattern) + "'\n    - 'mat1")}});
    EXPECT_EQ(FindCode(r, "pattern-too-big"), nullptr) << pattern << "\n" << Describe(r);
  }
}

TEST(RuleLoaderRefuses, NonFiniteConfidences) {
  for (const char* value : {".nan", ".NaN", ".inf", "-.inf", "0", "1.5"}) {
    LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "confidence: 0.9", std::string("confidence: ") + value)}});
    const Problem* p = FindCode(r, "bad-value");
    ASSERT_NE(p, nullptr) << value << "\n" << Describe(r);
    EXPECT_EQ(p->line, 4) << value;
    EXPECT_TRUE(r.rules->rules.empty()) << value;
  }
}

TEST(RuleLoaderRefuses, DuplicateKeysWithBothPlaces) {
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", std::string(kGood) + "title: Another title\n"}});
  const Problem* p = FindCode(r, "duplicate-key");
  ASSERT_NE(p, nullptr) << Describe(r);
  EXPECT_EQ(p->line, 18);
  EXPECT_NE(p->message.find("'title'"), std::string::npos) << p->message;
  EXPECT_NE(p->message.find("line 3, column 1"), std::string::npos) << p->message;
  EXPECT_TRUE(r.rules->rules.empty());
  // Nested mappings too.
  LoadResult nested = LoadRulesFromStrings({{"good-rule.yaml", Replace(kGood, "test: { probe: shape-trace }",
                                                              "test: { probe: shape-trace, probe: grad-health }")}});
  EXPECT_NE(FindCode(nested, "duplicate-key"), nullptr) << Describe(nested);
  // A map of many keys (kept past the first 32 in another way): every repeat, each with its first place,
  // before and past the 32nd key.
  std::string many = std::string(kGood) + "extra:\n";
  for (int k = 0; k < 40; ++k) many += "  k" + std::to_string(k) + ": " + std::to_string(k) + "\n";
  many += "  k3: again\n  k37: again\n  k3: thrice\n";
  LoadResult wide = LoadRulesFromStrings({{"good-rule.yaml", many}});
  std::vector<std::string> repeats;
  for (const Problem& q : wide.problems) {
    if (q.code == "duplicate-key") repeats.push_back(std::to_string(q.line) + " " + q.message);
  }
  const std::string first3 = "(first at line 22, column 3)", first37 = "(first at line 56, column 3)";
  ASSERT_EQ(repeats.size(), 3u) << Describe(wide);
  EXPECT_EQ(repeats[0], "59 key 'k3' is given twice " + first3 + "; YAML keeps only one of them");
  EXPECT_EQ(repeats[1], "60 key 'k37' is given twice " + first37 + "; YAML keeps only one of them");
  EXPECT_EQ(repeats[2], "61 key 'k3' is given twice " + first3 + "; YAML keeps only one of them");
}

TEST(RuleLoaderRefuses, ARuleFileOverTheSizeLimit) {
  std::string big = std::string(kGood) + "refs:\n";
  while (big.size() <= (1u << 20)) big += "  - https://example.com/" + std::to_string(big.size()) + "\n";
  LoadResult r = LoadRulesFromStrings({{"good-rule.yaml", big}});
  const Problem* p = FindCode(r, "file-too-large");
  ASSERT_NE(p, nullptr) << Describe(r).substr(0, 500);
  EXPECT_EQ(p->file, "good-rule.yaml");
  EXPECT_TRUE(r.rules->rules.empty());
  // From disk, the reader stops one byte past the limit.
  const std::string dir = (fs::temp_directory_path() / ("triage_big_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  std::ofstream(dir + "/good-rule.yaml") << big << std::string(8u << 20, '#');
  LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = false;
  o.cache = false;
  o.dirs = {dir};
  LoadResult disk = LoadRules(o);
  fs::remove_all(dir);
  EXPECT_NE(FindCode(disk, "file-too-large"), nullptr) << Describe(disk).substr(0, 500);
}

TEST(RuleLoader, LaterDirectoryOverridesById) {
  fs::path base = fs::temp_directory_path() / ("triage_loader_" + std::to_string(::getpid()));
  fs::create_directories(base / "one");
  fs::create_directories(base / "two");
  std::ofstream(base / "one" / "good-rule.yaml") << kGood;
  std::ofstream(base / "two" / "good-rule.yaml") << Replace(kGood, "title: A good rule", "title: The override");
  LoadOptions o;
  o.bundled = false;
  o.env_path = false;
  o.dirs = {(base / "one").string(), (base / "two").string()};
  LoadResult r = LoadRules(o);
  EXPECT_TRUE(r.ok()) << Describe(r);
  ASSERT_EQ(r.rules->rules.size(), 1u);
  EXPECT_EQ(r.rules->rules[0].title, "The override");
  EXPECT_EQ(r.rules->rules[0].overrides, (base / "one" / "good-rule.yaml").string());
  fs::remove_all(base);
}

TEST(RuleLoader, MissingDirectoryIsReported) {
  LoadOptions o;
  o.bundled = false;
  o.env_path = false;
  o.dirs = {"/nonexistent/triage/rules"};
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(FindCode(r, "missing-dir")) << Describe(r);
  EXPECT_EQ(FindCode(r, "missing-dir")->file, "/nonexistent/triage/rules");
}

// A valid signal rule.
constexpr char kGoodSignal[] = R"(id: good-signal
category: training.not_learning
title: t
signal: { detector: flat }
explain: 'e {series}'
hypotheses:
  - { id: h, text: t, test: t, fix: f }
verify: v
examples:
  - match: 'loss=1'
)";

LoadResult FromStrings(const std::vector<std::pair<std::string, std::string>>& files) {
  return LoadRulesFromStrings(files);
}

// A fresh directory for the cases that need files on disk, removed at the end.
class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("triage_loader_codes_" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  void Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
  }
  // Only this directory: no bundled, system, user, project or environment rules, no cache.
  LoadOptions Options() const {
    LoadOptions o;
    o.bundled = o.env_path = o.system = o.user = o.project = o.cache = false;
    o.dirs = {path_.string()};
    return o;
  }

 private:
  fs::path path_;
};

// A rule file's example keys are the example kinds' names (rules/rule.cc's one table), less lua_test.
TEST(RuleLoader, ExampleKeysAreTheKindNames) {
  for (ExampleKind kind : {ExampleKind::kMatch, ExampleKind::kNoMatch, ExampleKind::kKnownGap}) {
    ExampleKind back = ExampleKind::kLuaTest;
    ASSERT_TRUE(ExampleKindFromKey(ExampleKindName(kind), &back)) << ExampleKindName(kind);
    EXPECT_EQ(back, kind);
  }
  EXPECT_STREQ(ExampleKindName(ExampleKind::kLuaTest), "lua_test");
  ExampleKind none = ExampleKind::kMatch;
  EXPECT_FALSE(ExampleKindFromKey("lua_test", &none));
  EXPECT_FALSE(ExampleKindFromKey("Match", &none));
  const LoadResult r = FromStrings({{"good-rule.yaml", std::string(kGood) + "  - lua_test: 'x'\n"}});
  std::string codes;
  for (const Problem& p : r.problems) codes += p.code + " ";
  EXPECT_EQ(codes, "unknown-key bad-example ") << "a lua_test key in a rule file is no example";
}

// Every code of the table (engine/src/rules/problem_codes.h) is one the loader really reports.
TEST(RuleLoader, ReportsEveryCodeOfTheTable) {
  const std::string g = kGood;
  const std::map<std::string, std::function<LoadResult()>> cases = {
      {"missing-dir", [] {
         TempDir dir;
         LoadOptions o = dir.Options();
         o.dirs = {(dir.path() / "absent").string()};
         return LoadRules(o);
       }},
      {"bad-config", [&] {
         TempDir dir;
         dir.Write("good-rule.yaml", g);
         dir.Write("triage.yaml", "- disable\n");
         return LoadRules(dir.Options());
       }},
      {"bad-calibration", [&] {
         TempDir dir;
         dir.Write("good-rule.yaml", g);
         dir.Write("calibration.yaml", "knots: [[0, 0], [0.5, 0.9], [0.8, 0.6], [1, 1]]\n");
         return LoadRules(dir.Options());
       }},
      {"bad-yaml", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "title: A good rule", "title: [open")}}); }},
      {"empty-file", [] { return FromStrings({{"good-rule.yaml", "# nothing yet\n"}}); }},
      {"bad-type", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "title: A good rule", "title: [a, b]")}}); }},
      {"bad-value", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "confidence: 0.9", "confidence: 2")}}); }},
      {"missing-key", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "title: A good rule\n", "")}}); }},
      {"unknown-key", [&] { return FromStrings({{"good-rule.yaml", g + "colour: red\n"}}); }},
      {"duplicate-key", [&] { return FromStrings({{"good-rule.yaml", g + "title: Another\n"}}); }},
      {"file-too-large", [&] { return FromStrings({{"good-rule.yaml", g + "#" + std::string(1u << 20, 'x') + "\n"}}); }},
      {"pattern-too-big", [&] {
         return FromStrings({{"good-rule.yaml", Replace(g, "  message: 'mat1", "  message:\n    - '[a-q][^u-z]{13}x'\n    - 'mat1")}});
       }},
      {"bad-id", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "id: good-rule", "id: Good_Rule")}}); }},
      {"id-not-file-stem", [&] { return FromStrings({{"other-name.yaml", g}}); }},
      {"duplicate-id", [&] { return FromStrings({{"a/good-rule.yaml", g}, {"b/good-rule.yaml", g}}); }},
      {"unknown-category", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "shape.matmul_mismatch", "shape.nope")}}); }},
      {"unknown-probe", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "probe: shape-trace", "probe: crystal-ball")}}); }},
      {"signal-and-match", [] {
         return FromStrings({{"good-signal.yaml", std::string(kGoodSignal) + "match: { message: 'loss is flat' }\n"}});
       }},
      {"unknown-detector", [] {
         return FromStrings({{"good-signal.yaml", Replace(kGoodSignal, "detector: flat", "detector: wobble")}});
       }},
      {"unknown-series", [] {
         return FromStrings({{"good-signal.yaml", Replace(kGoodSignal, "detector: flat", "detector: flat, series: lossy")}});
       }},
      {"bad-regex", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "\\((?P<rows>", "((?P<rows>")}}); }},
      {"weak-pattern", [&] {
         return FromStrings({{"good-rule.yaml", Replace(g, "  message: 'mat1", "  message:\n    - 'ab'\n    - 'mat1")}});
       }},
      {"no-required-literal", [&] {
         return FromStrings({{"good-rule.yaml", Replace(g, "  message: 'mat1", "  message:\n    - '(?:mat3|\\d+)\\w+'\n    - 'mat1")}});
       }},
      {"common-literal", [&] {
         return FromStrings({{"good-rule.yaml", Replace(g, "  message: 'mat1", "  message:\n    - 'saving (?P<got>\\d+)'\n    - 'mat1")}});
       }},
      {"bad-template", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "gets {got}'", "gets {got'")}}); }},
      {"unknown-capture", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "gets {got}'", "gets {gotten}'")}}); }},
      {"partial-capture", [&] {
         return FromStrings({{"good-rule.yaml", Replace(g, "  message: 'mat1", "  message:\n    - 'shapes do not multiply'\n    - 'mat1")}});
       }},
      {"bad-example", [&] { return FromStrings({{"good-rule.yaml", g + "  - { match: 'a', no_match: 'b' }\n"}}); }},
      {"missing-example", [&] { return FromStrings({{"good-rule.yaml", Replace(g, "  - match: 'Runtime", "  - no_match: 'Runtime")}}); }},
      {"lua-syntax", [] { return FromStrings({{"whole.lua", "rule = {\n"}}); }},
      {"lua-error", [] { return FromStrings({{"whole.lua", "error('not today')\n"}}); }},
      {"lua-budget", [] { return FromStrings({{"whole.lua", "while true do end\n"}}); }},
      {"lua-memory", [] { return FromStrings({{"whole.lua", "big = string.rep('x', 1 << 26)\n"}}); }},
      {"orphan-lua", [] { return FromStrings({{"whole.lua", "x = 1\n"}}); }},
      {"unknown-lua-function", [&] { return FromStrings({{"good-rule.yaml", g + "score: lua:nope\n"}}); }},
      {"unused-lua-function", [&] {
         return FromStrings({{"good-rule.yaml", g + "score: lua:score\n"},
                             {"good-rule.lua", "function score(ctx) return 1 end\nfunction helper() end\n"}});
       }},
      {"kept-previous", [&] {
         TempDir dir;
         dir.Write("good-rule.yaml", g);
         RuleStore store(dir.Options());
         dir.Write("good-rule.yaml", Replace(g, "title: A good rule", "title: [open"));
         return store.Reload();
       }},
      {"untrusted-rules", [&] {
         TempDir dir;  // a project directory that nobody allowed: the allow file names nothing
         fs::create_directories(dir.path() / ".triage" / "rules");
         dir.Write(".triage/rules/good-rule.yaml", g);
         const char* had = std::getenv("TRIAGE_ALLOW_FILE");
         const std::string old = had ? had : "";
         setenv("TRIAGE_ALLOW_FILE", (dir.path() / "allowed-rules").c_str(), 1);
         LoadOptions o = dir.Options();
         o.dirs.clear();
         o.project = true;
         o.working_dir = dir.path().string();
         LoadResult r = LoadRules(o);
         if (had) setenv("TRIAGE_ALLOW_FILE", old.c_str(), 1);
         else unsetenv("TRIAGE_ALLOW_FILE");
         return r;
       }},
      {"unknown-disable", [&] {
         TempDir dir;
         dir.Write("good-rule.yaml", g);
         dir.Write("triage.yaml", "disable: [no-such-rule]\n");
         return LoadRules(dir.Options());
       }},
  };
  // Codes no test input here can cause, and why.
  const std::map<std::string, std::string> not_caused = {
      {"unreadable", "the loader opens only files it has just listed as regular; only a missing permission makes one unreadable, and root has every permission"},
      {"lua-unavailable", "a Lua state fails to start only when memory runs out"},
      {"compile-failed", "RE2 refuses a set only past ~7,000 patterns (its 64 MiB), a load too slow for here: pattern_set_test fails one"},
  };

  for (const ProblemCodeInfo& info : kProblemCodes) {
    const bool has_case = cases.count(info.name) > 0;
    EXPECT_NE(has_case, not_caused.count(info.name) > 0)
        << info.name << ": give it an input here, or say in not_caused why none can cause it (not both)";
    if (!has_case) continue;
    const LoadResult r = cases.at(info.name)();
    std::string got;
    bool found = false;
    for (const Problem& p : r.problems) {
      got += p.ToString() + "\n";
      ProblemCode listed = ProblemCode::kBadType;
      EXPECT_TRUE(ProblemCodeFromName(p.code, &listed)) << "an unlisted code: " << p.ToString();
      found = found || (p.code == info.name && p.severity == info.severity);
    }
    EXPECT_TRUE(found) << info.name << " (severity " << static_cast<int>(info.severity) << ") not reported; got:\n" << got;
  }
  for (const auto& c : cases) {
    ProblemCode code = ProblemCode::kBadType;
    EXPECT_TRUE(ProblemCodeFromName(c.first, &code)) << "a case for a code the table lacks: " << c.first;
  }
}

TEST(LiteralChars, CountsOnlyLiteralCharacters) {
  EXPECT_EQ(LiteralChars("abc"), 3);
  EXPECT_EQ(LiteralChars("a\\d+b"), 2);
  EXPECT_EQ(LiteralChars("(?P<got>\\d+)x"), 1);
  EXPECT_EQ(LiteralChars("\\(x\\)"), 3);
  EXPECT_EQ(LiteralChars("[abc]+d{2,3}"), 1);
}

}  // namespace
}  // namespace triage
