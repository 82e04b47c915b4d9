#include "log/formats/forward_trace.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::StartsWith;

bool ForwardTraceReader::Start(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (!text::EndsWith(trimmed, "Traceback of forward call that caused the error:")) return false;
  s.EnterBlock(&Block<&FormatReaders::forward_trace>);
  s.open() = Incident();
  s.readers().python.expects_source() = false;
  s.ClassifyLine(line, trimmed);
  return true;
}

void ForwardTraceReader::Line(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (s.readers().python.ParseFrameLine(s, line)) return;
  if (!trimmed.empty() && text::Indented(line) && !StartsWith(trimmed, "(Triggered internally")) {
    Incident& open = s.open();
    if (s.readers().python.expects_source() && !open.frames.empty()) open.frames.back().source = std::string(trimmed.substr(0, 512));
    s.readers().python.expects_source() = false;
    return;
  }
  s.CloseOpen();
  if (!StartsWith(trimmed, "(Triggered internally")) s.HandleIdle(line, trimmed);
}

void ForwardTraceReader::Close(Segmenter& s) {
  s.EndBlock();
  frames_ = std::move(s.open().frames);
  line_ = s.line_no();
  s.open() = Incident();
}

void ForwardTraceReader::Attach(Segmenter& s, Incident* inc) { s.readers().forward_trace.Give(s, inc); }

void ForwardTraceReader::Give(Segmenter& s, Incident* inc) {
  if (frames_.empty() || inc->kind != Incident::Kind::kTraceback) return;
  if (s.line_no() - line_ <= static_cast<std::uint64_t>(s.options().context_window)) {
    for (Frame& f : frames_) {
      if (static_cast<int>(inc->frames.size()) < s.options().max_frames) inc->frames.push_back(std::move(f));
    }
    inc->culprit = -1;
  }
  frames_.clear();
}

}  // namespace triage
