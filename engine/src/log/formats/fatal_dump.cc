#include "log/formats/fatal_dump.h"

#include <algorithm>
#include <iterator>

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::StartsWith;

bool FatalDumpReader::Start(Segmenter& s, const std::string& line, std::string_view trimmed) {
  // The header may follow output that had not ended its line (pytest's "collecting ... ", a progress bar):
  // faulthandler writes straight to stderr's descriptor.
  const size_t at = std::min(trimmed.find("Fatal Python error: "), trimmed.find("Windows fatal exception: "));
  if (at == std::string_view::npos) return false;
  FatalDumpReader& r = s.readers().fatal_dump;
  // The line itself stays a line rules see.
  r.dump_log_ = s.ClassifyLine(line, trimmed) ? s.last_log_line() : -1;
  r.dump_line_ = s.line_no();
  s.open() = Incident();
  s.open().rank = s.rank();
  r.current_thread_ = false;
  s.EnterBlock(&Block<&FormatReaders::fatal_dump>);
  return true;
}

void FatalDumpReader::Line(Segmenter& s, const std::string& line, std::string_view t) {
  const bool indented = text::Indented(line);
  if (t.empty() || StartsWith(t, "Python runtime state:")) return;
  if (!indented && EndsWith(t, "(most recent call first):") &&
      (StartsWith(t, "Current thread ") || StartsWith(t, "Thread ") || StartsWith(t, "Stack "))) {
    // "Current thread 0x00007fd86382c040 (most recent call first):", another thread's "Thread 0x...", or
    // "Stack (most recent call first):" when only the current thread is dumped.
    current_thread_ = !StartsWith(t, "Thread ");
    return;
  }
  if (indented) {  // a frame, "<no Python frame>", "Garbage-collecting", "..." (a cut stack)
    // Most recent first: once max_frames are kept, the rest are the outermost.
    if (current_thread_ && static_cast<int>(s.open().frames.size()) < s.options().max_frames && s.readers().python.ParseFrameLine(s, line)) {
      s.readers().python.expects_source() = false;
    }
    return;
  }
  const bool extension_modules = StartsWith(t, "Extension modules:");
  Close(s);
  if (!extension_modules) s.HandleIdle(line, t);
}

void FatalDumpReader::Close(Segmenter& s) {
  s.EndBlock();
  Incident& open = s.open();
  crash_frames_.assign(std::make_move_iterator(open.frames.rbegin()), std::make_move_iterator(open.frames.rend()));
  crash_line_ = s.line_no();
  crash_rank_ = open.rank;
  open = Incident();
  // Note: [Dump frames on the crash line]
  std::vector<Incident>& kept = s.kept();
  if (dump_log_ >= 0 && dump_log_ < static_cast<int>(kept.size())) {
    Incident& crash = kept[dump_log_];
    if (crash.kind == Incident::Kind::kLogLine && crash.line_start == static_cast<int>(dump_line_) && crash.frames.empty()) {
      for (const Frame& f : crash_frames_) {
        if (static_cast<int>(crash.frames.size()) < s.options().max_frames) crash.frames.push_back(f);
      }
      crash.culprit = text::DeepestUserFrame(crash.frames);
    }
  }
  dump_log_ = -1;
}

void FatalDumpReader::Attach(Segmenter& s, Incident* inc) { s.readers().fatal_dump.Give(s, inc); }

void FatalDumpReader::Give(Segmenter& s, Incident* inc) {
  if (crash_frames_.empty() || inc->kind == Incident::Kind::kLogLine) return;
  // The dump goes to the first exception after it, or nowhere.
  const std::int64_t after = static_cast<std::int64_t>(inc->line_start) - static_cast<std::int64_t>(crash_line_);
  if (inc->rank == crash_rank_ && after >= 0 && after <= s.options().context_window && text::DeepestUserFrame(inc->frames) < 0) {
    for (Frame& f : crash_frames_) {
      if (static_cast<int>(inc->frames.size()) < s.options().max_frames) inc->frames.push_back(std::move(f));
    }
    inc->culprit = -1;
  }
  crash_frames_.clear();
}

}  // namespace triage
