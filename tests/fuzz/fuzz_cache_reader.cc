// libFuzzer target: the rule cache's reader (Note: [Rule cache]). Any bytes are parsed as a cache
// payload (an entry's header, when present, is skipped) and as a parts file's; what parses must
// serialise to bytes that parse again and serialise the same (the reader never accepts what its own
// writer cannot round-trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "rules/rule_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.rfind("triage-rule-cache", 0) == 0) {
    size_t key_end = bytes.find('\n', bytes.find('\n') + 1);
    bytes.erase(0, key_end == std::string::npos ? bytes.size() : key_end + 1);
  }
  // The same bytes as a parts file (Note: [Parts file layout]): indexing, then each part parsed alone,
  // never reads outside the bytes; a list that parses whole round-trips like an entry.
  std::vector<triage::StoredPart> index;
  if (triage::IndexRuleParts(bytes, &index)) {
    for (const triage::StoredPart& stored : index) {
      triage::RulePart part;
      triage::ParseRulePart(stored, &part);
    }
  }
  std::vector<triage::RulePart> parts, parts_again;
  if (triage::ParseRuleParts(bytes, &parts)) {
    const std::string canonical = triage::SerializeRuleParts(parts);
    if (!triage::ParseRuleParts(canonical, &parts_again) || triage::SerializeRuleParts(parts_again) != canonical) {
      std::abort();
    }
  }
  triage::ParsedRules parsed, again;
  if (!triage::ParseParsedRules(bytes, &parsed)) return 0;
  const std::string canonical = triage::SerializeParsedRules(parsed);
  if (!triage::ParseParsedRules(canonical, &again) || triage::SerializeParsedRules(again) != canonical) std::abort();
  return 0;
}
