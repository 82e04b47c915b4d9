#include "log/formats/native_crash.h"

#include <string>

#include "log/formats/registry.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::StartsWith;

// Note: [Native crash reports]
// A process that dies of SIGSEGV prints no Python text: what a person pastes is the shell's one line
// ("Segmentation fault (core dumped)", zsh's "zsh: segmentation fault  python x.py", a script's
// "train.sh: line 3:  7703 Segmentation fault      (core dumped) python train.py", a Chinese locale's
// "段错误 (核心已转储)"), often after the command that crashed, or gdb's session: "Program received signal
// SIGSEGV, Segmentation fault." (or "Thread 1 "python" received signal ..."), "(gdb) bt" and the
// backtrace, innermost frame first, one frame per "#N" line with its continuation lines indented. The
// line alone says only that native code crashed; what says which code is around it. Two things are read:
// - the command just before the crash that imported a module (an interactive `>>> import torch`, a
//   `python -c "import local_corr"`, gdb's `Starting program: /usr/bin/python -c "import torch"`), kept as
//   a context line of the report's incident when it came at most kImportWindow lines before it;
// - gdb's frames after its stop line or its backtrace command, kept as the incident's frames (outermost
//   first, as a Python traceback's), each with the library (`from LIB`) or source file (`at FILE:LINE`)
//   gdb names, so that a rule's `context:` can read a crash inside the dynamic loader or a module's
//   initialisation.
// The report line is an incident only when a rule recognises it (rules/env/segfault-loading-module.yaml
// reads it with the import evidence; a crash report without any is no diagnosis: a segfault in a third
// party's code is common and says nothing of torch).
namespace {

constexpr std::uint64_t kImportWindow = 60;  // lines between an import command and the crash it caused

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// "FILE:LINE" after gdb's " at ": the file, and the line when digits end it.
void ReadLocation(std::string_view at, Frame* f) {
  const size_t colon = at.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < at.size() && at.size() - colon - 1 <= 9) {
    int n = 0;
    bool digits = true;
    for (size_t i = colon + 1; i < at.size(); ++i) {
      if (!IsDigit(at[i])) {
        digits = false;
        break;
      }
      n = n * 10 + (at[i] - '0');
    }
    if (digits) {
      f->file = std::string(at.substr(0, colon));
      f->line = n;
      return;
    }
  }
  f->file = std::string(at);
}

// True for the lines gdb prints between its stop line and the backtrace's end that are no frame.
bool IsGdbChatter(std::string_view t) {
  if (StartsWith(t, "(gdb)") || StartsWith(t, "0x") || StartsWith(t, "[New Thread") || StartsWith(t, "[Thread ") ||
      StartsWith(t, "[Switching to") || StartsWith(t, "Thread ") || StartsWith(t, "---Type") ||
      StartsWith(t, "Program received signal") || StartsWith(t, "Missing separate debuginfo") || t == "...") {
    return true;
  }
  // The source line gdb shows at the stop: "411\t        Py_INCREF(et->ht_name);"
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  return i > 0 && i < t.size() && t[i] == '\t';
}

}  // namespace

bool NativeCrashReader::IsImportCommand(std::string_view t) {
  for (size_t at = t.find("import "); at != std::string_view::npos; at = t.find("import ", at + 1)) {
    const size_t name = at + 7;
    if (name >= t.size() || !IsNameStart(t[name])) continue;
    std::string_view before = text::Trim(t.substr(0, at));
    if (before.empty() || text::EndsWith(before, ">>>") || text::EndsWith(before, "]:") || before.back() == '"' ||
        before.back() == '\'' || before.back() == ';') {
      return true;
    }
  }
  return false;
}

bool NativeCrashReader::IsCrashReport(std::string_view t, bool* gdb) {
  *gdb = false;
  if (StartsWith(t, "(gdb) ")) {
    std::string_view cmd = text::Trim(t.substr(6));
    *gdb = cmd == "bt" || cmd == "backtrace" || cmd == "where" || cmd == "bt full" || cmd == "backtrace full";
    return *gdb;
  }
  if (t.find("received signal SIGSEGV") != std::string_view::npos) {
    *gdb = true;
    return true;
  }
  return t.find("Segmentation fault") != std::string_view::npos || t.find("segmentation fault") != std::string_view::npos ||
         t.find("\xe6\xae\xb5\xe9\x94\x99\xe8\xaf\xaf") != std::string_view::npos;  // 段错误
}

bool NativeCrashReader::ParseGdbFrame(std::string_view t, Frame* f) {
  if (t.size() < 3 || t[0] != '#' || !IsDigit(t[1])) return false;
  size_t i = 1;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i >= t.size() || t[i] != ' ') return false;
  while (i < t.size() && t[i] == ' ') ++i;
  std::string_view rest = t.substr(i);
  if (StartsWith(rest, "0x")) {
    size_t j = 2;
    while (j < rest.size() && IsHexDigit(rest[j])) ++j;
    rest.remove_prefix(j);
    if (!StartsWith(rest, " in ")) return false;
    rest.remove_prefix(4);
  }
  if (rest.empty()) return false;
  *f = Frame();
  const size_t args = rest.find(" (");
  f->function = std::string(rest.substr(0, args));
  if (args != std::string_view::npos) {
    std::string_view tail = rest.substr(args);
    const size_t at = tail.rfind(" at ");
    const size_t from = tail.rfind(" from ");
    if (at != std::string_view::npos && (from == std::string_view::npos || at > from)) {
      ReadLocation(tail.substr(at + 4), f);
    } else if (from != std::string_view::npos) {
      f->file = std::string(tail.substr(from + 6));
    }
  }
  return true;
}

FormatHooks NativeCrashReader::Hooks() {
  FormatHooks h;
  h.unrecognised = &NoteImport;
  h.log_line = &LogLine;
  return h;
}

bool NativeCrashReader::NoteImport(Segmenter& s, const std::string& /*line*/, std::string_view trimmed) {
  if (IsImportCommand(trimmed)) {
    NativeCrashReader& r = s.readers().native_crash;
    r.import_line_ = std::string(trimmed.substr(0, 1024));
    r.import_line_no_ = s.line_no();
  }
  return false;
}

bool NativeCrashReader::LogLine(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next) {
  const std::string_view t = text::Trim(line);
  bool gdb = false;
  if (!IsCrashReport(t, &gdb)) return false;
  NativeCrashReader& r = s.readers().native_crash;
  inc->message = std::string(t.substr(0, s.options().max_message));
  if (r.import_line_no_ > 0 && s.line_no() >= r.import_line_no_ && s.line_no() - r.import_line_no_ <= kImportWindow) {
    inc->context.push_back(r.import_line_);
  }
  if (gdb) {
    r.crash_log_ = -1;
    r.frames_.clear();
    *next = &Block<&FormatReaders::native_crash>;
  }
  return true;
}

void NativeCrashReader::Line(Segmenter& s, const std::string& line, std::string_view t) {
  if (crash_log_ < 0) crash_log_ = s.last_log_line();
  if (t.empty()) return;
  Frame f;
  if (ParseGdbFrame(t, &f)) {
    if (static_cast<int>(frames_.size()) < s.options().max_frames) frames_.push_back(std::move(f));
    return;
  }
  if (text::Indented(line)) {  // a frame's continuation: its arguments, " from LIB" or " at FILE:LINE"
    if (!frames_.empty() && frames_.back().file.empty()) {
      // "   from LIB", "    at FILE:LINE", or the last arguments followed by " at FILE:LINE"
      const std::string spaced = " " + std::string(t);
      const size_t at = spaced.rfind(" at ");
      const size_t from = spaced.rfind(" from ");
      if (at != std::string::npos && (from == std::string::npos || at > from)) {
        ReadLocation(std::string_view(spaced).substr(at + 4), &frames_.back());
      } else if (from != std::string::npos) {
        frames_.back().file = spaced.substr(from + 6);
      }
    }
    return;
  }
  if (IsGdbChatter(t)) return;
  Close(s);
  s.HandleIdle(line, t);
}

void NativeCrashReader::Close(Segmenter& s) {
  s.EndBlock();
  std::vector<Incident>& kept = s.kept();
  if (crash_log_ >= 0 && crash_log_ < static_cast<int>(kept.size())) {
    Incident& crash = kept[crash_log_];
    if (crash.kind == Incident::Kind::kLogLine && crash.frames.empty()) {
      for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) crash.frames.push_back(std::move(*it));
      crash.culprit = -1;
    }
  }
  frames_.clear();
  crash_log_ = -1;
}

}  // namespace triage
