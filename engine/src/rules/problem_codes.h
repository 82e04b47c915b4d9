// The problem codes of the rule loader (Problem::code of a LoadResult), in one table: each code's
// name, the severity it is usually reported with, and what it means. The loader names a code only
// through ProblemCode, so it cannot report one that is not listed here; rules/README.md "Problem
// codes" shows the same table (tests/problem_codes_test.cc compares the two), and
// RuleLoader.ReportsEveryCodeOfTheTable makes the loader report each code.
//
// Severity: a warning becomes an error under --strict (LoadOptions::strict). Two codes are reported
// with the other severity in one case each: bad-example (a warning for 'captures' on an example that
// is not 'match') and unused-lua-function (an error under --strict, like every warning).
#ifndef TRIAGE_ENGINE_PROBLEM_CODES_H_
#define TRIAGE_ENGINE_PROBLEM_CODES_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "triage/triage.h"

namespace triage {

// X(enumerator, name, severity, summary); one line per code, grouped by what the loader was doing.
#define TRIAGE_PROBLEM_CODES(X)                                                                               \
  /* finding and reading files */                                                                             \
  X(kMissingDir, "missing-dir", kError, "a rule directory given explicitly does not exist")                  \
  X(kUnreadable, "unreadable", kError, "a rule file cannot be read")                                          \
  X(kBadConfig, "bad-config", kError, "a directory's triage.yaml is not valid (disable: [rule-id, ...])")    \
  X(kBadCalibration, "bad-calibration", kError,                                                              \
    "a directory's calibration.yaml is not a valid map (knots from 0 to 1, never decreasing)")               \
  X(kBadYaml, "bad-yaml", kError, "the file is not valid YAML")                                               \
  X(kEmptyFile, "empty-file", kError, "the rule file is empty")                                               \
  X(kFileTooLarge, "file-too-large", kError, "a rule file is larger than 1 MiB")                              \
  X(kUntrustedRules, "untrusted-rules", kWarning,                                                            \
    "a project's .triage/rules was skipped: never allowed, changed since, or writable by others")            \
  /* the schema */                                                                                            \
  X(kBadType, "bad-type", kError, "a key holds the wrong kind of value (string, list, mapping)")             \
  X(kBadValue, "bad-value", kError, "a value is out of its range or form (confidence, specificity, lua:)")   \
  X(kMissingKey, "missing-key", kError, "a required key is missing or empty")                                 \
  X(kUnknownKey, "unknown-key", kWarning, "a key the schema does not know (often a typo)")                   \
  X(kDuplicateKey, "duplicate-key", kError, "a mapping gives one key twice (YAML would keep only one value)") \
  X(kBadId, "bad-id", kError, "an id is not lower-case letters, digits and '-'")                             \
  X(kIdNotFileStem, "id-not-file-stem", kError, "a rule's id differs from its file's stem")                   \
  X(kDuplicateId, "duplicate-id", kError, "two rules of one directory, or two hypotheses of a rule, share an id") \
  X(kUnknownCategory, "unknown-category", kError, "a category that rules/taxonomy.yaml does not define")      \
  X(kUnknownProbe, "unknown-probe", kError, "a probe that probes/ does not provide")                          \
  X(kSignalAndMatch, "signal-and-match", kError, "a rule has both 'match' and 'signal'")                      \
  X(kUnknownDetector, "unknown-detector", kError, "'signal.detector' names no detector")                      \
  X(kUnknownSeries, "unknown-series", kError, "'signal.series' names no metric series")                       \
  /* patterns and templates */                                                                                \
  X(kBadRegex, "bad-regex", kError, "a pattern is not a valid RE2 regular expression")                        \
  X(kPatternTooBig, "pattern-too-big", kError,                                                                \
    "a pattern's program or DFA is too large to share the combined set (Note: [Pattern budget])")            \
  X(kWeakPattern, "weak-pattern", kWarning, "a pattern has fewer than 3 literal characters")                  \
  X(kNoRequiredLiteral, "no-required-literal", kWarning,                                                      \
    "a pattern can match without a literal of 3+ characters, so every log line is matched against it")       \
  X(kCommonLiteral, "common-literal", kWarning,                                                               \
    "a pattern's required literal is common in ordinary log lines, so most lines take the slow path")        \
  X(kBadTemplate, "bad-template", kError, "a template's {name} syntax is broken")                             \
  X(kUnknownCapture, "unknown-capture", kError, "a template or example uses a name no pattern captures")      \
  X(kPartialCapture, "partial-capture", kWarning, "a template uses a name only some patterns capture")        \
  /* examples */                                                                                              \
  X(kBadExample, "bad-example", kError, "an example needs exactly one of 'match', 'no_match', 'known_gap'")   \
  X(kMissingExample, "missing-example", kError, "a rule has no 'match' example")                              \
  /* Lua (rules/LUA_API.md) */                                                                                \
  X(kLuaUnavailable, "lua-unavailable", kError, "Lua could not start")                                       \
  X(kLuaSyntax, "lua-syntax", kError, "a rule's Lua does not compile")                                       \
  X(kLuaError, "lua-error", kError, "a rule's Lua raised an error while it was loaded")                      \
  X(kLuaBudget, "lua-budget", kError, "a rule's Lua ran past its instruction budget while it was loaded")    \
  X(kLuaMemory, "lua-memory", kError, "a rule's Lua ran past its memory cap while it was loaded")            \
  X(kOrphanLua, "orphan-lua", kError, "a .lua file with no YAML rule beside it and no global 'rule' table")  \
  X(kUnknownLuaFunction, "unknown-lua-function", kError, "the YAML names a Lua function the rule does not define") \
  X(kUnusedLuaFunction, "unused-lua-function", kWarning, "a global Lua function that nothing names")           \
  /* the rule set */                                                                                          \
  X(kKeptPrevious, "kept-previous", kWarning, "a reload keeps the last good version of a broken rule file")  \
  X(kUnknownDisable, "unknown-disable", kWarning, "'disable' names an id no loaded rule has")                 \
  X(kCompileFailed, "compile-failed", kWarning, "the rule patterns do not compile into one set; each is matched by its own regex")

enum class ProblemCode {
#define TRIAGE_PROBLEM_CODE_ENUMERATOR(e, name, severity, summary) e,
  TRIAGE_PROBLEM_CODES(TRIAGE_PROBLEM_CODE_ENUMERATOR)
#undef TRIAGE_PROBLEM_CODE_ENUMERATOR
};

struct ProblemCodeInfo {
  ProblemCode code;
  const char* name;
  Problem::Severity severity;
  const char* summary;
};

// Indexed by ProblemCode.
inline constexpr ProblemCodeInfo kProblemCodes[] = {
#define TRIAGE_PROBLEM_CODE_INFO(e, name, severity, summary) {ProblemCode::e, name, Problem::Severity::severity, summary},
    TRIAGE_PROBLEM_CODES(TRIAGE_PROBLEM_CODE_INFO)
#undef TRIAGE_PROBLEM_CODE_INFO
};

// Changing the table changes what rule authors see: update rules/README.md "Problem codes" (the test
// prints the rows it expects), add the input that makes the loader report a new code to
// RuleLoader.ReportsEveryCodeOfTheTable (tests/rule_loader_test.cc), then change this count.
static_assert(sizeof(kProblemCodes) / sizeof(kProblemCodes[0]) == 42,
              "the problem code table changed: update rules/README.md \"Problem codes\", its test and this count");

inline const char* ProblemCodeName(ProblemCode code) { return kProblemCodes[static_cast<std::size_t>(code)].name; }

// The code named `name`; false when the table has none.
inline bool ProblemCodeFromName(const std::string& name, ProblemCode* code) {
  for (const ProblemCodeInfo& info : kProblemCodes) {
    if (name == info.name) {
      *code = info.code;
      return true;
    }
  }
  return false;
}

// Appends a problem with `code` (the one way the loader reports one).
inline void AddProblem(std::vector<Problem>* problems, Problem::Severity severity, ProblemCode code,
                const std::string& file, int line, int column, const std::string& rule_id, const std::string& message) {
  Problem p;
  p.severity = severity;
  p.code = ProblemCodeName(code);
  p.file = file;
  p.line = line;
  p.column = column;
  p.rule_id = rule_id;
  p.message = message;
  problems->push_back(std::move(p));
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_PROBLEM_CODES_H_
