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
// Windows' faulthandler begins its dump with "Windows fatal exception: access violation" (or another
// exception name, or "code 0x..."), the same layout after it. The header may end a line that other output
// left unfinished (pytest's "collecting ... Fatal Python error: Aborted").
// Note: [Dump frames on the crash line]. When a rule recognised the dump's first line (a log-line incident:
// "Fatal Python error: Bus error", a segmentation fault read beside its frames), that incident gets the
// crashed thread's frames as well, outermost first, so that a rule can read where the process died (inside
// an extension module's loading, a DataLoader worker's loop) from its `context:`; the exception that may
// follow still takes them as above. A crash line no rule knows stays no incident.
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
  int dump_log_ = -1;            // the log-line incident of the dump's first line, or -1
  std::uint64_t dump_line_ = 0;  // the line number of that first line
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_FATAL_DUMP_H_
