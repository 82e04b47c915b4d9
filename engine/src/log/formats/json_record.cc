#include "log/formats/json_record.h"

#include "log/formats/escaped.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

size_t JsonRecordReader::TextStart(std::string_view line) {
  const std::string_view t = text::Trim(line);
  if (t.size() < 10 || t.front() != '{' || t.back() != '}') return std::string_view::npos;
  // The keys, with their quotes: docker's json-file, Cloud Logging's export, structured loggers.
  for (std::string_view key : {"\"log\"", "\"textPayload\"", "\"message\"", "\"msg\""}) {
    for (size_t at = t.find(key); at != std::string_view::npos; at = t.find(key, at + 1)) {
      // A key opens the object or follows a ',' (blanks aside), and a ':' and a string follow it.
      size_t before = at;
      while (before > 0 && (t[before - 1] == ' ' || t[before - 1] == '\t')) --before;
      if (before == 0 || (t[before - 1] != '{' && t[before - 1] != ',')) continue;
      size_t i = at + key.size();
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
      if (i >= t.size() || t[i] != ':') continue;
      ++i;
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
      if (i >= t.size() || t[i] != '"') continue;
      return static_cast<size_t>(t.data() - line.data()) + i + 1;
    }
  }
  return std::string_view::npos;
}

bool JsonRecordReader::RawLineHook(Segmenter& s, std::string_view raw) {
  // The first byte keeps ordinary lines cheap.
  size_t i = 0;
  while (i < raw.size() && (raw[i] == ' ' || raw[i] == '\t')) ++i;
  if (i >= raw.size() || raw[i] != '{') return false;
  const size_t start = TextStart(raw);
  if (start == std::string_view::npos) return false;
  // The value's end: its closing quote, the first not escaped.
  size_t end = start;
  while (end < raw.size() && raw[end] != '"') end += raw[end] == '\\' ? 2 : 1;
  // A record whose other field holds a flattened traceback (a structured logger's message, then the
  // exception's text under a key of its own) is the escaped-traceback reader's.
  const size_t header = raw.find("Traceback (most recent call last):\\n");
  if (header != std::string_view::npos && (header < start || header >= end)) return false;
  // Its escapes undone, up to the closing quote; a record of "\n" alone is a blank line of the log.
  EscapedReader::ReadEscaped(s, raw.substr(start), /*json=*/true);
  return true;
}

}  // namespace triage
