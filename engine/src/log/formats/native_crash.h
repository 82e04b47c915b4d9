// The reports of a process killed by a native crash that a person pastes without any Python text: the
// shell's line for a job ended by SIGSEGV (bash, zsh, a script's "line N: PID Segmentation fault ...",
// the Chinese locale's 段错误) and gdb's (its stop line "received signal SIGSEGV", or the "(gdb) bt"
// command, and the backtrace under it). A rule recognises the report line (rules/env/
// segfault-loading-module.yaml); this reader gives its incident what the rule needs to say where the
// crash happened: the command that imported a module just before it, as a context line, and gdb's
// frames (Note: [Native crash reports] in native_crash.cc).
#ifndef TRIAGE_ENGINE_LOG_FORMATS_NATIVE_CRASH_H_
#define TRIAGE_ENGINE_LOG_FORMATS_NATIVE_CRASH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "log/formats/block.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;
struct FormatHooks;

class NativeCrashReader final : public BlockReader {
 public:
  // The format table's hooks: `unrecognised` (NoteImport) and `log_line` (LogLine).
  static FormatHooks Hooks();
  // `unrecognised` hook, on lines holding "import": remembers a command or prompt line that imports a
  // module (`>>> import torch`, `python -c "import local_corr"`, gdb's `Starting program: ... -c "import
  // torch"`); never takes the line.
  static bool NoteImport(Segmenter& s, const std::string& line, std::string_view trimmed);
  // `log_line` hook: for a crash report line the rules recognised, adds the import command seen shortly
  // before it as context, and for gdb's lines reads the backtrace that follows (the block below).
  static bool LogLine(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next);
  // The block: gdb's lines after its stop line or its "bt" command; the frames go to the report's
  // incident, innermost last as in a Python traceback.
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  void Close(Segmenter& s) override;

  // Exposed for tests.
  // True when `t` is a command or prompt line that imports a module.
  static bool IsImportCommand(std::string_view t);
  // True when `t` is one of the crash report lines this reader knows; *gdb says whether it is gdb's.
  static bool IsCrashReport(std::string_view t, bool* gdb);
  // Parses one gdb backtrace line ("#3  0x00007f... in FUNC (ARGS) from LIB", "#0  FUNC (ARGS) at
  // FILE:LINE"); false for any other line.
  static bool ParseGdbFrame(std::string_view t, Frame* f);

 private:
  std::string import_line_;            // the last import command seen
  std::uint64_t import_line_no_ = 0;   // its line number (0: none)
  int crash_log_ = -1;                 // the report's log-line incident, once kept
  std::vector<Frame> frames_;          // gdb's frames, innermost first as it prints them
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_NATIVE_CRASH_H_
