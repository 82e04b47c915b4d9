#include "log/formats/python_traceback.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "log/formats/text.h"
#include "log/segmenter.h"
#include "triage/locale_free.h"

namespace triage {

using text::LTrim;
using text::StartsWith;
using text::Trim;

namespace {

constexpr std::string_view kHeader = "Traceback (most recent call last):";

// Note: [Glued headers]. A traceback's header can arrive at the end of another line: a progress bar
// redrawn with '\r' and never ended with a newline (`  0%|     | 0/40995 [00:00<?, ?it/s]Traceback (most
// recent call last):`), or a shell prompt that a Windows console printed before a spawned child's stderr
// (`(env) D:\proj>Traceback (most recent call last):`, corpus/wild/data/
// fcdd-windows-lambda-transform-pickle-then-eoferror). The header counts there only after such a text
// (tqdm's rate or bar, or a prompt's closing '>'), so a header quoted inside a message ("Original Traceback
// (most recent call last):", 0.x's "RuntimeError: Traceback (most recent call last):", a logger's repr of
// an exception) is not one. Returns where the header starts in the trimmed line, or npos.
size_t HeaderOffset(std::string_view trimmed) {
  if (StartsWith(trimmed, kHeader)) return 0;
  const size_t at = trimmed.find(kHeader);
  if (at == std::string_view::npos || at == 0) return std::string_view::npos;
  const std::string_view before = trimmed.substr(0, at);
  const bool progress = before.find("it/s") != std::string_view::npos || before.find("s/it") != std::string_view::npos ||
                        before.find("%|") != std::string_view::npos;
  const bool prompt = before.back() == '>';
  return progress || prompt ? at : std::string_view::npos;
}

bool StartsWithHeader(std::string_view trimmed) { return HeaderOffset(trimmed) != std::string_view::npos; }

// Lines that continue an exception message after its first line.
bool IsMessageContinuation(std::string_view line) {
  if (line.empty()) return false;
  if (line[0] == ' ' || line[0] == '\t') return true;
  static const char* const kHeads[] = {
      "CUDA kernel errors might be", "For debugging consider passing", "Compile with `TORCH_USE_CUDA_DSA`",
      "Exception raised from ", "frame #", "Missing key(s)", "Unexpected key(s)", "size mismatch for ",
      "Original Traceback (most recent call last):", "Traceback of TorchScript", "The following operation failed",
      "Serialized   File", "Device-side assertion", "HINT:", "Tried to allocate", "If reserved but unallocated",
      "Set the environment variable", "Note that", "See documentation for Memory Management",
      "If you want to use the", "Please ", "You can ", "It seems", "This error",
      // The second sentence of a message wrapped where the paste (or an app's error box) broke the
      // line: "Sizes of tensors must match except in dimension 1." / "Expected size 3 but got size 4 ...".
      "Expected ",
      // DistributedDataParallel's unused-parameter error continues on unindented lines.
      "making sure all `forward`", "If you already have done the above", "Parameters which did not receive grad",
      "Parameter indices which did not receive grad", "Since `find_unused_parameters=True`",
      "or try to use _set_static_graph", "mark_variable_ready",
      // MONAI's list_data_collate names the dictionary key whose values could not be batched on the
      // line after the collate error it re-raises.
      "Collate error on the key "};
  for (const char* h : kHeads) {
    if (StartsWith(line, h)) return true;
  }
  // 0.4-1.4's TH join check broken before its second sentence ("... except in dimension 0." /
  // "Got 203 and 204 in dimension 2 at .../THTensorMoreMath.cpp:1333"): a bare "Got " is too common a
  // line start to continue a message on its own, so the sentence's own words are required.
  if (StartsWith(line, "Got ") && line.find(" in dimension ") != std::string_view::npos) return true;
  return false;
}

// The quote a line leaves open at its end, or 0: a '"' or '\'' that opens (at the line start or after a
// blank or one of ( [ = , :) and is not closed. A quote after other text opens nothing: an apostrophe
// inside a word, an escaped \", or the closing quote of a string opened on an earlier line.
char OpenQuote(std::string_view line) {
  char open = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (open == 0) {
      if ((c == '"' || c == '\'') && (i == 0 || std::strchr(" \t([=,:", line[i - 1]) != nullptr)) open = c;
    } else if (c == open) {
      open = 0;
    }
  }
  return open;
}

// Note: [Wrapped quotes]: `line` is the wrapped rest of a message line that left `quote` open.
bool IsWrappedRest(std::string_view line, char quote) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  if (StartsWith(line, kHeader) || text::IsExceptionLine(line)) return false;
  return line.find(quote) != std::string_view::npos || line.find(' ') == std::string_view::npos;
}

// Note: [Wrapped quotes], unquoted paths: `last` ends in a piece of a path (its last word holds a / or
// \ and does not end with ':'), and `line` goes on at its first column with the rest of it, up to the
// ':' after it, so that the two pieces make a library's file name ("/.../torch/lib/libto" + "rch_cpu.so:").
bool IsLibraryPathRest(std::string_view last, std::string_view line) {
  if (last.empty() || last.back() == ' ' || last.back() == ':') return false;
  const size_t space = last.rfind(' ');
  const std::string_view piece = space == std::string_view::npos ? last : last.substr(space + 1);
  if (piece.find_first_of("/\\") == std::string_view::npos) return false;
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  const std::string_view rest = line.substr(0, line.find(' '));
  if (rest.size() < 2 || rest.back() != ':' || rest.find("://") != std::string_view::npos) return false;
  const std::string word = std::string(piece) + std::string(rest);
  for (const char* ext : {".so", ".dll", ".DLL", ".dylib", ".pyd"}) {
    if (word.find(ext) != std::string::npos) return true;
  }
  return false;
}

// Note: [Wrapped quotes], wrapped at a blank: an editor or an issue form breaks a long line at the blank
// before a quoted item or after it. `line` (at its first column) goes on with `last` when it starts with a
// quotation it closes and `last` ends in a word, or when `last` ends with a quotation it closed or with a
// colon and `line` goes on with the sentence in small letters ("...\c10.dll\"" + newline + "or one of its ...").
bool IsWrappedAtBlank(std::string_view last, std::string_view line) {
  if (last.empty() || line.size() < 2 || line[0] == ' ' || line[0] == '\t' || text::IsExceptionLine(line)) return false;
  const char q = line[0];
  if (q == '"' || q == '\'') {
    const size_t close = line.find(q, 1);
    const char end = last.back();
    return close != std::string_view::npos && close > 1 && (IsAsciiAlnum(end) || end == ':');
  }
  const char end = last.back();
  // A sentence broken after its colon, the rest starting in small letters: "DefaultCPUAllocator: can't
  // allocate memory:" + newline + "you tried to allocate N bytes. ..." (wild: brain-score/vision#925).
  if (end == ':' && line[0] >= 'a' && line[0] <= 'z') return true;
  if ((end != '"' && end != '\'') || !(line[0] >= 'a' && line[0] <= 'z')) return false;
  // The quotation `last` ends with opened after a blank on it (a path, a name), not at its start.
  const size_t open = last.rfind(end, last.size() - 2);
  return open != std::string_view::npos && open > 0 && last[open - 1] == ' ' && open + 2 < last.size();
}

// Note: [Padded rows]: a line that ends with two or more blanks (a terminal row padded to its width).
bool EndsPadded(std::string_view line) {
  return line.size() >= 2 && (line.back() == ' ' || line.back() == '\t') &&
         (line[line.size() - 2] == ' ' || line[line.size() - 2] == '\t');
}

// Note: [Padded rows]: after a padded row, the line at its first column that goes on with the message
// `last` ends: it closes a '[' that `last` left open, or goes on in small letters after a word in them.
bool IsPaddedRowRest(std::string_view last, std::string_view line) {
  if (last.empty() || line.empty() || line[0] == ' ' || line[0] == '\t' || text::IsExceptionLine(line)) return false;
  const auto count = [](std::string_view t, char c) { return std::count(t.begin(), t.end(), c); };
  if (count(last, '[') > count(last, ']') && line.find(']') != std::string_view::npos) return true;
  const auto small = [](char c) { return c >= 'a' && c <= 'z'; };
  return small(last.back()) && small(line[0]);
}

// True when the traceback starts at the loop of another process or thread that caught it and sent it
// to the main process: the last traceback of the text a wrapper carries (Note: [Nested chains]).
bool CaughtByLoop(const Incident& inc) {
  if (inc.frames.empty()) return true;
  const Frame& first = inc.frames.front();
  return (first.function == "_worker_loop" || first.function == "_pin_memory_loop" || first.function == "_worker") &&
         text::IsLibraryFile(first.file);
}

}  // namespace

void PythonTracebackReader::RecoverFromRaise(Incident* inc) {
  std::string_view src = inc->message;
  if (!StartsWith(src, "raise ")) return;
  std::string_view rest = LTrim(src.substr(6));
  size_t n = text::TypePrefix(rest);
  if (n == 0 || !text::LooksLikeExceptionType(rest.substr(0, n))) return;
  std::string type(rest.substr(0, n));
  std::string message;
  rest = rest.substr(n);
  if (StartsWith(rest, "(")) {
    rest = LTrim(rest.substr(1));
    if (!rest.empty() && (rest[0] == 'f' || rest[0] == 'r')) rest.remove_prefix(1);
    // The literal up to its closing quote; a format placeholder later in it is kept as printed.
    // Note: [Joined literals] Python joins adjacent string literals, and PyTorch's source splits long
    // messages that way (distributed_c10d.py's `raise RuntimeError("Distributed package doesn't have NCCL "
    // "built in")`), so the literals that follow on the same line are read as part of the message.
    while (!rest.empty() && (rest[0] == '"' || rest[0] == '\'')) {
      char q = rest[0];
      size_t end = rest.find(q, 1);
      message += std::string(rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
      if (end == std::string_view::npos) break;
      rest = LTrim(rest.substr(end + 1));
      if (rest.size() > 1 && (rest[0] == 'f' || rest[0] == 'r') && (rest[1] == '"' || rest[1] == '\'')) {
        rest.remove_prefix(1);
      }
    }
  }
  inc->exception = std::move(type);
  inc->message = std::move(message);
}

void PythonTracebackReader::Read(Segmenter& s, Part part) {
  s.ReadIncident(&IncidentBy<&FormatReaders::python>);
  part_ = part;
  nested_chain_open_ = nested_separator_ = false;
  wrap_joins_ = 0;
}

bool PythonTracebackReader::ReadingMessage(Segmenter& s) {
  return s.incident_reader() == this && part_ == Part::kMessage;
}

void PythonTracebackReader::Line(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (part_ == Part::kFrames) {
    FramesState(s, line, trimmed);
  } else if (MessageLine(s, line, trimmed)) {
    s.ReadLineAgain();
  }
}

bool PythonTracebackReader::Close(Segmenter& s) {
  s.readers().interleaved.End(s);
  const bool chained = chained_;
  chained_ = false;
  if (part_ != Part::kFrames) {
    if (chained) ReverseWorkerDeathChain(s, s.pending_cause());
    return true;
  }
  Incident& open = s.open();
  if (open.frames.empty()) return false;
  // A traceback cut before its exception line: the last source line shown is the only evidence. That is
  // the last frame's, or, where the paste stops right after a frame line (or that frame's file has no
  // source to show), the nearest frame's before it: the call that led there.
  open.message.clear();
  for (auto f = open.frames.rbegin(); f != open.frames.rend(); ++f) {
    if (!f->source.empty()) {
      open.message = f->source;
      break;
    }
  }
  // Note: [Cut IPython tracebacks] IPython's header names the type before the frames ("IndexError
  // Traceback (most recent call last)"), so a notebook paste cut before its exception line still says what
  // was raised; a plain traceback's type is only on the line that was cut. Such an incident
  // (Incident::CutBeforeExceptionLine: its message is a frame's source line) is matched by its last source
  // line, as every cut traceback is (the *-traceback-cut rules read where it stopped), and, where that
  // matches no rule, by its type alone, as an exception printed without a message is (ranker.cc
  // MatchIncident). Lua rules see it as `cut` (rules/LUA_API.md), so that a rule asking for "no error
  // line" need not take a header's type for one.
  std::string header_type = s.readers().ipython.active() ? open.exception : std::string();
  open.exception.clear();
  RecoverFromRaise(&open);
  if (open.exception.empty()) open.exception = std::move(header_type);
  return true;
}

void PythonTracebackReader::ReverseWorkerDeathChain(Segmenter& s, int cause) {
  // Note: [Worker death reports]
  std::vector<Incident>& kept = s.kept();
  const Incident& report = s.open();
  if (cause < 0 || cause >= static_cast<int>(kept.size()) || !StartsWith(report.message, "DataLoader worker (pid")) {
    return;
  }
  Incident& wait = kept[cause];
  // The wait's own failure, not the signal handler's report of the death raised inside the wait (which
  // DataLoader then raises again "from" it: the report comes first there already).
  if (wait.frames.empty() || wait.frames.front().function != "_try_get_data" ||
      !text::IsLibraryFile(wait.frames.front().file) || wait.caused_by >= 0 ||
      StartsWith(wait.message, "DataLoader worker (pid")) {
    return;
  }
  s.set_pending_cause(-1);
  s.set_pending_effect(cause);  // the report, kept next, is the wait's cause
}

void PythonTracebackReader::Resume(Segmenter& s, const Incident& outer, Incident* inner) {
  // The wrapper's first line ("Caught RuntimeError in DataLoader worker process 0.") tells rules
  // where the inner failure happened: a stack error in a worker is a collate problem.
  if (static_cast<int>(inner->context.size()) < s.options().max_context) {
    inner->context.push_back(outer.message.substr(0, outer.message.find('\n')));
  }
  part_ = Part::kMessage;
  nested_chain_open_ = !CaughtByLoop(*inner);  // Note: [Nested chains]
  nested_separator_ = false;
  nested_blanks_ = 0;
}

bool PythonTracebackReader::IsHeader(std::string_view trimmed) {
  return StartsWith(trimmed, "Traceback (most recent call last)") || StartsWithHeader(trimmed);
}

void PythonTracebackReader::StartTraceback(Segmenter& s) {
  flush_left_ = started_flush_left_ = message_next_line_ = false;
  Incident inc;
  inc.kind = Incident::Kind::kTraceback;
  inc.line_start = static_cast<int>(s.line_no());
  inc.line_end = inc.line_start;
  inc.rank = s.rank();
  s.OpenIncident(std::move(inc), &IncidentBy<&FormatReaders::python>);
  part_ = Part::kFrames;
  expects_source_ = function_next_ = false;
  nested_chain_open_ = nested_separator_ = false;
  wrap_joins_ = 0;
  chained_ = chain_pending_;
  chain_pending_ = false;
  s.readers().ipython.Reset();
  s.readers().rich.Reset();
}

bool PythonTracebackReader::ParseFrameLine(Segmenter& s, const std::string& line) {
  return ParseFrameLine(s, line, &s.open());
}

namespace {

// A frame's function as Python prints it: a dotted name (`main`, `Trainer.train`) or a name in angle
// brackets (`<module>`, `<lambda>`, `<listcomp>`).
bool IsFunctionName(std::string_view f) {
  if (f.size() > 2 && f.front() == '<' && f.back() == '>') f = f.substr(1, f.size() - 2);
  if (f.empty() || !(IsAsciiAlpha(f[0]) || f[0] == '_')) return false;
  for (char c : f) {
    if (!(IsAsciiAlnum(c) || c == '_' || c == '.')) return false;
  }
  return true;
}

}  // namespace

// Note: [Plain IPython frames]. IPython 8's plain traceback mode, the one Spyder's console prints
// (5.2 and later, IPython >= 8), writes Python's header and exception line but its own frame lines,
// without quotes and with the line number after a colon: `  File ~\anaconda3\...\spyder_kernels\py3compat.py:356
// in compat_exec` (one line), and for module-level code no function at all:
// `  File c:\users\me\train.py:40`; each frame and its source line are followed by a blank line. Read
// as Python's, these lines were source lines, and the traceback kept its type and message but no
// frame. A plain frame is `File PATH:N` or `File PATH:N in F`, PATH absolute, under ~ or on a drive
// letter (IPython shortens the home directory to ~ and Spyder lower-cases the script's path), N a line
// number, F a function's name as Python prints it. Windows paths hold blanks, so PATH ends at the last
// ':' followed by a number. IPython's verbose frames (`File PATH:N, in f(x)`, under its own header) stay
// IPythonReader's.
bool PythonTracebackReader::ParsePlainFrame(std::string_view t, Frame* f) {
  t = Trim(t);
  if (!StartsWith(t, "File ") || t.size() < 9) return false;
  std::string_view head = t.substr(5);
  const char c = head[0];
  const bool rooted = c == '/' || c == '~' ||
                      (IsAsciiAlpha(c) && head[1] == ':' && (head[2] == '\\' || head[2] == '/'));
  if (!rooted) return false;
  std::string_view function;
  if (const size_t in = head.rfind(" in "); in != std::string_view::npos && IsFunctionName(Trim(head.substr(in + 4)))) {
    function = Trim(head.substr(in + 4));
    head = head.substr(0, in);
  }
  const size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon < 2 || colon + 1 >= head.size()) return false;
  int line_no = 0;
  for (size_t i = colon + 1; i < head.size(); ++i) {
    if (!IsAsciiDigit(head[i]) || line_no > 10000000) return false;
    line_no = line_no * 10 + (head[i] - '0');
  }
  f->file = std::string(head.substr(0, colon));
  f->line = line_no;
  f->function = std::string(function);
  return true;
}

bool PythonTracebackReader::ParseFrameLine(Segmenter& s, const std::string& line, Incident* into) {
  std::string_view t = LTrim(line);
  if (!StartsWith(t, "File \"")) {
    // Note: [Plain IPython frames]
    Frame f;
    if (!ParsePlainFrame(t, &f)) return false;
    f.user = !text::IsLibraryFile(f.file);
    s.KeepFrame(into, std::move(f));
    expects_source_ = true;
    function_next_ = false;
    return true;
  }
  size_t end_quote = t.find("\", line ", 6);
  if (end_quote == std::string_view::npos) return false;
  Frame f;
  f.file = std::string(t.substr(6, end_quote - 6));
  std::string_view rest = t.substr(end_quote + 8);
  size_t i = 0;
  while (i < rest.size() && IsAsciiDigit(rest[i])) {
    f.line = f.line * 10 + (rest[i] - '0');
    if (f.line > 100000000) break;
    ++i;
  }
  rest = rest.substr(i);
  if (StartsWith(rest, ", in ")) f.function = std::string(Trim(rest.substr(5)));
  else if (StartsWith(rest, " in ")) f.function = std::string(Trim(rest.substr(4)));  // faulthandler's form
  f.user = !text::IsLibraryFile(f.file);
  s.KeepFrame(into, std::move(f));
  expects_source_ = true;
  function_next_ = Trim(rest) == ",";  // Note: [Frames wrapped before their function]
  return true;
}

void PythonTracebackReader::ParseExceptionLine(Segmenter& s, const std::string& line, Incident* inc) {
  s.readers().python.padded_ = EndsPadded(line);  // Note: [Padded rows]
  std::string_view t = Trim(line);
  size_t n = text::TypePrefix(t);
  if (n > 0 && (n == t.size() || (t[n] == ':' && (n + 1 == t.size() || t[n + 1] == ' ')))) {
    inc->exception = std::string(t.substr(0, n));
    std::string_view msg = n + 1 < t.size() ? Trim(t.substr(n + 1)) : std::string_view();
    msg = text::WithoutProseTail(msg);  // Note: [Prose after a message] in text.h
    inc->message.clear();
    s.AppendMessage(inc, msg);
    if (msg.empty()) inc->message.clear();
    s.readers().python.message_next_line_ = msg.empty() && n < t.size();
  } else {
    s.readers().python.message_next_line_ = false;
    inc->exception.clear();
    inc->message.clear();
    s.AppendMessage(inc, t);
  }
}

namespace {

// The first blank-separated word of `t` (leading blanks skipped).
std::string_view FirstWord(std::string_view t) {
  t = Trim(t);
  return t.substr(0, t.find_first_of(" \t"));
}

// `File "P", line N, in F` (leading blanks aside) with F a function's name; *joined: more text follows F.
bool IsFrameLine(std::string_view t, bool* joined) {
  t = Trim(t);
  if (!StartsWith(t, "File \"")) return false;
  const size_t at = t.find("\", line ");
  const size_t in = at == std::string_view::npos ? at : t.find(", in ", at);
  if (in == std::string_view::npos) return false;
  const std::string_view rest = Trim(t.substr(in + 5));
  const std::string_view f = FirstWord(rest);
  *joined = f.size() != rest.size();
  return IsFunctionName(f);
}

// Note: [Frames wrapped before their function]. A frame line broken at the blank before its `in F`
// (a paste word-wrapped at a narrow width, a copy from a viewer that folds long lines at blanks:
// speechbrain#912's `File ".../multiprocessing/reduction.py", line 189,` then `in recv_handle`) ends in
// the comma after its line number. Such a line is a frame line whose function is on the next line: it
// starts a headerless traceback as a whole frame line does, and a next line that is `in F` alone (F a
// function's name) is that frame's function, not its source line. A line that only ends in `line N,`
// followed by anything else keeps the frame without a function, as a frame line with none would.
bool IsFrameLineBeforeItsFunction(std::string_view t) {
  t = Trim(t);
  if (!StartsWith(t, "File \"")) return false;
  const size_t at = t.find("\", line ");
  if (at == std::string_view::npos) return false;
  std::string_view rest = t.substr(at + 8);
  size_t i = 0;
  while (i < rest.size() && IsAsciiDigit(rest[i])) ++i;
  return i > 0 && rest.substr(i) == ",";
}

// An exception line ("ValueError: ...", "torch.cuda.OutOfMemoryError: ...") or an exception's name
// alone on its line ("KeyboardInterrupt").
bool ReadsAsExceptionLine(std::string_view t) {
  const size_t n = text::TypePrefix(t);
  return n > 0 && (n == t.size() || t[n] == ':') && text::LooksLikeExceptionType(t.substr(0, n));
}

}  // namespace

bool PythonTracebackReader::StartHeader(Segmenter& s, const std::string& line, std::string_view trimmed) {
  size_t at = HeaderOffset(trimmed);
  // A DataLoader worker's "Original Traceback" whose wrapper line was not read as one (a logger's prefix
  // learned only from this header): the worker's traceback starts here all the same.
  if (at == std::string_view::npos && StartsWith(trimmed, "Original Traceback (most recent call last):")) at = 9;
  if (at == std::string_view::npos) return false;
  s.readers().python.StartTraceback(s);
  // A glued header's frames start at column 0 (Note: [Glued headers]).
  s.readers().python.SetHeaderIndent(at == 0 ? std::string_view(line) : std::string_view());
  return true;
}

// Note: [Headerless tracebacks]. A paste often starts inside a traceback, its header and first frames
// left out (a person keeping the last frames, a stored copy cut at the top). Its first `File "...", line
// N, in F` line starts the traceback, read as if a header had been there (cut before its exception line,
// it takes the last source line, as a headed one does). The frame line is also read as a log line, as
// before this reader, so rules that recognise a frame pasted alone keep seeing it. The frame may be
//  - at Python's frame indentation of two blanks;
//  - behind a learned log prefix (Note: [Learned prefix]), which ends with all the blanks before a
//    record's message, since a logging formatter pads its level name ("INFO     ", "ERROR    "): there
//    the frame's two blanks went with the prefix, which ended with at least three (its own separator and
//    the frame's two), or with one (a frame at column 0 in the paste, below); behind exactly two, the
//    frame was indented by one blank in the paste, which is no frame line by itself (a paste of
//    inductor's error started with ' File "...codecache.py"'), and starts nothing there either, so a
//    prefix on every line reads as the paste without it. A frame relogged by "... ERROR " takes the frame's blanks for a level's padding,
//    and so for rich's column layout, unless that reader leaves a frame alone (Note: [Aligned
//    continuations]), which it does;
//  - at column 0: the first line of a selection copied from the frame's first character, or a paste
//    whose indentation was lost everywhere (corpus/wild: the first frame flush left in about twenty
//    pastes, every line flush left in pytorch-semseg-106's, each frame's source line joined onto its
//    File line in BasicSTISR#1's). Such a traceback is read "flush left": the line right after a frame
//    is the frame's source line even at column 0, unless it reads as an exception line (`Type: ...`, a
//    bare `KeyError`), a traceback header or a chain line, which end the frames as usual; and only after
//    a frame that was itself at column 0 (a selection's first frame flush left, its next frames indented
//    as printed, is read as printed after them: CycleGAN#876's paste, whose worker's "Original
//    Traceback" header follows an indented frame).
// F is a name (`main`, `<module>`, `Foo.bar`). A frame line with more after F (its source line joined
// onto it, a whole traceback flattened onto one line) starts a traceback only as the second of two such
// lines in a row: one alone is as likely a sentence or a flattened error, and stays a log line.
//
// A plain IPython frame (Note: [Plain IPython frames]: Spyder's `  File ~\...\py3compat.py:356 in
// compat_exec`) starts one too, at column 0 or two blanks, when its path names a Python file (`.py` before
// the line number) and its function is given, or it is the script's own frame (no function; IPython
// prints none for module-level code). Such a paste's frames are followed by blank lines, which the frame
// section reads through.
bool PythonTracebackReader::StartHeaderless(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (StartsWith(trimmed, "File ") && !StartsWith(trimmed, "File \"") &&
      (StartsWith(line, "File ") || (StartsWith(line, "  File ") && !StartsWith(line, "   ")))) {
    Frame f;
    if (!ParsePlainFrame(trimmed, &f) || !text::EndsWith(f.file, ".py") || s.line_prefix_blanks() == 2) return false;
    s.ClassifyLine(line, trimmed);
    PythonTracebackReader& python = s.readers().python;
    python.StartTraceback(s);
    python.SetHeaderIndent("T");
    python.ParseFrameLine(s, line);
    return true;
  }
  const bool column0 = StartsWith(line, "File \"");
  if (!(column0 || StartsWith(line, "  File \"")) || !StartsWith(trimmed, "File \"")) return false;
  // Behind a prefix that ended with two blanks, the frame was at column 1 in the paste (after a one-blank
  // separator), which starts nothing there either.
  if (column0 && s.line_prefix_blanks() == 2) return false;
  bool joined = false;
  if (!IsFrameLine(trimmed, &joined) && !IsFrameLineBeforeItsFunction(trimmed)) return false;
  bool joined_before = false;
  if (joined && !(s.prev_line_no() + 1 == s.line_no() && IsFrameLine(s.prev_line(), &joined_before) && joined_before)) {
    return false;
  }
  s.ClassifyLine(line, trimmed);
  PythonTracebackReader& python = s.readers().python;
  python.StartTraceback(s);
  python.SetHeaderIndent("T");
  python.started_flush_left_ = python.flush_left_ = column0 && s.line_prefix_blanks() < 3;
  if (joined) {
    python.ParseFrameLine(s, s.prev_line());
    s.open().line_start = static_cast<int>(s.prev_line_no());
  }
  python.ParseFrameLine(s, line);
  return true;
}

// Note: [Indented tracebacks]. Python prints a traceback's header and exception line at column 0, its
// frames indented by two and their source by four. Pasted as an indented block, every line moves right
// by the same amount, so the exception line is indented too and would read as one more source line
// (and the message's own unindented continuations as indented ones). The header's blanks are the
// base: the frame section and the message are read as if that many blanks were not there.
void PythonTracebackReader::SetHeaderIndent(std::string_view header) {
  size_t n = 0;
  while (n < header.size() && (header[n] == ' ' || header[n] == '\t')) ++n;
  header_indent_ = n < header.size() ? n : 0;
}

std::string_view PythonTracebackReader::Dedented(std::string_view line) const {
  size_t n = 0;
  while (n < header_indent_ && n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(n);
}

bool PythonTracebackReader::StartIgnored(Segmenter& s, const std::string&, std::string_view trimmed) {
  // CPython's unraisable hook (a __del__ or a callback failing, often at shutdown after the fatal
  // error): the traceback that follows was ignored, and it says nothing about the one before it.
  if (!StartsWith(trimmed, "Exception ignored in")) return false;
  s.IgnoreNextException();
  return true;
}

bool PythonTracebackReader::IsChainSeparator(std::string_view trimmed) {
  return StartsWith(trimmed, "During handling of the above exception, another exception occurred") ||
         StartsWith(trimmed, "The above exception was the direct cause of the following exception");
}

bool PythonTracebackReader::StartChain(Segmenter& s, const std::string&, std::string_view trimmed) {
  if (!IsChainSeparator(trimmed)) return false;
  // "The above exception": the last exception of this stream, not a log line printed after it.
  const std::vector<Incident>& kept = s.kept();
  const std::uint64_t window = static_cast<std::uint64_t>(s.options().context_window);
  for (int i = static_cast<int>(kept.size()) - 1; i >= 0 && s.line_no() - static_cast<std::uint64_t>(kept[i].line_end) <= window; --i) {
    if (kept[i].kind != Incident::Kind::kLogLine && kept[i].rank == s.rank()) {
      s.set_pending_cause(i);
      s.readers().python.chain_pending_ = true;  // Note: [Worker death reports]
      break;
    }
  }
  return true;
}

// An exception line a person pasted into Markdown wrapped in emphasis ("_RuntimeError: ..._",
// "**ValueError: ...**"): the text between the markers, or the line itself when it is not wrapped.
static std::string_view WithoutEmphasis(std::string_view t) {
  for (std::string_view mark : {"**", "__", "*", "_"}) {
    if (t.size() > 2 * mark.size() && StartsWith(t, mark) && t.substr(t.size() - mark.size()) == mark) {
      return Trim(t.substr(mark.size(), t.size() - 2 * mark.size()));
    }
  }
  return t;
}

bool PythonTracebackReader::StartErrorLine(Segmenter& s, const std::string& line, std::string_view trimmed) {
  // The whole line (no learned prefix in front of it); spaces around it are fine: pastes often end
  // an exception line with a space.
  if (trimmed != Trim(line)) return false;
  trimmed = WithoutEmphasis(trimmed);  // a tqdm bar in front is gone: Note: [Text after a progress bar]
  size_t n = text::TypePrefix(trimmed);
  if (!(n > 0 && n < trimmed.size() && trimmed[n] == ':' && text::LooksLikeExceptionType(trimmed.substr(0, n)))) {
    return false;
  }
  // The exception line of the incident that just ended, printed again (nbconvert repeats it after
  // the notebook's traceback; programs log str(e) after printing the traceback): the same failure.
  std::vector<Incident>& kept = s.kept();
  const int last_exception = s.last_exception();
  if (last_exception >= 0 && last_exception == static_cast<int>(kept.size()) - 1) {
    Incident& last = kept[last_exception];
    std::string_view msg = Trim(trimmed.substr(n + 1));
    if (s.line_no() - static_cast<std::uint64_t>(last.line_end) <= 2 && last.exception == trimmed.substr(0, n) &&
        !msg.empty() && std::string_view(last.message).substr(0, last.message.find('\n')) == msg) {
      last.line_end = static_cast<int>(s.line_no());
      return true;
    }
  }
  Incident inc;
  inc.kind = Incident::Kind::kErrorLine;
  inc.line_start = inc.line_end = static_cast<int>(s.line_no());
  inc.rank = s.rank();
  ParseExceptionLine(s, std::string(trimmed), &inc);
  if (inc.message == kHeader) {
    // A pre-1.2 worker re-raise pasted without the main process's traceback around it (Note: [Pre-1.2
    // worker re-raise]): the worker's traceback starts here.
    s.readers().python.StartTraceback(s);
    return true;
  }
  OpenErrorLine(s, line, std::move(inc));
  return true;
}

void PythonTracebackReader::OpenErrorLine(Segmenter& s, const std::string& line, Incident inc) {
  s.readers().python.padded_ = EndsPadded(line);  // Note: [Padded rows]
  // Its message may continue on the next lines (CUDA hints, state_dict key lists).
  s.readers().rich.Reset();
  s.open() = std::move(inc);
  s.readers().python.Read(s, Part::kMessage);
}

void PythonTracebackReader::FramesState(Segmenter& s, const std::string& line, std::string_view trimmed) {
  InterleavedReader& interleaved = s.readers().interleaved;
  if (const size_t at = HeaderOffset(trimmed); at != std::string_view::npos) {
    if (interleaved.Begin(s)) return;
    interleaved.End(s);
    // The traceback being read ends here, and so does every one suspended around it: a worker's
    // traceback cut in its frames (its process killed while it printed) closes its wrapper too, which
    // would otherwise be resumed only to be replaced by the new traceback.
    s.CloseAll();
    StartTraceback(s);
    SetHeaderIndent(at == 0 ? std::string_view(line) : std::string_view());
    return;
  }
  if (interleaved.FeedTwin(s, line, trimmed)) return;
  FramesLine(s, line, trimmed);
  interleaved.AfterOpenLine(s);
}

void PythonTracebackReader::FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed) {
  Incident& open = s.open();
  const int line_no = static_cast<int>(s.line_no());
  if (s.readers().rich.BoxLine(s, trimmed) || s.readers().ipython.SectionLine(s, trimmed) || trimmed.empty()) {
    open.line_end = line_no;
    return;
  }
  // Note: [Frames wrapped before their function]: the function of a frame line that ended in its comma.
  if (function_next_) {
    function_next_ = false;
    const std::string_view name = StartsWith(trimmed, "in ") ? Trim(trimmed.substr(3)) : std::string_view();
    if (!open.frames.empty() && open.frames.back().function.empty() && IsFunctionName(name)) {
      open.frames.back().function = std::string(name);
      open.line_end = line_no;
      return;
    }
  }
  if (ParseFrameLine(s, line)) {
    // Note: [Headerless tracebacks]: the frame just read is flush left when it is at column 0 in a
    // traceback read flush left from its start.
    flush_left_ = started_flush_left_ && StartsWith(line, "File \"");
    open.line_end = line_no;
    return;
  }
  // Note: [rich tracebacks]: under the closed box of an indented rich traceback, the line at the box's
  // indentation that reads as an exception line is one (asked first: it also notes the line's width).
  const bool rich_exception = s.readers().rich.IsExceptionLine(line, trimmed);
  // Note: [Headerless tracebacks]: pasted flush left, a frame's source line is at column 0 too.
  if (flush_left_ && expects_source_ && !rich_exception && !open.frames.empty() && !ReadsAsExceptionLine(trimmed) &&
      !IsHeader(trimmed) && !StartsWith(trimmed, "Original Traceback") && !IsChainSeparator(trimmed)) {
    open.frames.back().source = std::string(trimmed.substr(0, 512));
    expects_source_ = false;
    open.line_end = line_no;
    return;
  }
  if (!rich_exception && text::Indented(Dedented(line))) {
    // Source line under a frame, caret markers (^^^^, ~~~), "[Previous line repeated N more times]".
    bool carets = trimmed.find_first_not_of("^~ ") == std::string_view::npos;
    if (expects_source_ && !carets && !open.frames.empty() && trimmed[0] != '[') {
      open.frames.back().source = std::string(trimmed.substr(0, 512));
      expects_source_ = false;
    }
    open.line_end = line_no;
    return;
  }
  // Note: [Fence after a cut traceback]: a Markdown code fence closing the paste's block in the frame
  // section ends a traceback cut before its exception line; the fence is no exception line.
  if (StartsWith(trimmed, "```") || StartsWith(trimmed, "~~~")) {
    s.CloseAll();
    return;
  }
  ParseExceptionLine(s, line, &open);
  open.line_end = line_no;
  if (open.message == kHeader) {
    // Note: [Pre-1.2 worker re-raise]. Until 1.1 the DataLoader re-raised a worker's failure as
    // `raise batch.exc_type(batch.exc_msg)`, whose message is the worker's whole formatted traceback:
    // "RuntimeError: Traceback (most recent call last):", its frames, its exception line. Like 1.2+'s
    // "Original Traceback", the inner traceback is the failure and the outer one wraps it.
    s.SuspendOpen();
    StartTraceback(s);
    return;
  }
  part_ = Part::kMessage;
}

bool PythonTracebackReader::MessageLine(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (s.readers().torchscript.Line(s, line, trimmed)) return false;
  Incident& open = s.open();
  const std::string_view body = Dedented(line);  // Note: [Indented tracebacks]
  const bool padded = padded_;  // Note: [Padded rows]: of the message's last line
  padded_ = EndsPadded(line);
  if (nested_chain_open_) {
    // Note: [Nested chains]: the nested text goes on with its chain, nested in this wrapper again.
    if (trimmed.empty() && nested_blanks_ < 2) {
      ++nested_blanks_;
      return false;
    }
    if (!nested_separator_ && IsChainSeparator(trimmed)) {
      nested_separator_ = true;
      nested_blanks_ = 0;
      open.line_end = static_cast<int>(s.line_no());
      s.set_pending_cause(open.caused_by);
      return false;
    }
    const bool next = nested_separator_ && StartsWith(trimmed, kHeader);
    if (nested_separator_ && !next) s.set_pending_cause(-1);
    nested_chain_open_ = nested_separator_ = false;
    if (next) {
      open.line_end = static_cast<int>(s.line_no());
      s.SuspendOpen();
      StartTraceback(s);
      SetHeaderIndent(line);
      return false;
    }
  }
  if (StartsWith(trimmed, "Original Traceback (most recent call last):")) {
    // DataLoader worker re-raise: the inner traceback is the failure; the outer one wraps it.
    open.line_end = static_cast<int>(s.line_no());
    s.SuspendOpen();
    StartTraceback(s);
    SetHeaderIndent(line);
    return false;
  }
  RichReader& rich = s.readers().rich;
  if (rich.InMessage()) {
    // Note: [rich tracebacks]: the message goes on at the box's indentation, and only there.
    bool wrapped = false;
    if (rich.MessageLine(line, trimmed, &wrapped)) {
      if (wrapped) {
        s.JoinMessage(&open, " ");
        s.JoinMessage(&open, trimmed);
      } else {
        s.AppendMessage(&open, trimmed);
      }
      open.line_end = static_cast<int>(s.line_no());
      return false;
    }
    rich.Reset();
    return EndMessage(s, line, trimmed);
  }
  if (wrap_joins_ < 8 && !open.message.empty()) {
    // Note: [Wrapped quotes]
    std::string_view last = open.message;
    last = last.substr(last.rfind('\n') == std::string_view::npos ? 0 : last.rfind('\n') + 1);
    const char quote = OpenQuote(last);
    if ((quote != 0 && IsWrappedRest(body, quote)) || (quote == 0 && IsLibraryPathRest(last, body))) {
      s.JoinMessage(&open, Trim(line));
      open.line_end = static_cast<int>(s.line_no());
      ++wrap_joins_;
      return false;
    }
    if (quote == 0 && padded && IsPaddedRowRest(last, body)) {
      // Note: [Padded rows]: kept as the message's next line, as an indented row is.
      s.AppendMessage(&open, Trim(line));
      open.line_end = static_cast<int>(s.line_no());
      ++wrap_joins_;
      return false;
    }
    if (quote == 0 && IsWrappedAtBlank(last, body)) {
      s.JoinMessage(&open, " ");
      s.JoinMessage(&open, Trim(line));
      open.line_end = static_cast<int>(s.line_no());
      ++wrap_joins_;
      return false;
    }
  }
  // Note: [Message on the next line]. Python prints "Type: " and nothing after the colon only when the
  // message itself begins with a newline, as the TorchScript compiler's reports do ("RuntimeError: " then
  // "Unknown builtin op: aten::type." or "Arguments for call are not valid."); an empty message prints the
  // bare type without a colon. So the line right under such an exception line, when it starts with a
  // letter (not a separator row, a blank, a header or a frame), is the message's first line, and the
  // incident keeps its frames: the rules that read where the error was raised (torch.jit.script's frames
  // against a saved model's load) see them.
  const bool first_line = message_next_line_ && open.message.empty() && !body.empty() && IsAsciiAlpha(body[0]) &&
                          !StartsWithHeader(trimmed) && !text::IsExceptionLine(trimmed);
  message_next_line_ = false;
  if (first_line) {
    s.AppendMessage(&open, body);
    open.line_end = static_cast<int>(s.line_no());
    return false;
  }
  // torch.compile's TorchRuntimeError of 2.0-2.2 puts the wrapped error's message on the line after
  // "Failed running call_function <fn>(*(...), **{}):" (Note: [Wrapped exception types] in ranker.cc).
  const bool wrapped_next = open.message.find('\n') == std::string::npos && StartsWith(open.message, "Failed running call_") &&
                            text::EndsWith(open.message, "):") && !trimmed.empty() && !StartsWithHeader(trimmed);
  // torch.compile's BackendCompilerFailed of 2.1+ ends its first line with "backend='inductor' raised:" and
  // names the backend's error on the next one ("RuntimeError: Triton only support CUDA 10.0 or higher, ..."):
  // that line is the message's, so the rule of the inner error reads it in the same incident (as 2.0's
  // one-line "debug_wrapper raised RuntimeError: ..." form is read). Inductor's LoweringException, whose
  // "target:"/"args[0]:" lines follow it, stays an incident of its own (rules read its lowering context).
  const bool raised_next = open.message.find('\n') == std::string::npos && text::EndsWith(open.message, " raised:") &&
                           !trimmed.empty() && text::IsExceptionLine(trimmed) && !StartsWith(trimmed, "LoweringException");
  if (wrapped_next || raised_next || (IsMessageContinuation(body) && !StartsWithHeader(trimmed) && !StartsWith(trimmed, "File \""))) {
    if (StartsWith(trimmed, "Exception raised from ") || StartsWith(trimmed, "frame #")) {
      // C++ backtrace attached to a Python exception (TORCH_SHOW_CPP_STACKTRACES=1): not message text.
      open.line_end = static_cast<int>(s.line_no());
      return false;
    }
    s.AppendMessage(&open, body);
    open.line_end = static_cast<int>(s.line_no());
    return false;
  }
  return EndMessage(s, line, trimmed);
}

bool PythonTracebackReader::EndMessage(Segmenter& s, const std::string& line, std::string_view trimmed) {
  s.CloseOpen();
  if (ReadingMessage(s)) return true;  // resumed an outer incident: this line may continue it
  if (s.readers().elastic.StartAfterWrapper(s, trimmed)) return false;
  s.HandleIdle(line, trimmed);
  return false;
}

}  // namespace triage
