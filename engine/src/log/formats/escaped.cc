#include "log/formats/escaped.h"

#include <string>

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::Trim;

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
