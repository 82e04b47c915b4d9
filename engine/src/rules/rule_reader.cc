// Reading one rule document (rule_reader.h): the schema of rules/README.md, checked key by key.
#include "rules/rule_reader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "triage/evidence.h"

#include "log/env_facts.h"
#include "log/line_scanner.h"
#include "log/pattern_atoms.h"
#include "log/segmenter.h"
#include "rules/lua_runtime.h"
#include "rules/signal_rules.h"
#include "rules/template.h"
#include "triage/locale_free.h"

namespace triage {
namespace fs = std::filesystem;

namespace {

bool IsKebabId(const std::string& s) {
  if (s.empty() || s.size() > 80) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

// Names of the named groups (?P<name>...) in a pattern.
std::set<std::string> CaptureNames(const std::string& pattern) {
  std::set<std::string> names;
  size_t pos = 0;
  while ((pos = pattern.find("(?P<", pos)) != std::string::npos) {
    // A preceding unescaped backslash would make it literal; patterns rarely do that.
    size_t end = pattern.find('>', pos + 4);
    if (end == std::string::npos) break;
    names.insert(pattern.substr(pos + 4, end - pos - 4));
    pos = end;
  }
  return names;
}

const std::set<std::string>& BuiltinNames() {
  static const std::set<std::string> kNames = {"exception", "location"};
  return kNames;
}

// Reads a `when:`/`values:`/`score:` value: "lua:NAME" names a global function of the rule's Lua;
// "lua: EXPRESSION" is compiled into a function of its own (rules/LUA_API.md "Inline expressions").
void ReadLuaRef(FileChecker& check, const YamlNode& node, const std::string& key, const std::string& file,
                std::vector<LuaChunk>* inline_chunks, LuaRef* ref) {
  std::string v;
  if (!check.GetString(node, key, &v)) return;
  SourcePos pos = FileChecker::Pos(node);
  ref->line = pos.line;
  ref->column = pos.column;
  if (v.rfind("lua:", 0) != 0) {
    check.Error(node.Mark(), ProblemCode::kBadValue, "'" + key + "' must be 'lua:FUNCTION' or 'lua: EXPRESSION'");
    return;
  }
  std::string body = v.substr(4);
  size_t b = body.find_first_not_of(" \t"), e = body.find_last_not_of(" \t\n");
  body = b == std::string::npos ? "" : body.substr(b, e - b + 1);
  if (body.empty()) {
    check.Error(node.Mark(), ProblemCode::kBadValue, "'" + key + "' names no Lua function");
    return;
  }
  if (IsLuaName(body)) {
    ref->name = body;
    return;
  }
  if (std::string why = LuaExpressionError(body); !why.empty()) {
    check.Error(node.Mark(), ProblemCode::kLuaSyntax, "'" + key + "' inline Lua must be one expression: " + why);
    return;
  }
  // Padding with newlines makes Lua's line numbers the YAML file's.
  ref->name = "__" + key + "_" + std::to_string(pos.line) + "_" + std::to_string(pos.column);
  std::string code(pos.line > 1 ? pos.line - 1 : 0, '\n');
  // ctx.incidents and ctx.metrics are made at their first read (Note: [Lazy ctx] in lua_runtime.cc):
  // an expression that does not name them does not read them.
  std::string names = "captures, values, incident", reads = "ctx.captures, ctx.values, ctx.incident";
  for (const char* lazy : {"incidents", "metrics"}) {
    if (body.find(lazy) != std::string::npos) {
      names += std::string(", ") + lazy;
      reads += std::string(", ctx.") + lazy;
    }
  }
  names += ", facts";
  reads += ", ctx.facts";
  code += ref->name + " = function(ctx) local " + names + ", probes = " + reads + ", ctx.probes; return (" + body +
          "\n) end";
  inline_chunks->push_back({file, code});
}

// Reads a `test:` or `verify:` value: a template string or { probe: NAME, ...args }.
void ReadTestLike(FileChecker& check, const YamlNode& node, const std::string& key, Text* text,
                  std::string* probe, std::map<std::string, std::string>* args) {
  if (node.IsScalar()) {
    check.GetText(node, key, text);
    return;
  }
  if (!node.IsMap()) {
    check.Error(node.Mark(), ProblemCode::kBadType, "'" + key + "' must be a string or a mapping with 'probe'");
    return;
  }
  text->pos = FileChecker::Pos(node);
  for (const auto& kv : node) {
    const std::string k = kv.first.Scalar();
    if (!kv.second.IsScalar()) {
      check.Error(kv.second.Mark(), ProblemCode::kBadType, "'" + key + "." + k + "' must be a scalar");
      continue;
    }
    if (k == "probe") {
      *probe = kv.second.Scalar();
    } else if (k == "expect" && args == nullptr) {
      text->value = kv.second.Scalar();
    } else if (args != nullptr) {
      (*args)[k] = kv.second.Scalar();
    } else {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key '" + key + "." + k + "'");
    }
  }
  if (probe->empty()) {
    check.Error(node.Mark(), ProblemCode::kMissingKey, "'" + key + "' mapping needs a 'probe'");
  }
}

void ReadExamples(FileChecker& check, const YamlNode& node, Rule* rule) {
  if (!node.IsSequence()) {
    check.Error(node.Mark(), ProblemCode::kBadType, "'examples' must be a list");
    return;
  }
  for (const YamlNode& item : node) {
    if (!item.IsMap()) {
      check.Error(item.Mark(), ProblemCode::kBadType, "each example must be a mapping with 'match', 'no_match' or 'known_gap'");
      continue;
    }
    Example ex;
    ex.pos = FileChecker::Pos(item);
    int kinds = 0;
    for (const auto& kv : item) {
      const std::string k = kv.first.Scalar();
      if (ExampleKindFromKey(k, &ex.kind)) {
        ++kinds;
        check.GetString(kv.second, k, &ex.text);
      } else if (k == "captures") {
        if (!kv.second.IsMap()) {
          check.Error(kv.second.Mark(), ProblemCode::kBadType, "'captures' must be a mapping of name: value");
          continue;
        }
        for (const auto& c : kv.second) {
          if (!c.second.IsScalar()) {
            check.Error(c.second.Mark(), ProblemCode::kBadType, "capture values must be scalars");
            continue;
          }
          ex.captures[c.first.Scalar()] = c.second.Scalar();
        }
      } else if (k == "why") {
        check.GetString(kv.second, k, &ex.why);
      } else if (k == "hypotheses") {
        std::vector<Text> ids;
        check.GetStringList(kv.second, k, &ids);
        for (const Text& t : ids) ex.hypotheses.push_back(t.value);
        ex.check_hypotheses = true;
      } else {
        check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown example key '" + k + "'");
      }
    }
    if (kinds != 1) {
      check.Error(item.Mark(), ProblemCode::kBadExample, "an example needs exactly one of 'match', 'no_match', 'known_gap'");
      continue;
    }
    if (!ex.captures.empty() && ex.kind != ExampleKind::kMatch) {
      check.Warning(item.Mark(), ProblemCode::kBadExample, "'captures' only applies to 'match' examples");
    }
    rule->examples.push_back(std::move(ex));
  }
}

// Checks that every {name} in a template is defined; `all` are names captured by every pattern.
void CheckTemplate(FileChecker& check, const Text& text, const std::set<std::string>& any,
                   const std::set<std::string>& all, const std::string& what, bool lua_values = false) {
  std::string error;
  std::vector<std::string> names = TemplateNames(text.value, &error);
  YAML::Mark mark;
  mark.line = text.pos.line - 1;
  mark.column = text.pos.column - 1;
  if (!error.empty()) {
    check.Error(mark, ProblemCode::kBadTemplate, what + ": " + error);
    return;
  }
  for (const std::string& name : names) {
    if (BuiltinNames().count(name)) continue;
    if (!any.count(name) && lua_values) continue;  // may come from `values:` (checked by the examples)
    if (!any.count(name)) {
      check.Error(mark, ProblemCode::kUnknownCapture, what + " uses {" + name + "}, which no pattern captures");
    } else if (!all.count(name)) {
      check.Warning(mark, ProblemCode::kPartialCapture,
                    what + " uses {" + name + "}, which only some patterns capture (renders as '?')");
    }
  }
}

const std::set<std::string>& KnownProbes() {
  static const std::set<std::string> kProbes(ProbeNames().begin(), ProbeNames().end());
  return kProbes;
}

void CheckProbe(FileChecker& check, const YamlNode& node, const std::string& probe) {
  if (!probe.empty() && !KnownProbes().count(probe)) {
    check.Error(node.Mark(), ProblemCode::kUnknownProbe, "unknown probe '" + probe + "'");
  }
}

// Reads `signal:` through signal_rules.cc, reporting its problems at their place in the file, and
// returns the template names the rule may use in `template_names`.
void ReadSignal(FileChecker& check, const YamlNode& node, Rule* rule, std::set<std::string>* template_names) {
  std::vector<SignalProblem> problems;
  rule->signal = ParseSignalSpec(node, &problems);
  for (const SignalProblem& p : problems) {
    YAML::Mark mark;
    mark.line = p.line - 1;
    mark.column = p.column - 1;
    if (p.error) check.Error(mark, p.code, p.message); else check.Warning(mark, p.code, p.message);
  }
  if (rule->signal) {
    *template_names = SignalCaptureNames(rule->signal->detector);
    for (const std::string& c : rule->signal->evidence_for) {
      if (!IsKnownCategory(c)) check.Error(node.Mark(), ProblemCode::kUnknownCategory, "signal.evidence_for: unknown category '" + c + "'");
    }
  }
}

// yaml-cpp keeps every pair of a mapping that names a key twice, and a lookup sees only the first:
// the second value would be ignored without a word. Reports each repeated key with both positions.
// (Walked on the tree's items, ForEachRepeatedKey: through YamlNode's iterator it cost ~10 M
// instructions of a start with no cache, for the ~30,000 nodes of the bundled rules.)
void CheckDuplicateKeys(FileChecker& check, const YamlNode& node) {
  ForEachRepeatedKey(node, [&](const std::string& key, const YAML::Mark& first, const YAML::Mark& again) {
    check.Error(again, ProblemCode::kDuplicateKey,
                "key '" + key + "' is given twice (first at line " + std::to_string(first.line + 1) + ", column " +
                    std::to_string(first.column + 1) + "); YAML keeps only one of them");
  });
}

// Note: [Pattern budget]
// Every pattern joins one RE2::Set, so one pattern can hurt every rule: a program too large for the
// set's memory made the whole set fail to compile (no rule matched any more), and a pattern whose
// DFA needs exponentially many states made the set's DFA thrash on every log line (a 62 MB log took
// 44 s instead of 0.16 s). Each pattern's program alone is therefore sized (compiled, unless an upper
// bound counted from its text is within the budget: Note: [Program size bound] in
// log/pattern_atoms.cc) and refused (its rule dropped
// alone, with the pattern's file:line:column) when its program exceeds kMaxPatternProgram
// instructions (the bundled patterns need at most a few hundred), or when it repeats a character
// class, '.', or a group more than kMaxClassRepeat times with a counted repetition ({n}, {n,},
// {n,m}): matching "[a-q][^u-z]{13}x" anywhere in a line must track which of the last 13 characters
// could have started a match, up to 2^13 DFA states. A repeated literal character is fine, and so is
// '+' or '*'. The same look-back written out ("[a-q][^u-z][^u-z]..."), or built from different
// classes, is refused when more than kMaxClassRun class atoms stand in a row (a counted repetition
// counts as that many atoms; a literal, '|', '+' or '*' ends the row).
constexpr int kMaxPatternProgram = 5000;
constexpr int kMaxClassRepeat = 8;
constexpr int kMaxClassRun = 12;

// The largest counted repetition of a class, '.', an escape class or a group in `pattern`
// (0 when none); *longest_run: the most class atoms in a row, counted repetitions expanded.
int WidestClassRepeat(const std::string& pattern, int* longest_run) {
  int widest = 0;
  bool last_is_class = false;  // the atom before the current position is not a single literal
  int run = 0;                 // class atoms in a row so far, counted repetitions expanded
  *longest_run = 0;
  std::vector<bool> group_open;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char n = pattern[++i];
      if (n == 'p' || n == 'P') {
        if (i + 1 < pattern.size() && pattern[i + 1] == '{') i = std::min(pattern.find('}', i), pattern.size() - 1);
        else ++i;
        last_is_class = true;
      } else {
        last_is_class = std::string_view("dDwWsSC").find(n) != std::string_view::npos;
      }
    } else if (c == '[') {
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;  // a leading ']' is a member
      for (; j < pattern.size() && pattern[j] != ']'; ++j) {
        if (pattern[j] == '\\') ++j;
        else if (pattern[j] == '[' && j + 1 < pattern.size() && pattern[j + 1] == ':') j = std::min(pattern.find(":]", j), pattern.size() - 1) + 1;
      }
      i = std::min(j, pattern.size() - 1);
      last_is_class = true;
    } else if (c == '.' || c == ')') {
      last_is_class = true;
    } else if (c == '{' && i + 1 < pattern.size() && IsAsciiDigit(pattern[i + 1])) {
      size_t close = pattern.find('}', i);
      if (close == std::string::npos) break;
      std::string body = pattern.substr(i + 1, close - i - 1);
      size_t comma = body.find(',');
      std::string upper = comma == std::string::npos || comma + 1 == body.size() ? body.substr(0, comma) : body.substr(comma + 1);
      int bound = upper.size() > 6 ? 1000000 : std::atoi(upper.c_str());
      if (last_is_class) {
        widest = std::max(widest, bound);
        run += std::max(bound, 1) - 1;  // the atom before, repeated
        *longest_run = std::max(*longest_run, run);
      }
      i = close;
      continue;
    } else if (c == '*' || c == '+' || c == '|') {
      run = 0;  // an unbounded repetition or another alternative: no fixed-distance look-back
      last_is_class = false;
      continue;
    } else if (c == '?' || c == '(') {
      continue;  // optional atoms still count; a group's contents count themselves
    } else {
      last_is_class = false;
    }
    run = last_is_class ? run + 1 : 0;
    *longest_run = std::max(*longest_run, run);
  }
  return widest;
}

// One rule document being read: what its section readers share. The sections are read in the
// order below, which is also the order their problems are reported in.
struct RuleDocument {
  FileChecker& check;
  const YamlNode& root;
  const std::string& file;
  Rule* rule;
  std::vector<LuaChunk> inline_chunks;  // `lua: EXPRESSION` values, appended to the rule's chunks last
  std::set<std::string> any_names;      // captured by some pattern (or the signal's detector)
  std::set<std::string> all_names;      // captured by every pattern
  bool lua_values = false;              // `values:` is Lua, so a template may use names no pattern has

  // root[key]; reports missing-key when it is absent.
  YamlNode Require(const char* key) {
    YamlNode n = root[key];
    if (!n) check.Error(root.Mark(), ProblemCode::kMissingKey, std::string("missing required key '") + key + "'");
    return n;
  }
  void CheckText(const Text& text, const std::string& what) {
    CheckTemplate(check, text, any_names, all_names, what, lua_values);
  }
};

// The id first (so every later problem names the rule), unknown top-level keys, then the rule's
// identity: id, category, title, confidence, specificity.
void ReadIdentity(RuleDocument& d) {
  FileChecker& check = d.check;
  Rule* rule = d.rule;
  if (YamlNode id = d.root["id"]; id && id.IsScalar()) {
    rule->id = id.Scalar();
    check.set_rule_id(rule->id);
  }
  CheckDuplicateKeys(check, d.root);
  static const std::set<std::string> kKeys = {
      "id", "category", "title", "confidence", "match", "specificity", "explain",
      "hypotheses", "checks", "verify", "cpp", "refs", "examples", "values", "score", "signal", "unless", "needs"};
  for (const auto& kv : d.root) {
    const std::string key = kv.first.Scalar();
    if (!kKeys.count(key)) {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key '" + key + "'");
    }
  }
  if (YamlNode n = d.Require("id")) {
    std::string stem = fs::path(d.file).stem().string();
    if (!n.IsScalar() || !IsKebabId(n.Scalar())) {
      check.Error(n.Mark(), ProblemCode::kBadId, "'id' must be lower-case letters, digits and '-'");
    } else if (!d.file.empty() && d.file.find('<') == std::string::npos && stem != rule->id) {
      check.Error(n.Mark(), ProblemCode::kIdNotFileStem, "id '" + rule->id + "' must equal the file stem '" + stem + "'");
    }
  }
  if (YamlNode n = d.Require("category")) {
    if (check.GetString(n, "category", &rule->category) && !IsKnownCategory(rule->category)) {
      check.Error(n.Mark(), ProblemCode::kUnknownCategory,
                  "unknown category '" + rule->category + "' (see rules/taxonomy.yaml)");
    }
  }
  if (YamlNode n = d.Require("title")) check.GetString(n, "title", &rule->title);
  if (YamlNode n = d.root["confidence"]) {
    double v = -1;
    if (!n.IsScalar() || !DecodeYaml(n, &v) || !(v > 0 && v <= 1)) {  // NaN fails too
      check.Error(n.Mark(), ProblemCode::kBadValue, "'confidence' must be a number in (0, 1]");
    } else {
      rule->prior = v;
    }
  }
  if (YamlNode n = d.root["specificity"]) {
    int v = -1;
    if (!n.IsScalar() || !DecodeYaml(n, &v) || v < 0) {
      check.Error(n.Mark(), ProblemCode::kBadValue, "'specificity' must be a non-negative integer");
    } else {
      rule->specificity = v;
    }
  }
}

// Note: [Syntax checks without a compile]
// A condition's or a context's pattern is only checked when read (it is compiled where a diagnosis
// first needs it); RE2's constructor parsed and compiled each (~250 K instructions, ~11 M of a start
// with no cache for ~90 patterns). A pattern that ProgramSizeBound answers is one RE2 accepts (Note:
// [Program size bound] in log/pattern_atoms.cc; tests/pattern_atoms_test.cc checks it), so only the
// others are compiled here for their error.
// Returns RE2's error for `pattern` (with RegexOptions()), or "" when RE2 accepts it.
std::string RegexError(const std::string& pattern) {
  if (ProgramSizeBound(pattern)) return std::string();
  RE2 re(pattern, RegexOptions());
  return re.ok() ? std::string() : re.error();
}

// A condition mapping (Note: [Conditions] in rule.h): `message:`, `input:` and `frames:` (a pattern or a list),
// `facts:` (a mapping of fact names, each to a value or a list of values). `where` names the key in
// problems ("unless", "hypothesis 'x' first").
void ReadOneCondition(FileChecker& check, const YamlNode& node, const std::string& where, Condition* out) {
  out->pos = FileChecker::Pos(node);
  if (!node.IsMap()) {
    check.Error(node.Mark(), ProblemCode::kBadType, "'" + where + "' must be a mapping of message, input, frames or facts, or a list of them");
    return;
  }
  for (const auto& kv : node) {
    const std::string k = kv.first.Scalar();
    if (k == "message" || k == "input" || k == "frames") {
      std::vector<Text>* patterns = k == "message" ? &out->message : k == "input" ? &out->input : &out->frames;
      check.GetStringList(kv.second, where + "." + k, patterns);
      for (const Text& t : *patterns) {
        if (std::string error = RegexError(t.value); !error.empty()) {
          check.Error(kv.second.Mark(), ProblemCode::kBadRegex, where + "." + k + ": " + error);
        }
      }
    } else if (k == "facts") {
      if (!kv.second.IsMap() || kv.second.size() == 0) {
        check.Error(kv.second.Mark(), ProblemCode::kBadType, "'" + where + ".facts' must be a mapping of fact names to values");
        continue;
      }
      const std::vector<std::string>& names = EnvFacts::Names();
      for (const auto& f : kv.second) {
        const std::string name = f.first.Scalar();
        if (!std::binary_search(names.begin(), names.end(), name)) {
          std::string known;
          for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
          check.Error(f.first.Mark(), ProblemCode::kBadValue,
                      "unknown fact '" + name + "' in '" + where + ".facts' (known: " + known + ")");
          continue;
        }
        std::vector<Text> values;
        check.GetStringList(f.second, where + ".facts." + name, &values);
        std::vector<std::string>& into = out->facts[name];
        for (const Text& v : values) {
          std::string low = v.value;
          for (char& c : low) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
          into.push_back(low);  // YAML's False is the fact's "false"
        }
        if (into.empty()) check.Error(f.second.Mark(), ProblemCode::kBadValue, "'" + where + ".facts." + name + "' lists no value");
        const size_t negated = static_cast<size_t>(std::count_if(into.begin(), into.end(), [](const std::string& v) {
          return !v.empty() && v[0] == '!';
        }));
        if (negated != 0 && negated != into.size()) {
          check.Error(f.second.Mark(), ProblemCode::kBadValue,
                      "'" + where + ".facts." + name + "' mixes values and !values: list only one kind");
        }
      }
    } else {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key '" + where + "." + k + "' (message, input, frames, facts)");
    }
  }
  if (node.size() == 0) check.Error(node.Mark(), ProblemCode::kBadValue, "'" + where + "' is empty");
}

// A condition mapping, or a list of them (any holds).
void ReadCondition(FileChecker& check, const YamlNode& node, const std::string& where, std::vector<Condition>* out) {
  if (node.IsSequence()) {
    if (node.size() == 0) check.Error(node.Mark(), ProblemCode::kBadValue, "'" + where + "' is an empty list");
    for (const YamlNode& item : node) {
      out->emplace_back();
      ReadOneCondition(check, item, where, &out->back());
    }
    return;
  }
  out->emplace_back();
  ReadOneCondition(check, node, where, &out->back());
}

// `values:` and `score:` (Lua).
void ReadLuaKeys(RuleDocument& d) {
  if (YamlNode n = d.root["values"]) ReadLuaRef(d.check, n, "values", d.file, &d.inline_chunks, &d.rule->values_fn);
  if (YamlNode n = d.root["score"]) ReadLuaRef(d.check, n, "score", d.file, &d.inline_chunks, &d.rule->score_fn);
  d.lua_values = !d.rule->values_fn.name.empty();
  if (YamlNode n = d.root["unless"]) ReadCondition(d.check, n, "unless", &d.rule->unless);
  if (YamlNode n = d.root["needs"]) ReadCondition(d.check, n, "needs", &d.rule->needs);
}

// `match:` (message patterns, exception types, context, frames), or `signal:` (a metric signature) instead.
void ReadMatch(RuleDocument& d) {
  FileChecker& check = d.check;
  Rule* rule = d.rule;
  YamlNode signal_node = d.root["signal"];
  if (signal_node) {  // a metric signature instead of message patterns (signal_rules.h)
    if (d.root["match"]) {
      check.Error(d.root["match"].Mark(), ProblemCode::kSignalAndMatch, "a rule has either 'match' (messages) or 'signal' (metrics), not both");
    }
    ReadSignal(check, signal_node, rule, &d.any_names);
    d.all_names = d.any_names;
    return;
  }
  YamlNode match = d.Require("match");
  if (!match) return;
  if (!match.IsMap()) {
    check.Error(match.Mark(), ProblemCode::kBadType, "'match' must be a mapping with 'message'");
    return;
  }
  for (const auto& kv : match) {
    const std::string k = kv.first.Scalar();
    if (k != "message" && k != "exception" && k != "context" && k != "frames") {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key 'match." + k + "'");
    }
  }
  if (YamlNode msg = match["message"]) {
    check.GetStringList(msg, "match.message", &rule->patterns);
    if (rule->patterns.empty()) check.Error(msg.Mark(), ProblemCode::kMissingKey, "'match.message' is empty");
  } else {
    check.Error(match.Mark(), ProblemCode::kMissingKey, "missing required key 'match.message'");
  }
  if (YamlNode ex = match["exception"]) {
    std::vector<Text> types;
    check.GetStringList(ex, "match.exception", &types);
    for (const Text& t : types) rule->exceptions.push_back(t.value);
  }
  if (YamlNode ctx = match["context"]) {
    check.GetText(ctx, "match.context", &rule->context);
    if (std::string error = RegexError(rule->context.value); !error.empty()) {
      check.Error(ctx.Mark(), ProblemCode::kBadRegex, "match.context: " + error);
    }
  }
  // `frames: none`: the incident must have no stack frame (an error line pasted alone); with frames the
  // traceback says where the failure ran and the rules reading it decide. `none` is the only condition.
  if (YamlNode frames = match["frames"]) {
    if (!frames.IsScalar()) {
      check.Error(frames.Mark(), ProblemCode::kBadType, "'match.frames' must be the word none");
    } else if (frames.Scalar() != "none") {
      check.Error(frames.Mark(), ProblemCode::kBadValue,
                  "'match.frames' must be none (the incident has no stack frame), not '" + frames.Scalar() + "'");
    } else {
      rule->frames_none = true;
    }
  }
}

// Validates every message pattern (its syntax, its size alone, Note: [Pattern budget]) and how well
// the line prefilter can skip it, and collects the names the patterns capture.
void CheckPatterns(RuleDocument& d) {
  FileChecker& check = d.check;
  bool first = true;
  d.rule->pattern_programs.assign(d.rule->patterns.size(), -1);
  int index = -1;
  for (const Text& p : d.rule->patterns) {
    ++index;
    YAML::Mark mark;
    mark.line = p.pos.line - 1;
    mark.column = p.pos.column - 1;
    // The pattern's size alone: an upper bound counted from its text where that is within the budget
    // (Note: [Program size bound] in log/pattern_atoms.cc: such a pattern parses, and is not compiled
    // at all when its literals are read from its text too), else its program compiled alone
    // (RequiredLiterals' compile answers its size, so it is compiled once and not parsed again for the
    // syntax check: a pattern that compiles parses). One that does not compile is parsed once more as
    // the set parses it, for the parse error the set reports, if any.
    std::vector<std::string> atoms;
    int size = -1;
    const std::optional<int> bound = ProgramSizeBound(p.value);
    bool has_literals = false;
    if (bound && *bound <= kMaxPatternProgram) {
      size = *bound;
      has_literals = RequiredLiterals(p.value, &atoms, Segmenter::IdleKeywords());
    } else {
      has_literals = RequiredLiterals(p.value, &atoms, Segmenter::IdleKeywords(), &size);
    }
    if (size < 0) {
      RE2::Set probe(RegexOptions(), RE2::UNANCHORED);
      std::string error;
      if (probe.Add(p.value, &error) < 0) {
        check.Error(mark, ProblemCode::kBadRegex, "match.message: " + error);
        continue;
      }
    }
    // Note: [Pattern budget]
    int run = 0;
    if (int repeat = WidestClassRepeat(p.value, &run); run > kMaxClassRun) {
      check.Error(mark, ProblemCode::kPatternTooBig,
                  "pattern has " + std::to_string(run) + " character classes in a row (or a class repeated with {n}); over " +
                      std::to_string(kMaxClassRun) + " the combined set's DFA may need 2^n states and slow every "
                      "log line: use '+' or '*', or literals (Note: [Pattern budget])");
      continue;
    } else if (repeat > kMaxClassRepeat) {
      check.Error(mark, ProblemCode::kPatternTooBig,
                  "pattern repeats a character class or group " + std::to_string(repeat) + " times ({n}); over " +
                      std::to_string(kMaxClassRepeat) + " the combined set's DFA may need 2^n states and slow every "
                      "log line: use '+' or '*', or a literal (Note: [Pattern budget])");
      continue;
    }
    d.rule->pattern_programs[index] = size;
    if (size < 0 || size > kMaxPatternProgram) {
      check.Error(mark, ProblemCode::kPatternTooBig,
                  "pattern compiles to " + (size >= 0 ? std::to_string(size) : std::string("too many")) +
                      " instructions, over the " + std::to_string(kMaxPatternProgram) +
                      " one pattern may take in the combined set (Note: [Pattern budget])");
      continue;
    }
    if (LiteralChars(p.value) < 3) {
      check.Warning(mark, ProblemCode::kWeakPattern, "pattern has fewer than 3 literal characters; it will match too much");
    }
    if (!has_literals) {
      check.Warning(mark, ProblemCode::kNoRequiredLiteral,
                    "pattern can match without any literal of 3+ characters, so every log line must be "
                    "matched against it (slow path); add a fixed word every match contains "
                    "(Note: [Line prefilter])");
    } else {
      for (const std::string& atom : atoms) {
        if (!CommonInLogs(atom, Segmenter::IdleKeywords())) continue;
        check.Warning(mark, ProblemCode::kCommonLiteral,
                      "every match needs only '" + atom + "', which ordinary log lines contain too (in any case), "
                      "so most lines of a log go through the full rule set (slow path); write the literal out "
                      "so it is longer, e.g. alternatives instead of '?' (Note: [Line prefilter])");
        break;
      }
    }
    std::set<std::string> names = CaptureNames(p.value);
    d.any_names.insert(names.begin(), names.end());
    if (first) {
      d.all_names = names;
      first = false;
    } else {
      std::set<std::string> both;
      for (const std::string& n : d.all_names) if (names.count(n)) both.insert(n);
      d.all_names = both;
    }
  }
}

// A `cpp:` mapping (Note: [Audience] in rules/README.md): the C++ audience's versions of some keys
// beside it. Returns it when it is a mapping, warning about keys not in `keys`; a null node when it
// is absent or not a mapping (an error).
YamlNode CppSection(FileChecker& check, const YamlNode& parent, const std::string& where,
                      const std::set<std::string>& keys) {
  YamlNode cpp = parent["cpp"];
  if (!cpp) return YamlNode();
  if (!cpp.IsMap()) {
    std::string names;
    for (const std::string& k : keys) names += (names.empty() ? "" : ", ") + k;
    check.Error(cpp.Mark(), ProblemCode::kBadType, "'" + where + "cpp' must be a mapping (" + names + ")");
    return YamlNode();
  }
  for (const auto& kv : cpp) {
    if (!keys.count(kv.first.Scalar())) {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key '" + where + "cpp." + kv.first.Scalar() + "'");
    }
  }
  return cpp;
}

// One item of `hypotheses:`; `ids` are the ids of the rule's hypotheses read so far.
void ReadHypothesis(RuleDocument& d, const YamlNode& h, std::set<std::string>* ids) {
  FileChecker& check = d.check;
  if (!h.IsMap()) {
    check.Error(h.Mark(), ProblemCode::kBadType, "each hypothesis must be a mapping (id, text, test, fix)");
    return;
  }
  HypothesisSpec spec;
  for (const auto& kv : h) {
    const std::string k = kv.first.Scalar();
    if (k != "id" && k != "text" && k != "test" && k != "fix" && k != "when" && k != "first" && k != "cpp" &&
        k != "category") {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown hypothesis key '" + k + "'");
    }
  }
  YamlNode id = h["id"], text = h["text"], test = h["test"], fix = h["fix"];
  if (!id || !text || !test || !fix) {
    check.Error(h.Mark(), ProblemCode::kMissingKey, "a hypothesis needs 'id', 'text', 'test' and 'fix'");
    return;
  }
  if (check.GetString(id, "id", &spec.id)) {
    if (!IsKebabId(spec.id)) check.Error(id.Mark(), ProblemCode::kBadId, "hypothesis id must be lower-case letters, digits and '-'");
    if (!ids->insert(spec.id).second) check.Error(id.Mark(), ProblemCode::kDuplicateId, "duplicate hypothesis id '" + spec.id + "'");
  }
  if (YamlNode when = h["when"]) {
    if (when.IsMap() || when.IsSequence()) {
      ReadCondition(check, when, "hypothesis '" + spec.id + "' when", &spec.when_if);
    } else {
      ReadLuaRef(check, when, "when", d.file, &d.inline_chunks, &spec.when);
    }
  }
  if (YamlNode first = h["first"]) ReadCondition(check, first, "hypothesis '" + spec.id + "' first", &spec.first);
  // Note: [Masked causes]: a cause in another category than the rule's.
  if (YamlNode cat = h["category"]) {
    const std::string what = "hypothesis '" + spec.id + "' category";
    if (check.GetString(cat, "category", &spec.category)) {
      if (!IsKnownCategory(spec.category)) {
        check.Error(cat.Mark(), ProblemCode::kUnknownCategory,
                    what + ": unknown category '" + spec.category + "' (see rules/taxonomy.yaml)");
        spec.category.clear();
      } else if (spec.category == d.rule->category) {
        check.Error(cat.Mark(), ProblemCode::kBadValue,
                    what + ": '" + spec.category + "' is the rule's own category; leave the key out");
        spec.category.clear();
      }
    }
  }
  if (check.GetText(text, "text", &spec.text)) d.CheckText(spec.text, "hypothesis '" + spec.id + "' text");
  ReadTestLike(check, test, "test", &spec.test, &spec.probe, &spec.probe_args);
  CheckProbe(check, test, spec.probe);
  if (spec.probe.empty() && !spec.test.value.empty()) d.CheckText(spec.test, "hypothesis '" + spec.id + "' test");
  if (check.GetText(fix, "fix", &spec.fix)) d.CheckText(spec.fix, "hypothesis '" + spec.id + "' fix");
  if (YamlNode cpp = CppSection(check, h, "", {"test", "fix"})) {
    if (YamlNode n = cpp["test"]) {
      if (!spec.probe.empty()) {
        check.Warning(n.Mark(), ProblemCode::kUnknownKey,
                      "the test is probe '" + spec.probe + "', which a C++ trainer runs as it is: 'cpp.test' is not used");
      } else if (check.GetText(n, "cpp.test", &spec.cpp_test)) {
        d.CheckText(spec.cpp_test, "hypothesis '" + spec.id + "' cpp.test");
      }
    }
    if (YamlNode n = cpp["fix"]) {
      if (check.GetText(n, "cpp.fix", &spec.cpp_fix)) d.CheckText(spec.cpp_fix, "hypothesis '" + spec.id + "' cpp.fix");
    }
  }
  d.rule->hypotheses.push_back(std::move(spec));
}

// `explain:`, `hypotheses:`, `checks:`, `verify:`, `cpp:` and `refs:`: what the report says, each
// template checked against the names the patterns capture.
void ReadAdvice(RuleDocument& d) {
  FileChecker& check = d.check;
  Rule* rule = d.rule;
  if (YamlNode n = d.Require("explain")) {
    if (check.GetText(n, "explain", &rule->explain)) d.CheckText(rule->explain, "explain");
  }
  if (YamlNode hs = d.Require("hypotheses")) {
    if (!hs.IsSequence() || hs.size() == 0) {
      check.Error(hs.Mark(), ProblemCode::kBadType, "'hypotheses' must be a non-empty list");
    } else {
      std::set<std::string> ids;
      for (const YamlNode& h : hs) ReadHypothesis(d, h, &ids);
    }
  }
  if (YamlNode n = d.root["checks"]) {
    // An item is a template, or { text: TEMPLATE, when: CONDITION } (Note: [Conditions]): a check that
    // applies only where the condition holds (`df -h /dev/shm` is no check on Windows).
    if (n.IsSequence()) {
      for (const YamlNode& item : n) {
        Text t;
        std::vector<Condition> when;
        if (item.IsMap()) {
          for (const auto& kv : item) {
            const std::string k = kv.first.Scalar();
            if (k != "text" && k != "when") check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown check key '" + k + "' (text, when)");
          }
          if (YamlNode text = item["text"]) {
            check.GetText(text, "checks.text", &t);
          } else {
            check.Error(item.Mark(), ProblemCode::kMissingKey, "a check written as a mapping needs 'text'");
          }
          if (YamlNode w = item["when"]) ReadCondition(check, w, "checks.when", &when);
        } else if (!check.GetText(item, "checks", &t)) {
          continue;
        }
        rule->checks.push_back(t);
        rule->checks_when.push_back(std::move(when));
      }
    } else {
      check.GetStringList(n, "checks", &rule->checks);
      rule->checks_when.resize(rule->checks.size());
    }
    for (const Text& t : rule->checks) d.CheckText(t, "check");
  }
  if (YamlNode n = d.Require("verify")) {
    ReadTestLike(check, n, "verify", &rule->verify, &rule->verify_probe, nullptr);
    CheckProbe(check, n, rule->verify_probe);
    if (rule->verify_probe.empty()) d.CheckText(rule->verify, "verify");
  }
  if (YamlNode cpp = CppSection(check, d.root, "", {"checks", "verify"})) {
    if (YamlNode n = cpp["checks"]) {
      check.GetStringList(n, "cpp.checks", &rule->cpp_checks);
      for (const Text& t : rule->cpp_checks) d.CheckText(t, "cpp.check");
    }
    if (YamlNode n = cpp["verify"]) {
      if (check.GetText(n, "cpp.verify", &rule->cpp_verify)) d.CheckText(rule->cpp_verify, "cpp.verify");
    }
  }
  if (YamlNode n = d.root["refs"]) {
    std::vector<Text> refs;
    check.GetStringList(n, "refs", &refs);
    for (const Text& t : refs) rule->refs.push_back(t.value);
  }
}

// `examples:`, with at least one 'match' example, whose expected captures some pattern defines.
void ReadRuleExamples(RuleDocument& d) {
  YamlNode n = d.Require("examples");
  if (!n) return;
  ReadExamples(d.check, n, d.rule);
  const std::vector<Example>& examples = d.rule->examples;
  bool has_match = std::any_of(examples.begin(), examples.end(),
                               [](const Example& e) { return e.kind == ExampleKind::kMatch; });
  if (!has_match) d.check.Error(n.Mark(), ProblemCode::kMissingExample, "a rule needs at least one 'match' example");
  for (const Example& ex : examples) {
    for (const auto& c : ex.captures) {
      if (!d.any_names.count(c.first) && !d.lua_values) {
        YAML::Mark mark;
        mark.line = ex.pos.line - 1;
        mark.column = ex.pos.column - 1;
        d.check.Error(mark, ProblemCode::kUnknownCapture, "example expects capture '" + c.first + "', which no pattern defines");
      }
    }
  }
}

}  // namespace

// Parses and validates one rule document. Returns false when the rule must be skipped.
bool ReadRule(FileChecker& check, const YamlNode& root, const std::string& file, Rule* rule) {
  rule->file = file;
  if (!root.IsMap()) {
    check.Error(root.Mark(), ProblemCode::kBadType, "a rule file must hold one mapping (id, category, title, match, ...)");
    return false;
  }
  RuleDocument d{check, root, file, rule};
  ReadIdentity(d);
  ReadLuaKeys(d);
  ReadMatch(d);
  CheckPatterns(d);
  ReadAdvice(d);
  ReadRuleExamples(d);
  for (LuaChunk& c : d.inline_chunks) rule->lua_chunks.push_back(std::move(c));
  return !check.failed();
}

}  // namespace triage
