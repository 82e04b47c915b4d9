#include "log/formats/ipython.h"


#include "log/formats/text.h"
#include "log/segmenter.h"
#include "triage/locale_free.h"

namespace triage {

using text::EndsWith;
using text::LTrim;
using text::ParseInt;
using text::StartsWith;
using text::Trim;

namespace {

// Returns the type's length when `t` is an IPython traceback header, or 0. The type is one whose name
// reads as an exception's (Note: text::LooksLikeExceptionType) or, padded to the header's column by two
// blanks or more as IPython prints it, any capitalised name: an exception class may be named without
// "Error" (torch._dynamo's CacheLimitExceeded, a library's TimeoutReached).
size_t IPythonHeader(std::string_view t) {
  size_t n = text::TypePrefix(t);
  if (n == 0 || n + 1 >= t.size() || t[n] != ' ') return 0;
  std::string_view type = t.substr(0, n);
  if (!text::LooksLikeExceptionType(type)) {
    size_t dot = type.find_last_of(".:");
    const char first = type[dot == std::string_view::npos ? 0 : dot + 1];
    if (!IsAsciiUpper(first) || t[n + 1] != ' ') return 0;
  }
  std::string_view rest = LTrim(t.substr(n));
  return rest == "Traceback (most recent call last)" ? n : 0;
}

// Function name of an IPython frame: "Module._call_impl(self, *input, **kwargs)" -> "Module._call_impl".
std::string IPythonFunction(std::string_view f) {
  f = Trim(f);
  size_t paren = f.find('(');
  return std::string(f.substr(0, paren));
}

// True when `call` starts with a function's name and its opening parenthesis ("Module.forward(self,",
// "<module>(" is not printed: IPython writes "<module>" with no call). With `closed`, the call must end
// with its ')' too.
bool StartsWithCall(std::string_view call, bool closed) {
  size_t paren = call.find('(');
  if (paren == 0 || paren == std::string_view::npos || (closed && call.back() != ')')) return false;
  for (char ch : call.substr(0, paren)) {
    if (!(IsAsciiAlnum(ch) || ch == '_' || ch == '.' || ch == '<' || ch == '>')) return false;
  }
  return true;
}

// An absolute path, one under ~, or one on a drive letter ("C:\\...", "c:/...").
bool IsRootedPath(std::string_view p) {
  if (p.empty()) return false;
  if (p[0] == '/' || p[0] == '~') return true;
  return p.size() > 2 && IsAsciiAlpha(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/');
}

// Note: [Headerless IPython frames]: the frame lines that start a traceback with no header.
bool IsHeaderlessFrame(std::string_view t) {
  if (StartsWith(t, "Cell In[") || StartsWith(t, "Cell In [")) {
    size_t close = t.find("], line ");
    if (close == std::string_view::npos) return false;
    std::string_view rest = t.substr(close + 8);
    int line = 0;
    size_t n = ParseInt(rest, &line);
    if (n == 0) return false;
    rest = rest.substr(n);
    return rest.empty() || (StartsWith(rest, ", in ") && StartsWithCall(rest.substr(5), false));
  }
  if (StartsWith(t, "File ")) {
    std::string_view head = t.substr(5);
    size_t in = head.find(", in ");
    if (in == std::string_view::npos || !StartsWithCall(head.substr(in + 5), false)) return false;
    head = head.substr(0, in);
    size_t py = head.rfind(".py:");
    int line = 0;
    return IsRootedPath(head) && py != std::string_view::npos && py + 4 < head.size() &&
           ParseInt(head.substr(py + 4), &line) == head.size() - py - 4;
  }
  const char c = t[0];
  if (!(c == '/' || c == '~' || StartsWith(t, "<ipython-input-") || (t.size() > 2 && t[1] == ':' && t[2] == '\\'))) {
    return false;
  }
  size_t in = t.find(".py in ");
  if (in == std::string_view::npos || t.substr(0, in).find(' ') != std::string_view::npos) return false;
  return StartsWithCall(t.substr(in + 7), true);
}

}  // namespace

bool IPythonReader::Start(Segmenter& s, const std::string& line, std::string_view trimmed) {
  size_t n = IPythonHeader(trimmed);
  if (n == 0) return false;
  const std::vector<Incident>& kept = s.kept();
  if (!kept.empty() && kept.back().kind == Incident::Kind::kTraceback &&
      EndsWith(kept.back().exception, "CellExecutionError") &&
      s.line_no() - static_cast<std::uint64_t>(kept.back().line_end) <= static_cast<std::uint64_t>(s.options().context_window)) {
    s.set_pending_wrapper(static_cast<int>(kept.size()) - 1);
  }
  s.readers().python.StartTraceback(s);
  // A notebook's traceback pasted as an indented block (a Markdown code block of four spaces): its
  // exception line is indented like the header, not a source line (Note: [Indented tracebacks]).
  s.readers().python.SetHeaderIndent(line);
  s.readers().ipython.active_ = true;
  s.open().exception = std::string(trimmed.substr(0, n));
  return true;
}

// Note: [Headerless IPython frames] A notebook paste often starts below the header, at the first frame
// the person kept. Two forms start a traceback there, both at column 0 only (an indented one is a
// source line or prose):
//  - IPython < 8: an absolute (or ~, <ipython-input-, drive-letter) path ending in .py with no space,
//    " in ", then a call "name(...)": "/path/collate.py in default_collate(batch)";
//  - IPython >= 8: "Cell In[5], line 3" (", in name(...)" after it when the cell's code was in a
//    function; "Cell In [5]" in 8.0-8.4), or "File PATH.py:N, in name(...)" with PATH absolute, under
//    ~ or on a drive ("File ~\Documents\venv\lib\site-packages\torch\nn\functional.py:2846, in
//    cross_entropy(input, target, ...)"). The signature may be cut by the paste, so only its "name("
//    is asked for; a Windows path may hold blanks, so the path ends at the last ".py:" before ", in ".
// The traceback's type then comes from its exception line, as for a headerless Python traceback.
bool IPythonReader::StartHeaderless(Segmenter& s, const std::string& line, std::string_view trimmed) {
  if (trimmed.empty() || line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  if (!IsHeaderlessFrame(trimmed)) return false;
  s.readers().python.StartTraceback(s);
  s.readers().ipython.active_ = true;
  return s.readers().ipython.ParseFrameLine(s, trimmed);
}

// Note: [Colab frame links]: Colab shows each frame's file as a link, and a copy of the page keeps it as
// Markdown: "[/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py](https://localhost:8080/#) in
// cross_entropy(input, ...)", "[<ipython-input-5-4b67>](https://localhost:8080/#) in <cell line: 57>()".
// The frame is the link's text with what follows the link: "PATH in FUNCTION(...)".
static std::string WithoutFrameLink(std::string_view t) {
  if (t.size() < 4 || t[0] != '[') return std::string(t);
  const size_t close = t.find("](");
  if (close == std::string_view::npos) return std::string(t);
  const size_t end = t.find(')', close + 2);
  if (end == std::string_view::npos || !StartsWith(t.substr(end + 1), " in ")) return std::string(t);
  return std::string(t.substr(1, close - 1)) + std::string(t.substr(end + 1));
}

// Note: [Cython frames in notebooks]: IPython prints a frame inside a compiled Cython module with the
// source path the module was built from, relative and without a line: "numpy/random/mtrand.pyx in init
// numpy.random.mtrand()", "pandas/_libs/parsers.pyx in pandas._libs.parsers.TextReader.__cinit__()". The
// path is one word ending in .pyx, .pxd or .pxi; returns where its " in " starts, or npos.
static size_t CythonFrameEnd(std::string_view t) {
  const size_t in = t.find(" in ");
  if (in == std::string_view::npos || in < 5) return std::string_view::npos;
  const std::string_view path = t.substr(0, in);
  if (path.find(' ') != std::string_view::npos || path[0] == '-' || !IsAsciiAlnum(path[0])) return std::string_view::npos;
  const std::string_view ext = path.substr(path.size() - 4);
  if (ext != ".pyx" && ext != ".pxd" && ext != ".pxi") return std::string_view::npos;
  const std::string_view call = t.substr(in + 4);
  return !call.empty() && call.back() == ')' && call.find('(') != std::string_view::npos ? in : std::string_view::npos;
}

// Note: [VS Code notebook links]: VS Code's notebook output shows a frame's path, a cell's line and each
// numbered context line as links, and a copy keeps them as Markdown: `Cell In[5], [line 1](vscode-
// notebook-cell:?execution_count=5&line=1)`, `File [~/envs/x/.../torch/nn/modules/module.py:1194](https:
// //...vscode-cdn.net/...), in Module._call_impl(...)`, `   [1190](https://...) # If we don't ...`, `->
// [1194](https://...)     return forward_call(...)` (a `file:///...?line=N` target in older releases).
// Read as printed, a linked frame line ended the frame section: the traceback was cut in two there and
// the part with the frames lost its type. Each link whose target is a URL (http, https, file or a
// vscode- scheme, no blank in it) is read as its text; brackets and parentheses of source code
// (`self.layers[0](x)`) are no such link.
static std::string WithoutUrlLinks(std::string_view t) {
  if (t.find("](") == std::string_view::npos) return std::string(t);
  std::string out;
  size_t from = 0;
  for (size_t close = t.find("]("); close != std::string_view::npos; close = t.find("](", close + 2)) {
    const size_t open = t.rfind('[', close);
    if (open == std::string_view::npos || open < from || open + 1 == close) continue;
    const size_t end = t.find(')', close + 2);
    if (end == std::string_view::npos) break;
    const std::string_view target = t.substr(close + 2, end - close - 2);
    if (target.find(' ') != std::string_view::npos ||
        !(StartsWith(target, "http://") || StartsWith(target, "https://") || StartsWith(target, "file:") ||
          StartsWith(target, "vscode-"))) {
      continue;
    }
    out.append(t.substr(from, open - from));
    out.append(t.substr(open + 1, close - open - 1));
    from = end + 1;
    close = end - 1;  // the next search starts right after the link
  }
  out.append(t.substr(from));
  return out;
}

bool IPythonReader::ParseFrameLine(Segmenter& s, std::string_view linked) {
  const std::string unlinked = WithoutUrlLinks(WithoutFrameLink(linked));  // Note: [VS Code notebook links]
  const std::string_view t = unlinked;
  Frame f;
  if (StartsWith(t, "Input In [")) {
    // IPython 8.0-8.4's cell frame, before "Cell In [5], line 3" named the line: "Input In [3], in <cell
    // line: 1>()" (the arrow below it names the line that ran).
    const size_t in = t.find("], in ");
    if (in == std::string_view::npos) return false;
    f.file = std::string(t.substr(6, in + 1 - 6));
    f.function = IPythonFunction(t.substr(in + 6));
  } else if (StartsWith(t, "Cell ")) {
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
  } else if (const size_t in = CythonFrameEnd(t); in != std::string_view::npos) {
    f.file = std::string(t.substr(0, in));
    f.function = IPythonFunction(t.substr(in + 4));
  } else {
    return false;
  }
  f.user = !text::IsLibraryFile(f.file);
  s.PushFrame(std::move(f));
  s.readers().python.expects_source() = true;
  return true;
}

bool IPythonReader::SectionLine(Segmenter& s, std::string_view t) {
  if (!active_) return false;
  if (t.empty() || ParseFrameLine(s, t)) return true;
  size_t dashes = t.find_first_not_of('-');
  if (dashes != std::string_view::npos && t[dashes] == '>' && (dashes > 0 || t.size() > 1)) {
    // "----> 3     return head(feats)": the arrow names the line that ran.
    const std::string unlinked = WithoutUrlLinks(LTrim(t.substr(dashes + 1)));  // Note: [VS Code notebook links]
    std::string_view rest = unlinked;
    int line = 0;
    size_t n = ParseInt(rest, &line);
    Incident& open = s.open();
    if (n > 0 && !open.frames.empty()) {
      Frame& f = open.frames.back();
      if (f.line == 0) f.line = line;
      if (f.source.empty() || s.readers().python.expects_source()) f.source = std::string(Trim(rest.substr(n)).substr(0, 512));
      s.readers().python.expects_source() = false;
    }
    return true;
  }
  // Numbered context lines ("   1190 # If we don't..."), "[... skipping hidden 1 frame]", and the
  // "N frames" notes of Colab are inside the section too.
  if (IsAsciiDigit(t[0]) || t[0] == '[' || StartsWith(t, "...")) return true;
  return false;
}

}  // namespace triage
