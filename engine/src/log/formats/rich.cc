#include "log/formats/rich.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::LTrim;
using text::ParseInt;
using text::StartsWith;
using text::Trim;

bool RichReader::Start(Segmenter& s, const std::string&, std::string_view t) {
  if (!StartsWith(t, "\u256d") || t.find("Traceback (most recent call last)") == std::string_view::npos) return false;
  s.readers().python.StartTraceback(s);
  s.readers().rich.active_ = true;
  return true;
}

bool RichReader::BoxLine(Segmenter& s, std::string_view t) {
  if (!active_) return false;
  static constexpr std::string_view kBar = "\u2502";      // │
  static constexpr std::string_view kArrow = "\u2771";    // ❱
  if (StartsWith(t, "\u2570")) return true;               // ╰ closes the box
  if (!StartsWith(t, kBar)) return false;
  t = Trim(t.substr(kBar.size()));
  if (EndsWith(t, kBar)) t = Trim(t.substr(0, t.size() - kBar.size()));
  Incident& open = s.open();
  if (StartsWith(t, kArrow)) {
    std::string_view rest = LTrim(t.substr(kArrow.size()));
    int line = 0;
    rest = rest.substr(ParseInt(rest, &line));
    // Drop the indent guides: "│   return x" -> "return x".
    for (rest = LTrim(rest); StartsWith(rest, kBar); rest = LTrim(rest.substr(kBar.size()))) {}
    if (!open.frames.empty() && open.frames.back().source.empty()) {
      open.frames.back().source = std::string(rest.substr(0, 512));
    }
    return true;
  }
  // "path:line in function"
  size_t in = t.find(" in ");
  if (in == std::string_view::npos) return true;
  std::string_view loc = t.substr(0, in);
  size_t colon = loc.rfind(':');
  int line = 0;
  if (colon == std::string_view::npos || loc.find(' ') != std::string_view::npos ||
      ParseInt(loc.substr(colon + 1), &line) != loc.size() - colon - 1 || line == 0) {
    return true;
  }
  Frame f;
  f.file = std::string(loc.substr(0, colon));
  f.line = line;
  f.function = std::string(Trim(t.substr(in + 4)));
  f.user = !text::IsLibraryFile(f.file);
  s.PushFrame(std::move(f));
  return true;
}

}  // namespace triage
