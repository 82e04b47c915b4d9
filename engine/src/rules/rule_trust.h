// Which project rule directories may load (rules/README.md "Trusted rule directories").
//
// Note: [Rule trust] A `.triage/rules` directory found above the working directory comes with
// whatever repository the user cloned, or sits in a directory others can write (/tmp): it could
// replace a bundled rule's advice, disable rules or run Lua. So, as with `direnv allow` and git's
// safe.directory, it loads only when
//   - it and its `.triage` parent are owned by the user and not writable by others, and
//   - its canonical path is recorded in the user's allow file (AllowFilePath()) together with the
//     SHA-256 of its files (RulesDirDigest), and the files still have that digest.
// `triage rules allow [DIR]` records it. Directories named explicitly (`--rules DIR`,
// TRIAGE_RULES_PATH, LoadOptions::dirs) and the bundled, system and user directories are trusted.
#ifndef TRIAGE_ENGINE_RULE_TRUST_H_
#define TRIAGE_ENGINE_RULE_TRUST_H_

#include <string>

namespace triage {

// AllowRulesDir and AllowFilePath are declared in triage/triage.h. Nothing here throws.

// SHA-256 over every regular file under dir (recursively, in path order): its path relative to
// dir and its contents, each length-prefixed. "" when a file cannot be read.
std::string RulesDirDigest(const std::string& dir);

// Why dir (and its parent) may not be trusted whatever the allow file says (owner, permissions),
// or "" when they are safe.
std::string UnsafeRulesDir(const std::string& dir);

// "" when dir may load; otherwise why not (unsafe, never allowed, or changed since allowed).
std::string UntrustedRulesDir(const std::string& dir);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_TRUST_H_
