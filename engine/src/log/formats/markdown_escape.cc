#include "log/formats/markdown_escape.h"

#include <cstring>

#include "log/formats/text.h"

namespace triage {
namespace {

using text::IsDigit;
using text::IsLetter;

// '_' and '*', and the backtick, which a converter escapes as well ("when calling \`cublasCreate(handle)\`",
// wild: hiyouga/ChatGLM-Efficient-Tuning#75).
bool IsEscaped(char c) { return c == '_' || c == '*' || c == '`'; }

// True for a word that is (or holds) a Windows path: its backslashes are the path's own.
bool IsWindowsPath(std::string_view word) {
  for (size_t i = 0; i + 1 < word.size(); ++i) {
    if (word[i] != '\\') continue;
    const char c = word[i + 1];
    if (IsLetter(c) || IsDigit(c) || c == '.' || c == '\\') return true;
    // A drive: "C:\_work" (a letter alone before the colon; "aten::\_index" is no drive).
    if (i >= 2 && word[i - 1] == ':' && IsLetter(word[i - 2]) && (i == 2 || !IsLetter(word[i - 3]))) return true;
  }
  return false;
}

// True for a word with an escaped '_' or '*' and one left bare: a converter escapes every one of a word
// ("\_\_init\_\_"), so in "importlib\__init__.py" (a Windows path whose backslash happens to stand
// before an underscore) the backslash is the path's own. Backticks are judged apart from the other two (an
// escaped backtick and a bare one in the same word), so a word's backticks never change how its '_' and '*'
// are read.
bool MixesEscapes(std::string_view word) {
  bool escaped = false, bare = false, tick_escaped = false, tick_bare = false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (!IsEscaped(word[k])) continue;
    const bool esc = k > 0 && word[k - 1] == '\\';
    if (word[k] == '`') {
      (esc ? tick_escaped : tick_bare) = true;
    } else {
      (esc ? escaped : bare) = true;
    }
  }
  return (escaped && bare) || (tick_escaped && tick_bare);
}

}  // namespace

bool MarkdownEscapeReader::Unescape(std::string* line) {
  const char* const data = line->data();
  const size_t n = line->size();
  const void* first = std::memchr(data, '\\', n);
  if (first == nullptr) return false;
  size_t at = static_cast<size_t>(static_cast<const char*>(first) - data);
  bool any = false;
  for (size_t i = at; i + 1 < n; ++i) any = any || (data[i] == '\\' && IsEscaped(data[i + 1]));
  if (!any) return false;
  std::string out;
  out.reserve(n);
  bool removed = false;
  for (size_t i = 0; i < n;) {
    size_t end = i;
    while (end < n && data[end] != ' ' && data[end] != '\t') ++end;
    const std::string_view word(data + i, end - i);
    if (word.find('\\') == std::string_view::npos || IsWindowsPath(word) || MixesEscapes(word)) {
      out.append(word);
    } else {
      for (size_t k = 0; k < word.size(); ++k) {
        if (word[k] == '\\' && k + 1 < word.size() && IsEscaped(word[k + 1])) {
          removed = true;
          continue;
        }
        out += word[k];
      }
    }
    while (end < n && (data[end] == ' ' || data[end] == '\t')) out += data[end++];
    i = end;
  }
  if (removed) line->swap(out);
  return removed;
}

bool MarkdownEscapeReader::LineHook(Segmenter&, std::string* line) {
  Unescape(line);
  return true;
}

}  // namespace triage
