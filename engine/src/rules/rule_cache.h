// Rule-set cache: the validated result of parsing every rule file, stored on disk and keyed by a hash
// of the files' contents, so that a `triage` run skips YAML parsing and validation (Note: [Rule cache]).
//
// Note: [Rule cache]
// Loading ~175 rules costs ~50-90 ms of CPU, 60% of it in yaml-cpp and most of the rest in validation
// and in computing each pattern's required literals; `triage` sits in shell pipelines and must start in
// milliseconds. The cache holds exactly what those steps produce: the rules (after overrides and
// `disable`), the disabled list, every problem reported, and each pattern's required literals. A load
// hashes the inputs (the files' paths, origins, layers and bytes; the options that change validation;
// the cache format; the build) and, on a hit, only compiles the RE2::Set and the line prefilter.
// Any mismatch, truncation or corruption is a miss: the cache can make loading faster, never different.
// Files are written to a temporary name and renamed, so concurrent runs never read half a file.
#ifndef TRIAGE_ENGINE_RULE_CACHE_H_
#define TRIAGE_ENGINE_RULE_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/rule.h"

namespace triage {

// What a load produces before compiling: the cached payload.
struct ParsedRules {
  std::vector<Rule> rules;
  std::vector<DisabledRule> disabled;
  std::vector<Problem> problems;
  // For each pattern of each rule, in rule order then pattern order: its required literals, or
  // nullopt when it has none (the prefilter's slow path).
  std::vector<std::optional<std::vector<std::string>>> atoms;
};

// Incrementally hashes the inputs of a load (FNV-1a, 64 bits; inputs are length-prefixed).
class CacheKey {
 public:
  CacheKey();
  void Add(std::string_view bytes);
  void Add(std::uint64_t value);
  // Returns the key as 16 hex digits.
  std::string Hex() const;

 private:
  std::uint64_t h_;
};

// Returns the cache directory: TRIAGE_CACHE_DIR, else $XDG_CACHE_HOME/triage, else ~/.cache/triage;
// "" when caching is off (TRIAGE_NO_CACHE set, or no such variable).
std::string DefaultRuleCacheDir();

// Serialises / parses the payload. Parse returns false on any inconsistency.
std::string SerializeParsedRules(const ParsedRules& parsed);
bool ParseParsedRules(const std::string& bytes, ParsedRules* parsed);

// Reads the entry for `key` from `dir`; false on a miss or a bad entry.
bool ReadRuleCache(const std::string& dir, const std::string& key, ParsedRules* parsed);
// Writes the entry (best effort: a read-only or full disk only costs the next load its speed), and
// keeps at most a few entries in `dir`.
void WriteRuleCache(const std::string& dir, const std::string& key, const ParsedRules& parsed);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_CACHE_H_
