#include "log/segmenter.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>

namespace triage {
namespace {

bool StartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

std::string_view LTrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string_view Trim(std::string_view s) {
  s = LTrim(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Parses "Type: message" / "Type" where Type is a (dotted or ::-qualified) identifier. Returns the
// length of the type, or 0 when the line does not start with one.
size_t TypePrefix(std::string_view s) {
  if (s.empty() || !IsIdentStart(s[0])) return 0;
  size_t i = 0;
  while (i < s.size()) {
    if (IsIdentChar(s[i])) { ++i; continue; }
    if (s[i] == '.' && i + 1 < s.size() && IsIdentStart(s[i + 1])) { ++i; continue; }
    if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == ':' && IsIdentStart(s[i + 2])) { i += 2; continue; }
    break;
  }
  return i;
}

// True for type names that announce an exception ("RuntimeError", "torch.cuda.OutOfMemoryError",
// "c10::Error", "KeyboardInterrupt"), not for warnings or ordinary words. Every suffix here must be in
// Segmenter::IdleKeywords.
bool LooksLikeExceptionType(std::string_view type) {
  size_t dot = type.find_last_of(".:");
  std::string_view last = dot == std::string_view::npos ? type : type.substr(dot + 1);
  auto ends = [&](std::string_view suf) {
    return last.size() >= suf.size() && last.compare(last.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (last.empty() || !std::isupper(static_cast<unsigned char>(last[0]))) return false;
  return ends("Error") || ends("Exception") || ends("Interrupt") || ends("Failure") || last == "StopIteration" ||
         last == "SystemExit" || ends("ExceptionGroup");
}

// Returns the index of the deepest frame that can be a culprit: user code with a line number (a C++
// frame, "frame #13: <unknown function> + 0x49a8 (... in ./program)", has no line to point at), or -1.
int DeepestUserFrame(const std::vector<Frame>& frames) {
  for (int i = static_cast<int>(frames.size()) - 1; i >= 0; --i) {
    if (frames[i].user && frames[i].line > 0) return i;
  }
  return -1;
}

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
      // DistributedDataParallel's unused-parameter error continues on unindented lines.
      "making sure all `forward`", "If you already have done the above", "Parameters which did not receive grad",
      "Parameter indices which did not receive grad", "Since `find_unused_parameters=True`",
      "or try to use _set_static_graph", "mark_variable_ready"};
  for (const char* h : kHeads) {
    if (StartsWith(line, h)) return true;
  }
  return false;
}

// A traceback cut before its exception line whose last source line is `raise Type("message...")`:
// the raise statement names the exception and starts its message, so take both from it.
void RecoverFromRaise(Incident* inc) {
  std::string_view src = inc->message;
  if (!StartsWith(src, "raise ")) return;
  std::string_view rest = LTrim(src.substr(6));
  size_t n = TypePrefix(rest);
  if (n == 0 || !LooksLikeExceptionType(rest.substr(0, n))) return;
  std::string type(rest.substr(0, n));
  std::string message;
  rest = rest.substr(n);
  if (StartsWith(rest, "(")) {
    rest = LTrim(rest.substr(1));
    if (!rest.empty() && (rest[0] == 'f' || rest[0] == 'r')) rest.remove_prefix(1);
    if (!rest.empty() && (rest[0] == '"' || rest[0] == '\'')) {
      // The literal up to its closing quote; a format placeholder later in it is kept as printed.
      char q = rest[0];
      size_t end = rest.find(q, 1);
      message = std::string(rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    }
  }
  inc->exception = std::move(type);
  inc->message = std::move(message);
}

// Parses a warning as the warnings module prints it, "path:12: UserWarning: message" (the source line
// follows, indented). Returns false for any other line.
bool ParseWarningLine(std::string_view line, Incident* inc) {
  size_t w = line.find("Warning: ");
  if (w == std::string_view::npos) return false;
  size_t type_end = w + 7;
  size_t type_start = w;
  while (type_start > 0 && (IsIdentChar(line[type_start - 1]) || line[type_start - 1] == '.')) --type_start;
  // Before the type: ": ", the line number, ':' and a path.
  if (type_start < 4 || line[type_start - 1] != ' ' || line[type_start - 2] != ':') return false;
  size_t digits_end = type_start - 2;
  size_t digits = digits_end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
  if (digits == digits_end || digits < 2 || line[digits - 1] != ':') return false;
  std::string_view file = Trim(line.substr(0, digits - 1));
  if (file.empty() || file.find(' ') != std::string_view::npos) return false;
  Frame f;
  f.file = std::string(file);
  for (size_t i = digits; i < digits_end && f.line < 100000000; ++i) f.line = f.line * 10 + (line[i] - '0');
  inc->exception = std::string(line.substr(type_start, type_end - type_start));
  inc->message = std::string(Trim(line.substr(type_end + 2)));
  inc->frames.clear();
  inc->frames.push_back(std::move(f));
  return true;
}

// IPython/Jupyter traceback header: "RuntimeError                              Traceback (most recent call
// last)" (the type, padding, then the header without its colon). Returns the type's length, or 0.
size_t IPythonHeader(std::string_view t) {
  size_t n = TypePrefix(t);
  if (n == 0 || n >= t.size() || t[n] != ' ') return 0;
  if (!LooksLikeExceptionType(t.substr(0, n))) return 0;
  std::string_view rest = LTrim(t.substr(n));
  return rest == "Traceback (most recent call last)" ? n : 0;
}

// Parses the digits at the start of `s` into *value; returns how many there were.
size_t ParseInt(std::string_view s, int* value) {
  size_t i = 0;
  *value = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (*value < 100000000) *value = *value * 10 + (s[i] - '0');
    ++i;
  }
  return i;
}

// Function name of an IPython frame: "Module._call_impl(self, *input, **kwargs)" -> "Module._call_impl".
std::string IPythonFunction(std::string_view f) {
  f = Trim(f);
  size_t paren = f.find('(');
  return std::string(f.substr(0, paren));
}

// Note: [Learned prefix]
// docker, journalctl, GitHub Actions and logging formatters put a prefix ("2024-03-02T10:15:31.48Z ",
// "Mar 02 10:15:31 host python3[48211]: ", "[2024-01-01 12:00:00,123][ERROR] ") before EVERY line of a
// traceback. Rather than list formats, the segmenter learns the prefix from the text before a
// "Traceback (most recent call last):" header and strips lines of the same shape: the same bytes, except
// that each run of digits matches any run of digits (timestamps, pids). Matching costs one pass over the
// prefix, and only for lines the segmenter reads.
constexpr char kDigitRun = '\x01';

// True for text that can be a per-line log prefix: short, ends at a separator, holds a digit or a
// bracket (a time, a pid, a level tag), and no quote or '=' (which mean the header sits inside a value:
// `error="Traceback ...`).
bool LooksLikeLogPrefix(std::string_view p) {
  if (p.empty() || p.size() > 100) return false;
  char last = p.back();
  if (last != ' ' && last != ':' && last != ']' && last != '|') return false;
  if (p.find_first_of("\"'=\\") != std::string_view::npos) return false;
  return p.find_first_of("0123456789]") != std::string_view::npos;
}

std::string ShapeOf(std::string_view p) {
  std::string shape;
  for (size_t i = 0; i < p.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(p[i]))) {
      while (i + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[i + 1]))) ++i;
      shape += kDigitRun;
    } else {
      shape += p[i];
    }
  }
  return shape;
}

// Returns the length of the prefix of `line` that has `shape`, or 0.
size_t MatchShape(std::string_view shape, std::string_view line) {
  size_t j = 0;
  for (char c : shape) {
    if (c == kDigitRun) {
      if (j >= line.size() || !std::isdigit(static_cast<unsigned char>(line[j]))) return 0;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    } else {
      if (j >= line.size() || line[j] != c) return 0;
      ++j;
    }
  }
  return j;
}

// True for a line that begins a new incident by itself (used to decide whether a line from another
// stream may end the open one).
bool StartsIncident(std::string_view t) {
  if (StartsWith(t, "Traceback (most recent call last)") || StartsWith(t, "terminate called")) return true;
  size_t n = TypePrefix(t);
  return n > 0 && n < t.size() && t[n] == ':' && LooksLikeExceptionType(t.substr(0, n));
}

void StripAnsi(std::string* s) {
  if (s->find('\x1b') == std::string::npos) return;
  std::string out;
  out.reserve(s->size());
  for (size_t i = 0; i < s->size(); ++i) {
    char c = (*s)[i];
    if (c != '\x1b') { out += c; continue; }
    if (i + 1 >= s->size()) break;
    char n = (*s)[i + 1];
    if (n == '[') {  // CSI: parameters then one final byte in @..~
      size_t j = i + 2;
      while (j < s->size() && !((*s)[j] >= '@' && (*s)[j] <= '~')) ++j;
      i = j;
    } else if (n == ']') {  // OSC: until BEL or ESC backslash
      size_t j = i + 2;
      while (j < s->size() && (*s)[j] != '\x07' && !((*s)[j] == '\x1b' && j + 1 < s->size() && (*s)[j + 1] == '\\')) ++j;
      i = (j < s->size() && (*s)[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  s->swap(out);
}

}  // namespace

Segmenter::Segmenter(SegmenterOptions options, Classifier classify)
    : options_(options), classify_(std::move(classify)) {}

std::string Segmenter::Normalize(std::string_view raw, std::string* rank) {
  while (!raw.empty() && (raw.back() == '\r' || raw.back() == '\n')) raw.remove_suffix(1);
  // A progress bar rewrites its line with '\r': what the terminal shows is the last non-empty part.
  if (size_t cr = raw.rfind('\r'); cr != std::string_view::npos) {
    std::string_view tail = raw.substr(cr + 1);
    while (Trim(tail).empty() && cr != std::string_view::npos && cr > 0) {
      size_t prev = raw.rfind('\r', cr - 1);
      tail = raw.substr(prev == std::string_view::npos ? 0 : prev + 1, cr - (prev == std::string_view::npos ? 0 : prev + 1));
      cr = prev;
    }
    raw = tail;
  }
  // NUL bytes before the text: what a process killed mid-write can leave (corpus/data/
  // shm-file-system-strategy prints "\0Traceback ..." after its worker's bus error).
  while (!raw.empty() && raw.front() == '\0') raw.remove_prefix(1);
  std::string line(raw);
  StripAnsi(&line);
  // Rank prefixes: "[rank3]:" (torch 2.x), "[default0]:" (torchrun --tee), "[rank3]" without colon.
  rank->clear();
  if (!line.empty() && line[0] == '[') {
    size_t close = line.find(']');
    if (close != std::string::npos && close < 24) {
      std::string_view tag(line.data() + 1, close - 1);
      size_t digits = tag.find_first_of("0123456789");
      std::string_view word = tag.substr(0, digits);
      if (digits != std::string_view::npos && (word == "rank" || word == "default" || word == "Rank") &&
          tag.find_first_not_of("0123456789", digits) == std::string_view::npos) {
        *rank = std::string(tag.substr(digits));
        // torch 2.x writes "[rank1]: " + the original line: drop the one separating space too.
        size_t cut = close + 1;
        if (cut < line.size() && line[cut] == ':') ++cut;
        if (cut < line.size() && line[cut] == ' ') ++cut;
        line.erase(0, cut);
      }
    }
  } else if (!line.empty() && (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == ' ')) {
    // `srun --label` writes "2: " (right-aligned task number) before every line of task 2.
    size_t i = line.find_first_not_of(' ');
    size_t d = i == std::string::npos ? i : line.find_first_not_of("0123456789", i);
    if (i != std::string::npos && i < 4 && d != std::string::npos && d > i && d - i <= 5 && d + 1 < line.size() &&
        line[d] == ':' && line[d + 1] == ' ') {
      *rank = line.substr(i, d - i);
      line.erase(0, d + 2);
    }
  }
  // A debugger prompt before the text it printed: "(Pdb) Traceback (most recent call last):".
  for (const char* prompt : {"(Pdb) ", "(Pdb++) ", "ipdb> "}) {
    if (StartsWith(line, prompt)) {
      line.erase(0, std::strlen(prompt));
      break;
    }
  }
  return line;
}

bool Segmenter::IsLibraryFile(std::string_view f) {
  static const char* const kLibraryMarks[] = {
      "site-packages", "dist-packages", "/torch/", "\\torch\\", "/lib/python", "\\lib\\python", "\\Lib\\",
      "<frozen ", "/usr/lib/", "/usr/local/lib/", "/aten/src/", "/c10/", "lib/libtorch", "libc10",
      "/torch/csrc/", ".so"};
  for (const char* m : kLibraryMarks) {
    if (f.find(m) != std::string_view::npos) return true;
  }
  return false;
}

void Segmenter::AppendMessage(Incident* inc, std::string_view text) {
  if (inc->message.size() >= options_.max_message) return;
  if (!inc->message.empty()) inc->message += '\n';
  size_t room = options_.max_message - inc->message.size();
  inc->message.append(text.substr(0, room));
}

void Segmenter::StartTraceback() {
  open_ = Incident();
  open_.kind = Incident::Kind::kTraceback;
  open_.line_start = static_cast<int>(line_no_);
  open_.line_end = open_.line_start;
  open_.rank = rank_;
  state_ = State::kFrames;
  frame_expects_source_ = false;
  ipython_ = false;
  rich_ = false;
}

// Note: [IPython frames]
// IPython (terminal, Jupyter, Colab, nbconvert) prints frames as "Cell In [5], line 3, in predict(x)",
// "File /path/module.py:1194, in Module._call_impl(self, ...)", "File /path/train.py:11" (%run), and in
// IPython < 8 "<ipython-input-3-1b2c> in <module>" or "/path/module.py in forward(self, x)". Below each
// comes a window of numbered source lines; the arrow ("----> 3", "--> 114", "-> 1194") marks the line
// that ran, which is the frame's source (and its line number when the header had none).
bool Segmenter::ParseIPythonFrameLine(std::string_view t) {
  Frame f;
  if (StartsWith(t, "Cell ")) {
    size_t comma = t.find(", line ");
    if (comma == std::string_view::npos) return false;
    f.file = std::string(Trim(t.substr(5, comma - 5)));
    std::string_view rest = t.substr(comma + 7);
    rest = rest.substr(ParseInt(rest, &f.line));
    if (StartsWith(rest, ", in ")) f.function = IPythonFunction(rest.substr(5));
  } else if (StartsWith(t, "File ") && !StartsWith(t, "File \"")) {
    std::string_view head = t.substr(5);
    size_t in = head.find(", in ");
    if (in != std::string_view::npos) {
      f.function = IPythonFunction(head.substr(in + 5));
      head = head.substr(0, in);
    }
    head = Trim(head);
    size_t colon = head.rfind(':');
    if (colon == std::string_view::npos || colon + 1 >= head.size() ||
        ParseInt(head.substr(colon + 1), &f.line) != head.size() - colon - 1) {
      return false;
    }
    f.file = std::string(head.substr(0, colon));
  } else if (t[0] == '/' || t[0] == '<' || t[0] == '~' || (t.size() > 2 && t[1] == ':' && t[2] == '\\')) {
    size_t in = t.find(" in ");
    if (in == std::string_view::npos) return false;
    f.file = std::string(t.substr(0, in));
    if (f.file.find(' ') != std::string::npos && !StartsWith(f.file, "<ipython-input-")) return false;
    f.function = IPythonFunction(t.substr(in + 4));
  } else {
    return false;
  }
  f.user = !IsLibraryFile(f.file);
  if (static_cast<int>(open_.frames.size()) >= options_.max_frames) open_.frames.erase(open_.frames.begin());
  open_.frames.push_back(std::move(f));
  frame_expects_source_ = true;
  return true;
}

// Reads one line of an IPython traceback's frame section. Returns false when the line is not part of
// it (then it is the exception line or the end).
bool Segmenter::IPythonFrameSectionLine(std::string_view t) {
  if (t.empty() || ParseIPythonFrameLine(t)) return true;
  size_t dashes = t.find_first_not_of('-');
  if (dashes != std::string_view::npos && t[dashes] == '>' && (dashes > 0 || t.size() > 1)) {
    // "----> 3     return head(feats)": the arrow names the line that ran.
    std::string_view rest = LTrim(t.substr(dashes + 1));
    int line = 0;
    size_t n = ParseInt(rest, &line);
    if (n > 0 && !open_.frames.empty()) {
      Frame& f = open_.frames.back();
      if (f.line == 0) f.line = line;
      if (f.source.empty() || frame_expects_source_) f.source = std::string(Trim(rest.substr(n)).substr(0, 512));
      frame_expects_source_ = false;
    }
    return true;
  }
  // Numbered context lines ("   1190 # If we don't..."), "[... skipping hidden 1 frame]", and the
  // "N frames" notes of Colab are inside the section too.
  if (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '[' || StartsWith(t, "...")) return true;
  return false;
}

bool Segmenter::ParseFrameLine(const std::string& line) {
  std::string_view t = LTrim(line);
  if (!StartsWith(t, "File \"")) return false;
  size_t end_quote = t.find("\", line ", 6);
  if (end_quote == std::string_view::npos) return false;
  Frame f;
  f.file = std::string(t.substr(6, end_quote - 6));
  std::string_view rest = t.substr(end_quote + 8);
  size_t i = 0;
  while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) {
    f.line = f.line * 10 + (rest[i] - '0');
    if (f.line > 100000000) break;
    ++i;
  }
  rest = rest.substr(i);
  if (StartsWith(rest, ", in ")) f.function = std::string(Trim(rest.substr(5)));
  else if (StartsWith(rest, " in ")) f.function = std::string(Trim(rest.substr(4)));  // faulthandler's form
  f.user = !IsLibraryFile(f.file);
  if (static_cast<int>(open_.frames.size()) >= options_.max_frames) {
    open_.frames.erase(open_.frames.begin());  // keep the innermost frames: they name the failure
  }
  open_.frames.push_back(std::move(f));
  frame_expects_source_ = true;
  return true;
}

void Segmenter::ParseExceptionLine(const std::string& line, Incident* inc) {
  std::string_view t = Trim(line);
  size_t n = TypePrefix(t);
  if (n > 0 && (n == t.size() || (t[n] == ':' && (n + 1 == t.size() || t[n + 1] == ' ')))) {
    inc->exception = std::string(t.substr(0, n));
    std::string_view msg = n + 1 < t.size() ? Trim(t.substr(n + 1)) : std::string_view();
    inc->message.clear();
    AppendMessage(inc, msg);
    if (msg.empty()) inc->message.clear();
  } else {
    inc->exception.clear();
    inc->message.clear();
    AppendMessage(inc, t);
  }
}

void Segmenter::AttachContext(Incident* inc) {
  // Log-line incidents shortly before an exception are its context (kernel assertions, warnings).
  for (int i = static_cast<int>(incidents_.size()) - 1; i >= 0; --i) {
    const Incident& prev = incidents_[i];
    if (inc->line_start - prev.line_end > options_.context_window) break;
    if (prev.kind != Incident::Kind::kLogLine) continue;
    if (static_cast<int>(inc->context.size()) >= options_.max_context) break;
    inc->context.insert(inc->context.begin(), prev.message.substr(0, 1024));
  }
}

void Segmenter::Emit(Incident inc) {
  if (!forward_frames_.empty() && inc.kind == Incident::Kind::kTraceback) {
    // Note: [Anomaly forward trace].
    if (line_no_ - forward_line_ <= static_cast<std::uint64_t>(options_.context_window)) {
      for (Frame& f : forward_frames_) {
        if (static_cast<int>(inc.frames.size()) < options_.max_frames) inc.frames.push_back(std::move(f));
      }
      inc.culprit = -1;
    }
    forward_frames_.clear();
  }
  if (!crash_frames_.empty() && inc.kind != Incident::Kind::kLogLine) {
    // Note: [Fatal Python error]. The dump goes to the first exception after it, or nowhere.
    const std::int64_t after = static_cast<std::int64_t>(inc.line_start) - static_cast<std::int64_t>(crash_line_);
    if (inc.rank == crash_rank_ && after >= 0 && after <= options_.context_window && DeepestUserFrame(inc.frames) < 0) {
      for (Frame& f : crash_frames_) {
        if (static_cast<int>(inc.frames.size()) < options_.max_frames) inc.frames.push_back(std::move(f));
      }
      inc.culprit = -1;
    }
    crash_frames_.clear();
  }
  if (inc.culprit < 0) inc.culprit = DeepestUserFrame(inc.frames);
  if (inc.kind != Incident::Kind::kLogLine) AttachContext(&inc);
  if (static_cast<int>(incidents_.size()) >= options_.max_incidents) {
    ++dropped_;
    return;
  }
  bool chained = false;
  if (pending_cause_ >= 0 && inc.kind == Incident::Kind::kTraceback && inc.caused_by < 0) {
    inc.caused_by = pending_cause_;
    pending_cause_ = -1;
    chained = true;
  }
  bool is_exception = inc.kind != Incident::Kind::kLogLine;
  // Note: [Handled]
  // Incident::handled marks an exception the run survived: the previous exception of this stream is
  // handled when ordinary output (lines part of no incident) came between it and this new, unchained
  // one: it was caught and logged (logging.exception, a retry loop), and the run went on. A traceback
  // announced by "Exception ignored in:" is handled itself and marks nothing. The last exception of a
  // stream is never handled. For the ranker: prefer the earliest exception group whose root is not
  // handled; fall back to the earliest group when all are.
  //
  bool ignored = is_exception && ignored_next_;
  if (ignored) {
    inc.handled = true;
    ignored_next_ = false;
  } else if (is_exception) {
    // A wrapper waiting for this incident (CellExecutionError, ProcessRaisedException) was not survived.
    if (inc.caused_by < 0 && live_exception_ >= 0 && live_exception_ != pending_wrapper_ && ordinary_lines_ > 0 &&
        incidents_[live_exception_].rank == inc.rank &&
        incidents_[live_exception_].line_end < inc.line_start) {
      incidents_[live_exception_].handled = true;
    }
    ordinary_lines_ = 0;
  }
  bool wraps = pending_wrapper_ >= 0 && inc.kind == Incident::Kind::kTraceback;
  incidents_.push_back(std::move(inc));
  if (is_exception) last_exception_ = static_cast<int>(incidents_.size()) - 1;
  if (is_exception && !ignored) live_exception_ = last_exception_;
  if (wraps) {
    if (pending_wrapper_ < last_exception_) incidents_[pending_wrapper_].caused_by = last_exception_;
    pending_wrapper_ = -1;
  }
  if (chained) {
    chain_links_.push_back(static_cast<int>(incidents_.size()) - 1);
    InheritCulprit(chain_links_.back());
  }
  completed_ = static_cast<int>(incidents_.size());
}

// Note: [Chained culprit]
// In a chain ("The above exception was the direct cause ...", "During handling ..."), Python prints the
// cause's traceback only from the frame that caught it: the frames above it, often the only user code
// (the `for batch in loader:` line around a DataLoader worker's death), are printed once, in the chained
// traceback. So when a cause has no culprit of its own and the incident chained to it has one, the
// cause gets the chained traceback's frames above the catching frame (the cause's first frame, found by
// file and function; when it is not there, the frames down to the chained culprit), prepended as the
// outer part of its own stack, and its culprit is the deepest user frame among them. It repeats down a
// chain of such causes. Wrappers (a DataLoader re-raise, a ChildFailedError) are not chains: their
// cause ran in another process, and keeps its own frames.
void Segmenter::InheritCulprit(int index) {
  for (int from = index; from >= 0;) {
    if (!std::binary_search(chain_links_.begin(), chain_links_.end(), from)) return;
    const int cause = incidents_[from].caused_by;
    if (cause < 0 || cause >= from) return;
    const Incident& chained = incidents_[from];
    Incident& inc = incidents_[cause];
    if (inc.culprit >= 0 || chained.culprit < 0) return;
    size_t outer = static_cast<size_t>(chained.culprit) + 1;  // frames[0, outer) go in front
    if (!inc.frames.empty()) {
      const Frame& catcher = inc.frames.front();
      for (size_t i = chained.frames.size(); i-- > 0;) {
        if (chained.frames[i].file == catcher.file && chained.frames[i].function == catcher.function) {
          outer = i;
          break;
        }
      }
    }
    std::vector<Frame> frames(chained.frames.begin(), chained.frames.begin() + outer);
    if (DeepestUserFrame(frames) < 0) return;
    frames.insert(frames.end(), std::make_move_iterator(inc.frames.begin()), std::make_move_iterator(inc.frames.end()));
    if (static_cast<int>(frames.size()) > options_.max_frames) {
      frames.erase(frames.begin(), frames.end() - options_.max_frames);  // the innermost are kept
    }
    inc.frames = std::move(frames);
    inc.culprit = DeepestUserFrame(inc.frames);
    from = cause;
  }
}

void Segmenter::CloseOpen() {
  EndInterleaving();
  if (state_ == State::kForwardTrace) {
    state_ = State::kIdle;
    forward_frames_ = std::move(open_.frames);
    forward_line_ = line_no_;
    open_ = Incident();
    return;
  }
  if (state_ == State::kWarningSource) state_ = State::kIdle;  // the warning is already emitted
  if (state_ == State::kFatalDump) FinishFatalDump();
  if (state_ == State::kElasticSummary) FinishElasticSummary();
  if (state_ == State::kPytest) {
    state_ = State::kIdle;
    if (open_.exception.empty() && open_.message.empty()) return;  // no failing test in progress
    Incident inc = std::move(open_);
    open_ = Incident();
    Emit(std::move(inc));
    return;
  }
  if (state_ == State::kIdle) return;
  if (state_ == State::kFrames) {
    // A traceback cut before its exception line: the last frame's source line is the only evidence.
    if (!open_.frames.empty()) {
      open_.message = open_.frames.back().source;
      open_.exception.clear();
      RecoverFromRaise(&open_);
    }
  }
  State was = state_;
  state_ = State::kIdle;
  torchscript_ = TorchScript::kNone;
  if (was == State::kFrames && open_.frames.empty()) return;
  Incident inc = std::move(open_);
  open_ = Incident();
  // Resume an outer incident suspended by a nested "Original Traceback" once the inner one is done.
  if (!stack_.empty()) {
    Incident outer = std::move(stack_.back());
    stack_.pop_back();
    // The wrapper's first line ("Caught RuntimeError in DataLoader worker process 0.") tells rules
    // where the inner failure happened: a stack error in a worker is a collate problem.
    if (static_cast<int>(inc.context.size()) < options_.max_context) {
      inc.context.push_back(outer.message.substr(0, outer.message.find('\n')));
    }
    Emit(std::move(inc));
    outer.caused_by = static_cast<int>(incidents_.size()) - 1;
    open_ = std::move(outer);
    state_ = State::kMessage;
    return;
  }
  Emit(std::move(inc));
}

void Segmenter::AddLogLine(const std::string& line, int key) {
  if (log_index_ >= 0 && key == log_key_ && line_no_ - log_last_line_ <= static_cast<std::uint64_t>(options_.merge_gap) &&
      log_index_ < static_cast<int>(incidents_.size())) {
    Incident& inc = incidents_[log_index_];
    inc.line_end = static_cast<int>(line_no_);
    ++inc.count;
    if (inc.count <= 8) AppendMessage(&inc, Trim(line));
    log_last_line_ = line_no_;
    return;
  }
  Incident inc;
  inc.kind = Incident::Kind::kLogLine;
  inc.line_start = inc.line_end = static_cast<int>(line_no_);
  inc.rank = rank_;
  AppendMessage(&inc, Trim(line));
  bool warning = ParseWarningLine(line, &inc);
  if (warning) {
    inc.frames.back().user = !IsLibraryFile(inc.frames.back().file);
    if (inc.message.size() > options_.max_message) inc.message.resize(options_.max_message);
  }
  // A log line shortly after an exception (kernel assertions printed late) is that exception's context too.
  if (last_exception_ >= 0) {
    Incident& ex = incidents_[last_exception_];
    if (static_cast<int>(line_no_) - ex.line_end <= options_.context_window &&
        static_cast<int>(ex.context.size()) < options_.max_context) {
      ex.context.push_back(inc.message.substr(0, 1024));
    }
  }
  Emit(std::move(inc));
  log_index_ = static_cast<int>(incidents_.size()) - 1;
  log_key_ = key;
  log_last_line_ = line_no_;
  // The warnings module prints the warning's source line next: read it even if the scanner would skip it.
  if (warning && state_ == State::kIdle && log_index_ >= 0 &&
      incidents_[log_index_].line_start == static_cast<int>(line_no_)) {
    state_ = State::kWarningSource;
  }
}

void Segmenter::AddLine(std::string_view raw) {
  ++line_no_;
  raw = raw.substr(0, options_.max_line);
  // An .ipynb error output: its "traceback" array holds one JSON string per IPython traceback line
  // (ANSI colours as \u001b escapes); read each element as the lines it encodes.
  if (notebook_traceback_) {
    std::string_view t = Trim(raw);
    if (t.size() >= 2 && t[0] == '"') {
      if (t.back() == ',') t.remove_suffix(1);
      ReadEscaped(t.substr(1), /*json=*/true);
      return;
    }
    notebook_traceback_ = false;
    // The array's end ends the traceback too: the JSON after it ("    }") is no message continuation.
    CloseOpen();
    if (StartsWith(t, "]")) return;
  } else if (!raw.empty() && raw.back() == '[' && Trim(raw) == "\"traceback\": [") {
    notebook_traceback_ = true;
    return;
  }
  // A traceback flattened onto one line with literal "\n" (a job scheduler's error field, a JSON log
  // record): read its pieces as lines. memchr for the backslash keeps ordinary lines cheap.
  if (raw.find('\\') != std::string_view::npos) {
    size_t h = raw.find("Traceback (most recent call last):\\n");
    if (h != std::string_view::npos) {
      AddFlattened(raw, h);
      return;
    }
  }
  ReadLine(raw);
}

void Segmenter::AddFlattened(std::string_view raw, size_t header) {
  // Inside a JSON string (the header follows a quote and quotes are escaped) the string ends at the
  // first unescaped quote; otherwise at the end of the line, less a closing quote.
  bool quoted = header > 0 && raw[header - 1] == '"';
  bool json = quoted && raw.find("\\\"", header) != std::string_view::npos;
  std::string_view text = raw.substr(header);
  if (quoted && !json && !text.empty() && Trim(text).back() == '"') {
    text = Trim(text);
    text.remove_suffix(1);
  }
  ReadEscaped(text, json);
}

// Reads `text` with JSON/Python string escapes undone, as lines split at "\n" (in JSON, up to the
// first unescaped quote).
void Segmenter::ReadEscaped(std::string_view text, bool json) {
  std::string piece;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' && json) break;
    if (c != '\\' || i + 1 >= text.size()) {
      piece += c;
      continue;
    }
    char e = text[++i];
    if (e == 'n') {
      ReadLine(piece);
      piece.clear();
    } else if (e == 't') {
      piece += '\t';
    } else if (e == 'r') {
    } else if (e == 'u' && i + 4 < text.size()) {
      // \u001b (ANSI colours of a notebook) and other BMP code points, as UTF-8.
      unsigned cp = 0;
      bool ok = true;
      for (size_t k = 1; k <= 4; ++k) {
        char h = text[i + k];
        cp <<= 4;
        if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
        else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
        else ok = false;
      }
      if (!ok) { piece += '\\'; piece += e; continue; }
      i += 4;
      if (cp < 0x80) {
        piece += static_cast<char>(cp);
      } else if (cp < 0x800) {
        piece += static_cast<char>(0xC0 | (cp >> 6));
        piece += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        piece += static_cast<char>(0xE0 | (cp >> 12));
        piece += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        piece += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else if (json || e == '\\' || e == '"') {
      piece += e;  // \" \\ \/ in JSON; outside JSON only the unambiguous ones
    } else {
      piece += '\\';
      piece += e;
    }
  }
  if (!Trim(piece).empty()) ReadLine(piece);
}

// Note: [Exception groups]
// Python 3.11+ prints an ExceptionGroup as "+ Exception Group Traceback (most recent call last):", its
// frames and exception behind "| ", then each sub-exception after a "+-+---- 1 ----" / "+---- 2 ----"
// separator, indented one level deeper, and "+------" at the end. The group is a container: its cause
// is the first sub-exception; each sub-exception is an incident of its own. Returns false when the line
// was decoration only (consumed here).
bool Segmenter::ExceptionGroupLine(std::string* line) {
  std::string_view t = LTrim(*line);
  if (t.empty()) return true;
  if (StartsWith(t, "+ Exception Group Traceback (most recent call last):")) {
    *line = "Traceback (most recent call last):";
    exception_group_ = true;
    return true;
  }
  if (!exception_group_) return true;
  if (t[0] == '|') {
    line->erase(0, line->size() - t.size() + (t.size() > 1 && t[1] == ' ' ? 2 : 1));
    return true;
  }
  if (StartsWith(t, "+-")) {
    CloseOpen();
    size_t digit = t.find_first_of("0123456789");
    if (digit != std::string_view::npos && t.substr(digit, 2) == "1 ") {
      // The first sub-exception is the group's cause.
      for (int i = static_cast<int>(incidents_.size()) - 1; i >= 0; --i) {
        if (EndsWith(incidents_[i].exception, "ExceptionGroup")) {
          pending_wrapper_ = i;
          break;
        }
      }
    }
    return false;
  }
  exception_group_ = false;
  return true;
}

// Reads one line of a Python traceback's frame section into open_.
// Note: [rich tracebacks]
// rich.traceback draws the frames in a box: "│ /path/program.py:12 in encode │", a window of numbered
// source lines with "❱" on the line that ran (indent guides drawn as "│"), and "╰───╯" before the plain
// exception line. Returns true when the line belonged to the box.
bool Segmenter::RichBoxLine(std::string_view t) {
  static constexpr std::string_view kBar = "\u2502";      // │
  static constexpr std::string_view kArrow = "\u2771";    // ❱
  if (StartsWith(t, "\u2570")) return true;               // ╰ closes the box
  if (!StartsWith(t, kBar)) return false;
  t = Trim(t.substr(kBar.size()));
  if (EndsWith(t, kBar)) t = Trim(t.substr(0, t.size() - kBar.size()));
  if (StartsWith(t, kArrow)) {
    std::string_view rest = LTrim(t.substr(kArrow.size()));
    int line = 0;
    rest = rest.substr(ParseInt(rest, &line));
    // Drop the indent guides: "│   return x" -> "return x".
    for (rest = LTrim(rest); StartsWith(rest, kBar); rest = LTrim(rest.substr(kBar.size()))) {}
    if (!open_.frames.empty() && open_.frames.back().source.empty()) {
      open_.frames.back().source = std::string(rest.substr(0, 512));
    }
    return true;
  }
  // "path:line in function"
  size_t in = t.find(" in ");
  if (in == std::string_view::npos) return true;
  std::string_view loc = t.substr(0, in);
  size_t colon = loc.rfind(':');
  int line = 0;
  if (colon == std::string_view::npos || loc.find(' ') != std::string_view::npos ||
      ParseInt(loc.substr(colon + 1), &line) != loc.size() - colon - 1 || line == 0) {
    return true;
  }
  Frame f;
  f.file = std::string(loc.substr(0, colon));
  f.line = line;
  f.function = std::string(Trim(t.substr(in + 4)));
  f.user = !IsLibraryFile(f.file);
  if (static_cast<int>(open_.frames.size()) >= options_.max_frames) open_.frames.erase(open_.frames.begin());
  open_.frames.push_back(std::move(f));
  return true;
}

void Segmenter::FramesLine(const std::string& line, std::string_view trimmed) {
  if (rich_ && RichBoxLine(trimmed)) {
    open_.line_end = static_cast<int>(line_no_);
    return;
  }
  if (ipython_ && IPythonFrameSectionLine(trimmed)) {
    open_.line_end = static_cast<int>(line_no_);
    return;
  }
  if (ParseFrameLine(line)) { open_.line_end = static_cast<int>(line_no_); return; }
  if (trimmed.empty()) { open_.line_end = static_cast<int>(line_no_); return; }
  bool indented = line[0] == ' ' || line[0] == '\t';
  if (indented) {
    // Source line under a frame, caret markers (^^^^, ~~~), "[Previous line repeated N more times]".
    bool carets = trimmed.find_first_not_of("^~ ") == std::string_view::npos;
    if (frame_expects_source_ && !carets && !open_.frames.empty() && trimmed[0] != '[') {
      open_.frames.back().source = std::string(trimmed.substr(0, 512));
      frame_expects_source_ = false;
    }
    open_.line_end = static_cast<int>(line_no_);
    return;
  }
  ParseExceptionLine(line, &open_);
  open_.line_end = static_cast<int>(line_no_);
  state_ = State::kMessage;
}

// Ends an interleaving early (a third traceback, the end of input): the twin is emitted as it stands.
void Segmenter::EndInterleaving() {
  if (!interleaved_) return;
  interleaved_ = false;
  if (!twin_.frames.empty()) {
    twin_.message = twin_.frames.back().source;
    RecoverFromRaise(&twin_);
    Emit(std::move(twin_));
  }
  twin_ = Incident();
}

void Segmenter::ReadLine(std::string_view raw) {
  std::string line = Normalize(raw, &rank_);
  // Note: [Learned prefix]. Only a line that mentions a traceback header can teach a new prefix.
  bool prefixed = false;
  if (size_t n = prefix_shape_.empty() ? 0 : MatchShape(prefix_shape_, line); n > 0) {
    line.erase(0, n);
    prefixed = true;
  } else if (state_ == State::kIdle || state_ == State::kFatalDump) {
    size_t p = line.find("Traceback (most recent call last):");
    if (p != std::string::npos && p > 0 && LooksLikeLogPrefix(std::string_view(line).substr(0, p))) {
      prefix_shape_ = ShapeOf(std::string_view(line).substr(0, p));
      line.erase(0, p);
      prefixed = true;
    }
  }
  if (!ExceptionGroupLine(&line)) return;
  std::string_view trimmed = Trim(line);

  // Note: [Streams]. While an incident is open, a line from another stream (another rank prefix, or
  // without the prefix its lines carry) is not part of it: other ranks' progress lines land between a
  // rank's traceback lines. Such a line only ends the open incident when it starts one of its own.
  if (state_ != State::kIdle && (rank_ != open_.rank || (open_prefixed_ && !prefixed)) && !StartsIncident(trimmed)) {
    if (classify_ && !trimmed.empty()) {
      int key = classify_(trimmed);
      if (key >= 0) AddLogLine(line, key);
    }
    if (!trimmed.empty()) {
      prev_line_ = std::string(trimmed.substr(0, 4096));
      prev_line_no_ = line_no_;
    }
    return;
  }
  const bool was_idle = state_ == State::kIdle;

  switch (state_) {
    case State::kFrames: {
      if (StartsWith(trimmed, "Traceback (most recent call last):")) {
        if (!interleaved_ && open_.frames.empty() && !ipython_ && stack_.empty() &&
            open_.line_end + 1 == static_cast<int>(line_no_)) {
          // Note: [Interleaved tracebacks]
          // A second header right after the first, before any frame: two processes writing to one
          // terminal without prefixes. Python writes a traceback line by line, so their lines
          // alternate; each line goes to the traceback that did not get the previous one, until one
          // of them reaches its exception line.
          twin_ = std::move(open_);
          twin_expects_source_ = false;
          twin_fed_last_ = false;  // the new header went to open_: the next line is the twin's
          interleaved_ = true;
          StartTraceback();
          break;
        }
        EndInterleaving();
        CloseOpen();
        StartTraceback();
        break;
      }
      if (interleaved_ && !twin_fed_last_) {
        twin_fed_last_ = true;
        std::swap(open_, twin_);
        std::swap(frame_expects_source_, twin_expects_source_);
        FramesLine(line, trimmed);
        std::swap(open_, twin_);
        std::swap(frame_expects_source_, twin_expects_source_);
        if (state_ == State::kMessage) {  // the twin reached its exception line: it is complete
          state_ = State::kFrames;
          interleaved_ = false;
          Emit(std::move(twin_));
          twin_ = Incident();
        }
        break;
      }
      twin_fed_last_ = false;
      FramesLine(line, trimmed);
      if (interleaved_ && state_ == State::kMessage) {
        // This one finished first: emit it and go on with the twin alone.
        state_ = State::kFrames;
        Emit(std::move(open_));
        open_ = std::move(twin_);
        twin_ = Incident();
        frame_expects_source_ = twin_expects_source_;
        interleaved_ = false;
      }
      break;
    }
    case State::kMessage: {
      if (TorchScriptLine(line, trimmed)) break;
      if (StartsWith(trimmed, "Original Traceback (most recent call last):")) {
        // DataLoader worker re-raise: the inner traceback is the failure; the outer one wraps it.
        open_.line_end = static_cast<int>(line_no_);
        stack_.push_back(std::move(open_));
        StartTraceback();
        break;
      }
      if (IsMessageContinuation(line) && !StartsWith(trimmed, "Traceback (most recent call last):") &&
          !StartsWith(trimmed, "File \"")) {
        if (StartsWith(trimmed, "Exception raised from ") || StartsWith(trimmed, "frame #")) {
          // C++ backtrace attached to a Python exception (TORCH_SHOW_CPP_STACKTRACES=1): not message text.
          open_.line_end = static_cast<int>(line_no_);
          break;
        }
        AppendMessage(&open_, line);
        open_.line_end = static_cast<int>(line_no_);
        break;
      }
      CloseOpen();
      if (state_ == State::kMessage) {  // resumed an outer incident: this line may continue it
        ReadLine(raw);
        return;
      }
      if (StartsWith(trimmed, "=====") && !incidents_.empty() &&
          EndsWith(incidents_.back().exception, "ChildFailedError")) {
        // torchrun's failure summary follows: Note: [Elastic summary].
        elastic_ = ElasticSummary();
        elastic_.wrapper = static_cast<int>(incidents_.size()) - 1;
        state_ = State::kElasticSummary;
        break;
      }
      HandleIdle(line, trimmed);
      break;
    }
    case State::kCxxWhat: {
      if (TorchScriptLine(line, trimmed)) break;
      if (StartsWith(trimmed, "Exception raised from ") || StartsWith(trimmed, "frame #")) {
        state_ = State::kCxxFrames;
        open_.line_end = static_cast<int>(line_no_);
        break;
      }
      if (trimmed.empty() || StartsWith(trimmed, "Aborted") || StartsWith(trimmed, "terminate called")) {
        CloseOpen();
        HandleIdle(line, trimmed);
        break;
      }
      // "  what():  message" after the terminate line: the prefix is not part of the message.
      AppendMessage(&open_, StartsWith(trimmed, "what():") ? Trim(trimmed.substr(7)) : std::string_view(line));
      open_.line_end = static_cast<int>(line_no_);
      break;
    }
    case State::kCxxFrames: {
      if (StartsWith(trimmed, "frame #")) {
        // "frame #3: at::native::foo(...) + 0x12 (0x7f... in /usr/lib/libtorch_cpu.so)"
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
        f.user = !f.file.empty() && !IsLibraryFile(f.file);
        if (static_cast<int>(open_.frames.size()) < options_.max_frames) open_.frames.push_back(std::move(f));
        open_.line_end = static_cast<int>(line_no_);
        break;
      }
      if (StartsWith(trimmed, "Exception raised from ") || trimmed.empty() ||
          trimmed.find_first_not_of(' ') == std::string_view::npos) {
        open_.line_end = static_cast<int>(line_no_);
        if (trimmed.empty()) { CloseOpen(); }
        break;
      }
      CloseOpen();
      HandleIdle(line, trimmed);
      break;
    }
    case State::kPytest:
      PytestLine(line, trimmed);
      break;
    case State::kForwardTrace:
      if (ParseFrameLine(line)) break;
      if (!trimmed.empty() && (line[0] == ' ' || line[0] == '\t') && !StartsWith(trimmed, "(Triggered internally")) {
        if (frame_expects_source_ && !open_.frames.empty()) open_.frames.back().source = std::string(trimmed.substr(0, 512));
        frame_expects_source_ = false;
        break;
      }
      CloseOpen();
      if (!StartsWith(trimmed, "(Triggered internally")) HandleIdle(line, trimmed);
      break;
    case State::kElasticSummary:
      if (StartsWith(trimmed, "Traceback (most recent call last):") && line[0] != ' ') {
        FinishElasticSummary();
        HandleIdle(line, trimmed);
        break;
      }
      ElasticSummaryLine(trimmed);
      break;
    case State::kFatalDump:
      FatalDumpLine(line, trimmed);
      break;
    case State::kWarningSource: {
      state_ = State::kIdle;
      Incident& w = incidents_[log_index_];
      if ((line[0] == ' ' || line[0] == '\t') && !trimmed.empty() && !w.frames.empty()) {
        w.frames.back().source = std::string(trimmed.substr(0, 512));
        w.line_end = static_cast<int>(line_no_);
        break;
      }
      HandleIdle(line, trimmed);
      break;
    }
    case State::kIdle:
      HandleIdle(line, trimmed);
      break;
  }
  if (was_idle && state_ != State::kIdle) open_prefixed_ = prefixed;
  if (!trimmed.empty()) {
    prev_line_ = std::string(trimmed.substr(0, 4096));
    prev_line_no_ = line_no_;
  }
}

const std::vector<std::string>& Segmenter::IdleKeywords() {
  // Keep in step with HandleIdle and LooksLikeExceptionType: a line reaching HandleIdle without one of
  // these is skipped unread by the log path (Note: [Line prefilter]). "During handling ..." and "The
  // above exception ..." contain "exception" and "Fatal Python error: ..." "error" (any case); "\x1b"
  // because removing ANSI escapes can join a marker.
  static const std::vector<std::string> kKeywords = {
      "Traceback", "terminate called", "what():", "Error", "Exception", "Interrupt", "Failure",
      "StopIteration", "SystemExit", "Warning", "\x1b"};
  return kKeywords;
}

// Note: [TorchScript report]
// An error inside a scripted module reaches Python as "RuntimeError: The following operation failed in
// the TorchScript interpreter." and C++ as a std::runtime_error with that what(); the report continues
// with "Traceback of TorchScript, serialized code" (code/__torch__.py), "Traceback of TorchScript,
// original code" (the user's Python source, "~~~ <--- HERE" under the line that failed) and ends with
// the real "SomethingError: message" line. That line is the incident's type and message; the original
// code's frames are the deepest frames (so the culprit is the user's scripted line). Returns true when
// the line was consumed as part of the report.
bool Segmenter::TorchScriptLine(const std::string& line, std::string_view t) {
  if (torchscript_ == TorchScript::kNone) {
    if (!StartsWith(open_.message, "The following operation failed in the TorchScript interpreter")) return false;
    torchscript_ = TorchScript::kReport;
  }
  if (torchscript_ == TorchScript::kDone) return false;
  open_.line_end = static_cast<int>(line_no_);
  if (StartsWith(t, "Traceback of TorchScript")) {
    // "Traceback of TorchScript (most recent call last):" (a module scripted in this process) shows
    // the original code too; only the serialized-code section points into code/__torch__.py.
    torchscript_original_ = t.find("serialized code") == std::string_view::npos;
    return true;
  }
  if (t.empty() || line[0] == ' ' || line[0] == '\t') {
    if (!torchscript_original_) return true;
    if (StartsWith(t, "File \"")) {
      ParseFrameLine(line);
      frame_expects_source_ = false;
    } else if (t.find("<--- HERE") != std::string_view::npos) {
      if (!open_.frames.empty() && open_.frames.back().source.empty()) {
        open_.frames.back().source = torchscript_code_;
      }
    } else if (!t.empty()) {
      torchscript_code_ = std::string(t.substr(0, 512));
    }
    return true;
  }
  size_t n = TypePrefix(t);
  if (n > 0 && (n == t.size() || t[n] == ':') && LooksLikeExceptionType(t.substr(0, n))) {
    // The real error. The report's first line stays as context ("this failed inside TorchScript").
    if (static_cast<int>(open_.context.size()) < options_.max_context) {
      open_.context.push_back(open_.message.substr(0, open_.message.find('\n')));
    }
    ParseExceptionLine(line, &open_);
    torchscript_ = TorchScript::kDone;
    if (state_ == State::kCxxWhat) state_ = State::kMessage;  // its message may continue on indented lines
    return true;
  }
  return false;
}

// Note: [pytest report]
// pytest's long report prints, per failing test, a "____ test_name ____" banner, then one block per
// frame: the source with ">" on the line that ran, "E   " lines holding the exception, and a location
// line "path.py:16: " (or "path.py:459: RuntimeError" for the innermost); frames pytest shows short
// are "path.py:1194: in _call_impl" followed by the indented source line. A new banner or the next
// "=====" section ends the test's incident.
void Segmenter::PytestLine(const std::string& line, std::string_view t) {
  auto close_test = [&]() {
    if (!open_.exception.empty() || !open_.message.empty()) {
      Incident inc = std::move(open_);
      Emit(std::move(inc));
    }
    open_ = Incident();
    open_.kind = Incident::Kind::kTraceback;
    open_.line_start = open_.line_end = static_cast<int>(line_no_);
    open_.rank = rank_;
    pytest_source_.clear();
    frame_expects_source_ = false;
  };
  if (t.empty()) return;
  if (t[0] == '=' && t.back() == '=') {  // the next section (short test summary, totals)
    close_test();
    state_ = State::kIdle;
    return;
  }
  if (t[0] == '_' && t.back() == '_') {
    if (t.find("_ _") == std::string_view::npos) close_test();  // a new test's banner, not a separator
    return;
  }
  open_.line_end = static_cast<int>(line_no_);
  if (line[0] == 'E' && (line.size() == 1 || line[1] == ' ')) {
    std::string_view text = Trim(std::string_view(line).substr(1));
    if (open_.exception.empty() && open_.message.empty()) {
      size_t n = TypePrefix(text);
      if (n > 0 && (n == text.size() || text[n] == ':') && LooksLikeExceptionType(text.substr(0, n))) {
        ParseExceptionLine(std::string(text), &open_);
        return;
      }
    }
    AppendMessage(&open_, text);
    return;
  }
  if (line[0] == '>') {
    pytest_source_ = std::string(Trim(std::string_view(line).substr(1)).substr(0, 512));
    return;
  }
  if (line[0] == ' ' || line[0] == '\t') {
    if (frame_expects_source_ && !open_.frames.empty()) open_.frames.back().source = std::string(t.substr(0, 512));
    frame_expects_source_ = false;
    return;
  }
  // "path.py:16: ", "path.py:459: RuntimeError", "path.py:1194: in _call_impl"
  size_t sep = t.find(": ");
  if (sep == std::string_view::npos && t.back() == ':') sep = t.size() - 1;
  if (sep == std::string_view::npos) return;
  std::string_view loc = t.substr(0, sep);
  size_t colon = loc.rfind(':');
  int line_number = 0;
  if (colon == std::string_view::npos || colon == 0 ||
      ParseInt(loc.substr(colon + 1), &line_number) != loc.size() - colon - 1 || line_number == 0 ||
      loc.find(' ') != std::string_view::npos) {
    return;
  }
  Frame f;
  f.file = std::string(loc.substr(0, colon));
  f.line = line_number;
  f.user = !IsLibraryFile(f.file);
  std::string_view rest = sep + 2 <= t.size() ? Trim(t.substr(sep + 1)) : std::string_view();
  if (StartsWith(rest, "in ")) {
    f.function = std::string(rest.substr(3));
    frame_expects_source_ = true;
  } else {
    f.source = pytest_source_;
    frame_expects_source_ = false;
    if (open_.exception.empty() && !rest.empty() && TypePrefix(rest) == rest.size() && LooksLikeExceptionType(rest)) {
      open_.exception = std::string(rest);
    }
  }
  pytest_source_.clear();
  if (static_cast<int>(open_.frames.size()) >= options_.max_frames) open_.frames.erase(open_.frames.begin());
  open_.frames.push_back(std::move(f));
}

// Note: [Elastic summary]
// torchrun's ChildFailedError is a wrapper: its summary names each failed rank ("[1]:", "rank      : 1",
// "exitcode  : -9", "traceback : ...") and the "Root Cause (first observed failure)". The wrapper's
// cause is the root-cause rank's own incident (printed earlier with --tee / [rankN] prefixes); a rank
// killed by a signal ("traceback : Signal 9 (SIGKILL) received by PID N") printed nothing itself, so
// its summary entry becomes the incident, and it is the cause of the wrapper and of the other ranks'
// "... by peer" connection errors. The copy of a rank's traceback that @record puts into the summary
// is not a second incident.
void Segmenter::ElasticSummaryLine(std::string_view t) {
  if (StartsWith(t, "Root Cause")) { elastic_.in_root = true; return; }
  if (StartsWith(t, "Failures:")) { elastic_.in_root = false; return; }
  if (StartsWith(t, "=====")) {
    FinishElasticSummary();
    return;
  }
  auto field = [&](std::string_view name, std::string_view* value) {
    if (!StartsWith(t, name)) return false;
    std::string_view rest = LTrim(t.substr(name.size()));
    if (rest.empty() || rest[0] != ':') return false;
    *value = Trim(rest.substr(1));
    return true;
  };
  std::string_view v;
  if (field("rank", &v)) {
    elastic_.entry_rank = std::string(v.substr(0, v.find_first_not_of("0123456789")));
    if (elastic_.in_root) elastic_.root_rank = elastic_.entry_rank;
  } else if (field("traceback", &v)) {
    elastic_.in_copy = StartsWith(v, "Traceback (most recent call last)");
    if (StartsWith(v, "Signal ")) {
      Incident inc;
      inc.kind = Incident::Kind::kErrorLine;
      inc.line_start = inc.line_end = static_cast<int>(line_no_);
      inc.rank = elastic_.entry_rank;
      AppendMessage(&inc, v);
      Emit(std::move(inc));
      if (elastic_.signal < 0) elastic_.signal = static_cast<int>(incidents_.size()) - 1;
    }
  } else if (elastic_.in_copy && elastic_.in_root) {
    // The last "SomethingError: message" line of the copied traceback, kept in case the rank's own
    // output is not in the log.
    size_t n = TypePrefix(t);
    if (n > 0 && n < t.size() && t[n] == ':' && LooksLikeExceptionType(t.substr(0, n))) {
      elastic_.copy_line = std::string(t.substr(0, 4096));
      elastic_.copy_line_no = line_no_;
    }
  }
}

void Segmenter::FinishElasticSummary() {
  state_ = State::kIdle;
  const int wrapper = elastic_.wrapper;
  if (wrapper < 0 || wrapper >= static_cast<int>(incidents_.size())) return;
  int cause = elastic_.signal;
  if (cause < 0 && !elastic_.root_rank.empty()) {
    for (int i = wrapper - 1; i >= 0; --i) {
      if (incidents_[i].kind != Incident::Kind::kLogLine && incidents_[i].rank == elastic_.root_rank) {
        cause = i;
        break;
      }
    }
  }
  if (cause < 0 && !elastic_.copy_line.empty()) {
    Incident inc;
    inc.kind = Incident::Kind::kErrorLine;
    inc.line_start = inc.line_end = static_cast<int>(elastic_.copy_line_no);
    inc.rank = elastic_.root_rank;
    ParseExceptionLine(elastic_.copy_line, &inc);
    Emit(std::move(inc));
    cause = static_cast<int>(incidents_.size()) - 1;
  }
  if (cause >= 0 && cause != wrapper && cause < static_cast<int>(incidents_.size())) {
    incidents_[wrapper].caused_by = cause;
  }
  if (elastic_.signal >= 0) {
    for (int i = 0; i < wrapper; ++i) {
      Incident& inc = incidents_[i];
      if (inc.kind != Incident::Kind::kLogLine && inc.caused_by < 0 && !inc.rank.empty() &&
          inc.message.find("by peer") != std::string::npos) {
        inc.caused_by = elastic_.signal;
      }
    }
  }
  elastic_ = ElasticSummary();
}

// Note: [Fatal Python error]
// A process killed by a signal with faulthandler on (faulthandler.enable(), e.g. in a DataLoader
// worker_init_fn; -X faulthandler; PYTHONFAULTHANDLER=1) prints "Fatal Python error: Segmentation fault",
// then each thread's stack under "Current thread 0x... (most recent call first):" (the crashing thread)
// or "Thread 0x... (most recent call first):", as '  File "...", line N in func' lines (no comma), MOST
// RECENT FIRST, and, in recent Pythons, an "Extension modules: ..." line. The dump is no incident of its
// own: the exception it explains comes after it, from the process that noticed the death (DataLoader's
// "worker (pid N) is killed by signal: Segmentation fault.", raised in the main process with library
// frames only). The crashing thread's frames, put outermost first, are appended to the first exception
// incident of the same stream that follows within context_window lines, when that incident has no user
// frame of its own: its culprit is then the crash site. Otherwise the dump is dropped.
void Segmenter::FatalDumpLine(const std::string& line, std::string_view t) {
  const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
  if (t.empty() || StartsWith(t, "Python runtime state:")) return;
  if (!indented && EndsWith(t, "(most recent call first):") &&
      (StartsWith(t, "Current thread ") || StartsWith(t, "Thread ") || StartsWith(t, "Stack "))) {
    // "Current thread 0x00007fd86382c040 (most recent call first):", another thread's "Thread 0x...", or
    // "Stack (most recent call first):" when only the current thread is dumped.
    dump_current_thread_ = !StartsWith(t, "Thread ");
    return;
  }
  if (indented) {  // a frame, "<no Python frame>", "Garbage-collecting", "..." (a cut stack)
    // Most recent first: once max_frames are kept, the rest are the outermost.
    if (dump_current_thread_ && static_cast<int>(open_.frames.size()) < options_.max_frames && ParseFrameLine(line)) {
      frame_expects_source_ = false;
    }
    return;
  }
  const bool extension_modules = StartsWith(t, "Extension modules:");
  FinishFatalDump();
  if (!extension_modules) HandleIdle(line, t);
}

void Segmenter::FinishFatalDump() {
  state_ = State::kIdle;
  crash_frames_.assign(std::make_move_iterator(open_.frames.rbegin()), std::make_move_iterator(open_.frames.rend()));
  crash_line_ = line_no_;
  crash_rank_ = open_.rank;
  open_ = Incident();
}

void Segmenter::HandleIdle(const std::string& line, std::string_view trimmed) {
  if (trimmed.empty()) return;
  if (EndsWith(trimmed, "Traceback of forward call that caused the error:")) {
    // Note: [Anomaly forward trace]
    // Anomaly mode's warning holds the traceback of the forward call whose backward failed (indented
    // File lines up to "(Triggered internally at ...)"). Those frames are appended after the frames of
    // the backward error that follows, so its culprit is the user's forward line that made the
    // NaN, not the loss.backward() call.
    state_ = State::kForwardTrace;
    open_ = Incident();
    frame_expects_source_ = false;
    if (classify_) {
      int key = classify_(trimmed);
      if (key >= 0) AddLogLine(line, key);
    }
    return;
  }
  if (StartsWith(trimmed, "Traceback (most recent call last):")) {
    StartTraceback();
    return;
  }
  if (trimmed.size() > 20 && trimmed[0] == '=' && trimmed.back() == '=' &&
      (trimmed.find(" FAILURES ") != std::string_view::npos || trimmed.find(" ERRORS ") != std::string_view::npos)) {
    // pytest's report of failures: Note: [pytest report].
    open_ = Incident();
    open_.kind = Incident::Kind::kTraceback;
    open_.line_start = open_.line_end = static_cast<int>(line_no_);
    open_.rank = rank_;
    pytest_source_.clear();
    frame_expects_source_ = false;
    state_ = State::kPytest;
    return;
  }
  if (StartsWith(trimmed, "\u256d") && trimmed.find("Traceback (most recent call last)") != std::string_view::npos) {
    // rich's boxed traceback: Note: [rich tracebacks].
    StartTraceback();
    rich_ = true;
    return;
  }
  if (size_t n = IPythonHeader(trimmed); n > 0) {
    // nbclient's CellExecutionError message ends with the kernel's own traceback: that traceback is
    // the failure, and the wrapper points at it as a DataLoader re-raise does.
    if (!incidents_.empty() && incidents_.back().kind == Incident::Kind::kTraceback &&
        EndsWith(incidents_.back().exception, "CellExecutionError") &&
        line_no_ - static_cast<std::uint64_t>(incidents_.back().line_end) <= static_cast<std::uint64_t>(options_.context_window)) {
      pending_wrapper_ = static_cast<int>(incidents_.size()) - 1;
    }
    StartTraceback();
    ipython_ = true;
    open_.exception = std::string(trimmed.substr(0, n));
    return;
  }
  if (StartsWith(trimmed, "-- Process ") && trimmed.find("terminated with the following error") != std::string_view::npos &&
      !incidents_.empty() && EndsWith(incidents_.back().exception, "ProcessRaisedException") &&
      line_no_ - static_cast<std::uint64_t>(incidents_.back().line_end) <= 3) {
    // torch.multiprocessing.spawn: the child's traceback follows; the parent's exception carries it.
    Incident& wrapper = incidents_.back();
    if (wrapper.message.empty()) AppendMessage(&wrapper, trimmed);
    wrapper.line_end = static_cast<int>(line_no_);
    pending_wrapper_ = static_cast<int>(incidents_.size()) - 1;
    return;
  }
  if (StartsWith(trimmed, "Fatal Python error: ")) {
    // faulthandler's dump follows: Note: [Fatal Python error]. The line itself stays a line rules see.
    if (classify_) {
      int key = classify_(trimmed);
      if (key >= 0) AddLogLine(line, key);
    }
    open_ = Incident();
    open_.rank = rank_;
    dump_current_thread_ = false;
    state_ = State::kFatalDump;
    return;
  }
  if (StartsWith(trimmed, "Exception ignored in")) {
    // CPython's unraisable hook (a __del__ or a callback failing, often at shutdown after the fatal
    // error): the traceback that follows was ignored, and it says nothing about the one before it.
    ignored_next_ = true;
    return;
  }
  if (StartsWith(trimmed, "During handling of the above exception, another exception occurred") ||
      StartsWith(trimmed, "The above exception was the direct cause of the following exception")) {
    // "The above exception": the last exception of this stream, not a log line printed after it.
    for (int i = static_cast<int>(incidents_.size()) - 1;
         i >= 0 && line_no_ - static_cast<std::uint64_t>(incidents_[i].line_end) <= static_cast<std::uint64_t>(options_.context_window);
         --i) {
      if (incidents_[i].kind != Incident::Kind::kLogLine && incidents_[i].rank == rank_) {
        pending_cause_ = i;
        break;
      }
    }
    return;
  }
  if (StartsWith(trimmed, "terminate called after throwing an instance of '")) {
    open_ = Incident();
    open_.kind = Incident::Kind::kCxxError;
    size_t q = trimmed.find('\'');
    size_t q2 = trimmed.find('\'', q + 1);
    open_.exception = std::string(trimmed.substr(q + 1, q2 == std::string_view::npos ? std::string_view::npos : q2 - q - 1));
    open_.line_start = open_.line_end = static_cast<int>(line_no_);
    open_.rank = rank_;
    state_ = State::kCxxWhat;
    return;
  }
  if (StartsWith(trimmed, "what():")) {
    // "  what():  message" after a terminate line, or printed alone.
    if (state_ != State::kCxxWhat) {
      open_ = Incident();
      open_.kind = Incident::Kind::kCxxError;
      open_.exception = "c10::Error";
      open_.line_start = static_cast<int>(line_no_);
      open_.rank = rank_;
    }
    AppendMessage(&open_, Trim(trimmed.substr(7)));
    open_.line_end = static_cast<int>(line_no_);
    state_ = State::kCxxWhat;
    return;
  }
  if (StartsWith(trimmed, "Exception raised from ") && trimmed.find("(most recent call first)") != std::string_view::npos) {
    // A c10::Error's what() printed by the program: the message is the line(s) before.
    open_ = Incident();
    open_.kind = Incident::Kind::kCxxError;
    open_.exception = "c10::Error";
    open_.line_start = static_cast<int>(prev_line_no_ ? prev_line_no_ : line_no_);
    open_.line_end = static_cast<int>(line_no_);
    open_.rank = rank_;
    std::string msg = prev_line_;
    // If the previous line was itself a "Type: message" line, keep its type.
    size_t n = TypePrefix(msg);
    if (n > 0 && n + 1 < msg.size() && msg[n] == ':' && LooksLikeExceptionType(std::string_view(msg).substr(0, n))) {
      open_.exception = msg.substr(0, n);
      msg = std::string(Trim(std::string_view(msg).substr(n + 1)));
    }
    // The line before was probably reported as a bare error line already: replace it.
    if (!incidents_.empty() && incidents_.back().kind == Incident::Kind::kErrorLine &&
        incidents_.back().line_start == open_.line_start) {
      incidents_.pop_back();
      completed_ = static_cast<int>(incidents_.size());
      if (last_exception_ >= static_cast<int>(incidents_.size())) last_exception_ = -1;
    }
    AppendMessage(&open_, msg);
    state_ = State::kCxxFrames;
    return;
  }
  // A bare "SomethingError: message" line.
  size_t n = TypePrefix(trimmed);
  if (n > 0 && n < trimmed.size() && trimmed[n] == ':' && LooksLikeExceptionType(trimmed.substr(0, n)) &&
      trimmed == LTrim(line)) {
    // The exception line of the incident that just ended, printed again (nbconvert repeats it after
    // the notebook's traceback; programs log str(e) after printing the traceback): the same failure.
    if (last_exception_ >= 0 && last_exception_ == static_cast<int>(incidents_.size()) - 1) {
      Incident& last = incidents_[last_exception_];
      std::string_view msg = Trim(trimmed.substr(n + 1));
      if (line_no_ - static_cast<std::uint64_t>(last.line_end) <= 2 && last.exception == trimmed.substr(0, n) &&
          !msg.empty() && std::string_view(last.message).substr(0, last.message.find('\n')) == msg) {
        last.line_end = static_cast<int>(line_no_);
        return;
      }
    }
    Incident inc;
    inc.kind = Incident::Kind::kErrorLine;
    inc.line_start = inc.line_end = static_cast<int>(line_no_);
    inc.rank = rank_;
    ParseExceptionLine(line, &inc);
    // Its message may continue on the next lines (CUDA hints, state_dict key lists).
    open_ = std::move(inc);
    state_ = State::kMessage;
    return;
  }
  if (classify_) {
    int key = classify_(trimmed);
    if (key >= 0) {
      AddLogLine(line, key);
      return;
    }
  }
  ++ordinary_lines_;
}

void Segmenter::Finish() {
  EndInterleaving();
  while (state_ != State::kIdle) CloseOpen();
  completed_ = static_cast<int>(incidents_.size());
}

}  // namespace triage
