#include "log/formats/markdown_emphasis.h"

#include "log/formats/python_traceback.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The line without its trailing blanks (a paste's line often ends with one after the closer).
std::string_view TrimEnd(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// True when `rest`, a line's text after an opening mark, starts a traceback or is an exception line.
bool StartsTraceback(std::string_view rest) {
  if (PythonTracebackReader::IsHeader(rest) || PythonTracebackReader::IsChainSeparator(rest)) return true;
  // A frame line as Python prints it (`File "x.py", line 3, in f`), or IPython 8's (`File /x.py:3, in f(a)`).
  if (StartsWith(rest, "File \"")) return rest.find("\", line ", 6) != std::string_view::npos;
  if (StartsWith(rest, "File ")) {
    const size_t in = rest.find(", in ");
    if (in == std::string_view::npos) return false;
    size_t d = in;
    while (d > 5 && rest[d - 1] >= '0' && rest[d - 1] <= '9') --d;
    return d < in && rest[d - 1] == ':';
  }
  return text::IsExceptionLine(rest);
}

// Removes `mark` from the end of *line (before any trailing blanks) when it is the line's only such mark
// after `from`; returns whether it did.
bool RemoveCloser(std::string* line, std::string_view mark, size_t from) {
  const std::string_view t = TrimEnd(*line);
  if (t.size() < from + mark.size() || !EndsWith(t, mark)) return false;
  const size_t at = t.size() - mark.size();
  if (std::string_view(*line).substr(from, at - from).find(mark) != std::string_view::npos) return false;
  line->erase(at, mark.size());
  return true;
}

}  // namespace

std::string_view MarkdownEmphasisReader::Opener(std::string_view line) {
  for (std::string_view mark : {std::string_view("**"), std::string_view("__")}) {
    if (!StartsWith(line, mark) || line.size() == mark.size()) continue;
    std::string_view rest = line.substr(mark.size());
    if (rest[0] == ' ' || rest[0] == '\t' || rest[0] == mark[0]) return {};  // not an emphasis opener
    rest = TrimEnd(rest);
    if (EndsWith(rest, mark)) rest.remove_suffix(mark.size());  // closed on the same line
    // A bold label ("**ImportError:** lib/...so: undefined symbol"): the pair closes inside the line, around
    // a word, not around the traceback.
    if (rest.find(mark) != std::string_view::npos) return {};
    if (StartsTraceback(rest)) return mark;
  }
  return {};
}

bool MarkdownEmphasisReader::LineHook(Segmenter& s, std::string* line) {
  MarkdownEmphasisReader& self = s.readers().markdown_emphasis;
  if (!self.open_.empty()) {
    if (line->find_first_not_of(" \t") == std::string::npos || ++self.open_lines_ > kMaxOpenLines) {
      self.open_ = {};  // a paragraph's end, or a closer that never came
    } else if (RemoveCloser(line, self.open_, 0)) {
      self.open_ = {};
      return true;
    }
  }
  if (line->empty() || ((*line)[0] != '*' && (*line)[0] != '_')) return true;
  const std::string_view mark = Opener(*line);
  if (mark.empty()) return true;
  line->erase(0, mark.size());
  if (!RemoveCloser(line, mark, 0)) {
    self.open_ = mark;
    self.open_lines_ = 0;
  }
  return true;
}

}  // namespace triage
