#include "log/formats/warnings.h"


#include "log/formats/text.h"
#include "log/segmenter.h"
#include "triage/locale_free.h"

namespace triage {

size_t WarningsReader::BareWarningType(std::string_view t) {
  const size_t n = text::TypePrefix(t);
  if (n == 0 || n + 2 > t.size() || t[n] != ':' || t[n + 1] != ' ') return 0;
  const std::string_view type = t.substr(0, n);
  const size_t dot = type.find_last_of(".:");
  const std::string_view last = dot == std::string_view::npos ? type : type.substr(dot + 1);
  constexpr std::string_view kWarning = "Warning";
  if (last.size() <= kWarning.size() || !IsAsciiUpper(last[0]) ||
      !text::EndsWith(last, kWarning)) {
    return 0;
  }
  return n;
}

bool WarningsReader::ParseWarningLine(std::string_view line, Incident* inc) {
  // Note: [Bare warning lines] (warnings.h): the category at the line's start, no path and no frame.
  if (const std::string_view t = text::Trim(line); const size_t n = BareWarningType(t)) {
    inc->exception = std::string(t.substr(0, n));
    inc->message = std::string(text::Trim(t.substr(n + 1)));
    inc->frames.clear();
    return true;
  }
  size_t w = line.find("Warning: ");
  if (w == std::string_view::npos) return false;
  size_t type_end = w + 7;
  size_t type_start = w;
  auto ident = [](char c) { return IsAsciiAlnum(c) || c == '_' || c == '.'; };
  while (type_start > 0 && ident(line[type_start - 1])) --type_start;
  // Before the type: ": ", the line number, ':' and a path.
  if (type_start < 4 || line[type_start - 1] != ' ' || line[type_start - 2] != ':') return false;
  size_t digits_end = type_start - 2;
  size_t digits = digits_end;
  while (digits > 0 && IsAsciiDigit(line[digits - 1])) --digits;
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
  if (count_end == 0 || !IsAsciiDigit(line[count_end - 1])) return line;
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
  if (inc->message.size() > s.options().max_message) inc->message.resize(s.options().max_message);
  if (inc->frames.empty()) return true;  // a bare warning line: no source line follows
  inc->frames.back().user = !text::IsLibraryFile(inc->frames.back().file);
  // The warnings module prints the warning's source line next.
  *next = &Block<&FormatReaders::warnings>;
  return true;
}

namespace {

constexpr int kMaxWrapJoined = 8;  // lines joined to one hand-wrapped warning

// True when a warning's text so far ends inside a sentence: in a letter, a digit or a comma.
bool EndsInsideSentence(std::string_view t) {
  if (t.empty()) return false;
  const unsigned char c = static_cast<unsigned char>(t.back());
  return IsAsciiAlnum(c) || c == ',';
}

// True for a line that may go on with a hand-wrapped warning's sentence: at its first column, starting
// with a small letter, and beginning nothing by itself.
bool MayContinueWarning(std::string_view line) {
  if (line.empty() || line[0] < 'a' || line[0] > 'z') return false;
  Incident probe;
  return !text::IsExceptionLine(line) && !WarningsReader::ParseWarningLine(line, &probe) &&
         !text::StartsWith(line, "warnings.warn(") && !Segmenter::StartsIncident(line);
}

}  // namespace

bool WarningsReader::WrapHook(Segmenter& s, std::string* line) {
  WarningsReader& r = s.readers().warnings;
  const bool idle = s.state() == Segmenter::State::kIdle;
  // A recognised warning line with its path waits for its source line (this reader's block): a line
  // at the first column is no source line, and may go on with the warning.
  const bool after_warning = idle || s.open_block() == &r;
  if (r.wrap_active_) {
    r.wrap_active_ = false;
    const std::string_view l = *line;
    if (after_warning && r.wrap_last_ + 1 == s.line_no() && s.rank() == r.wrap_rank_ && r.wrap_joined_ < kMaxWrapJoined &&
        MayContinueWarning(l)) {
      const std::string_view piece = text::Trim(l);
      std::string joined = r.wrap_text_;
      if (joined.size() < s.options().max_message) {
        joined += ' ';
        joined.append(piece.substr(0, s.options().max_message - joined.size()));
      }
      if (s.JoinLogLine(r.wrap_first_, joined, piece)) {
        r.wrap_text_ = std::move(joined);
        r.wrap_last_ = s.line_no();
        ++r.wrap_joined_;
        // A warning with its path: the warnings module's source line may follow the joined line.
        const int w = s.last_log_line();
        if (s.state() == Segmenter::State::kIdle && w >= 0 && !s.kept()[w].frames.empty()) {
          s.EnterBlock(&Block<&FormatReaders::warnings>);
        }
        if (EndsInsideSentence(piece)) {
          r.wrap_active_ = true;
          s.ReadNextFlushLine();
        }
        return false;
      }
    }
  }
  if (!idle || line->empty() || (*line)[0] == ' ' || (*line)[0] == '\t') return true;
  const std::string_view t = text::Trim(*line);
  if (t.find("Warning: ") == std::string_view::npos || !EndsInsideSentence(t)) return true;
  Incident probe;
  if (!ParseWarningLine(t, &probe)) return true;
  r.wrap_active_ = true;
  r.wrap_first_ = r.wrap_last_ = s.line_no();
  r.wrap_joined_ = 0;
  r.wrap_rank_ = s.rank();
  r.wrap_text_ = std::string(t.substr(0, s.options().max_message));
  s.ReadNextFlushLine();
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
