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

// Returns the type's length when `t` is an IPython traceback header, or 0.
size_t IPythonHeader(std::string_view t) {
  size_t n = text::TypePrefix(t);
  if (n == 0 || n >= t.size() || t[n] != ' ') return 0;
  if (!text::LooksLikeExceptionType(t.substr(0, n))) return 0;
  std::string_view rest = LTrim(t.substr(n));
  return rest == "Traceback (most recent call last)" ? n : 0;
}

// Function name of an IPython frame: "Module._call_impl(self, *input, **kwargs)" -> "Module._call_impl".
std::string IPythonFunction(std::string_view f) {
  f = Trim(f);
  size_t paren = f.find('(');
  return std::string(f.substr(0, paren));
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

bool IPythonReader::StartHeaderless(Segmenter& s, const std::string& line, std::string_view trimmed) {
  // Only the strict IPython < 8 form, at the start of the line: an absolute (or ~, <ipython-input-,
  // drive-letter) path ending in .py with no space, " in ", then a call "name(...)".
  if (trimmed.empty() || line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  const char c = trimmed[0];
  if (!(c == '/' || c == '~' || StartsWith(trimmed, "<ipython-input-") ||
        (trimmed.size() > 2 && trimmed[1] == ':' && trimmed[2] == '\\'))) {
    return false;
  }
  size_t in = trimmed.find(".py in ");
  if (in == std::string_view::npos || trimmed.substr(0, in).find(' ') != std::string_view::npos) return false;
  std::string_view call = trimmed.substr(in + 7);
  size_t paren = call.find('(');
  if (paren == 0 || paren == std::string_view::npos || call.back() != ')') return false;
  for (char ch : call.substr(0, paren)) {
    if (!(IsAsciiAlnum(ch) || ch == '_' || ch == '.' || ch == '<' || ch == '>')) return false;
  }
  s.readers().python.StartTraceback(s);
  s.readers().ipython.active_ = true;
  return s.readers().ipython.ParseFrameLine(s, trimmed);
}

bool IPythonReader::ParseFrameLine(Segmenter& s, std::string_view t) {
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
    std::string_view rest = LTrim(t.substr(dashes + 1));
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
