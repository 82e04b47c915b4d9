// Tools over a rule set: run every rule's own examples, explain a rule, evaluate a labelled corpus.
// Used by `triage rules test`, `triage explain`, `triage eval` and the test suite.
//
//   triage::LoadResult rules = triage::LoadRules({});
//   triage::RuleTestReport t = triage::RunRuleExamples(*rules.rules);
//   std::cout << t.ToText();   // per-rule table; t.failed == 0 when every example holds
#ifndef TRIAGE_TOOLS_H_
#define TRIAGE_TOOLS_H_

#include <functional>
#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage {

// What an example checks: a rule file's `match`, `no_match` and `known_gap` examples (rules/README.md),
// and a global test_* function of the rule's Lua (rules/LUA_API.md "Testing Lua").
enum class ExampleKind { kMatch, kNoMatch, kKnownGap, kLuaTest };

// Returns the kind's name: "match", "no_match", "known_gap" (a rule file's example keys) or "lua_test".
const char* ExampleKindName(ExampleKind kind);

struct ExampleResult {
  std::string rule;
  std::string file;
  int line = 0;          // of the example in the rule file (of the failure in the Lua file, for lua_test)
  ExampleKind kind = ExampleKind::kMatch;
  bool passed = false;   // for known_gap: true when the gap still exists (the rule still misses)
  std::string detail;    // why it failed, or what a known gap produced
};

struct RuleTestReport {
  std::vector<ExampleResult> results;
  int rules = 0;
  int failed = 0;        // failed examples (known gaps never count)
  int gaps = 0;          // known gaps that still miss
  int gaps_closed = 0;   // known gaps the rule now handles (the annotation can go)
  // Returns a per-rule pass/fail table, failures in detail, and a summary line.
  std::string ToText(bool verbose = false) const;
};

// Runs the examples of every rule (or only `only_rule`) through the whole engine with `rules`, and
// the global test_* functions of each rule's Lua (rules/LUA_API.md "Testing Lua").
RuleTestReport RunRuleExamples(const RuleSet& rules, const std::string& only_rule = "");

// Returns a person-readable account of a rule: patterns, hypotheses, checks, fixes, examples.
// Sets *found to false (and returns "") when there is no such rule. Its prose (title, explanation,
// hypotheses, verification) is wrapped at `width` columns (0: not wrapped); patterns, check commands and
// examples are never wrapped, so they can be copied as they are.
std::string ExplainRule(const RuleSet& rules, const std::string& id, bool* found, int width = 0);

struct EvalCase {
  std::string dir;
  std::string expected;               // category, or "none"
  std::vector<std::string> also;      // other accepted categories
  std::vector<Diagnosis> got;         // the top 3 diagnoses
  bool top1 = false;
  bool top3 = false;
  std::string error;                  // unreadable case
  // Which part of the corpus the case belongs to (Note: [Eval splits] in diagnose/tools.cc):
  // "heldout" (under a folder named heldout), "wild" (provenance: wild), else "ours".
  std::string split;
  // Why a positive case missed at top-1 (Note: [Miss kinds] in diagnose/tools.cc): "no-incident",
  // "no-rule", "under-threshold", "under-threshold-right" or "wrong"; empty for a hit or a negative.
  std::string miss;
  // The frame-evidence row (Note: [Frame evidence] in diagnose/frame_evidence.cc) that decides this
  // case's primary incident when it is read as if no rule had matched; empty when no row applies, and
  // for held-out cases, which are not read (the rows are measured on the tuning splits only).
  std::string frame_row;
  // Note: [Similar known case] (diagnose/similar_case.cc): the nearest known case to this case's primary
  // error, read as if no rule had matched and leaving out the case and every case of its `source:`
  // thread; empty (score 0) when none shares enough words, and for held-out cases, which are not read.
  std::string similar_case;
  std::string similar_category;
  double similar_score = 0;
  // The vote of the nearest known cases on the same reading: its tier (into SimilarTiers() in
  // diagnose/similar_case.h; -1 when none applies), and whether that tier speaks (the engine would answer
  // similar_category, unless it is "none").
  int similar_tier = -1;
  bool similar_speaks = false;
};

// One band of similarity measured over our cases and the wild tuning split, each read as if no rule had
// matched (Note: [Similar known case]): the cases whose nearest known case is that similar, what the
// nearest case alone would answer (the rule before the vote) and what the vote answers.
struct SimilarBandMeasure {
  double low = 0, high = 0;  // [low, high)
  int n = 0;                 // cases (negatives included) whose nearest known case is in this band
  int right = 0;             // nearest case alone: answers (its label not "none") accepted for the case
  int wrong = 0;             //   answers not accepted
  int family_right = 0;      //   answers in the family of the case's label
  int negatives = 0;         //   answers to negative cases (counted in `wrong`)
  int wild = 0;              //   answers to wild tuning cases (the rest are ours, which come in families
  int wild_right = 0;        //   of variants of one program), and how many of those were right
  int vote_right = 0;        // the vote (a tier that speaks): answers accepted
  int vote_wrong = 0;        //   answers not accepted
  int vote_family_right = 0; //   answers in the family of the case's label
  int vote_none = 0;         //   cases left without an answer
};

// One tier of the similar-case vote (SimilarTiers() in diagnose/similar_case.h) measured like the bands,
// beside the confidence the engine fitted for it on its index (Note: [Similar known case]).
struct SimilarTierMeasure {
  std::string id;
  bool speaks = false;
  int n = 0;                  // answers of the tier (the nearest case not a negative)
  int right = 0;              // of them, accepted for the case
  int family_right = 0;       // of them, in the family of the case's label
  int negatives = 0;          // of them, answers to negative cases
  int fit_n = 0, fit_right = 0;  // the index's own fit (labels only, no `also:`)
  double confidence = 0;         // fit_right / fit_n: what an answer of the tier is reported with
};

// One frame-evidence row measured over our cases and the wild tuning split, each read as if no rule
// had matched (Note: [Frame evidence]).
struct FrameRowMeasure {
  std::string id;
  std::string category;     // what the row answers
  bool speaks = false;      // whether the engine answers from it (else it abstains)
  int n = 0;                // cases (negatives included) whose primary incident it decides
  int right = 0;            // of them, cases whose accepted categories include `category`
  int family_right = 0;     // of them, cases labelled in `category`'s family
};

// Accuracy of one slice of the cases (a split, a family) and how well its confidences are calibrated.
struct EvalSlice {
  int total = 0, top1 = 0, top3 = 0;
  int negatives = 0, negatives_flagged = 0;
  int answered = 0;                   // positive cases given a diagnosis (what calibration is about)
  double ece = 0;                     // expected calibration error of the top-1 confidences, 10 buckets
};

struct EvalReport {
  std::vector<EvalCase> cases;
  int total = 0;
  int top1 = 0;
  int top3 = 0;
  int negatives = 0;
  int negatives_flagged = 0;          // negatives that got a diagnosis
  int errors = 0;
  double Top1Rate() const;
  double Top3Rate() const;
  // Figures for the cases for which `keep` is true.
  EvalSlice Slice(const std::function<bool(const EvalCase&)>& keep) const;
  // Per-category table, every miss, a table per split and per family, calibration tables (all cases,
  // then the wild and held-out ones) and a headline line per split. Held-out misses are counted but
  // not named unless `list_heldout_misses` (Note: [Eval splits]): a person tuning rules reads the
  // miss list, and a held-out case's name and wrong answer already say what rule it wants.
  std::string ToText(bool list_heldout_misses = false) const;
  // Every frame-evidence row, in table order, measured on the ours and wild cases.
  std::vector<FrameRowMeasure> FrameRows() const;
  // Every similarity band, lowest first, measured on the ours and wild cases.
  std::vector<SimilarBandMeasure> SimilarBandRows() const;
  // Every tier of the similar-case vote, in table order, measured on the ours and wild cases.
  std::vector<SimilarTierMeasure> SimilarTierRows() const;
};

// Evaluates every case under `dir` (folders holding label.yaml and log.txt). Each case is diagnosed
// with DiagnoseOptions::similar_leave_out naming it and its `source:` thread.
EvalReport EvaluateCorpus(const Engine& engine, const std::string& dir);

// Returns the similar-case index of the cases under `corpus_dir` (rules/similar/cases.tsv; Note:
// [Similar known case] in diagnose/similar_case.cc): one line per case whose primary error has words,
// cases in path order. Never enters a folder named `heldout`. Sets *error (and returns "") when a
// label cannot be read.
std::string BuildSimilarIndex(const Engine& engine, const std::string& corpus_dir, std::string* error);

// Returns the taxonomy's category ids (rules/taxonomy.yaml, compiled in).
const std::vector<std::string>& TaxonomyCategories();

// A new rule's starting files, written by `triage rules new FAMILY/ID [--lua]`.
struct RuleScaffold {
  std::string yaml;   // FAMILY/ID.yaml: passes lint and test as written, FIXMEs mark what to change
  std::string lua;    // FAMILY/ID.lua when asked for: a values function, a when predicate, a test_
  std::string error;  // non-empty when the family or id is unusable; then the rest is empty
};

// Returns the scaffold for rule `id` in taxonomy family `family` ("shape", "cuda", ...).
RuleScaffold ScaffoldRule(const std::string& family, const std::string& id, bool with_lua);

}  // namespace triage

#endif  // TRIAGE_TOOLS_H_
