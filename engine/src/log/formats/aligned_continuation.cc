#include "log/formats/aligned_continuation.h"

#include <cctype>

#include "log/formats/learned_prefix.h"
#include "log/formats/python_traceback.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::IsDigit;
using text::StartsWith;
using text::Trim;

const char* const AlignedContinuationReader::kLevels[2] = {"ERROR", "WARNING"};

namespace {

constexpr size_t kMaxPrefix = 40;  // a time, a date and brackets, never a sentence
constexpr int kMaxJoined = 64;     // continuations joined to one record

// Text before the level word: blank, or a time or date ("02:54:18-197331 ", "[11/28/26 02:54:18] ")
// ending in a blank.
bool TimeLikePrefix(std::string_view p) {
  if (p.empty()) return true;
  if (p.size() > kMaxPrefix || p.back() != ' ') return false;
  int digits = 0;
  int ticks = 0;
  for (char c : p) {
    if (IsDigit(c)) {
      ++digits;
    } else if (c == '`') {
      if (++ticks > 1) return false;  // the opening backtick of a paste in inline code, once
    } else if (std::string_view(" :.,-/[]TZ+_").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return digits >= 2;
}

// The length of rich's right-hand path column at the end of a record's text ("    warnings.py:109"),
// blanks before it included, or 0.
size_t PathColumn(std::string_view t) {
  size_t i = t.size();
  while (i > 0 && IsDigit(t[i - 1])) --i;
  if (i == t.size() || i == 0 || t[i - 1] != ':') return 0;
  const size_t colon = i - 1;
  size_t start = colon;
  while (start > 0 && t[start - 1] != ' ') --start;
  if (!EndsWith(t.substr(start, colon - start), ".py") || start < 2 || t[start - 1] != ' ' || t[start - 2] != ' ') return 0;
  while (start > 0 && t[start - 1] == ' ') --start;
  return start == 0 ? 0 : t.size() - start;
}

// True for a continuation's text that would begin something by itself: a traceback, a frame, an
// exception line, rich's traceback box (box drawing, U+2500..U+257F), or a line an `interrupts` hook names.
bool StartsSomething(std::string_view t) {
  if (StartsWith(t, "Traceback") || StartsWith(t, "File \"") || StartsWith(t, "During handling") ||
      StartsWith(t, "The above exception") || text::IsExceptionLine(t) || PythonTracebackReader::IsHeader(t)) {
    return true;
  }
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xE2 &&
      (static_cast<unsigned char>(t[1]) == 0x94 || static_cast<unsigned char>(t[1]) == 0x95)) {
    return true;
  }
  return Segmenter::StartsIncident(t);
}

}  // namespace

size_t AlignedContinuationReader::MessageColumn(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return 0;
  for (const char* level : kLevels) {
    const std::string_view word(level);
    const std::string_view head = line.substr(0, kMaxPrefix + word.size());  // where the word may be
    for (size_t at = head.find(word); at != std::string_view::npos; at = head.find(word, at + 1)) {
      if (!TimeLikePrefix(line.substr(0, at))) break;  // the prefix only grows from here
      size_t column = at + word.size();
      // The level padded to its column's width: at least two blanks ("ERROR    ", "WARNING  ").
      if (column + 1 >= line.size() || line[column] != ' ' || line[column + 1] != ' ') continue;
      while (column < line.size() && line[column] == ' ') ++column;
      // A traceback's frame relogged line by line behind "... ERROR " keeps its own two blanks, which
      // look like a level's padding: no column layout (Note: [Headerless tracebacks]).
      if (const std::string_view m = line.substr(column);
          StartsWith(m, "File \"") && m.find("\", line ") != std::string_view::npos) {
        return 0;
      }
      if (column < line.size() && line[column] != '\t') return column;
    }
  }
  return 0;
}

bool AlignedContinuationReader::LineHook(Segmenter& s, std::string* line) {
  AlignedContinuationReader& r = s.readers().aligned_continuation;
  const bool idle = s.state() == Segmenter::State::kIdle;
  if (r.active_) {
    r.active_ = false;
    std::string_view l = *line;
    // Inside a learned prefix (the record's lines carried one): the columns count after it.
    const size_t outer = r.outer_ ? s.readers().learned_prefix.prefix().Match(l) : 0;
    if (r.outer_ && outer == 0) l = std::string_view();
    l.remove_prefix(outer);
    // Right after the record's last line, nothing open, the same stream; and the record line was no
    // format's (a trigger that took it read it as its own).
    if (idle && r.last_line_ + 1 == s.line_no() && s.rank() == r.rank_ && r.joined_ < kMaxJoined &&
        l.size() > r.column_ && l.find_first_not_of(' ') == r.column_ && l[r.column_] != '\t' &&
        (r.joined_ > 0 || s.prev_taken_by() == nullptr)) {
      const std::string_view piece = Trim(l);
      if (!StartsSomething(piece)) {
        if (r.text_.size() < s.options().max_message) {
          r.text_ += ' ';
          r.text_.append(piece.substr(0, s.options().max_message - r.text_.size()));
        }
        s.ContinueLogLine(r.first_line_, r.text_, piece, r.joined_ == 0 ? r.path_column_ : std::string_view());
        r.last_line_ = s.line_no();
        ++r.joined_;
        r.active_ = true;
        s.ReadNextLine(r.column_, r.outer_ ? &s.readers().learned_prefix.prefix() : nullptr);
        return false;
      }
    }
  }
  if (!idle) return true;
  size_t column = MessageColumn(*line);
  size_t outer = 0;
  if (column == 0) {
    // A record inside a learned prefix (Note: [Learned prefix]): a collector's time stamps before the
    // logger's own layout (and perhaps the paste's backtick after them).
    const LogPrefix& learned = s.readers().learned_prefix.prefix();
    outer = learned.Match(*line);
    // Nothing learned yet: the record may be the log's first line, whose header the learned prefix
    // reads only after this hook; the header it would learn is the one to look behind.
    if (outer == 0 && !learned.learned() && !line->empty() && LogPrefix::MayStartRecord((*line)[0])) {
      outer = LogPrefix::RecordHeader(*line);
    }
    if (outer == 0) return true;
    if ((column = MessageColumn(std::string_view(*line).substr(outer))) == 0) return true;
  }
  // A record pasted inside Markdown inline code: the opening backtick sits before its first line only,
  // so the continuations keep the console's indentation, one column less, and the text leaves it out.
  std::string_view t = Trim(std::string_view(*line).substr(outer));
  const size_t tick = t.substr(0, column).find('`');
  std::string text(t);
  if (tick != std::string_view::npos) {
    text.erase(tick, 1);
    --column;
  }
  r.outer_ = outer > 0;
  r.active_ = true;
  r.first_line_ = r.last_line_ = s.line_no();
  r.column_ = column;
  r.joined_ = 0;
  r.rank_ = s.rank();
  t = text;
  const size_t path = PathColumn(t.substr(column));  // t starts where the line does
  r.path_column_ = std::string(t.substr(t.size() - path));
  t.remove_suffix(path);
  r.text_ = std::string(t.substr(0, s.options().max_message));
  s.ReadNextLine(column, r.outer_ ? &s.readers().learned_prefix.prefix() : nullptr);
  return true;
}

}  // namespace triage
