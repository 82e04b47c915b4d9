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

  // ---- Python's frame and exception-line grammar, which the formats that print Python frames (pytest,
  // IPython, rich, TorchScript, faulthandler, anomaly mode's forward trace, interleaved tracebacks) read
  // through this reader: the frame-section state is this reader's. ----
  // Opens a Python traceback at this line (state kFrames); a new traceback also ends what IPython's and
  // rich's readers had of the last one.
  void StartTraceback(Segmenter& s);
  // Reads one line of a frame section ('  File "x.py", line 3, in f') into *into (the open incident when
  // none is given); true when it was one: then the frame's source line may follow (expects_source()).
  bool ParseFrameLine(Segmenter& s, const std::string& line, Incident* into);
  bool ParseFrameLine(Segmenter& s, const std::string& line);
  // Reads "Type: message" (or a line of message alone) into inc's exception and message.
  static void ParseExceptionLine(Segmenter& s, const std::string& line, Incident* inc);
  // True while the next indented line may be the source line of the last frame read.
  bool& expects_source() { return expects_source_; }

 private:
  bool expects_source_ = false;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_
