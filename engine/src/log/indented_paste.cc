// Note: [Indented pastes] (indented_paste.h): a paste whose every line the head shows is indented alike
// is read without that indentation.
#include "log/indented_paste.h"

#include <cstring>

namespace triage {

IndentedPaste IndentedPaste::Detect(std::string_view head) {
  IndentedPaste p;
  bool any = false;
  std::string_view common;
  for (size_t at = 0; at < head.size();) {
    const void* found = std::memchr(head.data() + at, '\n', head.size() - at);
    const size_t nl = found ? static_cast<size_t>(static_cast<const char*>(found) - head.data()) : head.size();
    const std::string_view line = head.substr(at, nl - at);
    at = nl + 1;
    const size_t text = line.find_first_not_of(" \t\r");
    if (text == std::string_view::npos) continue;  // blank
    if (text == 0) return p;                       // a line at its first column: no indented paste
    const std::string_view lead = line.substr(0, text);
    if (!any) {
      common = lead;
      any = true;
      continue;
    }
    size_t same = 0;
    while (same < common.size() && same < lead.size() && common[same] == lead[same]) ++same;
    common = common.substr(0, same);
    if (common.empty()) return p;
  }
  if (!any) return p;
  // A tab, or at least four spaces (a code block's or a quote's indentation, not a message's own).
  if (common[0] == '\t') {
    p.indent_ = std::string(common.substr(0, common.find_first_not_of('\t')));
  } else if (common.find_first_not_of(' ') == std::string_view::npos && common.size() >= 4) {
    // In fours: a log whose own lines are all indented (a traceback from its first frame line, "  File")
    // keeps its own indentation inside the paste's.
    p.indent_ = std::string(common.size() / 4 * 4, ' ');
  }
  return p;
}

std::string IndentedPaste::Dedent(std::string_view text) const {
  IndentedPaste p = *this;
  p.line_start_ = true;
  p.matched_ = 0;
  std::string out;
  p.Feed(text, &out);
  p.Finish(&out);
  return out;
}

void IndentedPaste::Feed(std::string_view data, std::string* out) {
  out->reserve(out->size() + data.size());
  size_t at = 0;
  while (at < data.size()) {
    if (line_start_) {
      // Inside the start of a line: meet the indentation byte by byte.
      while (at < data.size() && matched_ < indent_.size() && data[at] == indent_[matched_]) {
        ++matched_;
        ++at;
      }
      if (at == data.size() && matched_ < indent_.size()) return;  // cut by the end of `data`
      if (matched_ < indent_.size()) out->append(indent_, 0, matched_);  // a line indented less
      line_start_ = false;
      matched_ = 0;
      continue;
    }
    const void* found = std::memchr(data.data() + at, '\n', data.size() - at);
    if (found == nullptr) {
      out->append(data.substr(at));
      return;
    }
    const size_t nl = static_cast<size_t>(static_cast<const char*>(found) - data.data());
    out->append(data.substr(at, nl + 1 - at));
    at = nl + 1;
    line_start_ = true;
  }
}

}  // namespace triage
