// The read stage of loading (rule_loader.h): one rule document's YAML -> a validated Rule, with every
// problem reported at its file:line:column (rules/README.md "Schema"). Reading never stops at the first
// problem: a linter run must show every error of a file at once.
#ifndef TRIAGE_ENGINE_RULE_READER_H_
#define TRIAGE_ENGINE_RULE_READER_H_

#include <string>
#include <vector>

#include <yaml-cpp/mark.h>

#include "rules/yaml_tree.h"

#include "rules/problem_codes.h"
#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {

// Reports problems of one file (each naming the rule once its id is known) and reads typed values.
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

  static SourcePos Pos(const YamlNode& node) {
    YAML::Mark m = node.Mark();
    if (m.line < 0) return {};
    return {m.line + 1, m.column + 1};
  }

  // Reads a scalar string; reports a type error at the node otherwise.
  bool GetString(const YamlNode& node, const std::string& key, std::string* out) {
    if (!node.IsScalar()) {
      Error(node.Mark(), ProblemCode::kBadType, "'" + key + "' must be a string");
      return false;
    }
    *out = node.Scalar();
    return true;
  }
  bool GetText(const YamlNode& node, const std::string& key, Text* out) {
    out->pos = Pos(node);
    return GetString(node, key, &out->value);
  }
  bool GetStringList(const YamlNode& node, const std::string& key, std::vector<Text>* out) {
    if (node.IsScalar()) {
      out->push_back({node.Scalar(), Pos(node)});
      return true;
    }
    if (!node.IsSequence()) {
      Error(node.Mark(), ProblemCode::kBadType, "'" + key + "' must be a string or a list of strings");
      return false;
    }
    bool ok = true;
    for (const YamlNode& item : node) {
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

// Parses and validates one rule document. Returns false when the rule must be skipped.
bool ReadRule(FileChecker& check, const YamlNode& root, const std::string& file, Rule* rule);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_READER_H_
