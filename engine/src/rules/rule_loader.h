// Rule loading (LoadRules and LoadRulesFromStrings in triage.h) is a pipeline, the shape Falco loads
// its rules in; each stage reports every problem it finds (problem_codes.h) and goes on with the rest:
//   collect  rule_sources.h   the rule files of every directory of the search path, and the ids disabled
//                             (first only listed and stat'ed: Note: [Rule file stamps] in rule_loader.cc)
//   read     rule_reader.h    each file's YAML (or a whole-Lua rule's `rule` table) -> a validated Rule,
//                             its Lua checked: a RulePart, cached per file (Note: [Rule parts])
//   resolve  rule_loader.cc   overrides by id, disabled rules left out: the ParsedRules the rule cache
//                             stores (rule_cache.h, Note: [Rule cache])
//   compile  rule_loader.cc   one RE2::Set over every pattern, the line prefilter, the Lua runtime
#ifndef TRIAGE_ENGINE_RULE_LOADER_H_
#define TRIAGE_ENGINE_RULE_LOADER_H_

#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {

// LoadRules, keeping from `previous` (may be null) the last good version of every rule whose file now
// fails to load (Note: [Rule reload] in rule_store.cc).
LoadResult LoadRulesKeeping(const LoadOptions& options, const RuleSet* previous);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_LOADER_H_
