#include "log/formats/learned_prefix.h"

#include <cstdint>
#include <cstring>

#include "log/formats/rank_prefix.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {
namespace {

using text::IsDigit;
using text::IsLetter;

// The slots of a shape (Note: [Learned prefix]); every other byte of a shape stands for itself.
constexpr char kDigits = '\x01';    // a run of digits
constexpr char kLevel = '\x02';     // a log level word
constexpr char kPadded = '\x03';    // a level word padded with blanks to the width in the next byte
constexpr char kSeverity = '\x04';  // glog's severity letter, before its date's digits
constexpr char kLocation = '\x05';  // a source location: "trainer.py:214", "module:function:42"

constexpr size_t kMaxPrefix = 160;

bool IsWordChar(char c) { return IsLetter(c) || IsDigit(c) || c == '_'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsSeverity(char c) { return c == 'I' || c == 'W' || c == 'E' || c == 'F'; }

// The length of the run of digits at s[i], between `least` and `most` long, or 0.
size_t Digits(std::string_view s, size_t i, size_t least, size_t most) {
  size_t j = i;
  while (j < s.size() && IsDigit(s[j]) && j - i < most) ++j;
  if (j - i < least || (j < s.size() && IsDigit(s[j]))) return 0;
  return j - i;
}

// The length of the log level word at s[i] ("INFO", "WARNING": in capitals, so that a message's own
// "error: ..." or "Fatal ..." is no level), or 0.
size_t LevelWord(std::string_view s, size_t i) {
  if (i > 0 && IsWordChar(s[i - 1])) return 0;
  // The run of capitals (a word with a small letter in its first ten is none), then no word character.
  size_t j = i;
  while (j < s.size() && s[j] >= 'A' && s[j] <= 'Z' && j - i <= 9) ++j;
  const size_t n = j - i;
  if (n < 4 || n > 9 || (j < s.size() && IsWordChar(s[j]))) return 0;
  // DEBUG INFO WARN WARNING ERROR CRITICAL FATAL TRACE NOTICE SUCCESS EXCEPTION, by length: the first
  // four letters as one word, then the rest.
  auto word = [](const char* p) {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
  };
  const char* w = s.data() + i;
  const std::uint32_t head = word(w);
  auto is = [&](const char* level) {
    return head == word(level) && std::memcmp(w + 4, level + 4, n - 4) == 0;
  };
  switch (n) {
    case 4: return head == word("INFO") || head == word("WARN") ? n : 0;
    case 5: return is("DEBUG") || is("ERROR") || is("FATAL") || is("TRACE") ? n : 0;
    case 6: return is("NOTICE") ? n : 0;
    case 7: return is("WARNING") || is("SUCCESS") ? n : 0;
    case 8: return is("CRITICAL") ? n : 0;
    case 9: return is("EXCEPTION") ? n : 0;
  }
  return 0;
}

// The length of the source location at s[i] ("file.py:42", "module:function:42": a run of non-blanks
// holding a letter and ending in ':' and digits, up to a blank or a bracket), or 0.
size_t Location(std::string_view s, size_t i) {
  if (i > 0 && (IsWordChar(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == ':' || s[i - 1] == '/')) return 0;
  size_t j = i;
  bool letter = false;
  while (j < s.size() && j - i < 80 && !IsBlank(s[j]) && s[j] != ']' && s[j] != '[' && s[j] != ')' && s[j] != '"' &&
         s[j] != '\'') {
    letter = letter || IsLetter(s[j]);
    ++j;
  }
  size_t d = j;
  while (d > i && IsDigit(s[d - 1])) --d;
  if (!letter || d == j || d < i + 2 || s[d - 1] != ':') return 0;
  return j - i;
}

// A time "10:11:12", "9:05:01.123456", "10:11:12,345", with a zone ("Z", "+0000", " +00:00") after it:
// the length from s[i], or 0.
size_t Time(std::string_view s, size_t i) {
  size_t j = i, n = Digits(s, j, 1, 2);
  if (n == 0 || j + n >= s.size() || s[j + n] != ':') return 0;
  j += n + 1;
  if ((n = Digits(s, j, 2, 2)) == 0) return 0;
  j += n;
  if (j + 1 < s.size() && s[j] == ':' && (n = Digits(s, j + 1, 2, 2)) > 0) j += 1 + n;
  if (j + 1 < s.size() && (s[j] == '.' || s[j] == ',') && (n = Digits(s, j + 1, 1, 9)) > 0) j += 1 + n;
  if (j < s.size() && s[j] == 'Z') {
    ++j;
  } else {
    const size_t z = j + (j < s.size() && s[j] == ' ' ? 1 : 0);
    if (z + 1 < s.size() && (s[z] == '+' || s[z] == '-') && (n = Digits(s, z + 1, 2, 4)) > 0) {
      j = z + 1 + n;
      if (n == 2 && j + 2 < s.size() && s[j] == ':' && Digits(s, j + 1, 2, 2) == 2) j += 3;
    }
  }
  return j - i;
}

// A time stamp at s[i]: a date ("2024-01-02", "2024/01/02", "01/02/2024", "01/02") with a time after a
// blank or 'T', or a time alone. The length, or 0.
size_t TimeStamp(std::string_view s, size_t i) {
  size_t n = Digits(s, i, 1, 4);
  if (n == 0 || i + n >= s.size()) return 0;
  if (s[i + n] == ':') return Time(s, i);
  const char sep = s[i + n];
  if (sep != '-' && sep != '/') return 0;
  size_t j = i + n + 1;
  size_t m = Digits(s, j, 1, 2);
  if (m == 0) return 0;
  j += m;
  if (j < s.size() && s[j] == sep) {
    if ((m = Digits(s, j + 1, 2, 4)) == 0) return 0;
    j += 1 + m;
  } else if (sep != '/') {
    return 0;  // "01/02" (detectron2's month and day) is the only two-part date
  }
  if (j + 1 >= s.size() || (s[j] != ' ' && s[j] != 'T')) return 0;
  const size_t t = Time(s, j + 1);
  return t == 0 ? 0 : j + 1 + t - i;
}

// Blanks and separators after a part of a header (" ", ": ", " - ", " | ", " -- "): their length, or 0.
// Of a run of blanks, one counts: more is the message's own indentation.
size_t Separators(std::string_view s, size_t i) {
  size_t j = i;
  if (j < s.size() && s[j] == ':') ++j;  // "ERROR:", "]:"
  size_t b = j;
  while (b < s.size() && IsBlank(s[b])) ++b;
  if (b == j && !(i > 0 && IsBlank(s[i - 1]))) return j - i;  // after a padded level: "ERROR    | "
  size_t k = b;
  while (k < s.size() && k - b < 2 && (s[k] == '-' || s[k] == '|' || s[k] == ':')) ++k;
  if (k > b && k == s.size()) return k - i;
  if (k > b && IsBlank(s[k])) return k + 1 - i;  // the mark and the one blank after it
  return b == j ? j - i : j + 1 - i;
}

// A name with a bracketed number and a colon, syslog's "python3[48211]:": its length, or 0.
size_t NameWithPid(std::string_view s, size_t i) {
  if (i >= s.size() || !IsLetter(s[i])) return 0;
  size_t j = i;
  while (j < s.size() && j - i < 40 && (IsWordChar(s[j]) || s[j] == '.' || s[j] == '-')) ++j;
  if (j >= s.size() || s[j] != '[') return 0;
  const size_t d = Digits(s, j + 1, 1, 10);
  if (d == 0 || j + 2 + d >= s.size() || s[j + 1 + d] != ']' || s[j + 2 + d] != ':') return 0;
  return j + 3 + d - i;
}

// A bracketed tag at s[i] ("[ERROR]", "[rank0]", "[__main__]", "[trainer.py:42]", "[INFO    ]"): its
// length, or 0. A tag holds a letter and at most padding blanks (a bracket with words in it, "[Epoch 1]",
// is the message's).
size_t BracketTag(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '[') return 0;
  size_t j = i + 1;
  bool letter = false, blank = false;
  while (j < s.size() && j - i < 48 && s[j] != ']') {
    if (IsBlank(s[j])) {
      blank = true;
    } else if (blank || s[j] == '[' || s[j] == '"' || s[j] == '\'' || s[j] == '=') {
      return 0;
    }
    letter = letter || IsLetter(s[j]);
    ++j;
  }
  if (j >= s.size() || s[j] != ']' || !letter || j == i + 1) return 0;
  return j + 1 - i;
}

// The shape of a prefix (Note: [Learned prefix]).
std::string ShapeOf(std::string_view p) {
  std::string shape;
  size_t i = 0;
  if (p.size() > 1 && IsSeverity(p[0]) && IsDigit(p[1])) {
    shape += kSeverity;
    i = 1;
  }
  while (i < p.size()) {
    if (size_t n = Location(p, i); n > 0) {
      shape += kLocation;
      i += n;
      continue;
    }
    if (size_t n = LevelWord(p, i); n > 0) {
      size_t b = i + n;
      while (b < p.size() && IsBlank(p[b])) ++b;
      if (b - (i + n) >= 2 && b - i < 32) {  // padded to a width: "INFO     " (logging's %(levelname)-8s)
        shape += kPadded;
        shape += static_cast<char>(b - i);
        i = b;
      } else {
        shape += kLevel;
        i += n;
      }
      continue;
    }
    if (IsDigit(p[i])) {
      while (i < p.size() && IsDigit(p[i])) ++i;
      shape += kDigits;
      continue;
    }
    shape += p[i++];
  }
  return shape;
}

// Note: [Stream labels]. A program that runs Python as a child and relays its output line by line may
// write the stream's name before each line: `stderr: `, `│ stderr: ` (a contract runner's box), `Python
// stderr: ` (a launcher's logger, after its time stamp), `[stdout] ` is a bracket already. Such a prefix
// holds no digit when nothing else is before it, so it taught no prefix and the traceback behind it
// kept its type but lost its frames. The text before a traceback header whose last word, before its
// colon, is `stderr` or `stdout` (any case) is such a prefix.
bool EndsWithStreamLabel(std::string_view p) {
  while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.remove_suffix(1);
  if (p.empty() || p.back() != ':') return false;
  p.remove_suffix(1);
  if (p.size() < 6) return false;
  std::string word(p.substr(p.size() - 6));
  for (char& c : word) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (word != "stderr" && word != "stdout") return false;
  const char before = p.size() > 6 ? p[p.size() - 7] : ' ';
  return !((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') || (before >= '0' && before <= '9') || before == '_');
}

// True for text that can be a per-line log prefix before a traceback header: short, ends at a
// separator, holds a digit or a bracket (a time, a pid, a level tag) or ends with a stream's name (Note:
// [Stream labels]), and no quote or '=' (which mean the header sits inside a value: `error="Traceback
// ...`).
bool LooksLikeLogPrefix(std::string_view p) {
  if (p.empty() || p.size() > 100) return false;
  char last = p.back();
  if (last != ' ' && last != ':' && last != ']' && last != '|') return false;
  if (p.find_first_of("\"'=\\") != std::string_view::npos) return false;
  // A progress bar never ended with a newline (tqdm's `  0%|    | 0/40995 [00:00<?, ?it/s]`) is on this
  // line only: the traceback's own lines do not repeat it (Note: [Glued headers] in python_traceback.cc).
  if (p.find("it/s") != std::string_view::npos || p.find("s/it") != std::string_view::npos ||
      p.find("%|") != std::string_view::npos) {
    return false;
  }
  return p.find_first_of("0123456789]") != std::string_view::npos || EndsWithStreamLabel(p);
}

}  // namespace

size_t LogPrefix::RecordHeader(std::string_view l) {
  if (l.size() < 6 || !MayStartRecord(l[0])) return 0;
  size_t i = 0;
  bool level_first = false;
  if (l[0] == '[') {
    // "[2024-01-02 10:11:12]", "[2024-01-02 10:11:12,345 INFO]", "[01/02 10:11:12 d2.engine]:": to the
    // bracket's end.
    const size_t t = TimeStamp(l, 1);
    if (t == 0) return 0;
    i = 1 + t;
    while (i < l.size() && i < 80 && l[i] != ']' && l[i] != '[' && l[i] != '"') ++i;
    if (i >= l.size() || l[i] != ']') return 0;
    ++i;
  } else if (IsDigit(l[0])) {
    const size_t t = TimeStamp(l, 0);
    if (t == 0) return 0;
    i = t;
  } else if (IsSeverity(l[0]) && Digits(l, 1, 4, 4) == 4 && l[5] == ' ') {
    // glog / absl: "I1128 10:11:12.345678 12345 file.py:42] "
    const size_t t = Time(l, 6);
    if (t == 0) return 0;
    i = 6 + t;
  } else if (const size_t lv = LevelWord(l, 0); lv > 0) {
    // The level before the time (Note: [Level before the time stamp]): "ERROR 04-26 20:27:52 [core.py:390] ",
    // "INFO     2024-01-02 10:11:12,345 [train.py:42] ".
    size_t j = lv;
    while (j < l.size() && IsBlank(l[j]) && j - lv < 12) ++j;
    if (j == lv) return 0;
    size_t t = TimeStamp(l, j);
    // vLLM's date is a month and a day joined by '-' ("%m-%d %H:%M:%S"), a two-part date TimeStamp leaves
    // to '/' where no level comes first.
    if (t == 0 && Digits(l, j, 2, 2) == 2 && j + 5 < l.size() && l[j + 2] == '-' && Digits(l, j + 3, 2, 2) == 2 &&
        l[j + 5] == ' ') {
      if (const size_t tt = Time(l, j + 6); tt > 0) t = 6 + tt;
    }
    if (t == 0) return 0;
    i = j + t;
    level_first = true;
  } else {
    // syslog and journalctl: "Mar 02 10:15:31 host python3[48211]: "
    static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    bool month = false;
    for (const char* m : kMonths) month = month || l.compare(0, 3, m) == 0;
    if (!month || l[3] != ' ') return 0;
    size_t j = 4 + (l[4] == ' ' ? 1 : 0);
    const size_t d = Digits(l, j, 1, 2);
    if (d == 0 || j + d >= l.size() || l[j + d] != ' ') return 0;
    const size_t t = Time(l, j + d + 1);
    if (t == 0) return 0;
    i = j + d + 1 + t;
  }
  // After the time stamp: levels, tags, a pid, a location, each followed by separators, up to the
  // message. A part that is only a word (a logger's or a host's name) counts when a level, a tag or a
  // location follows it.
  size_t end = i + Separators(l, i);
  if (end == i && !(i > 0 && l[i - 1] == ']')) return 0;  // the time stamp runs on into other text
  i = end;
  int words = 0;
  bool level = level_first;  // after a level word, only tags and locations go on with the header
  while (i < l.size() && i < kMaxPrefix && words <= 2) {
    size_t n = 0;
    bool strong = true;
    if ((n = LevelWord(l, i)) > 0) {
      level = true;
      size_t b = i + n;
      while (b < l.size() && IsBlank(l[b])) ++b;
      if (b - (i + n) >= 2 && b - i < 32) n = b - i;  // padded to a width: "INFO     " (%(levelname)-8s)
    } else if (std::string rank; RankPrefixReader::Prefix(l.substr(i), &rank) > 0) {
      break;  // a rank prefix after the record's header is the rank's (Note: [Rank prefix])
    } else if ((n = BracketTag(l, i)) > 0) {
      level = level || LevelWord(l, i + 1) > 0;
    } else if ((n = Location(l, i)) > 0 || (!level && (n = NameWithPid(l, i)) > 0)) {
      if (i + n < l.size() && l[i + n] == ']') ++n;  // glog's "file.py:42]"
    } else {
      if (level) break;
      strong = false;
      while (i + n < l.size() && !IsBlank(l[i + n]) && n < 64) {
        const char c = l[i + n];
        if (c == '"' || c == '\'' || c == '=' || c == '(' || c == '{' || c == '[') return end;
        ++n;
      }
      if (n == 0 || l[i + n - 1] == ':') break;  // "RuntimeError:": the message
      // A second time ("02:54:18-197331 ERROR    ..."): the message is another logger's record, whose
      // layout is its reader's (Note: [Aligned continuations]), also behind the opening backtick of a
      // paste in inline code.
      const size_t at = l[i] == '`' ? i + 1 : i;
      if (at < l.size() && IsDigit(l[at]) && Time(l, at) > 0) break;
    }
    i += n;
    const size_t sep = Separators(l, i);
    const bool separated = sep > 0 || IsBlank(l[i - 1]) || (l[i - 1] == ']' && i < l.size() && l[i] == '[');
    if (!separated) {
      if (i == l.size() && strong) end = i;
      break;
    }
    i += sep;
    if (strong) {
      end = i;
      words = 0;
    } else {
      ++words;
    }
  }
  return end;
}

size_t LogPrefix::Match(std::string_view line) const {
  if (shape_.empty()) return 0;
  if (fixed_len_ == 0 || line.size() < fixed_.size() / 3 * 8) return StepsFrom(line, 0, 0);
  // The fixed part, 8 bytes at a time: the literal bytes equal, the digit runs' bytes digits (bit 7 of
  // a byte's lane: 0x30 <= byte < 0x3a, with no carry between lanes since each is below 0x80 first).
  const char* at = line.data();
  for (size_t f = 0; f < fixed_.size(); f += 3, at += 8) {
    std::uint64_t x;
    std::memcpy(&x, at, 8);
    const std::uint64_t bytes = fixed_[f], equal = fixed_[f + 1], digit = fixed_[f + 2];
    const std::uint64_t low7 = x & 0x7f7f7f7f7f7f7f7full;
    const std::uint64_t digits = (low7 + 0x5050505050505050ull) & ~(low7 + 0x4646464646464646ull) & ~x;
    if (((x ^ bytes) & equal) != 0 || (digits & digit) != digit) return StepsFrom(line, 0, 0);
  }
  return StepsFrom(line, fixed_shape_, fixed_len_);
}

size_t LogPrefix::StepsFrom(std::string_view line, size_t k, size_t j) const {
  for (; k < shape_.size(); ++k) {
    const char c = shape_[k];
    if (j == line.size()) {
      // The line ends inside the prefix: a blank line of the log (its trailing blank trimmed).
      for (; k < shape_.size(); ++k) {
        if (!IsBlank(shape_[k]) && shape_[k] != ':' && shape_[k] != '-' && shape_[k] != '|') return 0;
      }
      return j;
    }
    switch (c) {
      case kDigits:
        if (!IsDigit(line[j])) return 0;
        while (j < line.size() && IsDigit(line[j])) ++j;
        break;
      case kLevel:
      case kPadded: {
        const size_t n = LevelWord(line, j);
        if (n == 0) return 0;
        j += n;
        if (c == kPadded) {
          const size_t width = static_cast<unsigned char>(shape_[++k]);
          size_t b = 0;
          while (j < line.size() && IsBlank(line[j]) && (b == 0 || n + b < width)) ++j, ++b;
          if (b == 0 && j < line.size()) return 0;
        }
        break;
      }
      case kSeverity:
        if (!IsSeverity(line[j])) return 0;
        ++j;
        break;
      case kLocation: {
        const size_t n = Location(line, j);
        if (n == 0) return 0;
        j += n;
        break;
      }
      default:
        if (line[j] != c) return 0;
        ++j;
    }
  }
  return j;
}

void LogPrefix::NoteMark(std::string_view prefix) {
  // The first literal byte after a run of digits at the start (a date's '-', a time's ':', an address's
  // '.' never matches it), else none.
  mark_at_ = 0;
  size_t i = 0;
  while (i < prefix.size() && IsDigit(prefix[i])) ++i;
  if (i > 1 && i < prefix.size()) {
    mark_at_ = i;
    mark_ = prefix[i];
  }
}

void LogPrefix::Learn(std::string_view prefix) {
  shape_ = ShapeOf(prefix);
  NoteMark(prefix);
  // The fixed part: shape_ and the text side by side up to the first slot other than a digit run, and
  // without a digit run at its end (the walk reads such a run to its end, whatever its width).
  std::string bytes, equal, digit;
  size_t k = 0, i = 0, len = 0, shape_at = 0;
  while (k < shape_.size()) {
    const char c = shape_[k];
    if (c == kDigits) {
      const size_t start = i;
      while (i < prefix.size() && IsDigit(prefix[i])) ++i;
      if (i == start) break;  // (a control byte of the text that reads as a slot's code)
      bytes.append(i - start, '\0');
      equal.append(i - start, '\0');
      digit.append(i - start, '\x80');
    } else if (c == kLevel || c == kPadded || c == kSeverity || c == kLocation) {
      break;
    } else {
      if (i >= prefix.size() || prefix[i] != c) break;
      bytes += prefix[i++];
      equal += '\xff';
      digit += '\0';
      len = i, shape_at = k + 1;  // the part up to a literal byte
    }
    ++k;
  }
  fixed_len_ = len;
  fixed_shape_ = shape_at;
  bytes.resize(len), equal.resize(len), digit.resize(len);
  const size_t words = (len + 7) / 8 * 8;
  bytes.resize(words, '\0'), equal.resize(words, '\0'), digit.resize(words, '\0');
  fixed_.clear();
  for (size_t w = 0; w < words; w += 8) {
    for (const std::string* part : {&bytes, &equal, &digit}) {
      std::uint64_t x;
      std::memcpy(&x, part->data() + w, 8);
      fixed_.push_back(x);
    }
  }
}

size_t LogPrefix::LearnRecord(std::string_view line) {
  const size_t n = RecordHeader(line);
  if (n > 0) Learn(line.substr(0, n));
  return n;
}

size_t LogPrefix::LearnBefore(std::string_view line, size_t at) {
  if (at == 0 || at > line.size() || !LooksLikeLogPrefix(line.substr(0, at))) return 0;
  Learn(line.substr(0, at));
  return at;
}

bool LearnedPrefixReader::LineHook(Segmenter& s, std::string* line) {
  const BlockReader* block = s.open_block();
  const bool may_learn = s.state() == Segmenter::State::kIdle || (block && block->MayLearnPrefix());
  // A record of a logger that wraps its message to a column is that reader's, its time and level too:
  // it teaches no record header.
  const bool record = !s.readers().aligned_continuation.TookRecordLine(s.line_no());
  if (s.readers().learned_prefix.Strip(line, may_learn, record)) {
    s.set_line_prefixed();
    s.set_line_prefix_blanks(s.readers().learned_prefix.stripped_blanks());
    // A launcher's rank prefix inside a collector's time stamps: "2024-... [default0]:Traceback ...".
    std::string rank;
    if (size_t n = RankPrefixReader::Prefix(*line, &rank); n > 0) {
      line->erase(0, n);
      s.set_rank(std::move(rank));
    }
  }
  return true;
}

void LearnedPrefixReader::Erase(std::string* line, size_t n) {
  size_t blanks = 0;
  while (blanks < n && ((*line)[n - 1 - blanks] == ' ' || (*line)[n - 1 - blanks] == '\t')) ++blanks;
  stripped_blanks_ = blanks;
  line->erase(0, n);
}

bool LearnedPrefixReader::Strip(std::string* line, bool may_learn, bool may_learn_record) {
  if (size_t n = prefix_.Match(*line); n > 0) {
    Erase(line, n);
    return true;
  }
  if (!may_learn || line->empty()) return false;
  size_t p = line->find("Traceback (most recent call last):");
  // A record header, or the text before a traceback header, teaches the prefix. A relay's stream label
  // after a record header (`2025/10/16 13:37:51 Python stderr: Traceback ...`) is part of the prefix
  // that line teaches (Note: [Stream labels]).
  const bool relayed = p != std::string::npos && p > 0 && EndsWithStreamLabel(std::string_view(*line).substr(0, p));
  if (may_learn_record && !relayed && LogPrefix::MayStartRecord((*line)[0])) {
    if (size_t n = prefix_.LearnRecord(*line); n > 0) {
      Erase(line, n);
      return true;
    }
  }
  // The header's own first word is not part of the prefix: a DataLoader worker's "Original Traceback" and
  // an ExceptionGroup's "Exception Group Traceback" keep it (a logged worker re-raise would otherwise
  // teach "... - ERROR - Original " and lose the wrapper).
  for (std::string_view word : {std::string_view("Original "), std::string_view("Exception Group ")}) {
    if (p != std::string::npos && p >= word.size() && std::string_view(*line).substr(p - word.size(), word.size()) == word) {
      p -= word.size();
    }
  }
  if (p != std::string::npos && prefix_.LearnBefore(*line, p) > 0) {
    Erase(line, p);
    return true;
  }
  return false;
}

}  // namespace triage
