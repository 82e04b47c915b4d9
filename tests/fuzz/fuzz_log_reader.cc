// libFuzzer target: the log path. Any bytes, fed in chunks the input's first byte chooses, through a
// Session with the bundled rules, then every report format. Nothing may crash, hang, leak or trip a
// sanitizer (tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "triage/triage.h"

namespace {

const triage::LoadResult& Rules() {
  static const triage::LoadResult kRules = [] {
    triage::LoadOptions o;
    o.env_path = o.system = o.user = o.project = false;
    o.cache = false;
    return triage::LoadRules(o);
  }();
  return kRules;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the chunk size, so lines split across Feed calls are explored too.
  const std::size_t chunk = 1 + static_cast<std::size_t>(data[0]) * 37;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  triage::Session session(Rules().rules, {}, "fuzz");
  for (std::size_t i = 0; i < text.size(); i += chunk) session.Feed(text.substr(i, chunk));
  triage::Report report = session.Finish();
  (void)triage::ToJson(report);
  (void)triage::ToText(report, triage::TextOptions());
  (void)triage::ToMarkdown(report);
  return 0;
}
