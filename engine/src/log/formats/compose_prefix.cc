#include "log/formats/compose_prefix.h"

#include "log/formats/text.h"
#include "log/segmenter.h"
#include "triage/locale_free.h"

namespace triage {

namespace {

bool NameByte(char c) { return IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.'; }

}  // namespace

size_t ComposePrefixReader::Prefix(std::string_view line, std::string_view* service, size_t* bar) {
  if (line.empty() || !IsAsciiAlnum(line[0])) return 0;
  size_t i = 0;
  bool letter = false;
  while (i < line.size() && i <= kMaxName && NameByte(line[i])) {
    letter = letter || IsAsciiAlpha(line[i]);
    ++i;
  }
  if (!letter || i > kMaxName || i >= line.size() || line[i] != ' ') return 0;
  const size_t name_end = i;
  while (i < line.size() && line[i] == ' ') ++i;
  if (i >= line.size() || line[i] != '|') return 0;
  *bar = i;
  ++i;
  if (i < line.size()) {
    if (line[i] != ' ') return 0;
    ++i;
  }
  *service = line.substr(0, name_end);
  return i;
}

bool ComposePrefixReader::LineHook(Segmenter& s, std::string* line) {
  ComposePrefixReader& r = s.readers().compose_prefix;
  std::string_view service;
  size_t bar = 0;
  const size_t n = Prefix(*line, &service, &bar);
  if (n == 0) return true;
  if (!r.shown_) {
    const std::string_view rest = text::Trim(std::string_view(*line).substr(n));
    r.shown_ = text::StartsWith(rest, "Traceback (most recent call last)") || text::StartsWith(rest, "File \"") ||
               text::IsExceptionLine(rest);
    if (!r.shown_) return true;
    r.bar_ = bar;
  } else if (bar != r.bar_) {
    return true;
  }
  std::string rank(service);
  line->erase(0, n);
  s.set_rank(std::move(rank));
  return true;
}

}  // namespace triage
