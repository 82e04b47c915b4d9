// C++ exceptions: "terminate called after throwing an instance of 'c10::Error'" then "  what():  message"
// (an uncaught exception), a "what():" line alone, or a c10::Error's what() printed by the program
// (the message line, then "Exception raised from ... (most recent call first):"); then the backtrace,
// "frame #3: at::native::foo(...) + 0x12 (0x7f... in /usr/lib/libtorch_cpu.so)".
#ifndef TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_
#define TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_

#include <string>
#include <string_view>

#include "log/formats/block.h"

namespace triage {

class Segmenter;

// Reads the incident it opens (an incident reader, formats/block.h): first the what() message, then
// the backtrace.
class CxxErrorReader : public IncidentReader {
 public:
  // Idle triggers.
  static bool StartTerminate(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartWhat(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartRaisedFrom(Segmenter& s, const std::string& line, std::string_view trimmed);
  // `interrupts` hook: "terminate called ...", which starts an incident even in another stream's lines.
  static bool IsTerminate(std::string_view trimmed);
  // A line of the open C++ error: its message or its backtrace.
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;

 private:
  enum class Part { kWhat, kFrames };
  // Makes the open incident this reader's, reading `part` next.
  void Read(Segmenter& s, Part part);
  // True while the open incident is this reader's and in its what() message.
  bool ReadingWhat(Segmenter& s);
  void WhatLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  void FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed);

  Part part_ = Part::kWhat;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_CXX_ERROR_H_
