#include "diagnose/escape.h"

#include <algorithm>
#include <cstdio>

namespace triage {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8Length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string PrintableText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  char buf[8];
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = Utf8Length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {  // U+0080..U+009F
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
      out += buf;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = Utf8Length(s, i);
      if (n == 0) {
        *out += "\\ufffd";
        ++i;
      } else {
        out->append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

namespace {

// PrintableText(s) with each character passed to `put`, which appends it, or what stands for it.
template <typename Put>
std::string Recode(std::string_view s, Put put) {
  std::string out;
  for (char c : PrintableText(s)) put(c, &out);
  return out;
}

// Appends HTML's character reference for & < > (and " ' when `quotes`); returns false for others.
bool PutHtmlReference(char c, bool quotes, std::string* out) {
  switch (c) {
    case '&': *out += "&amp;"; return true;
    case '<': *out += "&lt;"; return true;
    case '>': *out += "&gt;"; return true;
    case '"': if (quotes) { *out += "&quot;"; return true; } return false;
    case '\'': if (quotes) { *out += "&#39;"; return true; } return false;
    default: return false;
  }
}

}  // namespace

namespace {

// Whether `text` holds `word` (lower case) at `at`, in any case.
bool HasWordAt(std::string_view text, size_t at, std::string_view word) {
  if (at > text.size() || text.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    char c = text[at + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

}  // namespace

std::string HtmlText(std::string_view s) {
  // Note: [Inert CSS in HTML text]. Besides & < > " ', the two characters that would let log text read
  // as a CSS resource reference are written as references too: the '(' of url( (a model loader's
  // `load_url(...)` frame) and the '@' of @import / @font-face. The page shows the same text, and no
  // log can put these sequences into a report, wherever in the page its text is placed.
  const std::string text = PrintableText(s);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (PutHtmlReference(c, true, &out)) continue;
    if (c == '(' && i >= 3 && HasWordAt(text, i - 3, "url")) {
      out += "&#40;";
    } else if (c == '@' && (HasWordAt(text, i + 1, "import") || HasWordAt(text, i + 1, "font-face"))) {
      out += "&#64;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string MarkdownText(std::string_view s) {
  return Recode(s, [](char c, std::string* out) {
    if (PutHtmlReference(c, false, out)) return;
    if (std::string_view("\\`*_{}[]()#+-.!|~").find(c) != std::string_view::npos) out->push_back('\\');
    out->push_back(c);
  });
}

namespace {

// The longest run of backticks in `s`.
size_t LongestBacktickRun(std::string_view s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string MarkdownCode(std::string_view s) {
  std::string text = PrintableText(s);
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string ticks(LongestBacktickRun(text) + 1, '`');
  // A span starting or ending with a backtick needs a space inside its delimiters (stripped when shown).
  bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return ticks + (pad ? " " : "") + text + (pad ? " " : "") + ticks;
}

std::string MarkdownFence(std::string_view s) { return std::string(std::max<size_t>(3, LongestBacktickRun(s) + 1), '`'); }

std::string WorkflowCommandText(std::string_view s, bool property) {
  return Recode(s, [property](char c, std::string* out) {
    if (c == '%') *out += "%25";
    else if (c == '\r') *out += "%0D";
    else if (c == '\n') *out += "%0A";
    else if (property && c == ':') *out += "%3A";
    else if (property && c == ',') *out += "%2C";
    else out->push_back(c);
  });
}

}  // namespace triage
