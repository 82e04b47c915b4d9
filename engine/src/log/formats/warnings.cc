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

namespace {

// Note: [Warning after a progress bar] (warnings.h): the text after a tqdm bar's last state at the start
// of `line`, or `line` itself. Besides the bar with a total (text::AfterProgressBar), tqdm's counter
// without one: `DESC: N it [ELAPSED, RATE]`, `Sanity Checking: 0it [00:00, ?it/s]`.
std::string_view AfterBar(std::string_view line) {
  const std::string_view after = text::AfterProgressBar(line);
  if (after.size() != line.size()) return after;
  const size_t it = line.find("it [");
  if (it == std::string_view::npos) return line;
  size_t count_end = it;  // the count's end: "0it", "12 it"
  if (count_end > 0 && line[count_end - 1] == ' ') --count_end;
  if (count_end == 0 || !std::isdigit(static_cast<unsigned char>(line[count_end - 1]))) return line;
  const size_t close = line.find(']', it);
  if (close == std::string_view::npos) return line;
  const std::string_view inside = line.substr(it + 4, close - (it + 4));
  if (inside.find("it/s") == std::string_view::npos && inside.find("s/it") == std::string_view::npos) return line;
  const std::string_view rest = line.substr(close + 1);
  return text::Trim(rest).empty() ? line : rest;
}

}  // namespace

bool WarningsReader::LogLine(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next) {
  if (!ParseWarningLine(line, inc)) {
    // Note: [Warning after a progress bar] (warnings.h).
    const std::string_view after = AfterBar(line);
    if (after.size() == line.size() || !ParseWarningLine(after, inc)) return false;
  }
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
