// Internal model of a rule and of a compiled rule set.
#ifndef TRIAGE_ENGINE_RULE_H_
#define TRIAGE_ENGINE_RULE_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "log/regex.h"
#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {

struct LinePrefilter;  // line_scanner.h

struct SignalSpec;  // signal_rules.h
class LuaRuntime;   // lua_runtime.h
class CalibrationMap;  // calibration.h
struct DeferredTexts;  // rule_cache.h

// One piece of Lua source run in a rule's environment: its sibling .lua file, or an inline
// expression from the YAML (padded with newlines so Lua's line numbers are the YAML's).
struct LuaChunk {
  std::string file;  // shown in errors as file:line
  std::string code;
};

// A reference from the YAML to a Lua function of the rule ("lua:NAME").
struct LuaRef {
  std::string name;  // empty: none
  int line = 0;      // of the YAML key, for lint
  int column = 0;
};

// Where something sits in a rule file (1-based).
struct SourcePos {
  int line = 0;
  int column = 0;
};

// A template string with its position, for error messages.
struct Text {
  std::string value;
  SourcePos pos;
};

// Note: [Conditions] (rules/README.md "Conditions"). A condition written in YAML, without Lua: it holds
// when each of its non-empty parts holds. `message`: one of the patterns matches the incident's message;
// `input`: one of them matches the message of some incident of the input (any rule's, log lines
// included); `facts`: every fact named is stated by the input (Note: [Environment facts] in
// log/env_facts.h) with one of the values listed for it (`*`: any value); `frames`: one of the patterns
// matches a frame of the incident's own traceback, read as the line `FILE in FUNCTION: SOURCE` (Note: [Call-site
// evidence] in diagnose/ranker.cc).
struct Condition {
  std::vector<Text> message;
  std::vector<Text> input;
  std::map<std::string, std::vector<std::string>> facts;
  std::vector<Text> frames;
  SourcePos pos;  // of the key, for lint
  bool empty() const { return message.empty() && input.empty() && facts.empty() && frames.empty(); }
};

struct HypothesisSpec {
  std::string id;
  Text text;
  Text test;          // rendered when probe is empty
  std::string probe;  // `test: { probe: NAME }`
  std::map<std::string, std::string> probe_args;
  Text fix;
  Text cpp_test;      // `cpp: { test, fix }`: the C++ audience's versions (Note: [Audience]); empty: none
  Text cpp_fix;
  LuaRef when;        // `when: lua:NAME` (or an inline expression): the hypothesis applies when true
  // Each of these is a list of conditions, any of which holds (one mapping in YAML is a list of one).
  std::vector<Condition> when_if;  // `when:` written as conditions instead: the hypothesis applies when one holds
  std::vector<Condition> first;    // `first:`: when one holds, the hypothesis moves ahead of those whose `first` does not
  // `category:` the taxonomy category this cause belongs to when it is not the rule's own (a surface
  // error that masks another failure; Note: [Masked causes] in diagnose/ranker.cc); empty: the rule's.
  std::string category;
};

// Reads a rule file's example key ("match", "no_match", "known_gap": ExampleKindName's) into *kind;
// false for any other key (lua_test is no key of a rule file).
bool ExampleKindFromKey(std::string_view key, ExampleKind* kind);

struct Example {
  ExampleKind kind = ExampleKind::kMatch;  // never kLuaTest
  std::string text;
  std::map<std::string, std::string> captures;
  std::string why;
  SourcePos pos;
  std::vector<std::string> hypotheses;  // `hypotheses:` expected hypothesis ids, in order
  bool check_hypotheses = false;
};

struct Rule {
  std::string id;
  std::string file;
  std::string category;
  std::string title;
  double prior = 0.8;
  std::vector<Text> patterns;          // match.message
  // Each pattern's RE2 program size alone as the check found it, or an upper bound of it counted from
  // the text where that is within the budget (Note: [Program size bound] in log/pattern_atoms.cc; -1:
  // not compiled; empty for a rule made without the reader): bounds the set's size (Note: [Set size
  // bound] in rule_loader.cc).
  std::vector<int> pattern_programs;
  std::vector<std::string> exceptions; // match.exception
  Text context;                        // match.context (empty: none)
  bool frames_none = false;            // match.frames: none: only an incident with no stack frame
  int specificity = -1;                // -1: computed from the pattern
  Text explain;
  std::vector<HypothesisSpec> hypotheses;
  std::vector<Text> checks;
  std::vector<std::vector<Condition>> checks_when;  // parallel to checks: `{ text, when }` items; empty: always
  Text verify;
  std::string verify_probe;
  std::vector<Text> cpp_checks;        // `cpp: { checks, verify }`: the C++ audience's versions; empty: none
  Text cpp_verify;
  std::vector<std::string> refs;
  std::vector<Example> examples;
  std::string overrides;               // file of the rule this one replaced
  std::shared_ptr<const SignalSpec> signal;  // `signal:` (a metric signature); null for message rules
  std::string origin;                  // bundled | system | user | project | env | cli | memory
  // Lua parts (rules/LUA_API.md): the rule's chunks run in one environment of its own.
  std::string lua_file;                // the sibling .lua, or the file of a whole-Lua rule
  std::vector<LuaChunk> lua_chunks;
  LuaRef values_fn;                    // `values: lua:NAME`: returns extra template names
  LuaRef score_fn;                     // `score: lua:NAME`: adjusts or vetoes the confidence
  std::vector<Condition> unless;       // `unless:`: the rule does not apply when one holds (Note: [Conditions])
  std::vector<Condition> needs;        // `needs:`: the rule applies only when one holds
  std::vector<std::string> lua_tests;  // global test_* functions, run by `triage rules test`
  bool has_lua() const { return !lua_chunks.empty(); }
};

// A pattern's own regex, compiled on first use (most patterns never hit a given log).
// Note: [Group names kept aside] RE2 (2022-06 and later) checks a group's name against a Unicode
// character class that it builds the first time a process parses a named group: ~2.1 M instructions
// and ~100 KB of tree nodes, a twentieth of a warm start, spent for the first candidate whose pattern
// has `(?P<name>`. So Get() compiles the pattern with each `(?P<name>` written as a plain `(` (the
// same group, the same number: names do not take part in matching) and keeps the names here, when
// every name is ASCII letters, digits and `_` (what RE2 accepts anyway), no name repeats and the
// pattern holds no `\Q` (UnnamedGroups); the compiled regex must then count the groups the rewrite
// saw, or the pattern is compiled as written. Read the names through NamedGroups(), never through
// Get().NamedCapturingGroups().
class LazyRegex {
 public:
  explicit LazyRegex(std::string pattern) : pattern_(std::move(pattern)) {}
  const RE2& Get() const;
  // Group name -> group number, as RE2::NamedCapturingGroups() gives them for the pattern as written.
  const std::map<std::string, int>& NamedGroups() const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> re_;
  mutable std::map<std::string, int> names_;  // when the names were kept aside
  mutable bool names_aside_ = false;
};

// `pattern` with each named group `(?P<name>` written `(`, its names and their groups' numbers in
// `names`, and the number of capturing groups in `groups` (Note: [Group names kept aside]). False,
// with `pattern` unchanged, when the pattern has no named group or is not one this reads for sure: a
// `\Q`, a name that is not ASCII letters, digits and `_`, a repeated name, an unclosed class.
bool UnnamedGroups(std::string* pattern, std::map<std::string, int>* names, int* groups);

// Note: [Pattern set] RuleSet::Match returns the patterns that match a text, as one RE2::Set over
// every pattern finds them. Compiling that set costs a few milliseconds (~50 M instructions for the
// bundled rules), most of a warm start, and a run over a short log asks it about a handful of texts.
// So the set is compiled at its first need only: while the line prefilter can narrow a text's
// candidates (the patterns of the keywords the text holds, whose required literals it holds, and the
// patterns without required literals: Note: [Line prefilter] in log/line_scanner.h, the argument that
// no other pattern can match a line; and, for a text of several lines, the patterns whose required
// literal spans lines, which no keyword stands for), Match runs each candidate's own regex. The set
// is asked about a text of one line only, and only after kMatchesBeforeSet calls (a log whose lines
// reach the rules by the thousand: there the set's DFA, warm after a few lines, is cheaper than the
// candidates with a few hundred patterns) or when the line has more than kCandidatesBeforeSet
// candidates. A text of several lines (an incident's message) always goes to its candidates: on such
// texts the set's DFA builds new states at every byte, and with 1,700 patterns one message cost ~55 M
// instructions and the DFA grew to its 64 MiB budget (tests/bench/README.md, the rule-count sweep).
// The set is also asked when a candidate's regex does not compile on its own (RE2's smaller memory
// budget for one regex), and the candidates are asked when the set's DFA runs out of memory. Both
// ways give the same indexes (tests/pattern_set_test.cc checks it on every line and incident of the
// corpus). A load without a usable cache entry compiles the set at once (unless the same patterns
// compiled before: Note: [Compiled pattern sets] in rule_cache.h, or their program sizes bound the
// set far below what RE2 refuses: Note: [Set size bound] in rule_loader.cc), so that a set RE2 cannot
// compile is reported (compile-failed, a warning) with the other problems; that problem is cached with
// them. A set RE2 refuses loses no rule: its patterns past ~7,000 (bench rule sets of 4000 rules) no
// longer fit the set's 64 MiB, and then every text goes to its candidates, however many (each pattern
// when there is no prefilter either), as when the set's DFA runs out of memory: slower on a log whose
// lines reach the rules by the thousand, the same hits (until 2026-11-28 such a rule set matched
// nothing at all). Having the set compiled does not change which way Match takes.
class RuleSet {
 public:
  struct PatternRef {
    int rule;     // index into rules
    int pattern;  // index into the rule's patterns
  };

  static constexpr int kMatchesBeforeSet = 4096;
  static constexpr size_t kCandidatesBeforeSet = 64;

  std::vector<Rule> rules;
  std::vector<PatternRef> patterns;                // pattern index (the RE2::Set's) -> pattern
  std::vector<std::unique_ptr<LazyRegex>> regexes; // parallel to patterns
  std::vector<std::unique_ptr<LazyRegex>> contexts;// parallel to rules; null when no context
  // Which lines the log path may skip unread (Note: [Line prefilter], line_scanner.h); null: read all.
  std::shared_ptr<const LinePrefilter> prefilter;
  // The patterns with a required literal that holds a '\n': the prefilter's keywords never do (a line
  // holds none), so no keyword stands for that literal, and Match takes these patterns as candidates
  // of every text with a '\n' in it (an incident's message may span lines; Note: [Pattern set]).
  std::vector<int> newline_patterns;
  std::shared_ptr<LuaRuntime> lua;                 // null when no rule has Lua (Note: [Lua threads])
  std::vector<DisabledRule> disabled;              // rules left out by configuration
  // The map the ranker applies to every final confidence (Note: [Calibration map]); null: none.
  std::shared_ptr<const CalibrationMap> calibration;
  std::vector<RuleSource> sources;                 // non-bundled directories rules came from (Report)
  // The cache directory the load used (LoadOptions::cache_dir or DefaultRuleCacheDir()); empty when
  // the load used no cache. The similar-case index keeps its stored form there (BundledSimilarIndex).
  std::string cache_dir;

  // Returns the indexes of the patterns that match `text`, ascending (empty when none; Note: [Pattern
  // set]).
  std::vector<int> Match(std::string_view text) const;
  // The two ways Match can take, each giving its result (for tests): the compiled set, and each
  // candidate's own regex (false when that way cannot decide: no prefilter, a text of one line with
  // too many candidates, a regex that does not compile alone).
  std::vector<int> MatchWithSet(std::string_view text) const;
  bool MatchCandidates(std::string_view text, std::vector<int>* hits) const;

  // All patterns in one RE2::Set (index i is patterns[i]), compiled at the first call; null when there
  // are no patterns or it did not compile.
  const RE2::Set* Set() const;
  // Gives the set compiled by the loader (null: it failed), or marks it failed when a cached load
  // reported compile-failed.
  void SetCompiled(std::unique_ptr<RE2::Set> set);
  // True once the set has been compiled (or found not to compile): Set() or SetCompiled has run.
  bool set_compiled() const { return set_ready_.load(std::memory_order_acquire); }
  const Rule* Find(const std::string& id) const;

  // Note: [Texts on demand] (rule_cache.h). rules[rule] with every field: the same Rule when the set
  // holds its texts, else a copy of it with its texts read from the cache entry, made at the first
  // call (thread-safe) and kept for the set's life. Whatever reads a rule's texts (explanation,
  // hypotheses, checks, verification, references, examples) reads them from here.
  const Rule& Full(int rule) const;
  // Leaves the rules' texts to `texts` (one span per rule), read by Full on demand; null: the rules
  // hold them.
  void DeferTexts(std::shared_ptr<const DeferredTexts> texts);
  bool texts_deferred() const { return deferred_ != nullptr; }

 private:
  std::shared_ptr<const DeferredTexts> deferred_;
  mutable std::mutex full_mu_;                              // guards made_ and the writes to full_
  mutable std::unique_ptr<std::atomic<const Rule*>[]> full_;  // per rule: its full copy, once made
  mutable std::vector<std::unique_ptr<const Rule>> made_;

  mutable std::once_flag set_once_;
  mutable std::unique_ptr<RE2::Set> set_;
  // Asks the set (no hits when it did not compile); false when its DFA ran out of memory.
  bool SetMatch(std::string_view text, std::vector<int>* hits) const;
  bool Candidates(std::string_view text, std::vector<int>* hits, bool capped) const;

  mutable std::atomic<int> matches_{0};  // Match calls so far, up to kMatchesBeforeSet
  mutable std::atomic<bool> set_ready_{false};  // set_once_ has run (the set may still be null)
};

// Compiles every pattern of `rules` into one RE2::Set, in rule order then pattern order (a RuleSet's
// pattern indexes); null when there are none or RE2 fails (memory).
std::unique_ptr<RE2::Set> CompilePatternSet(const std::vector<Rule>& rules);

// Validates the taxonomy categories compiled into the binary.
bool IsKnownCategory(const std::string& category);
const std::vector<std::string>& KnownCategories();
// The category's `title:` in rules/taxonomy.yaml; "" for an unknown category.
std::string CategoryTitle(const std::string& category);

// Counts the literal characters of a regex: a rough measure of how specific it is.
int LiteralChars(const std::string& pattern);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_H_
