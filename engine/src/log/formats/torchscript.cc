#include "log/formats/torchscript.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::StartsWith;

void TorchScriptReader::Closed(Segmenter& s) { s.readers().torchscript.state_ = State::kNone; }

bool TorchScriptReader::Line(Segmenter& s, const std::string& line, std::string_view t) {
  Incident& open = s.open();
  if (state_ == State::kNone) {
    if (!StartsWith(open.message, "The following operation failed in the TorchScript interpreter")) return false;
    state_ = State::kReport;
  }
  if (state_ == State::kDone) return false;
  open.line_end = static_cast<int>(s.line_no());
  if (StartsWith(t, "Traceback of TorchScript")) {
    // "Traceback of TorchScript (most recent call last):" (a module scripted in this process) shows
    // the original code too; only the serialized-code section points into code/__torch__.py.
    original_ = t.find("serialized code") == std::string_view::npos;
    return true;
  }
  if (t.empty() || line[0] == ' ' || line[0] == '\t') {
    if (!original_) return true;
    if (StartsWith(t, "File \"")) {
      s.readers().python.ParseFrameLine(s, line);
      s.readers().python.expects_source() = false;
    } else if (t.find("<--- HERE") != std::string_view::npos) {
      if (!open.frames.empty() && open.frames.back().source.empty()) open.frames.back().source = code_;
    } else if (!t.empty()) {
      code_ = std::string(t.substr(0, 512));
    }
    return true;
  }
  size_t n = text::TypePrefix(t);
  if (n > 0 && (n == t.size() || t[n] == ':') && text::LooksLikeExceptionType(t.substr(0, n))) {
    // The real error. The report's first line stays as context ("this failed inside TorchScript").
    if (static_cast<int>(open.context.size()) < s.options().max_context) {
      open.context.push_back(open.message.substr(0, open.message.find('\n')));
    }
    PythonTracebackReader::ParseExceptionLine(s, line, &open);
    state_ = State::kDone;
    return true;
  }
  return false;
}

}  // namespace triage
