// Note: [Hard-wrapped pastes]
// A log copied out of a console window that breaks long lines at its width (Windows' console, a
// terminal multiplexer, a web terminal, a log viewer) or through a form that hard-wraps its text comes
// back with every line longer than the width W cut into rows of exactly W characters, the last row of
// each holding the rest. A message broken that way no longer matches the rules ("mat1 and mat2 shapes
// cannot be multip" / "lied"), a frame line loses its `, line N, in f`, a metric line its last numbers.
//
// Such a paste is recognised from its head (the first kHeadLines lines or kHeadBytes bytes) by what a hard
// wrap leaves and an ordinary log seldom has: W, the length of its longest line in code points, is a
// plausible width (40 to 400), and rows of exactly W characters are followed by lines that do not look like
// lines of their own (a "split"). A row counts as a split only when it does not end in two blanks or a tab
// (a padded row drawn to the width, as rich draws its boxes), is no progress bar (tqdm draws its bar to the
// terminal's width; Keras' Progbar its "[=====]" rows, all of one length) and no marker drawn under a source line (carets, TorchScript's "<--- HERE"), when its
// next line is not blank, not indented (a frame's source line), not an exception line, a traceback header
// or a chain line, and does not begin with the row's first word (digits aside: the next record of the same
// shape, as metric lines of one layout are) nor with a first word of the same shape (runs of capitals,
// small letters and digits as one mark: "Mem:" and "Swap:", rows of one table), nor with a character of
// another script after a row that ends in ASCII (an English error line of exactly W characters before the
// reporter's sentence in Chinese: Note: [Script change at a cut] in hard_wrap.cc); identical rows count once
// (a repeated line). A strong split is one whose next line also differs from the row in its first
// character's kind (upper case, lower case, digit, the punctuation itself). The paste is hard-wrapped at W
// when
//   - at least three strong splits, or two where W is a console's usual width (80, 100, 120, 132, 160),
//     outnumber or equal the lines just shorter than W (W-8 to W-1): a wrap piles every longer line up at
//     W, an ordinary log's lengths thin out towards its longest; or
//   - W is a usual width and the splits whose next line does not open with a bracket, a rule, a list's
//     or a quote's mark or a prompt ("[({<=-#*>|+$~!@%&"; unless the row ends inside a word and the next
//     line goes on with one) are at least a quarter of those lines: one long message in a short paste;
//     or
//   - W is a usual width and a row is a line cut short, whatever its next line looks like (Note: [Rows cut
//     short] in hard_wrap.cc: a frame line stopped before its function, a warning inside its category).
// A short paste (a warning and its source line, a one-line message, a five-line traceback) has a split or
// two to go by, so two of the looks above were refined for it: a row that stops inside a word whose next
// line goes on in small letters counts even when its first word has the row's first word's shape (a
// table's rows begin with words; "...training=Tr" then "ue BatchNorm1d"), and a row cut short counts
// even when its next line looks like a line of its own ("...py:147: Runtime" then "Warning: ..."). Of the
// corpus logs wrapped at 80 columns, 19 of 1089 were read as they came, all short (1 to 29 lines); now 10
// (rows that end before a bracket or a dash, "tensor.detach" then "().numpy()", progress bars, rows
// followed by many lines just shorter than W).
// Chosen on ours and the wild tuning logs (never corpus/heldout): no corpus log is taken for a wrapped
// paste except the eight that really are ones, wrapped where they were posted (WrappedPastes.* in
// tests/hard_wrap_test.cc lists them and counts the wrapped logs whose diagnosis still differs).
//
// Once a paste is known to be wrapped at W, every row of exactly W code points (a trailing '\r' aside)
// is joined to its next line, with nothing between, unless that line starts a line of its own by the
// looks above (blank, indented, exception or traceback line, the first word of the line the row began)
// or the row ends in a drawn rule or box ("=====", "----", a box-drawing character); a row cut short is
// joined to any next line that does not begin with a blank. Rows are joined as
// the bytes stream by: a session reads nothing until it has the head (it decides on the first piece fed
// in place when that piece holds the whole head, and otherwise gathers a copy of it), then holds only
// the next line's first bytes while a row of W waits. Line numbers in a report stay those of the input
// (FirstRow, LastRow).
//
// Not read: a console that counts double-width (CJK) characters as two cells wraps at fewer code points
// than W, so such rows are not seen as W wide; a paste whose head shows no wrap (a wrapped part after 200
// lines) is read as it is.
//
// Note: [Word-wrapped pastes]
// An editor, a mail client or `fold -s` wraps a long line at the last blank that fits the width W, so
// its rows are of every length up to W and the blank at the break is gone: "size mismatch for 0.weight:
// copying a param with shape torch.Size([32, 1, 3," then "3]) from checkpoint, ...", '  File "...",
// line 1671,' then "in load_state_dict". What such a wrap leaves is a row whose next line's first word
// would not have fitted on it: the row's length, a blank and that word come to more than W. A head is
// taken for word-wrapped (DetectWordWidth, asked before DetectWidth) at W, the widest usual width (72,
// 76, 78, 79, 80, 100, 120) at most 8 over its longest line for which, of its rows of at least W-24
// characters followed by a line at the first column that starts no line of its own (blank, indented,
// exception or traceback line, the row's first word or its shape: the looks above; nor after a drawn rule,
// a progress bar or IPython's "Traceback (most recent call last)"; nor before a line that opens with a
// bracket, a mark or a label such as "train.py:", which count neither way), at least three and two thirds
// are such splits, or, in a short paste, every one is and either one is a frame line cut short (Note:
// [Rows cut short]) or each goes on in a small letter or a digit; and when at least one split in four is a
// sure one shorter than W (a frame line cut short, or a next line going on in a small letter or a digit:
// a hard wrap's splits are rows of exactly W). Every line longer than W must be one the wrap left whole
// (no blank after its indentation up to column W: a long path). Then each row of at most W characters
// whose next line is such a line and whose first
// word would not have fitted is joined to it with one blank. The splits were chosen on ours and the wild
// tuning logs: the cut-paste measure's word_wrap_80 form (tests/cut_paste_test.cc) wraps every corpus
// log at 80 columns so: 883 kept, 483 lost, 39 other of 1405 changed logs before (main at fdd0cca5),
// 1278 / 114 / 13 with this reading. A head's decision holds for the whole input (a log concatenated after
// a word-wrapped one is read through the joiner), so the short-paste looks are strict: no log of ours or of
// tests/formats is taken for word-wrapped (ConcatenatedLogs in tests/incident_bound_test.cc).
#ifndef TRIAGE_ENGINE_LOG_HARD_WRAP_H_
#define TRIAGE_ENGINE_LOG_HARD_WRAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace triage {

class HardWrap {
 public:
  // How much of the input's start is looked at before deciding (whichever comes first).
  static constexpr size_t kHeadBytes = 16 * 1024;
  static constexpr int kHeadLines = 200;

  // The width `head` (whole lines; a last line without '\n' counts too) was hard-wrapped at, or 0 when
  // it does not look hard-wrapped.
  static int DetectWidth(std::string_view head);
  // The width `head` was word-wrapped at (Note: [Word-wrapped pastes]), or 0 when it does not look so;
  // a session asks it first, and DetectWidth when it gives 0.
  static int DetectWordWidth(std::string_view head);
  // The part of a whole input a session decides from: its first kHeadLines lines, at most kHeadBytes
  // bytes, of which the whole lines (all of it when the input ends within them).
  static std::string_view Head(std::string_view input);

  // Joining is bounded (Note: [Joined lines bound] in hard_wrap.cc): at most this many output lines
  // get rows joined to them, so the line map stays small on any input (16 bytes a line, 4 MiB).
  static constexpr size_t kMaxJoinedLines = size_t{1} << 18;

  // `words`: the rows were broken at blanks (Note: [Word-wrapped pastes]), not cut at exactly `width`.
  explicit HardWrap(int width, size_t max_joined_lines = kMaxJoinedLines, bool words = false)
      : width_(width), max_joined_lines_(max_joined_lines), words_(words) {}

  // Appends the bytes of `data` to *out with the wrapped rows joined; any chunking of the input gives
  // the same output.
  void Feed(std::string_view data, std::string* out);
  // Ends the input: appends whatever was held.
  void Finish(std::string* out);

  // Maps a 1-based line of the output to the input's lines: the first and the last row it was made of.
  std::uint64_t FirstRow(std::uint64_t line) const { return line + Absorbed(line, false); }
  std::uint64_t LastRow(std::uint64_t line) const { return line + Absorbed(line, true); }
  // The number of rows joined to the line before them so far.
  std::uint64_t joined_rows() const { return joins_.empty() ? 0 : joins_.back().second; }

 private:
  // Bytes of a line enough to tell whether it starts a line; a row of a console's usual widths up to 160
  // columns, in ASCII, is whole in them (Note: [Rows cut short] in hard_wrap.cc).
  static constexpr size_t kLook = 168;

  std::uint64_t Absorbed(std::uint64_t line, bool through) const;
  void Byte(char c, std::string* out);
  void Keep(char c, std::string* out);
  void EndRow(std::string* out);
  void Decide(std::string* out);
  void Track(std::string_view bytes);

  int width_;
  size_t max_joined_lines_;
  bool words_;
  // The row being read.
  int row_chars_ = 0;          // code points so far (capped at width_ + 1)
  std::string row_head_;       // its first kLook bytes
  char tail_[8] = {};          // its last bytes, newest last
  size_t tail_size_ = 0;
  bool cr_held_ = false;       // a '\r' read and not yet written (it may end the row)
  bool row_starts_line_ = true;
  // A row of exactly width_ whose line end is held until the next line shows whether it continues
  // (decided_ false).
  std::string pending_eol_;    // "\n" or "\r\n"
  bool pending_drawn_ = false; // that row ends in a drawn rule or box
  bool pending_cut_ = false;   // that row is a line cut short (Note: [Rows cut short] in hard_wrap.cc)
  int pending_chars_ = 0;      // that row's code points (Note: [Word-wrapped pastes])
  bool decided_ = true;        // the next line's fate is settled (its held bytes written)
  std::string held_;           // the next line's first bytes while undecided
  bool held_complete_ = false; // ... and they are the whole line
  std::string start_key_;      // the first word of the line the current row belongs to
  std::uint64_t out_line_ = 1; // the output line being written
  std::vector<std::pair<std::uint64_t, std::uint64_t>> joins_;  // (output line, rows joined up to it)
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_HARD_WRAP_H_
