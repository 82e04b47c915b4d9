// Note: [Fatal Python error]
// A process killed by a signal with faulthandler on (faulthandler.enable(), e.g. in a DataLoader
// worker_init_fn; -X faulthandler; PYTHONFAULTHANDLER=1) prints "Fatal Python error: Segmentation fault",
// then each thread's stack under "Current thread 0x... (most recent call first):" (the crashing thread)
// or "Thread 0x... (most recent call first):", as '  File "...", line N in func' lines (no comma), MOST
// RECENT FIRST, and, in recent Pythons, an "Extension modules: ..." line. The dump is no incident of its
// own: the exception it explains comes after it, from the process that noticed the death (DataLoader's
// "worker (pid N) is killed by signal: Segmentation fault.", raised in the main process with library
// frames only). The crashing thread's frames, put outermost first, are appended to the first exception
// incident of the same stream that follows within context_window lines, when that incident has no user
// frame of its own: its culprit is then the crash site. Otherwise the dump is dropped.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_FATAL_DUMP_H_
#define TRIAGE_ENGINE_LOG_FORMATS_FATAL_DUMP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "log/formats/block.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;

class FatalDumpReader final : public BlockReader {
 public:
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // Ends the dump: the crashed thread's frames wait for the next exception.
  void Close(Segmenter& s) override;
  // The dump ends at its first unindented line, which is then read as an idle one.
  bool MayLearnPrefix() const override { return true; }
  // `emit` hook: gives the waiting frames to `inc` (an incident about to be kept) when they explain it.
  static void Attach(Segmenter& s, Incident* inc);

 private:
  void Give(Segmenter& s, Incident* inc);
  bool current_thread_ = false;  // reading the "Current thread" section of the dump
  std::vector<Frame> crash_frames_;
  std::uint64_t crash_line_ = 0;
  std::string crash_rank_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_FATAL_DUMP_H_
