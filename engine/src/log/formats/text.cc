#include "log/formats/text.h"
#include "triage/locale_free.h"


namespace triage {
namespace text {
namespace {

bool IsIdentStart(char c) { return IsAsciiAlpha(c) || c == '_'; }
bool IsIdentChar(char c) { return IsAsciiAlnum(c) || c == '_'; }

}  // namespace

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

bool LooksLikeExceptionType(std::string_view type) {
  size_t dot = type.find_last_of(".:");
  std::string_view last = dot == std::string_view::npos ? type : type.substr(dot + 1);
  if (last.empty() || !IsAsciiUpper(last[0])) return false;
  return EndsWith(last, "Error") || EndsWith(last, "Exception") || EndsWith(last, "Interrupt") ||
         EndsWith(last, "Failure") || last == "StopIteration" || last == "SystemExit" || EndsWith(last, "ExceptionGroup");
}

bool IsExceptionLine(std::string_view t) {
  size_t n = TypePrefix(t);
  return n > 0 && n < t.size() && t[n] == ':' && LooksLikeExceptionType(t.substr(0, n));
}

int DeepestUserFrame(const std::vector<Frame>& frames) {
  for (int i = static_cast<int>(frames.size()) - 1; i >= 0; --i) {
    if (frames[i].user && frames[i].line > 0) return i;
  }
  return -1;
}

size_t ParseInt(std::string_view s, int* value) {
  size_t i = 0;
  *value = 0;
  while (i < s.size() && IsAsciiDigit(s[i])) {
    if (*value < 100000000) *value = *value * 10 + (s[i] - '0');
    ++i;
  }
  return i;
}

bool IsLibraryFile(std::string_view f) {
  static const char* const kLibraryMarks[] = {
      "site-packages", "dist-packages", "/torch/", "\\torch\\", "/lib/python", "\\lib\\python", "\\Lib\\",
      "<frozen ", "/usr/lib/", "/usr/local/lib/", "/aten/src/", "/c10/", "lib/libtorch", "libc10",
      "/torch/csrc/", ".so"};
  for (const char* m : kLibraryMarks) {
    if (f.find(m) != std::string_view::npos) return true;
  }
  return false;
}

// Note: [Typographic characters] (text.h)
std::string_view AfterProgressBar(std::string_view t) {
  const size_t pct = t.find("%|");
  if (pct == std::string_view::npos) return t;
  const size_t open = t.find('[', pct);
  const size_t close = open == std::string_view::npos ? open : t.find(']', open);
  if (close == std::string_view::npos) return t;
  const std::string_view inside = t.substr(open, close - open);
  if (inside.find("it/s") == std::string_view::npos && inside.find("s/it") == std::string_view::npos) return t;
  const std::string_view rest = t.substr(close + 1);
  return Trim(rest).empty() ? t : rest;
}

void NormalizeTypography(std::string* s) {
  if (s->find('\xc2') == std::string::npos && s->find('\xe2') == std::string::npos) return;
  std::string out;
  out.reserve(s->size());
  for (size_t i = 0; i < s->size(); ++i) {
    const std::string_view rest = std::string_view(*s).substr(i);
    if (rest.substr(0, 2) == "\xc2\xa0") { out += ' '; i += 1; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\xaf") { out += ' '; i += 2; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\x98" || rest.substr(0, 3) == "\xe2\x80\x99") { out += '\''; i += 2; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\x9c" || rest.substr(0, 3) == "\xe2\x80\x9d") { out += '"'; i += 2; continue; }
    out += (*s)[i];
  }
  s->swap(out);
}

}  // namespace text
}  // namespace triage
