// Python's own traceback: "Traceback (most recent call last):", '  File "x.py", line 3, in f' frames
// with their source lines, the "Type: message" line and its continuation lines; chain separators
// (Note: [Chained culprit] in segmenter.cc), "Exception ignored in" (Note: [Handled]), a DataLoader
// worker's "Original Traceback" nested in its wrapper's message, and bare "SomethingError: message"
// lines printed without a traceback.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_

#include <string>
#include <string_view>

#include "triage/triage.h"

namespace triage {

class Segmenter;

class PythonTracebackReader {
 public:
  // Idle triggers.
  static bool StartHeader(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartIgnored(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartChain(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartErrorLine(Segmenter& s, const std::string& line, std::string_view trimmed);

  // A line in the frame section (state kFrames), two interleaved tracebacks included.
  void FramesState(Segmenter& s, const std::string& line, std::string_view trimmed);
  // One line of the open traceback's frame section (rich and IPython frames too).
  void FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A line after the exception line (state kMessage). Returns true when it closed an incident and
  // resumed an outer one that this line may continue: then the line is to be read again.
  bool MessageLine(Segmenter& s, const std::string& line, std::string_view trimmed);

  // A traceback cut before its exception line whose last source line is `raise Type("message...")`:
  // the raise statement names the exception and starts its message, so take both from it.
  static void RecoverFromRaise(Incident* inc);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_
