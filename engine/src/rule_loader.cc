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

#include "rule.h"
#include "template.h"

namespace triage {
namespace fs = std::filesystem;

namespace {

class FileChecker {
 public:
  FileChecker(std::string file, bool strict, std::vector<Problem>* problems)
      : file_(std::move(file)), strict_(strict), problems_(problems) {}

  void Error(const YAML::Mark& mark, const std::string& code, const std::string& message) {
    Add(Problem::Severity::kError, mark, code, message);
  }
  void Warning(const YAML::Mark& mark, const std::string& code, const std::string& message) {
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
      Error(node.Mark(), "bad-type", "'" + key + "' must be a string");
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
      Error(node.Mark(), "bad-type", "'" + key + "' must be a string or a list of strings");
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
  void Add(Problem::Severity severity, const YAML::Mark& mark, const std::string& code,
           const std::string& message) {
    Problem p;
    p.severity = severity;
    p.code = code;
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

// Reads a `test:` or `verify:` value: a template string or { probe: NAME, ...args }.
void ReadTestLike(FileChecker& check, const YAML::Node& node, const std::string& key, Text* text,
                  std::string* probe, std::map<std::string, std::string>* args) {
  if (node.IsScalar()) {
    check.GetText(node, key, text);
    return;
  }
  if (!node.IsMap()) {
    check.Error(node.Mark(), "bad-type", "'" + key + "' must be a string or a mapping with 'probe'");
    return;
  }
  text->pos = FileChecker::Pos(node);
  for (const auto& kv : node) {
    const std::string k = kv.first.Scalar();
    if (!kv.second.IsScalar()) {
      check.Error(kv.second.Mark(), "bad-type", "'" + key + "." + k + "' must be a scalar");
      continue;
    }
    if (k == "probe") {
      *probe = kv.second.Scalar();
    } else if (k == "expect" && args == nullptr) {
      text->value = kv.second.Scalar();
    } else if (args != nullptr) {
      (*args)[k] = kv.second.Scalar();
    } else {
      check.Warning(kv.first.Mark(), "unknown-key", "unknown key '" + key + "." + k + "'");
    }
  }
  if (probe->empty()) {
    check.Error(node.Mark(), "missing-key", "'" + key + "' mapping needs a 'probe'");
  }
}

void ReadExamples(FileChecker& check, const YAML::Node& node, Rule* rule) {
  if (!node.IsSequence()) {
    check.Error(node.Mark(), "bad-type", "'examples' must be a list");
    return;
  }
  for (const YAML::Node& item : node) {
    if (!item.IsMap()) {
      check.Error(item.Mark(), "bad-type", "each example must be a mapping with 'match', 'no_match' or 'known_gap'");
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
          check.Error(kv.second.Mark(), "bad-type", "'captures' must be a mapping of name: value");
          continue;
        }
        for (const auto& c : kv.second) {
          if (!c.second.IsScalar()) {
            check.Error(c.second.Mark(), "bad-type", "capture values must be scalars");
            continue;
          }
          ex.captures[c.first.Scalar()] = c.second.Scalar();
        }
      } else if (k == "why") {
        check.GetString(kv.second, k, &ex.why);
      } else {
        check.Warning(kv.first.Mark(), "unknown-key", "unknown example key '" + k + "'");
      }
    }
    if (kinds != 1) {
      check.Error(item.Mark(), "bad-example", "an example needs exactly one of 'match', 'no_match', 'known_gap'");
      continue;
    }
    if (!ex.captures.empty() && ex.kind != Example::Kind::kMatch) {
      check.Warning(item.Mark(), "bad-example", "'captures' only applies to 'match' examples");
    }
    rule->examples.push_back(std::move(ex));
  }
}

// Checks that every {name} in a template is defined; `all` are names captured by every pattern.
void CheckTemplate(FileChecker& check, const Text& text, const std::set<std::string>& any,
                   const std::set<std::string>& all, const std::string& what) {
  std::string error;
  std::vector<std::string> names = TemplateNames(text.value, &error);
  YAML::Mark mark;
  mark.line = text.pos.line - 1;
  mark.column = text.pos.column - 1;
  if (!error.empty()) {
    check.Error(mark, "bad-template", what + ": " + error);
    return;
  }
  for (const std::string& name : names) {
    if (BuiltinNames().count(name)) continue;
    if (!any.count(name)) {
      check.Error(mark, "unknown-capture", what + " uses {" + name + "}, which no pattern captures");
    } else if (!all.count(name)) {
      check.Warning(mark, "partial-capture",
                    what + " uses {" + name + "}, which only some patterns capture (renders as '?')");
    }
  }
}

const std::set<std::string>& KnownProbes() {
  static const std::set<std::string> kProbes = {
      "nan-source",   "grad-health",      "device-audit", "dtype-audit",      "shape-trace",
      "weight-update", "overfit-one-batch", "init-loss",  "dead-activations", "label-range",
      "index-range",  "mode-audit",       "memory-growth", "determinism",     "train-steps"};
  return kProbes;
}

void CheckProbe(FileChecker& check, const YAML::Node& node, const std::string& probe) {
  if (!probe.empty() && !KnownProbes().count(probe)) {
    check.Error(node.Mark(), "unknown-probe", "unknown probe '" + probe + "'");
  }
}

// Parses and validates one rule document. Returns false when the rule must be skipped.
bool ReadRule(FileChecker& check, const YAML::Node& root, const std::string& file, Rule* rule) {
  rule->file = file;
  if (!root.IsMap()) {
    check.Error(root.Mark(), "bad-type", "a rule file must hold one mapping (id, category, title, match, ...)");
    return false;
  }
  // Read the id first so every later problem names the rule.
  if (YAML::Node id = root["id"]; id && id.IsScalar()) {
    rule->id = id.Scalar();
    check.set_rule_id(rule->id);
  }
  static const std::set<std::string> kKeys = {
      "id", "category", "title", "confidence", "match", "specificity", "explain",
      "hypotheses", "checks", "verify", "refs", "examples"};
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (!kKeys.count(key)) {
      check.Warning(kv.first.Mark(), "unknown-key", "unknown key '" + key + "'");
    }
  }
  auto require = [&](const char* key) -> YAML::Node {
    YAML::Node n = root[key];
    if (!n) check.Error(root.Mark(), "missing-key", std::string("missing required key '") + key + "'");
    return n;
  };

  if (YAML::Node n = require("id")) {
    std::string stem = fs::path(file).stem().string();
    if (!n.IsScalar() || !IsKebabId(n.Scalar())) {
      check.Error(n.Mark(), "bad-id", "'id' must be lower-case letters, digits and '-'");
    } else if (!file.empty() && file.find('<') == std::string::npos && stem != rule->id) {
      check.Error(n.Mark(), "id-not-file-stem", "id '" + rule->id + "' must equal the file stem '" + stem + "'");
    }
  }
  if (YAML::Node n = require("category")) {
    if (check.GetString(n, "category", &rule->category) && !IsKnownCategory(rule->category)) {
      check.Error(n.Mark(), "unknown-category",
                  "unknown category '" + rule->category + "' (see rules/taxonomy.yaml)");
    }
  }
  if (YAML::Node n = require("title")) check.GetString(n, "title", &rule->title);
  if (YAML::Node n = root["confidence"]) {
    double v = -1;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || v <= 0 || v > 1) {
      check.Error(n.Mark(), "bad-value", "'confidence' must be a number in (0, 1]");
    } else {
      rule->prior = v;
    }
  }
  if (YAML::Node n = root["specificity"]) {
    int v = -1;
    if (!n.IsScalar() || !YAML::convert<int>::decode(n, v) || v < 0) {
      check.Error(n.Mark(), "bad-value", "'specificity' must be a non-negative integer");
    } else {
      rule->specificity = v;
    }
  }

  std::set<std::string> any_names, all_names;
  if (YAML::Node match = require("match")) {
    if (!match.IsMap()) {
      check.Error(match.Mark(), "bad-type", "'match' must be a mapping with 'message'");
    } else {
      for (const auto& kv : match) {
        const std::string k = kv.first.Scalar();
        if (k != "message" && k != "exception" && k != "context") {
          check.Warning(kv.first.Mark(), "unknown-key", "unknown key 'match." + k + "'");
        }
      }
      if (YAML::Node msg = match["message"]) {
        check.GetStringList(msg, "match.message", &rule->patterns);
        if (rule->patterns.empty()) check.Error(msg.Mark(), "missing-key", "'match.message' is empty");
      } else {
        check.Error(match.Mark(), "missing-key", "missing required key 'match.message'");
      }
      if (YAML::Node ex = match["exception"]) {
        std::vector<Text> types;
        check.GetStringList(ex, "match.exception", &types);
        for (const Text& t : types) rule->exceptions.push_back(t.value);
      }
      if (YAML::Node ctx = match["context"]) {
        check.GetText(ctx, "match.context", &rule->context);
        RE2 re(rule->context.value, RegexOptions());
        if (!re.ok()) check.Error(ctx.Mark(), "bad-regex", "match.context: " + re.error());
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
      check.Error(mark, "bad-regex", "match.message: " + error);
      continue;
    }
    if (LiteralChars(p.value) < 3) {
      check.Warning(mark, "weak-pattern", "pattern has fewer than 3 literal characters; it will match too much");
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
      CheckTemplate(check, rule->explain, any_names, all_names, "explain");
    }
  }
  if (YAML::Node hs = require("hypotheses")) {
    if (!hs.IsSequence() || hs.size() == 0) {
      check.Error(hs.Mark(), "bad-type", "'hypotheses' must be a non-empty list");
    } else {
      std::set<std::string> ids;
      for (const YAML::Node& h : hs) {
        if (!h.IsMap()) {
          check.Error(h.Mark(), "bad-type", "each hypothesis must be a mapping (id, text, test, fix)");
          continue;
        }
        HypothesisSpec spec;
        for (const auto& kv : h) {
          const std::string k = kv.first.Scalar();
          if (k != "id" && k != "text" && k != "test" && k != "fix") {
            check.Warning(kv.first.Mark(), "unknown-key", "unknown hypothesis key '" + k + "'");
          }
        }
        YAML::Node id = h["id"], text = h["text"], test = h["test"], fix = h["fix"];
        if (!id || !text || !test || !fix) {
          check.Error(h.Mark(), "missing-key", "a hypothesis needs 'id', 'text', 'test' and 'fix'");
          continue;
        }
        if (check.GetString(id, "id", &spec.id)) {
          if (!IsKebabId(spec.id)) check.Error(id.Mark(), "bad-id", "hypothesis id must be lower-case letters, digits and '-'");
          if (!ids.insert(spec.id).second) check.Error(id.Mark(), "duplicate-id", "duplicate hypothesis id '" + spec.id + "'");
        }
        if (check.GetText(text, "text", &spec.text)) {
          CheckTemplate(check, spec.text, any_names, all_names, "hypothesis '" + spec.id + "' text");
        }
        ReadTestLike(check, test, "test", &spec.test, &spec.probe, &spec.probe_args);
        CheckProbe(check, test, spec.probe);
        if (spec.probe.empty() && !spec.test.value.empty()) {
          CheckTemplate(check, spec.test, any_names, all_names, "hypothesis '" + spec.id + "' test");
        }
        if (check.GetText(fix, "fix", &spec.fix)) {
          CheckTemplate(check, spec.fix, any_names, all_names, "hypothesis '" + spec.id + "' fix");
        }
        rule->hypotheses.push_back(std::move(spec));
      }
    }
  }
  if (YAML::Node n = root["checks"]) {
    check.GetStringList(n, "checks", &rule->checks);
    for (const Text& t : rule->checks) CheckTemplate(check, t, any_names, all_names, "check");
  }
  if (YAML::Node n = require("verify")) {
    ReadTestLike(check, n, "verify", &rule->verify, &rule->verify_probe, nullptr);
    CheckProbe(check, n, rule->verify_probe);
    if (rule->verify_probe.empty()) CheckTemplate(check, rule->verify, any_names, all_names, "verify");
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
    if (!has_match) check.Error(n.Mark(), "missing-example", "a rule needs at least one 'match' example");
    for (const Example& ex : rule->examples) {
      for (const auto& c : ex.captures) {
        if (!any_names.count(c.first)) {
          YAML::Mark mark;
          mark.line = ex.pos.line - 1;
          mark.column = ex.pos.column - 1;
          check.Error(mark, "unknown-capture", "example expects capture '" + c.first + "', which no pattern defines");
        }
      }
    }
  }
  return !check.failed();
}

struct SourceFile {
  std::string path;
  std::string content;
  int layer;  // which directory of the search path it came from
};

void CollectFiles(const std::string& root, int layer, std::vector<SourceFile>* out,
                  std::vector<Problem>* problems) {
  std::error_code ec;
  fs::path p(root);
  auto read = [&](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      Problem pr;
      pr.code = "unreadable";
      pr.file = f.string();
      pr.message = "cannot read rule file";
      problems->push_back(pr);
      return;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    out->push_back({f.string(), ss.str(), layer});
  };
  if (fs::is_regular_file(p, ec)) {
    read(p);
    return;
  }
  if (!fs::is_directory(p, ec)) {
    Problem pr;
    pr.code = "missing-dir";
    pr.file = root;
    pr.message = "rule directory does not exist";
    problems->push_back(pr);
    return;
  }
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const fs::path& f = it->path();
    std::string ext = f.extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    if (f.filename() == "taxonomy.yaml") continue;
    files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) read(f);
}

LoadResult Build(std::vector<SourceFile> files, bool strict, std::vector<Problem> problems) {
  auto set = std::make_shared<RuleSet>();
  std::map<std::string, std::pair<int, int>> by_id;  // id -> (index in set->rules, layer)
  for (SourceFile& sf : files) {
    FileChecker check(sf.path, strict, &problems);
    YAML::Node root;
    try {
      root = YAML::Load(sf.content);
    } catch (const YAML::Exception& e) {
      check.Error(e.mark, "bad-yaml", e.msg);
      continue;
    }
    if (!root || root.IsNull()) {
      check.Error(YAML::Mark(), "empty-file", "rule file is empty");
      continue;
    }
    Rule rule;
    bool ok = false;
    try {
      ok = ReadRule(check, root, sf.path, &rule);
    } catch (const YAML::Exception& e) {  // malformed structure yaml-cpp refuses to convert
      check.Error(e.mark, "bad-yaml", e.msg);
    }
    if (!ok) continue;
    auto it = by_id.find(rule.id);
    if (it != by_id.end()) {
      Rule& old = set->rules[it->second.first];
      if (it->second.second == sf.layer) {
        Problem p;
        p.code = "duplicate-id";
        p.file = sf.path;
        p.rule_id = rule.id;
        p.message = "rule id '" + rule.id + "' is already defined in " + old.file;
        problems.push_back(p);
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

  // Compile: one Set over every pattern; individual regexes on first use.
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
      Problem p;
      p.code = "compile-failed";
      p.message = "could not compile the rule patterns into one set (out of memory?)";
      problems.push_back(p);
      set->set.reset();
    }
  }
  LoadResult result;
  result.rules = std::move(set);
  result.problems = std::move(problems);
  return result;
}

}  // namespace

std::string BundledRulesDir() {
  if (const char* env = std::getenv("TRIAGE_BUNDLED_RULES"); env && *env) return env;
  return TRIAGE_BUNDLED_RULES_DIR;
}

LoadResult LoadRules(const LoadOptions& options) {
  std::vector<SourceFile> files;
  std::vector<Problem> problems;
  int layer = 0;
  if (options.bundled) CollectFiles(BundledRulesDir(), layer++, &files, &problems);
  if (options.env_path) {
    if (const char* env = std::getenv("TRIAGE_RULES_PATH"); env && *env) {
      std::stringstream ss(env);
      std::string dir;
      while (std::getline(ss, dir, ':')) {
        if (!dir.empty()) CollectFiles(dir, layer++, &files, &problems);
      }
    }
  }
  for (const std::string& dir : options.dirs) CollectFiles(dir, layer++, &files, &problems);
  return Build(std::move(files), options.strict, std::move(problems));
}

LoadResult LoadRulesFromStrings(const std::vector<std::pair<std::string, std::string>>& files, bool strict) {
  std::vector<SourceFile> sources;
  for (const auto& f : files) sources.push_back({f.first, f.second, 0});
  return Build(std::move(sources), strict, {});
}

std::vector<RuleInfo> ListRules(const RuleSet& rules) {
  std::vector<RuleInfo> out;
  for (const Rule& r : rules.rules) out.push_back({r.id, r.category, r.title, r.file, r.overrides});
  std::sort(out.begin(), out.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
  return out;
}

}  // namespace triage
