// Note: [Hard-wrapped pastes] (hard_wrap.h): recognising a paste hard-wrapped at a fixed width and
// joining its rows back into lines.
#include "log/hard_wrap.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_set>

namespace triage {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigitByte(char c) { return c >= '0' && c <= '9'; }
bool IsWordByte(char c) { return IsUpper(c) || IsLower(c) || IsDigitByte(c) || c == '_' || c == '.'; }
// A byte of a word: a letter, a digit, '_' or part of a multi-byte character.
bool IsInWord(char c) {
  return IsUpper(c) || IsLower(c) || IsDigitByte(c) || c == '_' || (static_cast<unsigned char>(c) & 0x80) != 0;
}
// A mark a line of its own often begins with and a row's continuation seldom does: a bracket, a rule,
// a list's or a quote's mark, a prompt.
bool OpensLine(char c) { return std::string_view("[({<=-#*>|+$~!@%&").find(c) != std::string_view::npos; }

// `row` without a colour reset at its end ("[0m" or "[39;49m", its ESC byte kept or lost, as a coloured
// exception line ends): a row that ended in a blank before its reset was not split at a wrap either.
std::string_view WithoutTrailingColour(std::string_view row) {
  if (row.empty() || row.back() != 'm') return row;
  size_t at = row.size() - 1;
  while (at > 0 && (IsDigitByte(row[at - 1]) || row[at - 1] == ';')) --at;
  if (at == 0 || row[at - 1] != '[') return row;
  --at;
  if (at > 0 && row[at - 1] == '\x1b') --at;
  return row.substr(0, at);
}

// A row whose last word opens a quotation it does not close, and whose next line's first word closes it
// ("...directory: 'data/tr" then "ain/0001.png'", a DLL path in double quotes): a word wrap would have
// broken at a blank inside one quoted token, which a path, a key or a name hardly ever holds, so such a
// split says nothing of a word wrap (the open-quotation join reads it: Note [Wrapped quotes] in
// formats/python_traceback.h).
bool SplitsAQuotedToken(std::string_view row, std::string_view next) {
  const size_t blank = row.find_last_of(" \t");
  const std::string_view last = blank == std::string_view::npos ? row : row.substr(blank + 1);
  const size_t open = last.find_first_of("'\"");
  if (open == std::string_view::npos || last.find(last[open], open + 1) != std::string_view::npos) return false;
  const std::string_view first = next.substr(0, std::min(next.find_first_of(" \t"), next.size()));
  return first.find(last[open]) != std::string_view::npos;
}
bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Code points of a line (UTF-8 continuation bytes not counted), at most `cap`.
int Chars(std::string_view line, int cap) {
  int n = 0;
  for (char c : line) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++n > cap) return n;
  }
  return n;
}

bool IsAscii(std::string_view text) {
  std::uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    any |= word;
  }
  for (; i < text.size(); ++i) any |= static_cast<unsigned char>(text[i]);
  return (any & 0x8080808080808080ull) == 0;
}

std::string_view WithoutCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The indentation and the first word (up to 12 bytes, digits as '0') of a line: lines of one record
// shape share it ("Epoch 3/10 ...", "[2023-05-02 ...", "{'loss': ...").
std::string Key(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && IsBlank(line[i])) ++i;
  std::string key(line.substr(0, i));
  for (size_t j = i; j < line.size() && !IsBlank(line[j]) && j - i < 12; ++j) key += IsDigitByte(line[j]) ? '0' : line[j];
  return key;
}

// The kind of a line's first character and whether it is indented: an upper- or lower-case letter, a
// digit, or the byte itself.
std::pair<bool, char> Shape(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && IsBlank(line[i])) ++i;
  if (i == line.size()) return {i > 0, 0};
  const char c = line[i];
  return {i > 0, IsUpper(c) ? 'A' : IsLower(c) ? 'a' : IsDigitByte(c) ? '0' : c};
}

// An exception line ("ValueError: ...", "KeyboardInterrupt"), a traceback header or a chain line: a
// line of its own after a row that happens to be W wide. `complete`: `line` is the whole line.
bool StartsRecord(std::string_view line, bool complete) {
  if (StartsWith(line, "Traceback (most recent call last)") || StartsWith(line, "During handling of") ||
      StartsWith(line, "The above exception")) {
    return true;
  }
  if (line.empty() || !(IsUpper(line[0]) || IsLower(line[0]) || line[0] == '_')) return false;
  size_t end = 1;
  while (end < line.size() && IsWordByte(line[end])) ++end;
  if (!(end < line.size() ? line[end] == ':' : complete)) return false;
  const std::string_view name = line.substr(0, end);
  // A name in small letters is a qualified one ("builtins.ValueError", "json.decoder.JSONDecodeError").
  if (!IsUpper(line[0]) && name.find('.') == std::string_view::npos) return false;
  for (std::string_view suffix : {"Error", "Exception", "Warning", "Interrupt", "Exit"}) {
    if (EndsWith(name, suffix)) return true;
  }
  return false;
}

// A row ending in a rule or a box drawn to the width: pytest's "=====", a "-----" rule, a box-drawing
// or block character (U+2500..U+259F: E2 94 80 .. E2 96 9F).
bool EndsDrawn(std::string_view row) {
  if (EndsWith(row, "=====") || EndsWith(row, "-----")) return true;
  if (row.size() < 3) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(row.data() + row.size() - 3);
  return p[0] == 0xE2 && p[1] >= 0x94 && p[1] <= 0x96 && p[2] >= 0x80 && p[2] <= 0xBF;
}

// A row holding an ASCII progress bar: Keras' Progbar draws "50/50 [==============================] - 1s
// 10ms/step - loss: 0.6931" (and "[=====>........]" before the end), its rows all of one length when the
// values print with the same digits, each after an "Epoch 3/10" line: rows of a bar, not of a wrap, as
// tqdm's "%|" is (Note: [Hard-wrapped pastes]).
bool HoldsAsciiBar(std::string_view row) {
  for (size_t at = row.find("[=="); at != std::string_view::npos; at = row.find("[==", at + 1)) {
    size_t i = at + 1;
    while (i < row.size() && (row[i] == '=' || row[i] == '>' || row[i] == '.')) ++i;
    if (i < row.size() && row[i] == ']' && i - at > 10) return true;
  }
  return false;
}

// Note: [Epoch headers]. Keras prints "Epoch 3/10" on a line of its own before each epoch's summary, and
// with verbose=2 (and the PyTorch wrappers that copy its layout) that summary is a row without a bar,
// " - 383s - loss: 0.5388 - acc: 0.7156 - val_loss: 0.7477 - val_acc: 0.5938", of one length whenever the
// values print with the same digits (daniellerch/stegolab#1's five epochs, 73 characters each). A row
// followed by such a header is an epoch's last line, not a row a wrap cut: a cut in mid-text does not leave
// a line that is the header and nothing else. Like HoldsAsciiBar, this sets such rows aside.
bool IsEpochHeader(std::string_view line) {
  if (!StartsWith(line, "Epoch ")) return false;
  size_t i = 6;
  const size_t digits = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == digits || i >= line.size() || line[i] != '/') return false;
  const size_t total = ++i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == total) return false;
  while (i < line.size() && IsBlank(line[i])) ++i;
  return i == line.size();
}

// Key(a) == Key(b), without making either.
bool SameKey(std::string_view a, std::string_view b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && IsBlank(a[i]) && a[i] == b[i]) ++i;
  if ((i < a.size() && IsBlank(a[i])) || (i < b.size() && IsBlank(b[i]))) return false;
  for (size_t j = i;; ++j) {
    const bool end_a = j >= a.size() || IsBlank(a[j]) || j - i >= 12;
    const bool end_b = j >= b.size() || IsBlank(b[j]) || j - i >= 12;
    if (end_a || end_b) return end_a == end_b;
    if (a[j] != b[j] && !(IsDigitByte(a[j]) && IsDigitByte(b[j]))) return false;
  }
}

// The first word's shape: its runs of capitals, of small letters and of digits each as one mark
// ("Mem:" and "Swap:" are both "Aa:", "[2023-05-02" is "[0-0-0").
std::string WordShape(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && IsBlank(line[i])) ++i;
  std::string shape(line.substr(0, i));
  for (; i < line.size() && !IsBlank(line[i]) && shape.size() < 16; ++i) {
    const char c = line[i];
    const char mark = IsUpper(c) ? 'A' : IsLower(c) ? 'a' : IsDigitByte(c) ? '0' : c;
    if (shape.empty() || shape.back() != mark || !(mark == 'A' || mark == 'a' || mark == '0')) shape += mark;
  }
  return shape;
}

bool SameWordShape(std::string_view a, std::string_view b) { return WordShape(a) == WordShape(b); }

// Whether `next` (its first bytes; `complete` when they are the whole line) starts a line of its own
// after a row of the width by its looks alone (the row's first word aside).
bool StartsOwnLine(bool row_drawn, std::string_view next, bool complete) {
  if (next.empty() || row_drawn) return true;
  if (StartsWith(next, "  ") || next[0] == '\t' || StartsWith(next, " ^") || StartsWith(next, " ~")) return true;
  return StartsRecord(next, complete);
}

// Whether `next` continues a row of the width whose line began with `start_key`.
bool Continues(std::string_view start_key, bool row_drawn, std::string_view next, bool complete) {
  return !StartsOwnLine(row_drawn, next, complete) && Key(next) != start_key;
}

constexpr int kUsualWidths[] = {80, 100, 120, 132, 160};

// Note: [Word-wrapped pastes]: the widths an editor or a mail client wraps at.
constexpr int kWordWidths[] = {72, 76, 78, 79, 80, 100, 120};

// The code points of `line`'s first word (up to its first blank).
int FirstWordChars(std::string_view line) {
  size_t e = 0;
  while (e < line.size() && !IsBlank(line[e]) && line[e] != '\r') ++e;
  return Chars(line.substr(0, e), 1 << 20);
}

// Whether a row of `row_chars` code points, broken at a blank by a wrap at `width`, goes on on `next`:
// `next` starts no line of its own and its first word would not have fitted on the row.
// A row ending in IPython's traceback header ("...Traceback (most recent call last)") is a line of its own.
bool EndsHeader(std::string_view row_tail) { return EndsWith(row_tail, "last)"); }

// `row_own`: the row ends in a drawn rule or in IPython's traceback header, a line of its own.
bool WordContinues(std::string_view start_key, bool row_own, int row_chars, int width, std::string_view next,
                   bool complete) {
  return !next.empty() && !IsBlank(next[0]) && row_chars + 1 + FirstWordChars(next) > width &&
         Continues(start_key, row_own, next, complete);
}

// Note: [Rows cut short]. A row that is a line of a fixed shape stopped before that shape's end, which no
// program prints as a whole line: a Python frame line without its closing quote, without its `, line N`,
// with `, in` and no function after it ('  File "/x/program.py", line 11, in ' then "<module>") or with a
// function's opening '<' and not its '>', or a warnings-module line stopped inside its category
// ("x.py:147: Runtime" then "Warning: ..."). `row` is the whole row. Its rest goes on at the next line's
// first column: a next line that begins with a blank (a source line under a frame that a viewer cut at
// the width rather than wrapped) is not its rest.
bool CutShort(std::string_view row) {
  size_t i = 0;
  while (i < row.size() && IsBlank(row[i])) ++i;
  const std::string_view t = row.substr(i);
  if (StartsWith(t, "File \"")) {
    const size_t quote = t.find('"', 6);
    if (quote == std::string_view::npos) return true;
    const std::string_view after = t.substr(quote);  // '", line 11, in f'
    if (after.size() < 8) return std::string_view("\", line ").substr(0, after.size()) == after;
    if (!StartsWith(after, "\", line ")) return false;
    size_t j = 8;
    while (j < after.size() && IsDigitByte(after[j])) ++j;
    const std::string_view rest = after.substr(j);  // ", in f"; empty: a SyntaxError's frame, whole
    if (StartsWith(rest, ", in <")) return rest.back() != '>';  // "<module" then ">"
    return !rest.empty() && rest.size() <= 5 && std::string_view(", in ").substr(0, rest.size()) == rest;
  }
  // "path.py:147: Runtime": a category's start after a line number, with no ':' after it.
  size_t w = row.size();
  while (w > 0 && IsWordByte(row[w - 1]) && row[w - 1] != '.') --w;
  if (w == row.size() || w < 6 || row[w - 1] != ' ' || row[w - 2] != ':' || !IsUpper(row[w])) return false;
  size_t d = w - 2;
  while (d > 0 && IsDigitByte(row[d - 1])) --d;
  return d < w - 2 && d >= 4 && row[d - 1] == ':' && row.substr(d - 4, 3) == ".py" &&
         !EndsWith(row.substr(w), "Warning");
}

// Note: [Ends with a directory]. A message that names a directory often prints it with its trailing separator and
// ends its line there, the next line a sentence of its own (torchvision's ImageFolder: "Found 0 images in subfolders
// of: K:\data\train\" then "Supported image extensions are: ..."). A row of exactly a usual width that ends so is a
// coincidence of lengths when its last word is a path (two separators or more) and the next line opens with a
// capitalised word of letters, a blank and a second word with no separator: a cut inside a path goes on with the
// path's rest ("Program" then "Files\x" keeps a separator in its second word).
bool EndsWithDirectory(std::string_view row, std::string_view next) {
  auto separator = [](char c) { return c == '/' || c == '\\'; };
  if (row.empty() || !separator(row.back())) return false;
  const size_t blank = row.find_last_of(" \t");
  const std::string_view last = blank == std::string_view::npos ? row : row.substr(blank + 1);
  if (std::count_if(last.begin(), last.end(), separator) < 2) return false;
  if (next.empty() || !IsUpper(next[0])) return false;
  size_t i = 1;
  while (i < next.size() && (IsLower(next[i]) || IsUpper(next[i]))) ++i;
  if (i == next.size() || next[i] != ' ') return false;
  const size_t end = std::min(next.find_first_of(" \t", i + 1), next.size());
  const std::string_view second = next.substr(i + 1, end - i - 1);
  return !second.empty() && std::none_of(second.begin(), second.end(), separator);
}

}  // namespace

int HardWrap::DetectWidth(std::string_view head) {
  constexpr int kMinWidth = 40, kMaxWidth = 400;
  // Every log's head passes here: lines found with memchr, and code points counted one by one only in
  // a head that is not all ASCII.
  const bool ascii = IsAscii(head);
  std::vector<std::string_view> lines;
  std::vector<int> chars;
  lines.reserve(kHeadLines + 1);
  chars.reserve(kHeadLines + 1);
  int width = 0;
  for (size_t at = 0; at < head.size();) {
    const void* found = std::memchr(head.data() + at, '\n', head.size() - at);
    const size_t nl = found ? static_cast<size_t>(static_cast<const char*>(found) - head.data()) : head.size();
    const std::string_view line = WithoutCr(head.substr(at, nl - at));
    const int n = ascii ? static_cast<int>(std::min<size_t>(line.size(), kMaxWidth + 1)) : Chars(line, kMaxWidth);
    if (n > kMaxWidth) return 0;  // a wrap at a plausible width leaves no longer line
    lines.push_back(line);
    chars.push_back(n);
    width = std::max(width, n);
    at = nl + 1;
  }
  if (width < kMinWidth) return 0;
  int near = 0, strong = 0, inside = 0, cut = 0;
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (chars[i] < width && chars[i] >= width - 8) ++near;
    if (chars[i] != width || i + 1 == lines.size()) continue;
    const std::string_view row = lines[i], next = lines[i + 1];
    // Cheapest first: a log of records of one layout (metric lines) is told by its first word.
    if (SameKey(row, next) || EndsWith(row, "  ") || row.back() == '\t') continue;
    if (!next.empty() && !IsBlank(next[0]) && CutShort(row)) {  // Note: [Rows cut short]: a split, and a sure one
      if (seen.insert(row).second) ++cut, ++strong, ++inside;
      continue;
    }
    // A marker drawn under a source line (Python's carets, TorchScript's "~~~~ <--- HERE").
    if (EndsWith(row, "<--- HERE") || row.find_first_not_of(" ^~") == std::string_view::npos) continue;
    if (row.find("%|") != std::string_view::npos || HoldsAsciiBar(row) || IsEpochHeader(next) ||
        StartsOwnLine(EndsDrawn(row), next, true)) {
      continue;
    }
    if (!seen.insert(row).second) continue;
    // Note: [Script change at a cut]. A row that ends in ASCII before a line that opens with a character
    // of another script (a Chinese sentence after an English error line of exactly W characters, as in
    // 2s-AGCN#56) is a line ending where a sentence of the reporter's own language begins, not a cut inside
    // a word: a wrap cuts a line in mid-text, and text goes on in its own script.
    if (!(static_cast<unsigned char>(row.back()) & 0x80) && (static_cast<unsigned char>(next[0]) & 0x80)) continue;
    // Note: [Broken after a closing quote]. A row that ends with a double quote closing one it opened, its next
    // line going on in small letters ('...fbgemm.dll"' then 'or one of its dependencies.'), was broken at the
    // blank after the quotation by an editor or an issue form, which drops that blank: a cut at a width keeps
    // it, at the start of the next row. Such a row of exactly W characters is a coincidence of lengths.
    if (row.back() == '"' && std::count(row.begin(), row.end(), '"') % 2 == 0 && IsLower(next[0])) continue;
    // Note: [Ends with a colon]. A row ending in ':' announces what its next line holds (TorchScript's
    // "... is currently not supported in Torchscript:" before "at /path/rnn.py:251:8", a heading before its
    // list): a line that ends there, not a cut, however long it is (pytorch#23390's 132 characters).
    if (row.back() == ':') continue;
    if (EndsWithDirectory(row, next)) continue;  // Note: [Ends with a directory]
    // "Mem: ..." then "Swap: ...": rows of one table. Not a row that stops inside a word whose next line
    // goes on in small letters ("... Dropout(3).training=Tr" then "ue BatchNorm1d(5)..."): the words
    // of one table's rows begin it.
    if (SameWordShape(row, next) && !(IsInWord(row.back()) && IsLower(next[0]))) continue;
    if (!IsBlank(next[0]) && Shape(next) != Shape(row)) ++strong;
    if ((IsInWord(row.back()) && IsInWord(next[0])) || !OpensLine(next[0])) ++inside;
  }
  const bool usual = std::find(std::begin(kUsualWidths), std::end(kUsualWidths), width) != std::end(kUsualWidths);
  if ((strong >= 3 || (usual && strong >= 2)) && strong >= near) return width;
  if (usual && inside >= 1 && inside >= near / 4) return width;
  if (usual && cut >= 1) return width;  // Note: [Rows cut short]
  return 0;
}

int HardWrap::DetectWordWidth(std::string_view head) {
  constexpr int kCap = 4096;
  std::vector<std::string_view> lines;
  std::vector<int> chars;
  for (size_t at = 0; at < head.size();) {
    const void* found = std::memchr(head.data() + at, '\n', head.size() - at);
    const size_t nl = found ? static_cast<size_t>(static_cast<const char*>(found) - head.data()) : head.size();
    const std::string_view line = WithoutCr(head.substr(at, nl - at));
    lines.push_back(line);
    chars.push_back(Chars(line, kCap));
    at = nl + 1;
  }
  // A line longer than the width is one a wrap at it left whole: no blank after its indentation up to the
  // width's column (a long path, a URL); any other longer line says the paste was not wrapped there.
  auto whole = [&](size_t i, int width) {
    const std::string_view line = lines[i];
    size_t b = 0;
    while (b < line.size() && IsBlank(line[b])) ++b;
    while (b < line.size() && !IsBlank(line[b])) ++b;
    return b == line.size() || Chars(line.substr(0, b), width) > width;
  };
  // Of the rows of at least W-24 characters followed by a line at the first column that starts no line of
  // its own, the splits: those whose next line's first word would not have fitted on them.
  auto passes = [&](int width) {
    int splits = 0, rows = 0, shorter = 0, lower = 0, cut = 0;
    std::unordered_set<std::string_view> seen;
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      const std::string_view row = lines[i], next = lines[i + 1];
      if (chars[i] < width - 24 || chars[i] > width || WithoutTrailingColour(row).empty() ||
          IsBlank(WithoutTrailingColour(row).back()) || next.empty() ||
          IsBlank(next[0])) {
        continue;
      }
      if (StartsOwnLine(EndsDrawn(row) || EndsHeader(row), next, true) || SameKey(row, next) ||
          SameWordShape(row, next)) {
        continue;
      }
      // A progress bar's row (tqdm's "%|", Keras' "[=====]") ends where the bar was drawn, not at a wrap.
      if (row.find("%|") != std::string_view::npos || HoldsAsciiBar(row)) continue;
      // A frame line stopped before its function or its line number (Note: [Rows cut short]): a sure split.
      if (CutShort(row)) {
        if (seen.insert(row).second) ++rows, ++splits, ++cut, shorter += chars[i] < width;
        continue;
      }
      // A next line that opens with a bracket, a rule, a list's or a quote's mark or a prompt, or with a
      // label ("train.py: error: ..." under argparse's usage line), is as often a line of its own: no
      // evidence either way.
      if (OpensLine(next[0])) continue;
      if (SplitsAQuotedToken(row, next)) continue;
      // A comma-separated record with no blank (a CSV header or row printed under a log record) is a
      // line of its own as often as a wrapped word: no evidence either way.
      if (next.find(' ') == std::string_view::npos && std::count(next.begin(), next.end(), ',') >= 3) continue;
      const size_t first_end = std::min(next.find(' '), next.size());
      if (first_end > 1 && next[first_end - 1] == ':') continue;
      if (!seen.insert(row).second) continue;
      ++rows;
      if (chars[i] + 1 + FirstWordChars(next) <= width) continue;
      ++splits;
      const bool goes_on = IsLower(next[0]) || IsDigitByte(next[0]);
      lower += goes_on;
      shorter += chars[i] < width && goes_on;
    }
    // A hard wrap's splits are rows of exactly the width (DetectWidth's); a word wrap leaves shorter ones
    // too, and of those only the sure ones count (a frame line cut short, a row whose next line goes on in
    // a small letter or a digit): a hard-wrapped paste has a line just shorter than the width before a
    // sentence now and then ("...might be incorrect." then "For debugging consider passing ..."). A short
    // paste has one or two splits: then every candidate row must be one, and either one is a frame line
    // cut short or each goes on in a small letter or a digit (a sentence's rest, a number).
    if (shorter == 0 || 4 * shorter < splits) return false;
    if (splits >= 3 && 3 * splits >= 2 * rows) return true;
    return splits >= 1 && splits == rows && (cut >= 1 || lower == splits);
  };
  // The widest usual width whose rows reach within 8 of it, every longer line left whole by it, and whose
  // splits pass (a wrap at 80 whose longest row has 78 characters passes at 78 too, joining more than it
  // should).
  for (auto w = std::rbegin(kWordWidths); w != std::rend(kWordWidths); ++w) {
    int longest = 0;
    bool fits = true;
    for (size_t i = 0; i < lines.size() && fits; ++i) {
      if (chars[i] <= *w) {
        longest = std::max(longest, chars[i]);
      } else {
        fits = whole(i, *w);
      }
    }
    if (fits && longest >= *w - 8 && passes(*w)) return *w;
  }
  return 0;
}

std::string_view HardWrap::Head(std::string_view input) {
  size_t end = 0;
  for (int lines = 0; lines < kHeadLines && end < input.size() && end < kHeadBytes; ++lines) {
    size_t nl = input.find('\n', end);
    if (nl == std::string_view::npos || nl >= kHeadBytes) {
      // A line the head cuts: kept only when the input ends inside the head.
      if (input.size() <= kHeadBytes && nl == std::string_view::npos) end = input.size();
      break;
    }
    end = nl + 1;
  }
  return input.substr(0, end);
}

std::uint64_t HardWrap::Absorbed(std::uint64_t line, bool through) const {
  // joins_ is sorted by output line; the rows joined before `line` (or up to it, `through`).
  auto it = through ? std::upper_bound(joins_.begin(), joins_.end(), std::make_pair(line, UINT64_MAX))
                    : std::lower_bound(joins_.begin(), joins_.end(), std::make_pair(line, std::uint64_t{0}));
  return it == joins_.begin() ? 0 : std::prev(it)->second;
}

void HardWrap::Track(std::string_view bytes) {
  for (char c : bytes) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && row_chars_ <= width_) ++row_chars_;
    if (row_head_.size() < kLook) row_head_ += c;
    if (tail_size_ == sizeof(tail_)) {
      std::copy(tail_ + 1, tail_ + sizeof(tail_), tail_);
      --tail_size_;
    }
    tail_[tail_size_++] = c;
  }
}

// Settles whether the held start of the next line continues the pending row, writes the line end or
// not, and then the held bytes.
// Note: [Joined lines bound]
// joins_ maps the output's lines back to the input's, one entry per output line that has rows joined
// to it: on a paste it is a few entries, but a huge input whose head looked wrapped (a console log of
// gigabytes, a hostile one) would grow it without end. Past max_joined_lines_ lines with joins, a
// row starts no new joined line: the rest is read as it came, line numbers stay right, and memory
// stays bounded (no real paste comes near 262,144 joined lines).
void HardWrap::Decide(std::string* out) {
  decided_ = true;
  const bool room = joins_.size() < max_joined_lines_ || joins_.back().first == out_line_;
  // Note: [Rows cut short]: such a row goes on on the next line, whatever that line looks like.
  const bool joined = words_ ? WordContinues(start_key_, pending_drawn_, pending_chars_, width_, held_, held_complete_)
                             : (pending_cut_ && !held_.empty() && !IsBlank(held_[0])) ||
                                   Continues(start_key_, pending_drawn_, held_, held_complete_);
  if (room && joined) {
    if (words_) out->push_back(' ');  // the blank the wrap took
    if (!joins_.empty() && joins_.back().first == out_line_) {
      ++joins_.back().second;
    } else {
      joins_.emplace_back(out_line_, joined_rows() + 1);
    }
    row_starts_line_ = false;
  } else {
    out->append(pending_eol_);
    ++out_line_;
    row_starts_line_ = true;
  }
  out->append(held_);
  held_.clear();
}

void HardWrap::EndRow(std::string* out) {
  if (!decided_) {
    held_complete_ = true;
    Decide(out);
  }
  const std::string_view row(row_head_);
  // Note: [Word-wrapped pastes]: any row of at most the width not ending in a blank may have been broken at
  // one; a longer row (a word with no blank before the width, a path) ends its line.
  const bool wide = words_ ? row_chars_ > 0 && row_chars_ <= width_ && !IsBlank(tail_[tail_size_ - 1])
                           : row_chars_ == width_;
  if (row_starts_line_) start_key_ = Key(row);
  const std::string eol = cr_held_ ? "\r\n" : "\n";
  cr_held_ = false;
  if (wide) {
    decided_ = false;
    held_complete_ = false;
    pending_eol_ = eol;
    pending_drawn_ = EndsDrawn(std::string_view(tail_, tail_size_));
    // Note: [Word-wrapped pastes]: IPython's header is as much a line of its own as a drawn rule.
    if (words_ && EndsHeader(std::string_view(tail_, tail_size_))) pending_drawn_ = true;
    pending_cut_ = row_head_.size() < kLook && CutShort(row);  // the whole row is in row_head_
    pending_chars_ = row_chars_;
  } else {
    out->append(eol);
    ++out_line_;
    row_starts_line_ = true;
  }
  row_chars_ = 0;
  row_head_.clear();
  tail_size_ = 0;
}

void HardWrap::Byte(char c, std::string* out) {
  if (c == '\n') {
    EndRow(out);
    return;
  }
  if (cr_held_) {
    cr_held_ = false;
    Keep('\r', out);  // a '\r' inside the row (a progress bar's rewrite): part of the row after all
  }
  if (c == '\r') {
    cr_held_ = true;
    return;
  }
  Keep(c, out);
}

void HardWrap::Keep(char c, std::string* out) {
  Track(std::string_view(&c, 1));
  if (!decided_) {
    held_ += c;
    if (held_.size() >= kLook) {
      held_complete_ = false;
      Decide(out);
    }
    return;
  }
  out->push_back(c);
}

void HardWrap::Feed(std::string_view data, std::string* out) {
  out->reserve(out->size() + data.size() + 2);
  for (char c : data) Byte(c, out);
}

void HardWrap::Finish(std::string* out) {
  if (!decided_) {
    if (held_.empty() && !cr_held_) {
      // The input ended with the pending row's line end: write it.
      decided_ = true;
      out->append(pending_eol_);
      return;
    }
    held_complete_ = true;
    Decide(out);
  }
  if (cr_held_) {
    cr_held_ = false;
    out->push_back('\r');
  }
}

}  // namespace triage
