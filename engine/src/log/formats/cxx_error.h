// C++ exceptions: "terminate called after throwing an instance of 'c10::Error'" then "  what():  message"
// (an uncaught exception), a "what():" line alone, or a c10::Error's what() printed by the program
// (the message line, then "Exception raised from ... (most recent call first):"); then the backtrace,
// "frame #3: at::native::foo(...) + 0x12 (0x7f... in /usr/lib/libtorch_cpu.so)".
#ifndef TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_
#define TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class CxxErrorReader {
 public:
  // Idle triggers.
  static bool StartTerminate(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartWhat(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartRaisedFrom(Segmenter& s, const std::string& line, std::string_view trimmed);
  // The message (state kCxxWhat) and the backtrace (kCxxFrames).
  void WhatLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  void FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_
