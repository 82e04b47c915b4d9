#include "log/formats/debugger_panel.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

namespace {

using text::LTrim;
using text::StartsWith;
using text::Trim;

// pydevd's note after the type (pydevd_api.py's build_exception_info_response: the name shown, then
// '       (note: full exception trace is shown but execution is paused at: %s)').
constexpr std::string_view kNote = "(note: full exception trace is shown but execution is paused at: ";

// The words VS Code writes before the type, in the UI languages met in pastes: English, Chinese
// (simplified), Japanese. A panel in another language is read by pydevd's note alone.
constexpr std::string_view kLabels[] = {"Exception has occurred", "\xe5\x8f\x91\xe7\x94\x9f\xe5\xbc\x82\xe5\xb8\xb8",
                                        "\xe4\xbe\x8b\xe5\xa4\x96\xe3\x81\x8c\xe7\x99\xba\xe7\x94\x9f\xe3\x81\x97"
                                        "\xe3\x81\xbe\xe3\x81\x97\xe3\x81\x9f"};

bool TypeChar(char c) { return text::IsLetter(c) || text::IsDigit(c) || c == '_' || c == '.'; }

}  // namespace

bool DebuggerPanelReader::Header(std::string_view line, std::string_view* type, size_t* rest) {
  const size_t note = line.find(kNote);
  if (note != std::string_view::npos) {
    // The type is the dotted name right before the note, blanks between them or none.
    size_t end = note;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    size_t begin = end;
    while (begin > 0 && TypeChar(line[begin - 1])) --begin;
    while (begin < end && line[begin] == '.') ++begin;
    *type = line.substr(begin, end - begin);
    const size_t close = line.find(')', note + kNote.size());
    *rest = close == std::string_view::npos ? line.size() : close + 1;
    return text::LooksLikeExceptionType(*type);
  }
  // No note: a label, its colon (or the full-width one), then the type and nothing after it.
  std::string_view t = LTrim(line);
  bool labelled = false;
  for (std::string_view label : kLabels) {
    if (StartsWith(t, label)) {
      t.remove_prefix(label.size());
      labelled = true;
      break;
    }
  }
  if (!labelled) return false;
  if (StartsWith(t, ":")) {
    t.remove_prefix(1);
  } else if (StartsWith(t, "\xef\xbc\x9a")) {
    t.remove_prefix(3);
  } else {
    return false;
  }
  t = Trim(t);
  if (t.empty() || text::TypePrefix(t) != t.size() || !text::LooksLikeExceptionType(t)) return false;
  *type = t;
  *rest = line.size();
  return true;
}

bool DebuggerPanelReader::LineHook(Segmenter& s, std::string* line) {
  DebuggerPanelReader& r = s.readers().debugger_panel;
  if (!r.type_.empty()) {
    const std::string_view t = Trim(*line);
    if (t.empty() && r.blanks_ < 2) {  // a blank line or two between the header and the message
      ++r.blanks_;
      s.ReadNextFlushLine();
      return true;
    }
    const std::string type = std::move(r.type_);
    r.type_.clear();
    r.blanks_ = 0;
    std::string_view unused_type;
    size_t unused_rest = 0;
    if (!t.empty() && !StartsWith(t, type) && !StartsWith(t, "File \"") && !StartsWith(t, "Traceback") &&
        !Header(t, &unused_type, &unused_rest)) {
      *line = type + ": " + std::string(t);
      return true;
    }
  }
  std::string_view type;
  size_t rest = 0;
  if (!Header(*line, &type, &rest)) return true;
  const std::string_view after = Trim(std::string_view(*line).substr(rest));
  if (!after.empty()) {  // the message retyped after the note, on the header's line
    *line = std::string(type) + ": " + std::string(after);
    return true;
  }
  r.type_ = std::string(type);
  r.blanks_ = 0;
  s.ReadNextFlushLine();
  return false;
}

}  // namespace triage
