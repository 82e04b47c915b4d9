#include "log/formats/warnings.h"

#include <cctype>

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

bool WarningsReader::ParseWarningLine(std::string_view line, Incident* inc) {
  size_t w = line.find("Warning: ");
  if (w == std::string_view::npos) return false;
  size_t type_end = w + 7;
  size_t type_start = w;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  while (type_start > 0 && ident(line[type_start - 1])) --type_start;
  // Before the type: ": ", the line number, ':' and a path.
  if (type_start < 4 || line[type_start - 1] != ' ' || line[type_start - 2] != ':') return false;
  size_t digits_end = type_start - 2;
  size_t digits = digits_end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
  if (digits == digits_end || digits < 2 || line[digits - 1] != ':') return false;
  std::string_view file = text::Trim(line.substr(0, digits - 1));
  if (file.empty() || file.find(' ') != std::string_view::npos) return false;
  Frame f;
  f.file = std::string(file);
  for (size_t i = digits; i < digits_end && f.line < 100000000; ++i) f.line = f.line * 10 + (line[i] - '0');
  inc->exception = std::string(line.substr(type_start, type_end - type_start));
  inc->message = std::string(text::Trim(line.substr(type_end + 2)));
  inc->frames.clear();
  inc->frames.push_back(std::move(f));
  return true;
}

bool WarningsReader::LogLine(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next) {
  if (!ParseWarningLine(line, inc)) return false;
  inc->frames.back().user = !text::IsLibraryFile(inc->frames.back().file);
  if (inc->message.size() > s.options().max_message) inc->message.resize(s.options().max_message);
  // The warnings module prints the warning's source line next.
  *next = &Block<&FormatReaders::warnings>;
  return true;
}

void WarningsReader::Line(Segmenter& s, const std::string& line, std::string_view trimmed) {
  s.EndBlock();
  Incident& w = s.kept()[s.last_log_line()];
  if (text::Indented(line) && !trimmed.empty() && !w.frames.empty()) {
    w.frames.back().source = std::string(trimmed.substr(0, 512));
    w.line_end = static_cast<int>(s.line_no());
    return;
  }
  s.HandleIdle(line, trimmed);
}

void WarningsReader::Close(Segmenter& s) { s.EndBlock(); }

}  // namespace triage
