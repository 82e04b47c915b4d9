#include "log/formats/cxx_error.h"

#include <algorithm>

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::StartsWith;
using text::Trim;

namespace {
constexpr std::uint64_t kMaxMessageLines = 100;  // lines from the incident's first line to the end of its message
}  // namespace

void CxxErrorReader::Read(Segmenter& s, Part part) {
  s.ReadIncident(&IncidentBy<&FormatReaders::cxx>);
  part_ = part;
}

bool CxxErrorReader::ReadingWhat(Segmenter& s) { return s.incident_reader() == this && part_ == Part::kWhat; }

void CxxErrorReader::Line(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (part_ == Part::kWhat) {
    WhatLine(s, line, trimmed);
  } else {
    FramesLine(s, line, trimmed);
  }
}

bool CxxErrorReader::IsTerminate(std::string_view trimmed) { return StartsWith(trimmed, "terminate called"); }

bool CxxErrorReader::StartTerminate(Segmenter& s, const std::string&, std::string_view trimmed) {
  if (!StartsWith(trimmed, "terminate called after throwing an instance of '")) return false;
  Incident& open = s.open();
  open = Incident();
  open.kind = Incident::Kind::kCxxError;
  size_t q = trimmed.find('\'');
  size_t q2 = trimmed.find('\'', q + 1);
  open.exception = std::string(trimmed.substr(q + 1, q2 == std::string_view::npos ? std::string_view::npos : q2 - q - 1));
  open.line_start = open.line_end = static_cast<int>(s.line_no());
  open.rank = s.rank();
  s.readers().cxx.Read(s, Part::kWhat);
  return true;
}

bool CxxErrorReader::StartWhat(Segmenter& s, const std::string&, std::string_view trimmed) {
  // "  what():  message" after a terminate line, or printed alone.
  if (!StartsWith(trimmed, "what():")) return false;
  Incident& open = s.open();
  if (!s.readers().cxx.ReadingWhat(s)) {
    open = Incident();
    open.kind = Incident::Kind::kCxxError;
    open.exception = "c10::Error";
    open.line_start = static_cast<int>(s.line_no());
    open.rank = s.rank();
  }
  s.AppendMessage(&open, Trim(trimmed.substr(7)));
  open.line_end = static_cast<int>(s.line_no());
  s.readers().cxx.Read(s, Part::kWhat);
  return true;
}

bool CxxErrorReader::StartRaisedFrom(Segmenter& s, const std::string&, std::string_view trimmed) {
  if (!StartsWith(trimmed, "Exception raised from ") || trimmed.find("(most recent call first)") == std::string_view::npos) {
    return false;
  }
  // A c10::Error's what() printed by the program: the message is the line(s) before.
  Incident& open = s.open();
  open = Incident();
  open.kind = Incident::Kind::kCxxError;
  open.exception = "c10::Error";
  open.line_start = static_cast<int>(s.prev_line_no() ? s.prev_line_no() : s.line_no());
  open.line_end = static_cast<int>(s.line_no());
  open.rank = s.rank();
  std::string msg = s.prev_line();
  // If the previous line was itself a "Type: message" line, keep its type.
  size_t n = text::TypePrefix(msg);
  if (n > 0 && n + 1 < msg.size() && msg[n] == ':' && text::LooksLikeExceptionType(std::string_view(msg).substr(0, n))) {
    open.exception = msg.substr(0, n);
    msg = std::string(Trim(std::string_view(msg).substr(n + 1)));
  }
  // The line before was probably reported as a bare error line already: replace it.
  const std::vector<Incident>& kept = s.kept();
  if (!kept.empty() && kept.back().kind == Incident::Kind::kErrorLine && kept.back().line_start == open.line_start) {
    s.DropLastIncident();
  }
  s.AppendMessage(&open, msg);
  s.readers().cxx.Read(s, Part::kFrames);
  return true;
}

void CxxErrorReader::WhatLine(Segmenter& s, const std::string& line, std::string_view trimmed) {
  TorchScriptReader& torchscript = s.readers().torchscript;
  if (torchscript.Line(s, line, trimmed)) {
    // The report ended with the real error line: its message may continue on indented lines, read as
    // a Python exception's message is.
    if (torchscript.done()) s.readers().python.ReadMessage(s);
    return;
  }
  Incident& open = s.open();
  if (StartsWith(trimmed, "Exception raised from ") || StartsWith(trimmed, "frame #")) {
    part_ = Part::kFrames;
    open.line_end = static_cast<int>(s.line_no());
    return;
  }
  // The message ends at a blank line, the shell's "Aborted", a new exception, or after kMaxMessageLines:
  // the runtime prints it in one write, so a longer run of lines without the backtrace or a blank line
  // is other output after a message that had none (NCCL's watchdog error, then torchrun's lines).
  if (trimmed.empty() || StartsWith(trimmed, "Aborted") || StartsWith(trimmed, "terminate called") ||
      s.line_no() - static_cast<std::uint64_t>(open.line_start) >= kMaxMessageLines) {
    s.CloseOpen();
    s.HandleIdle(line, trimmed);
    return;
  }
  // "  what():  message" after the terminate line: the prefix is not part of the message.
  s.AppendMessage(&open, StartsWith(trimmed, "what():") ? Trim(trimmed.substr(7)) : std::string_view(line));
  open.line_end = static_cast<int>(s.line_no());
}

void CxxErrorReader::FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed) {
  Incident& open = s.open();
  if (StartsWith(trimmed, "frame #")) {
    Frame f;
    size_t colon = trimmed.find(": ");
    std::string_view rest = colon == std::string_view::npos ? trimmed : trimmed.substr(colon + 2);
    size_t in = rest.rfind(" in ");
    size_t plus = rest.find(" + 0x");
    f.function = std::string(rest.substr(0, std::min(plus, rest.size())).substr(0, 300));
    if (in != std::string_view::npos) {
      std::string_view lib = rest.substr(in + 4);
      if (!lib.empty() && lib.back() == ')') lib.remove_suffix(1);
      f.file = std::string(lib);
    }
    f.user = !f.file.empty() && !text::IsLibraryFile(f.file);
    if (static_cast<int>(open.frames.size()) < s.options().max_frames) open.frames.push_back(std::move(f));
    open.line_end = static_cast<int>(s.line_no());
    return;
  }
  if (StartsWith(trimmed, "Exception raised from ") || trimmed.empty() ||
      trimmed.find_first_not_of(' ') == std::string_view::npos) {
    open.line_end = static_cast<int>(s.line_no());
    if (trimmed.empty()) s.CloseOpen();
    return;
  }
  s.CloseOpen();
  s.HandleIdle(line, trimmed);
}

}  // namespace triage
