// Rule loading (LoadRules and LoadRulesFromStrings in triage.h) is a pipeline, the shape Falco loads
// its rules in; each stage reports every problem it finds (problem_codes.h) and goes on with the rest:
//   collect  rule_sources.h   the rule files of every directory of the search path, and the ids disabled
//                             (first only listed and stat'ed: Note: [Rule file stamps] in rule_loader.cc)
//   read     rule_reader.h    each file's YAML (or a whole-Lua rule's `rule` table) -> a validated Rule,
//                             its Lua checked: a RulePart, cached per file (Note: [Rule parts])
//   resolve  rule_loader.cc   overrides by id, disabled rules left out: the ParsedRules the rule cache
//                             stores (rule_cache.h, Note: [Rule cache])
//   compile  rule_loader.cc   one RE2::Set over every pattern, the line prefilter, the Lua runtime
//
// Note: [Thread safety]
// Any number of loads may run at once, on threads of one process or in several processes, and while
// other threads diagnose with sets loaded before: a load builds a RuleSet of its own, and every
// piece of state it shares with other loads is one of these (tests/concurrent_load_test.cc loads on
// four threads at once, sharing a cache directory or not, beside diagnosing threads, and compares
// every result, and a one-thread load after them, with one load alone; run it under ThreadSanitizer
// too, engine/README.md "Threads"):
//   - built once, then only read: function-local constant tables (C++ initialises them once, on
//     whichever thread gets there first), the Lua set-up bytecode (Note: [Set-up bytecode]);
//   - behind a mutex: RequiredLiterals' memo (an answer depends on the pattern and keyword list
//     alone), the rules directory noted by NoteInstalledRulesDir (install_paths.cc), the allow file's
//     updates (Note: [Allow file updates] in rule_trust.cc; flock for other processes);
//   - per load or per thread: the Lua check state (Note: [Shared check state] in lua_runtime.cc), the
//     parts, the prefilter and its scanner;
//   - on disk: cache files are written whole under a name of their own (mkstemp) and renamed, and
//     read whole and checked (key, checksums; Note: [Cache hardening] in rule_cache.h), so two loads
//     writing one entry leave one complete entry and a reader never sees half of one; the small
//     lists rewritten in place by rename (pattern-sets.key) may lose a concurrent writer's line,
//     which costs a later load a compile, never a different result;
//   - the numbers of rule files are read in the "C" locale whatever std::locale::global says (Note:
//     [Numbers in the C locale] in yaml_tree.cc), rule files' Lua runs in the "C" locale on its
//     thread (Note: [Lua in the C locale] in lua_runtime.cc) and numbers and characters are
//     converted without a locale (Note: [Locale-free text] in locale_free.cc), so which locale is set
//     does not change a load.
// What a load reads from the process and does not guard, so an embedder must not change it on
// another thread while a load runs: the environment (TRIAGE_*, HOME, XDG_*: glibc's getenv is not
// safe against a concurrent setenv or putenv), the working directory when LoadOptions::working_dir
// is empty (the project directory is looked for from it), and the C locale (setlocale).
#ifndef TRIAGE_ENGINE_RULE_LOADER_H_
#define TRIAGE_ENGINE_RULE_LOADER_H_

#include <string_view>

#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {

// LoadRules, keeping from `previous` (may be null) the last good version of every rule whose file now
// fails to load (Note: [Rule reload] in rule_store.cc).
LoadResult LoadRulesKeeping(const LoadOptions& options, const RuleSet* previous);

// A rule file's path without its extension, as std::filesystem joins its parent and stem: a .lua
// file belongs to the YAML rule of the same stem.
std::string StemOf(const std::string& path);

// The image of the bundled rules (BundledRulesDir(), with their calibration file) that the build
// embeds (Note: [Bundled rule image] in rule_cache.h): what a load of them alone with no cache
// makes, and each file's part; "" when their directory holds no rule file or its load has problems
// of the search (a missing directory).
std::string MakeBundledRuleImage();

// The image internal::NoteBundledRuleImage recorded (empty: none).
std::string_view NotedBundledRuleImage();

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_LOADER_H_
