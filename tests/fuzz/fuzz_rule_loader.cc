// libFuzzer target: the rule loader. The input is a rule file; after a line "--lua--" the rest is the
// rule's Lua file. Loading, and running the loaded rule's own examples, may only report problems.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "triage/tools.h"
#include "triage/triage.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> files;
  const std::string split = "\n--lua--\n";
  size_t at = text.find(split);
  files.emplace_back("fuzz/r.yaml", text.substr(0, at));
  if (at != std::string::npos) files.emplace_back("fuzz/r.lua", text.substr(at + split.size()));
  triage::LoadResult r = triage::LoadRulesFromStrings(files);
  if (r.rules) (void)triage::RunRuleExamples(*r.rules);
  return 0;
}
