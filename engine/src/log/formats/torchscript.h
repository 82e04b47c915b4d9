// Note: [TorchScript report]
// An error inside a scripted module reaches Python as "RuntimeError: The following operation failed in
// the TorchScript interpreter." and C++ as a std::runtime_error with that what(); the report continues
// with "Traceback of TorchScript, serialized code" (code/__torch__.py), "Traceback of TorchScript,
// original code" (the user's Python source, "~~~ <--- HERE" under the line that failed) and ends with
// the real "SomethingError: message" line. That line is the incident's type and message; the original
// code's frames are the deepest frames (so the culprit is the user's scripted line). The readers of a
// Python exception's message and of a C++ error's what() hand this reader their lines first.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_TORCHSCRIPT_H_
#define TRIAGE_ENGINE_LOG_FORMATS_TORCHSCRIPT_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class TorchScriptReader {
 public:
  // A line of the open incident's message (Python or C++). Returns true when it was consumed as part
  // of the report.
  bool Line(Segmenter& s, const std::string& line, std::string_view trimmed);
  // True once the report's real error line was read (the last line Line consumed).
  bool done() const { return state_ == State::kDone; }
  // `closed` hook: the open incident closed, and its report with it.
  static void Closed(Segmenter& s);

 private:
  enum class State { kNone, kReport, kDone };
  State state_ = State::kNone;
  bool original_ = false;  // in its "original code" traceback
  std::string code_;       // the last code line, which a "<--- HERE" marker points at
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_TORCHSCRIPT_H_
