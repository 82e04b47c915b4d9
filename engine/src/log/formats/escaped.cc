#include "log/formats/escaped.h"

#include <string>

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::Trim;

namespace {

constexpr std::string_view kHeaderTail = "(most recent call last):";
constexpr std::string_view kSeparators[] = {
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
};

// Where a frame `File "PATH", line N` starts in `t` at or after `from` (at `File`), with the end of its
// `, in F` (or of its line number) in *end; npos when none.
size_t FindFrame(std::string_view t, size_t from, size_t* end) {
  for (size_t at = t.find("File \"", from); at != std::string_view::npos; at = t.find("File \"", at + 1)) {
    if (at > 0 && t[at - 1] != ' ' && t[at - 1] != '\t' && t[at - 1] != ':') continue;
    const size_t q = t.find('"', at + 6);
    if (q == std::string_view::npos) return std::string_view::npos;
    if (t.compare(q + 1, 7, ", line ") != 0) continue;
    size_t e = q + 8;
    while (e < t.size() && t[e] >= '0' && t[e] <= '9') ++e;
    if (e == q + 8) continue;
    if (t.compare(e, 5, ", in ") == 0) {
      e += 5;
      while (e < t.size() && t[e] != ' ' && t[e] != '\t') ++e;
    }
    *end = e;
    return at;
  }
  return std::string_view::npos;
}

// Where an exception line starts in `t` (a source line's text run into it): the first word, at the
// start or after a blank, that is an exception type followed by ':'; npos when none.
size_t FindExceptionLine(std::string_view t) {
  for (size_t at = 0; at < t.size(); ++at) {
    if (at > 0 && t[at - 1] != ' ' && t[at - 1] != '\t') continue;
    const size_t n = text::TypePrefix(t.substr(at));
    if (n > 0 && at + n < t.size() && t[at + n] == ':' && (at + n + 1 == t.size() || t[at + n + 1] == ' ') &&
        text::LooksLikeExceptionType(t.substr(at, n))) {
      return at;
    }
    at += n;
  }
  return std::string_view::npos;
}

// The first place in `t` from `from` where a traceback header (with "Original " before it) or a
// chain sentence starts, and its length in *len; npos when none.
size_t FindBreak(std::string_view t, size_t from, size_t* len) {
  size_t best = std::string_view::npos;
  const size_t h = t.find(kHeaderTail, from);
  if (h != std::string_view::npos && h >= 10 && t.compare(h - 10, 10, "Traceback ") == 0) {
    best = h - 10;
    *len = 10 + kHeaderTail.size();
    if (best >= 9 && t.compare(best - 9, 9, "Original ") == 0) {
      best -= 9;
      *len += 9;
    }
  }
  for (std::string_view sep : kSeparators) {
    const size_t at = t.find(sep, from);
    if (at < best) {
      best = at;
      *len = sep.size();
    }
  }
  return best;
}

// Reads the frames and exception line of one traceback's body, run onto one line.
void ReadBody(Segmenter& s, std::string_view body) {
  size_t end = 0;
  size_t frame = FindFrame(body, 0, &end);
  if (frame == std::string_view::npos) {
    if (!Trim(body).empty()) s.ReadLine(Trim(body));
    return;
  }
  while (frame != std::string_view::npos) {
    s.ReadLine("  " + std::string(body.substr(frame, end - frame)));
    size_t next_end = 0;
    const size_t next = FindFrame(body, end, &next_end);
    std::string_view rest = body.substr(end, next == std::string_view::npos ? std::string_view::npos : next - end);
    if (next == std::string_view::npos) {
      const size_t exc = FindExceptionLine(rest);
      if (!Trim(rest.substr(0, exc)).empty()) s.ReadLine("    " + std::string(Trim(rest.substr(0, exc))));
      if (exc != std::string_view::npos) s.ReadLine(Trim(rest.substr(exc)));
    } else if (!Trim(rest).empty()) {
      s.ReadLine("    " + std::string(Trim(rest)));
    }
    frame = next;
    end = next_end;
  }
}

}  // namespace

bool EscapedReader::OneLineHook(Segmenter& s, std::string_view raw) {
  // A find of the header's tail keeps ordinary lines cheap; a one-line traceback is long.
  if (raw.size() < 64) return false;
  const size_t tail = raw.find(kHeaderTail);
  if (tail == std::string_view::npos || tail < 10 || raw.compare(tail - 10, 10, "Traceback ") != 0) return false;
  size_t after = tail + kHeaderTail.size();
  while (after < raw.size() && (raw[after] == ' ' || raw[after] == '\t')) ++after;
  size_t frame_end = 0;
  if (raw.compare(after, 6, "File \"") != 0 || FindFrame(raw, after, &frame_end) != after) return false;
  // A header joined to its first frame alone by a paste that kept the other newlines: the lines after
  // it are the traceback's, read as they come.
  if (Trim(raw.substr(frame_end)).empty()) return false;
  size_t len = 0;
  size_t at = FindBreak(raw, 0, &len);
  if (!Trim(raw.substr(0, at)).empty()) s.ReadLine(Trim(raw.substr(0, at)));
  while (at != std::string_view::npos) {
    s.ReadLine(raw.substr(at, len));
    const bool header = raw.compare(at + len - kHeaderTail.size(), kHeaderTail.size(), kHeaderTail) == 0;
    if (!header) s.ReadLine("");  // the blank line after a chain sentence
    size_t next_len = 0;
    const size_t next = FindBreak(raw, at + len, &next_len);
    std::string_view body = raw.substr(at + len, next == std::string_view::npos ? std::string_view::npos : next - at - len);
    if (header) {
      ReadBody(s, body);
    } else if (!Trim(body).empty()) {
      s.ReadLine(Trim(body));
    }
    if (next != std::string_view::npos && raw.compare(next + next_len - kHeaderTail.size(), kHeaderTail.size(), kHeaderTail) != 0) {
      s.ReadLine("");  // the blank line before a chain sentence
    }
    at = next;
    len = next_len;
  }
  return true;
}

bool EscapedReader::RawLineHook(Segmenter& s, std::string_view raw) {
  // memchr for the backslash keeps ordinary lines cheap.
  if (raw.find('\\') == std::string_view::npos) return false;
  size_t header = raw.find("Traceback (most recent call last):\\n");
  if (header == std::string_view::npos) return false;
  // Inside a JSON string (the header follows a quote and quotes are escaped) the string ends at the
  // first unescaped quote; otherwise at the end of the line, less a closing quote.
  bool quoted = header > 0 && raw[header - 1] == '"';
  bool json = quoted && raw.find("\\\"", header) != std::string_view::npos;
  std::string_view text = raw.substr(header);
  if (quoted && !json && !text.empty() && Trim(text).back() == '"') {
    text = Trim(text);
    text.remove_suffix(1);
  }
  ReadEscaped(s, text, json);
  return true;
}

void EscapedReader::ReadEscaped(Segmenter& s, std::string_view text, bool json) {
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
      s.ReadLine(piece);
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
  if (!Trim(piece).empty()) s.ReadLine(piece);
}

}  // namespace triage
