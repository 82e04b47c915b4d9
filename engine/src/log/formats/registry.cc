#include "log/formats/registry.h"

namespace triage {

const std::vector<IdleTrigger>& IdleTriggers() {
  // Tried in this order on each non-blank line outside any incident; the first that takes the line
  // wins. A line no trigger takes goes to the rules (a hit is a log-line incident) or is ordinary output.
  // Keywords match in any case: "FAILURES" holds "failure", "Fatal Python error" holds "error".
  static const std::vector<IdleTrigger> kTriggers = {
      {"anomaly forward trace", {"Traceback"}, &ForwardTraceReader::Start},
      {"python traceback", {"Traceback"}, &PythonTracebackReader::StartHeader},
      {"pytest report", {"Failure", "Error"}, &PytestReader::Start},
      {"rich traceback", {"Traceback"}, &RichReader::Start},
      {"ipython traceback", {"Traceback"}, &IPythonReader::Start},
      {"ipython frame without header", {".py in "}, &IPythonReader::StartHeaderless},
      {"mp.spawn child error", {"Error"}, &MpSpawnReader::Start},
      {"faulthandler dump", {"Error"}, &FatalDumpReader::Start},
      {"exception ignored", {"Exception"}, &PythonTracebackReader::StartIgnored},
      {"chain separator", {"Exception"}, &PythonTracebackReader::StartChain},
      {"c++ terminate", {"terminate called"}, &CxxErrorReader::StartTerminate},
      {"c++ what()", {"what():"}, &CxxErrorReader::StartWhat},
      {"c10::Error backtrace", {"Exception"}, &CxxErrorReader::StartRaisedFrom},
      // Every ending text::LooksLikeExceptionType accepts.
      {"bare error line", {"Error", "Exception", "Interrupt", "Failure", "StopIteration", "SystemExit"},
       &PythonTracebackReader::StartErrorLine},
      // Lines read for another reason: a warnings-module line (a rule may make it an incident, and its
      // source line follows: formats/warnings.cc), and ESC, because removing ANSI escapes can join a
      // marker.
      {"warnings-module line", {"Warning"}, nullptr},
      {"ANSI escapes", {"\x1b"}, nullptr},
  };
  return kTriggers;
}

}  // namespace triage
