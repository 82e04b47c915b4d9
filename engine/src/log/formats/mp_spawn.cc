#include "log/formats/mp_spawn.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

bool MpSpawnReader::Start(Segmenter& s, const std::string&, std::string_view trimmed) {
  std::vector<Incident>& kept = s.kept();
  if (!text::StartsWith(trimmed, "-- Process ") || trimmed.find("terminated with the following error") == std::string_view::npos ||
      kept.empty() || !text::EndsWith(kept.back().exception, "ProcessRaisedException") ||
      s.line_no() - static_cast<std::uint64_t>(kept.back().line_end) > 3) {
    return false;
  }
  Incident& wrapper = kept.back();
  if (wrapper.message.empty()) s.AppendMessage(&wrapper, trimmed);
  wrapper.line_end = static_cast<int>(s.line_no());
  s.set_pending_wrapper(static_cast<int>(kept.size()) - 1);
  return true;
}

}  // namespace triage
