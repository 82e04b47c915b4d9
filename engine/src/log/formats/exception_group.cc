#include "log/formats/exception_group.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::LTrim;
using text::StartsWith;

bool ExceptionGroupReader::LineHook(Segmenter& s, std::string* line) { return s.readers().exception_group.Rewrite(s, line); }

bool ExceptionGroupReader::Rewrite(Segmenter& s, std::string* line) {
  std::string_view t = LTrim(*line);
  if (t.empty()) return true;
  if (StartsWith(t, "+ Exception Group Traceback (most recent call last):")) {
    *line = "Traceback (most recent call last):";
    active_ = true;
    return true;
  }
  if (!active_) return true;
  if (t[0] == '|') {
    line->erase(0, line->size() - t.size() + (t.size() > 1 && t[1] == ' ' ? 2 : 1));
    return true;
  }
  if (StartsWith(t, "+-")) {
    s.CloseOpen();
    size_t digit = t.find_first_of("0123456789");
    if (digit != std::string_view::npos && t.substr(digit, 2) == "1 ") {
      // The first sub-exception is the group's cause.
      const std::vector<Incident>& kept = s.kept();
      for (int i = static_cast<int>(kept.size()) - 1; i >= 0; --i) {
        if (EndsWith(kept[i].exception, "ExceptionGroup")) {
          s.set_pending_wrapper(i);
          break;
        }
      }
    }
    return false;
  }
  active_ = false;
  return true;
}

}  // namespace triage
