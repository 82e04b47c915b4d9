// Rule loading: files -> YAML -> Rule structs (every problem reported) -> compiled RuleSet.
//
// The pipeline follows Falco's shape: read and validate each file into plain structs, then resolve
// overrides by id, then compile once. Validation never stops at the first problem: a linter run must
// show every error of a directory at once.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "log/line_scanner.h"
#include "rules/lua_runtime.h"
#include "rules/problem_codes.h"
#include "rules/rule.h"
#include "rules/rule_cache.h"
#include "rules/rule_trust.h"
#include "rules/signal_rules.h"
#include "log/segmenter.h"
#include "rules/template.h"

namespace triage {
namespace fs = std::filesystem;

namespace {

class FileChecker {
 public:
  FileChecker(std::string file, bool strict, std::vector<Problem>* problems)
      : file_(std::move(file)), strict_(strict), problems_(problems) {}

  void Error(const YAML::Mark& mark, ProblemCode code, const std::string& message) {
    Add(Problem::Severity::kError, mark, code, message);
  }
  void Warning(const YAML::Mark& mark, ProblemCode code, const std::string& message) {
    Add(strict_ ? Problem::Severity::kError : Problem::Severity::kWarning, mark, code, message);
  }
  bool failed() const { return failed_; }
  void set_rule_id(const std::string& id) { rule_id_ = id; }

  static SourcePos Pos(const YAML::Node& node) {
    YAML::Mark m = node.Mark();
    if (m.line < 0) return {};
    return {m.line + 1, m.column + 1};
  }

  // Reads a scalar string; reports a type error at the node otherwise.
  bool GetString(const YAML::Node& node, const std::string& key, std::string* out) {
    if (!node.IsScalar()) {
      Error(node.Mark(), ProblemCode::kBadType, "'" + key + "' must be a string");
      return false;
    }
    *out = node.Scalar();
    return true;
  }
  bool GetText(const YAML::Node& node, const std::string& key, Text* out) {
    out->pos = Pos(node);
    return GetString(node, key, &out->value);
  }
  bool GetStringList(const YAML::Node& node, const std::string& key, std::vector<Text>* out) {
    if (node.IsScalar()) {
      out->push_back({node.Scalar(), Pos(node)});
      return true;
    }
    if (!node.IsSequence()) {
      Error(node.Mark(), ProblemCode::kBadType, "'" + key + "' must be a string or a list of strings");
      return false;
    }
    bool ok = true;
    for (const YAML::Node& item : node) {
      Text t;
      if (GetText(item, key, &t)) out->push_back(t); else ok = false;
    }
    return ok;
  }

 private:
  void Add(Problem::Severity severity, const YAML::Mark& mark, ProblemCode code,
           const std::string& message) {
    Problem p;
    p.severity = severity;
    p.code = ProblemCodeName(code);
    p.file = file_;
    if (mark.line >= 0) {
      p.line = mark.line + 1;
      p.column = mark.column + 1;
    }
    p.rule_id = rule_id_;
    p.message = message;
    if (severity == Problem::Severity::kError) failed_ = true;
    problems_->push_back(std::move(p));
  }

  std::string file_;
  bool strict_;
  std::vector<Problem>* problems_;
  std::string rule_id_;
  bool failed_ = false;
};

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
void ReadLuaRef(FileChecker& check, const YAML::Node& node, const std::string& key, const std::string& file,
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
  code += ref->name + " = function(ctx) local captures, values, incident, incidents, metrics, probes = "
          "ctx.captures, ctx.values, ctx.incident, ctx.incidents, ctx.metrics, ctx.probes; return (" +
          body + "\n) end";
  inline_chunks->push_back({file, code});
}

// Reads a `test:` or `verify:` value: a template string or { probe: NAME, ...args }.
void ReadTestLike(FileChecker& check, const YAML::Node& node, const std::string& key, Text* text,
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

void ReadExamples(FileChecker& check, const YAML::Node& node, Rule* rule) {
  if (!node.IsSequence()) {
    check.Error(node.Mark(), ProblemCode::kBadType, "'examples' must be a list");
    return;
  }
  for (const YAML::Node& item : node) {
    if (!item.IsMap()) {
      check.Error(item.Mark(), ProblemCode::kBadType, "each example must be a mapping with 'match', 'no_match' or 'known_gap'");
      continue;
    }
    Example ex;
    ex.pos = FileChecker::Pos(item);
    int kinds = 0;
    for (const auto& kv : item) {
      const std::string k = kv.first.Scalar();
      if (k == "match" || k == "no_match" || k == "known_gap") {
        ++kinds;
        ex.kind = k == "match" ? Example::Kind::kMatch
                  : k == "no_match" ? Example::Kind::kNoMatch : Example::Kind::kKnownGap;
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
    if (!ex.captures.empty() && ex.kind != Example::Kind::kMatch) {
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
  static const std::set<std::string> kProbes = {
      "nan-source",   "grad-health",      "device-audit", "dtype-audit",      "shape-trace",
      "weight-update", "overfit-one-batch", "init-loss",  "dead-activations", "label-range",
      "index-range",  "mode-audit",       "memory-growth", "determinism",     "autograd-anomaly"};
  return kProbes;
}

void CheckProbe(FileChecker& check, const YAML::Node& node, const std::string& probe) {
  if (!probe.empty() && !KnownProbes().count(probe)) {
    check.Error(node.Mark(), ProblemCode::kUnknownProbe, "unknown probe '" + probe + "'");
  }
}

// Reads `signal:` through signal_rules.cc, reporting its problems at their place in the file, and
// returns the template names the rule may use in `template_names`.
void ReadSignal(FileChecker& check, const YAML::Node& node, Rule* rule, std::set<std::string>* template_names) {
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

// Parses and validates one rule document. Returns false when the rule must be skipped.
bool ReadRule(FileChecker& check, const YAML::Node& root, const std::string& file, Rule* rule) {
  rule->file = file;
  if (!root.IsMap()) {
    check.Error(root.Mark(), ProblemCode::kBadType, "a rule file must hold one mapping (id, category, title, match, ...)");
    return false;
  }
  // Read the id first so every later problem names the rule.
  if (YAML::Node id = root["id"]; id && id.IsScalar()) {
    rule->id = id.Scalar();
    check.set_rule_id(rule->id);
  }
  static const std::set<std::string> kKeys = {
      "id", "category", "title", "confidence", "match", "specificity", "explain",
      "hypotheses", "checks", "verify", "refs", "examples", "values", "score", "signal"};
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (!kKeys.count(key)) {
      check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key '" + key + "'");
    }
  }
  auto require = [&](const char* key) -> YAML::Node {
    YAML::Node n = root[key];
    if (!n) check.Error(root.Mark(), ProblemCode::kMissingKey, std::string("missing required key '") + key + "'");
    return n;
  };

  if (YAML::Node n = require("id")) {
    std::string stem = fs::path(file).stem().string();
    if (!n.IsScalar() || !IsKebabId(n.Scalar())) {
      check.Error(n.Mark(), ProblemCode::kBadId, "'id' must be lower-case letters, digits and '-'");
    } else if (!file.empty() && file.find('<') == std::string::npos && stem != rule->id) {
      check.Error(n.Mark(), ProblemCode::kIdNotFileStem, "id '" + rule->id + "' must equal the file stem '" + stem + "'");
    }
  }
  if (YAML::Node n = require("category")) {
    if (check.GetString(n, "category", &rule->category) && !IsKnownCategory(rule->category)) {
      check.Error(n.Mark(), ProblemCode::kUnknownCategory,
                  "unknown category '" + rule->category + "' (see rules/taxonomy.yaml)");
    }
  }
  if (YAML::Node n = require("title")) check.GetString(n, "title", &rule->title);
  if (YAML::Node n = root["confidence"]) {
    double v = -1;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || v <= 0 || v > 1) {
      check.Error(n.Mark(), ProblemCode::kBadValue, "'confidence' must be a number in (0, 1]");
    } else {
      rule->prior = v;
    }
  }
  if (YAML::Node n = root["specificity"]) {
    int v = -1;
    if (!n.IsScalar() || !YAML::convert<int>::decode(n, v) || v < 0) {
      check.Error(n.Mark(), ProblemCode::kBadValue, "'specificity' must be a non-negative integer");
    } else {
      rule->specificity = v;
    }
  }

  std::vector<LuaChunk> inline_chunks;
  if (YAML::Node n = root["values"]) ReadLuaRef(check, n, "values", file, &inline_chunks, &rule->values_fn);
  if (YAML::Node n = root["score"]) ReadLuaRef(check, n, "score", file, &inline_chunks, &rule->score_fn);
  const bool lua_values = !rule->values_fn.name.empty();

  std::set<std::string> any_names, all_names;
  YAML::Node signal_node = root["signal"];
  if (signal_node) {  // a metric signature instead of message patterns (signal_rules.h)
    if (root["match"]) {
      check.Error(root["match"].Mark(), ProblemCode::kSignalAndMatch, "a rule has either 'match' (messages) or 'signal' (metrics), not both");
    }
    ReadSignal(check, signal_node, rule, &any_names);
    all_names = any_names;
  } else if (YAML::Node match = require("match")) {
    if (!match.IsMap()) {
      check.Error(match.Mark(), ProblemCode::kBadType, "'match' must be a mapping with 'message'");
    } else {
      for (const auto& kv : match) {
        const std::string k = kv.first.Scalar();
        if (k != "message" && k != "exception" && k != "context") {
          check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown key 'match." + k + "'");
        }
      }
      if (YAML::Node msg = match["message"]) {
        check.GetStringList(msg, "match.message", &rule->patterns);
        if (rule->patterns.empty()) check.Error(msg.Mark(), ProblemCode::kMissingKey, "'match.message' is empty");
      } else {
        check.Error(match.Mark(), ProblemCode::kMissingKey, "missing required key 'match.message'");
      }
      if (YAML::Node ex = match["exception"]) {
        std::vector<Text> types;
        check.GetStringList(ex, "match.exception", &types);
        for (const Text& t : types) rule->exceptions.push_back(t.value);
      }
      if (YAML::Node ctx = match["context"]) {
        check.GetText(ctx, "match.context", &rule->context);
        RE2 re(rule->context.value, RegexOptions());
        if (!re.ok()) check.Error(ctx.Mark(), ProblemCode::kBadRegex, "match.context: " + re.error());
      }
    }
  }
  // Validate every pattern; RE2::Set::Add parses without building a matcher (cheap).
  bool first = true;
  for (const Text& p : rule->patterns) {
    RE2::Set probe(RegexOptions(), RE2::UNANCHORED);
    std::string error;
    YAML::Mark mark;
    mark.line = p.pos.line - 1;
    mark.column = p.pos.column - 1;
    if (probe.Add(p.value, &error) < 0) {
      check.Error(mark, ProblemCode::kBadRegex, "match.message: " + error);
      continue;
    }
    if (LiteralChars(p.value) < 3) {
      check.Warning(mark, ProblemCode::kWeakPattern, "pattern has fewer than 3 literal characters; it will match too much");
    }
    if (std::vector<std::string> atoms; !RequiredLiterals(p.value, &atoms, Segmenter::IdleKeywords())) {
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
    any_names.insert(names.begin(), names.end());
    if (first) {
      all_names = names;
      first = false;
    } else {
      std::set<std::string> both;
      for (const std::string& n : all_names) if (names.count(n)) both.insert(n);
      all_names = both;
    }
  }

  if (YAML::Node n = require("explain")) {
    if (check.GetText(n, "explain", &rule->explain)) {
      CheckTemplate(check, rule->explain, any_names, all_names, "explain", lua_values);
    }
  }
  if (YAML::Node hs = require("hypotheses")) {
    if (!hs.IsSequence() || hs.size() == 0) {
      check.Error(hs.Mark(), ProblemCode::kBadType, "'hypotheses' must be a non-empty list");
    } else {
      std::set<std::string> ids;
      for (const YAML::Node& h : hs) {
        if (!h.IsMap()) {
          check.Error(h.Mark(), ProblemCode::kBadType, "each hypothesis must be a mapping (id, text, test, fix)");
          continue;
        }
        HypothesisSpec spec;
        for (const auto& kv : h) {
          const std::string k = kv.first.Scalar();
          if (k != "id" && k != "text" && k != "test" && k != "fix" && k != "when") {
            check.Warning(kv.first.Mark(), ProblemCode::kUnknownKey, "unknown hypothesis key '" + k + "'");
          }
        }
        YAML::Node id = h["id"], text = h["text"], test = h["test"], fix = h["fix"];
        if (!id || !text || !test || !fix) {
          check.Error(h.Mark(), ProblemCode::kMissingKey, "a hypothesis needs 'id', 'text', 'test' and 'fix'");
          continue;
        }
        if (check.GetString(id, "id", &spec.id)) {
          if (!IsKebabId(spec.id)) check.Error(id.Mark(), ProblemCode::kBadId, "hypothesis id must be lower-case letters, digits and '-'");
          if (!ids.insert(spec.id).second) check.Error(id.Mark(), ProblemCode::kDuplicateId, "duplicate hypothesis id '" + spec.id + "'");
        }
        if (YAML::Node when = h["when"]) ReadLuaRef(check, when, "when", file, &inline_chunks, &spec.when);
        if (check.GetText(text, "text", &spec.text)) {
          CheckTemplate(check, spec.text, any_names, all_names, "hypothesis '" + spec.id + "' text", lua_values);
        }
        ReadTestLike(check, test, "test", &spec.test, &spec.probe, &spec.probe_args);
        CheckProbe(check, test, spec.probe);
        if (spec.probe.empty() && !spec.test.value.empty()) {
          CheckTemplate(check, spec.test, any_names, all_names, "hypothesis '" + spec.id + "' test", lua_values);
        }
        if (check.GetText(fix, "fix", &spec.fix)) {
          CheckTemplate(check, spec.fix, any_names, all_names, "hypothesis '" + spec.id + "' fix", lua_values);
        }
        rule->hypotheses.push_back(std::move(spec));
      }
    }
  }
  if (YAML::Node n = root["checks"]) {
    check.GetStringList(n, "checks", &rule->checks);
    for (const Text& t : rule->checks) CheckTemplate(check, t, any_names, all_names, "check", lua_values);
  }
  if (YAML::Node n = require("verify")) {
    ReadTestLike(check, n, "verify", &rule->verify, &rule->verify_probe, nullptr);
    CheckProbe(check, n, rule->verify_probe);
    if (rule->verify_probe.empty()) CheckTemplate(check, rule->verify, any_names, all_names, "verify", lua_values);
  }
  if (YAML::Node n = root["refs"]) {
    std::vector<Text> refs;
    check.GetStringList(n, "refs", &refs);
    for (const Text& t : refs) rule->refs.push_back(t.value);
  }
  if (YAML::Node n = require("examples")) {
    ReadExamples(check, n, rule);
    bool has_match = std::any_of(rule->examples.begin(), rule->examples.end(),
                                 [](const Example& e) { return e.kind == Example::Kind::kMatch; });
    if (!has_match) check.Error(n.Mark(), ProblemCode::kMissingExample, "a rule needs at least one 'match' example");
    for (const Example& ex : rule->examples) {
      for (const auto& c : ex.captures) {
        if (!any_names.count(c.first) && !lua_values) {
          YAML::Mark mark;
          mark.line = ex.pos.line - 1;
          mark.column = ex.pos.column - 1;
          check.Error(mark, ProblemCode::kUnknownCapture, "example expects capture '" + c.first + "', which no pattern defines");
        }
      }
    }
  }
  for (LuaChunk& c : inline_chunks) rule->lua_chunks.push_back(std::move(c));
  return !check.failed();
}

struct SourceFile {
  std::string path;
  std::string content;
  int layer;           // which directory of the search path it came from
  std::string origin;  // bundled | system | user | project | env | cli | memory
};

// Rule ids to leave out, each with what asked for it.
using DisableList = std::vector<std::pair<std::string, std::string>>;

void AddProblem(std::vector<Problem>* problems, Problem::Severity severity, ProblemCode code,
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

// Reads a directory's triage.yaml: `disable: [rule-id, ...]` (rules/README.md "Search path").
void ReadConfig(const fs::path& f, DisableList* disable, std::vector<Problem>* problems) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(f.string());
  } catch (const YAML::Exception& e) {
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), e.mark.line + 1, e.mark.column + 1, "",
               e.msg);
    return;
  }
  if (!root || root.IsNull()) return;
  if (!root.IsMap()) {
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), 1, 1, "",
               "triage.yaml must be a mapping (disable: [rule-id, ...])");
    return;
  }
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    YAML::Mark m = kv.first.Mark();
    if (key != "disable") {
      AddProblem(problems, Problem::Severity::kWarning, ProblemCode::kUnknownKey, f.string(), m.line + 1, m.column + 1, "",
                 "unknown key '" + key + "' in triage.yaml");
      continue;
    }
    const YAML::Node& list = kv.second;
    if (list.IsScalar()) {
      disable->push_back({list.Scalar(), f.string()});
    } else if (list.IsSequence()) {
      for (const YAML::Node& id : list) {
        if (id.IsScalar()) disable->push_back({id.Scalar(), f.string()});
      }
    } else if (!list.IsNull()) {
      AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), m.line + 1, m.column + 1, "",
                 "'disable' must be a list of rule ids");
    }
  }
}

void CollectFiles(const std::string& root, int layer, const std::string& origin, bool must_exist,
                  std::vector<SourceFile>* out, DisableList* disable, std::vector<Problem>* problems) {
  std::error_code ec;
  fs::path p(root);
  auto read = [&](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      AddProblem(problems, Problem::Severity::kError, ProblemCode::kUnreadable, f.string(), 0, 0, "",
                 "cannot read rule file");
      return;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    out->push_back({f.string(), ss.str(), layer, origin});
  };
  if (fs::is_regular_file(p, ec)) {
    read(p);
    // A single rule file brings its Lua sibling along.
    fs::path lua = p;
    lua.replace_extension(".lua");
    if (p.extension() != ".lua" && fs::is_regular_file(lua, ec)) read(lua);
    return;
  }
  if (!fs::is_directory(p, ec)) {
    if (!must_exist) return;
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kMissingDir, root, 0, 0, "",
               "rule directory does not exist");
    return;
  }
  if (fs::is_regular_file(p / "triage.yaml", ec)) ReadConfig(p / "triage.yaml", disable, problems);
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const fs::path& f = it->path();
    std::string ext = f.extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".lua") continue;
    if (f.filename() == "taxonomy.yaml" || f.filename() == "triage.yaml") continue;
    files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) read(f);
}

std::string StemOf(const std::string& path) {
  fs::path p(path);
  return (p.parent_path() / p.stem()).string();
}

bool IsLuaFile(const std::string& path) { return fs::path(path).extension() == ".lua"; }

// Converts a Lua value (a whole-Lua rule's `rule` table) into the YAML the schema describes.
YAML::Node ToYaml(const LuaValue& v) {
  switch (v.type) {
    case LuaValue::Type::kBool: return YAML::Node(v.boolean ? "true" : "false");
    case LuaValue::Type::kNumber: {
      char buf[64];
      if (v.number == static_cast<double>(static_cast<long long>(v.number)) && v.number > -1e15 && v.number < 1e15) {
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.number));
      } else {
        std::snprintf(buf, sizeof buf, "%.17g", v.number);
      }
      return YAML::Node(std::string(buf));
    }
    case LuaValue::Type::kString: return YAML::Node(v.string);
    case LuaValue::Type::kTable: {
      bool sequence = !v.fields.empty();
      for (size_t i = 1; sequence && i <= v.fields.size(); ++i) sequence = v.fields.count(std::to_string(i)) > 0;
      YAML::Node n(sequence ? YAML::NodeType::Sequence : YAML::NodeType::Map);
      if (sequence) {
        for (size_t i = 1; i <= v.fields.size(); ++i) n.push_back(ToYaml(v.fields.at(std::to_string(i))));
      } else {
        for (const auto& kv : v.fields) n[kv.first] = ToYaml(kv.second);
      }
      return n;
    }
    default: return YAML::Node();
  }
}

struct BuildInput {
  std::vector<SourceFile> files;
  bool strict = false;
  std::vector<Problem> problems;
  DisableList disable;
  LuaLimits limits;
  const RuleSet* previous = nullptr;  // a reload keeps the last good version of a broken file's rule
};

// Lua checks shared by every rule of one load: one scratch state, one slot per rule.
class LuaChecker {
 public:
  LuaChecker(const LuaLimits& limits, bool strict, std::vector<Problem>* problems)
      : limits_(limits), strict_(strict), problems_(problems) {}

  LuaState* state() {
    if (!state_ && !failed_) {
      state_ = LuaState::Create(limits_);
      failed_ = state_ == nullptr;
    }
    return state_.get();
  }

  // Reads a whole-Lua rule: runs the file and converts its global `rule` table.
  bool ReadLuaRule(const SourceFile& sf, YAML::Node* root) {
    LuaState* L = state();
    if (!L) return Fail(sf.path, 0, "", ProblemCode::kLuaUnavailable, "could not start Lua");
    int slot = next_slot_++;
    LuaError err;
    if (!L->LoadRule(slot, {{sf.path, sf.content}}, &err)) return Fail(err, "");
    LuaValue v;
    if (!L->GetGlobal(slot, "rule", &v, &err) || v.type != LuaValue::Type::kTable) {
      return Fail(sf.path, 1, "", ProblemCode::kOrphanLua,
                  "a .lua file must sit next to a YAML rule of the same stem, or define a global 'rule' table "
                  "(rules/LUA_API.md \"Rules written in Lua\")");
    }
    *root = ToYaml(v);
    return true;
  }

  // Loads the rule's chunks and checks the functions its YAML names; collects test_* functions.
  bool Validate(Rule* rule) {
    LuaState* L = state();
    if (!L) return Fail(rule->file, 0, rule->id, ProblemCode::kLuaUnavailable, "could not start Lua");
    int slot = next_slot_++;
    LuaError err;
    if (!L->LoadRule(slot, rule->lua_chunks, &err)) return Fail(err, rule->id);
    std::map<std::string, int> fns = L->Functions(slot);
    std::set<std::string> used;
    bool ok = true;
    auto need = [&](const LuaRef& ref, const std::string& what) {
      if (ref.name.empty()) return;
      used.insert(ref.name);
      if (fns.count(ref.name)) return;
      std::string where = rule->lua_file.empty()
                              ? " (there is no " + fs::path(rule->file).stem().string() + ".lua next to the rule)"
                              : " in " + rule->lua_file;
      ok = Fail(rule->file, ref.line, rule->id, ProblemCode::kUnknownLuaFunction,
                what + " names Lua function '" + ref.name + "', which is not defined" + where, ref.column);
    };
    need(rule->values_fn, "'values'");
    need(rule->score_fn, "'score'");
    for (const HypothesisSpec& h : rule->hypotheses) need(h.when, "hypothesis '" + h.id + "' 'when'");
    std::vector<std::pair<int, std::string>> by_line;  // report in file order
    for (const auto& [name, line] : fns) by_line.push_back({line, name});
    std::sort(by_line.begin(), by_line.end());
    for (const auto& [line, name] : by_line) {
      if (name.rfind("test_", 0) == 0) {
        rule->lua_tests.push_back(name);
        continue;
      }
      if (name.rfind("__", 0) == 0 || used.count(name)) continue;
      AddProblem(problems_, strict_ ? Problem::Severity::kError : Problem::Severity::kWarning, ProblemCode::kUnusedLuaFunction,
                 rule->lua_file, line, 0, rule->id,
                 "global function '" + name + "' is not used by the rule (make helpers local, or name it in "
                 "'when'/'values'/'score')");
      if (strict_) ok = false;
    }
    return ok;
  }

 private:
  bool Fail(const std::string& file, int line, const std::string& rule_id, ProblemCode code,
            const std::string& message, int column = 0) {
    AddProblem(problems_, Problem::Severity::kError, code, file, line, column, rule_id, message);
    return false;
  }
  // A Lua error met while loading. Its code is one of the table's lua-* codes; were the runtime ever
  // to name another, it is reported as lua-error (with the runtime's message) rather than unlisted.
  bool Fail(const LuaError& err, const std::string& rule_id) {
    ProblemCode code = ProblemCode::kLuaError;
    ProblemCodeFromName(err.code, &code);
    return Fail(err.file, err.line, rule_id, code, err.message);
  }

  LuaLimits limits_;
  bool strict_;
  std::vector<Problem>* problems_;
  std::unique_ptr<LuaState> state_;
  bool failed_ = false;
  int next_slot_ = 0;
};

// Parses, validates and resolves every rule file: everything a load does before compiling, and what
// the rule cache stores (Note: [Rule cache]).
ParsedRules ParseAll(BuildInput& in) {
  std::vector<Problem>& problems = in.problems;
  auto set = std::make_shared<RuleSet>();
  std::map<std::string, std::pair<int, int>> by_id;  // id -> (index in set->rules, layer)
  // A .lua file belongs to the YAML rule with the same path stem; an unpaired one is a whole-Lua rule.
  std::map<std::string, const SourceFile*> lua_by_stem;
  std::set<std::string> yaml_stems;
  for (const SourceFile& sf : in.files) {
    if (IsLuaFile(sf.path)) lua_by_stem[StemOf(sf.path)] = &sf;
    else yaml_stems.insert(StemOf(sf.path));
  }
  LuaChecker lua(in.limits, in.strict, &problems);
  for (SourceFile& sf : in.files) {
    const bool is_lua = IsLuaFile(sf.path);
    if (is_lua && yaml_stems.count(StemOf(sf.path))) continue;  // read with its YAML
    FileChecker check(sf.path, in.strict, &problems);
    Rule rule;
    bool ok = false;
    YAML::Node root;
    bool parsed = false;
    if (is_lua) {
      parsed = lua.ReadLuaRule(sf, &root);
    } else {
      try {
        root = YAML::Load(sf.content);
        parsed = true;
      } catch (const YAML::Exception& e) {
        check.Error(e.mark, ProblemCode::kBadYaml, e.msg);
      }
      if (parsed && (!root || root.IsNull())) {
        check.Error(YAML::Mark(), ProblemCode::kEmptyFile, "rule file is empty");
        parsed = false;
      }
    }
    if (parsed) {
      try {
        ok = ReadRule(check, root, sf.path, &rule);
      } catch (const YAML::Exception& e) {  // malformed structure yaml-cpp refuses to convert
        check.Error(e.mark, ProblemCode::kBadYaml, e.msg);
      }
    }
    if (ok) {
      const SourceFile* lua_file = is_lua ? &sf : nullptr;
      if (!is_lua) {
        auto it = lua_by_stem.find(StemOf(sf.path));
        if (it != lua_by_stem.end()) lua_file = it->second;
      }
      if (lua_file) {
        rule.lua_file = lua_file->path;
        rule.lua_chunks.insert(rule.lua_chunks.begin(), LuaChunk{lua_file->path, lua_file->content});
      }
      bool refs = !rule.values_fn.name.empty() || !rule.score_fn.name.empty() ||
                  std::any_of(rule.hypotheses.begin(), rule.hypotheses.end(),
                              [](const HypothesisSpec& h) { return !h.when.name.empty(); });
      if (rule.has_lua() || refs) ok = lua.Validate(&rule);
    }
    if (!ok) {
      // Hot reload: a file that used to load keeps its last good rule (Note: [Rule reload]).
      const Rule* old = nullptr;
      if (in.previous) {
        for (const Rule& r : in.previous->rules) {
          if (r.file == sf.path || (!r.lua_file.empty() && r.lua_file == sf.path)) old = &r;
        }
      }
      if (!old) continue;
      rule = *old;
      AddProblem(&problems, Problem::Severity::kWarning, ProblemCode::kKeptPrevious, sf.path, 0, 0, rule.id,
                 "this file has errors: the previously loaded version of the rule stays in use");
    }
    rule.origin = sf.origin;
    auto it = by_id.find(rule.id);
    if (it != by_id.end()) {
      Rule& old = set->rules[it->second.first];
      if (it->second.second == sf.layer) {
        AddProblem(&problems, Problem::Severity::kError, ProblemCode::kDuplicateId, sf.path, 0, 0, rule.id,
                   "rule id '" + rule.id + "' is already defined in " + old.file);
        continue;
      }
      rule.overrides = old.file;
      old = std::move(rule);
      it->second.second = sf.layer;
      continue;
    }
    by_id[rule.id] = {static_cast<int>(set->rules.size()), sf.layer};
    set->rules.push_back(std::move(rule));
  }

  // Configuration may leave rules out by id; the first source that names an id is reported.
  if (!in.disable.empty()) {
    std::map<std::string, std::string> off;
    for (const auto& [id, by] : in.disable) off.emplace(id, by);
    std::vector<Rule> kept;
    for (Rule& r : set->rules) {
      auto it = off.find(r.id);
      if (it == off.end()) {
        kept.push_back(std::move(r));
        continue;
      }
      set->disabled.push_back({r.id, r.file, it->second});
      off.erase(it);
    }
    for (const auto& [id, by] : off) {
      AddProblem(&problems, Problem::Severity::kWarning, ProblemCode::kUnknownDisable, by.find('/') != std::string::npos ? by : "",
                 0, 0, id, "'" + id + "' is disabled by " + by + " but no loaded rule has that id");
    }
    set->rules = std::move(kept);
  }

  ParsedRules parsed;
  parsed.rules = std::move(set->rules);
  parsed.disabled = std::move(set->disabled);
  parsed.problems = std::move(problems);
  return parsed;
}

// Compiles parsed rules: one RE2::Set over every pattern (individual regexes on first use), the line
// prefilter (from the cached required literals when there are any), the Lua runtime.
LoadResult Compile(ParsedRules parsed, const LuaLimits& limits) {
  auto set = std::make_shared<RuleSet>();
  set->rules = std::move(parsed.rules);
  set->disabled = std::move(parsed.disabled);
  std::vector<Problem> problems = std::move(parsed.problems);
  if (!set->rules.empty()) {
    RE2::Options opts = RegexOptions();
    opts.set_max_mem(64 << 20);  // the Set's DFA over hundreds of patterns needs room
    set->set = std::make_unique<RE2::Set>(opts, RE2::UNANCHORED);
    for (int r = 0; r < static_cast<int>(set->rules.size()); ++r) {
      const Rule& rule = set->rules[r];
      for (int p = 0; p < static_cast<int>(rule.patterns.size()); ++p) {
        std::string error;
        if (set->set->Add(rule.patterns[p].value, &error) < 0) continue;  // validated above
        set->patterns.push_back({r, p, LiteralChars(rule.patterns[p].value)});
        set->regexes.push_back(std::make_unique<LazyRegex>(rule.patterns[p].value));
      }
      set->contexts.push_back(rule.context.value.empty() ? nullptr
                                                          : std::make_unique<LazyRegex>(rule.context.value));
    }
    if (!set->set->Compile()) {
      AddProblem(&problems, Problem::Severity::kError, ProblemCode::kCompileFailed, "", 0, 0, "",
                 "could not compile the rule patterns into one set (out of memory?)");
      set->set.reset();
    }
    std::vector<std::string> patterns;
    for (const RuleSet::PatternRef& ref : set->patterns) patterns.push_back(set->rules[ref.rule].patterns[ref.pattern].value);
    if (parsed.atoms.size() != patterns.size()) parsed.atoms = PatternAtoms(patterns, Segmenter::IdleKeywords());
    set->prefilter = BuildLinePrefilter(patterns, parsed.atoms, Segmenter::IdleKeywords());
  }
  if (std::any_of(set->rules.begin(), set->rules.end(), [](const Rule& r) { return r.has_lua(); })) {
    set->lua = std::make_shared<LuaRuntime>(&set->rules, limits);
  }
  LoadResult result;
  result.rules = std::move(set);
  result.problems = std::move(problems);
  return result;
}

// The identity of the running program: a rebuilt binary may parse rules differently, so its cache
// entries must not be reused (Note: [Rule cache]).
void AddProgramIdentity(CacheKey* key) {
  std::error_code ec;
  auto size = fs::file_size("/proc/self/exe", ec);
  auto time = fs::last_write_time("/proc/self/exe", ec);
  key->Add(ec ? 0 : static_cast<std::uint64_t>(size));
  key->Add(ec ? 0 : static_cast<std::uint64_t>(time.time_since_epoch().count()));
  key->Add(std::string_view(TRIAGE_VERSION));
}

LoadResult Build(BuildInput in, const std::string& cache_dir = "") {
  // Reloads keep the previous version of broken rules, which depends on more than the files: no cache.
  if (cache_dir.empty() || in.previous) return Compile(ParseAll(in), in.limits);
  CacheKey key;
  AddProgramIdentity(&key);
  key.Add(static_cast<std::uint64_t>(in.strict));
  key.Add(static_cast<std::uint64_t>(in.limits.memory_bytes));
  key.Add(static_cast<std::uint64_t>(in.limits.instructions));
  key.Add(static_cast<std::uint64_t>(in.limits.milliseconds));
  for (const auto& [id, by] : in.disable) {
    key.Add(id);
    key.Add(by);
  }
  for (const Problem& p : in.problems) key.Add(p.ToString());
  for (const SourceFile& f : in.files) {
    key.Add(f.path);
    key.Add(f.origin);
    key.Add(static_cast<std::uint64_t>(f.layer));
    key.Add(f.content);
  }
  ParsedRules parsed;
  if (ReadRuleCache(cache_dir, key.Hex(), &parsed)) return Compile(std::move(parsed), in.limits);
  LuaLimits limits = in.limits;
  parsed = ParseAll(in);
  // Store the required literals too: computing them is a fifth of a load.
  std::vector<std::string> patterns;
  for (const Rule& r : parsed.rules) {
    for (const Text& t : r.patterns) patterns.push_back(t.value);
  }
  parsed.atoms = PatternAtoms(patterns, Segmenter::IdleKeywords());
  WriteRuleCache(cache_dir, key.Hex(), parsed);
  return Compile(std::move(parsed), limits);
}

}  // namespace

std::string BundledRulesDir() {
  if (const char* env = std::getenv("TRIAGE_BUNDLED_RULES"); env && *env) return env;
  return TRIAGE_BUNDLED_RULES_DIR;
}

LoadResult LoadRulesKeeping(const LoadOptions& options, const RuleSet* previous) {
  BuildInput in;
  in.strict = options.strict;
  in.limits = options.lua;
  in.previous = previous;
  int layer = 0;
  std::set<std::string> seen;  // one directory reached twice (e.g. user == project) is read once
  auto add = [&](const std::string& dir, const std::string& origin, bool must_exist) {
    if (dir.empty()) return;
    std::error_code ec;
    std::string key = fs::weakly_canonical(dir, ec).string();
    if (!seen.insert(ec ? dir : key).second) return;
    CollectFiles(dir, layer++, origin, must_exist, &in.files, &in.disable, &in.problems);
  };
  if (options.bundled) add(BundledRulesDir(), "bundled", true);
  if (options.system) add(SystemRulesDir(), "system", false);
  if (options.user) add(UserRulesDir(), "user", false);
  if (options.project) {
    std::string dir = ProjectRulesDir(options.working_dir);
    if (std::string why = dir.empty() ? "" : UntrustedRulesDir(dir); why.empty()) {
      add(dir, "project", false);
    } else {  // Note: [Rule trust]
      AddProblem(&in.problems, Problem::Severity::kWarning, ProblemCode::kUntrustedRules, dir, 0, 0, "",
                 "project rules skipped: " + why + " (to load them: triage rules allow " + dir + ")");
    }
  }
  if (options.env_path) {
    if (const char* env = std::getenv("TRIAGE_RULES_PATH"); env && *env) {
      std::stringstream ss(env);
      std::string dir;
      while (std::getline(ss, dir, ':')) add(dir, "env", true);
    }
    if (const char* env = std::getenv("TRIAGE_DISABLE"); env && *env) {
      std::string list = env;
      for (char& c : list) if (c == ',' || c == ':' || c == ';') c = ' ';
      std::stringstream ss(list);
      std::string id;
      while (ss >> id) in.disable.push_back({id, "TRIAGE_DISABLE"});
    }
  }
  for (const std::string& dir : options.dirs) add(dir, "cli", true);
  for (const std::string& id : options.disable) in.disable.push_back({id, "LoadOptions"});
  std::string cache_dir;
  if (options.cache) cache_dir = options.cache_dir.empty() ? DefaultRuleCacheDir() : options.cache_dir;
  return Build(std::move(in), cache_dir);
}

LoadResult LoadRules(const LoadOptions& options) { return LoadRulesKeeping(options, nullptr); }

LoadResult LoadRulesFromStrings(const std::vector<std::pair<std::string, std::string>>& files, bool strict) {
  BuildInput in;
  in.strict = strict;
  for (const auto& f : files) in.files.push_back({f.first, f.second, 0, "memory"});
  return Build(std::move(in));
}

std::vector<RuleInfo> ListRules(const RuleSet& rules) {
  std::vector<RuleInfo> out;
  for (const Rule& r : rules.rules) out.push_back({r.id, r.category, r.title, r.file, r.overrides, r.origin, r.lua_file});
  std::sort(out.begin(), out.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
  return out;
}

std::vector<DisabledRule> ListDisabledRules(const RuleSet& rules) { return rules.disabled; }

}  // namespace triage
