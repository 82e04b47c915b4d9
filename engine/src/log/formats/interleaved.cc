#include "log/formats/interleaved.h"

#include <utility>

#include "log/segmenter.h"

namespace triage {

bool InterleavedReader::Begin(Segmenter& s) {
  Incident& open = s.open();
  if (active_ || !open.frames.empty() || s.readers().ipython.active() || s.has_suspended() ||
      open.line_end + 1 != static_cast<int>(s.line_no())) {
    return false;
  }
  twin_ = std::move(open);
  twin_expects_source_ = false;
  twin_fed_last_ = false;  // the new header went to the open traceback: the next line is the twin's
  active_ = true;
  s.readers().python.StartTraceback(s);
  return true;
}

bool InterleavedReader::FeedTwin(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (!active_ || twin_fed_last_) {
    twin_fed_last_ = false;
    return false;
  }
  twin_fed_last_ = true;
  PythonTracebackReader& python = s.readers().python;
  std::swap(s.open(), twin_);
  std::swap(python.expects_source(), twin_expects_source_);
  python.FramesLine(s, line, trimmed);
  std::swap(s.open(), twin_);
  std::swap(python.expects_source(), twin_expects_source_);
  if (python.ReadingMessage(s)) {  // the twin reached its exception line: it is complete
    python.ReadFrames(s);
    active_ = false;
    s.Emit(std::move(twin_));
    twin_ = Incident();
  }
  return true;
}

void InterleavedReader::AfterOpenLine(Segmenter& s) {
  if (!active_ || !s.readers().python.ReadingMessage(s)) return;
  // This one finished first: emit it and go on with the twin alone.
  s.readers().python.ReadFrames(s);
  s.Emit(std::move(s.open()));
  s.open() = std::move(twin_);
  twin_ = Incident();
  s.readers().python.expects_source() = twin_expects_source_;
  active_ = false;
}

void InterleavedReader::End(Segmenter& s) {
  if (!active_) return;
  active_ = false;
  if (!twin_.frames.empty()) {
    twin_.message = twin_.frames.back().source;
    PythonTracebackReader::RecoverFromRaise(&twin_);
    s.Emit(std::move(twin_));
  }
  twin_ = Incident();
}

}  // namespace triage
