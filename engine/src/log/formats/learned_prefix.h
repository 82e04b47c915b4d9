// Note: [Learned prefix]
// docker, journalctl, GitHub Actions, glog/absl and logging formatters put a prefix before EVERY line:
// "2024-03-02T10:15:31.48Z ", "Mar 02 10:15:31 host python3[48211]: ", "[2024-01-01 12:00:00,123][ERROR] ",
// "2024-01-02 10:11:12,345 INFO ", "I1128 10:11:12.345678 12345 file.py:42] ". Rather than list formats,
// a reader learns the prefix's shape from one line and strips every line of the same shape: the same
// bytes, except that each run of digits matches any run of digits (times, pids), a log level word any
// level word ("INFO" learned, "ERROR" matched), glog's severity letter any severity letter, and a
// source location ("trainer.py:214", "module:function:42") any location. A line teaches a shape when
//  - it starts with a log record's header (LogPrefix::RecordHeader): a time stamp at the very start (a
//    date and time, a time alone, glog's "I1128 10:11:12.345678", a syslog "Mar 02 10:15:31"), and after
//    it the level, bracketed tags, a pid, a location, up to the separator before the message; or
//    Note: [Level before the time stamp]: a formatter may put the level first, "%(levelname)s
//    %(asctime)s [%(filename)s:%(lineno)d] %(message)s", as vLLM's logger does with the date "%m-%d"
//    ("ERROR 04-26 20:27:52 [core.py:390] ", before 0.7 "INFO 05-01 12:00:00 llm_engine.py:100] ") and
//    many projects' loggers with asctime's whole date, the level padded or not. A capitalised level word,
//    blanks, then a time stamp (or that month-day date) start a record header there too; without it the
//    prefix was learned only from a line whose header stood right after it, so a traceback whose header
//    followed the logger's message on the same line ("EngineCore hit an exception: Traceback (most
//    recent call last):", vLLM 0.8) was read as separate log lines, its frames and type lost;
//  - the text before a "Traceback (most recent call last):" header on it looks like a prefix (short,
//    ends at a separator, holds a digit or a bracket, no quote or '='; never a progress bar's text,
//    Note: [Glued headers], nor the header's own "Original" or "Exception Group" words).
// One class, LogPrefix, learns and matches the shape for every place a line is read: the segmenter's
// line hook (LearnedPrefixReader, below, which strips it before any reader but the line prefixes' own
// sees the line), the log path's prefilter (which judges a stopped line with the segmenter's learned
// prefix removed, and lets a record header it cannot strip yet reach the segmenter to teach it:
// diagnose/engine.cc), and metric extraction (its own LogPrefix over the raw lines it reads first, the
// shape of the first record header it meets; its readers of a line's first column, epoch tables, CSV
// rows and the tutorial layouts, read the text after it, and only on a line where such a layout can
// begin where the last prefix ended, a digit, '[' or "epoch": metrics.cc). A line without a prefix costs
// a comparison or two: a record header starts with a digit, '[', a month's initial or glog's letter
// followed by digits. Matching a learned shape costs one pass over the prefix: its fixed part (the
// literal bytes and the digit runs of the learned text's widths up to the first other slot, e.g. the
// whole "2026-11-21T09:00:04.004Z " of an ISO stamp) is compared 8 bytes at a time, the bytes that
// stand for themselves by equality and the digit runs' bytes by a digit test on all 8 at once, and the
// slot by slot walk (MatchBySteps) reads only what is left after it, or the whole prefix when a digit
// run has another width than the learned one (a time "9:05:01" after "10:11:12"). On web-server-like
// text, where a third of the lines carry an ISO stamp, this took a stopped line's prefix from ~660
// instructions to ~300 (callgrind).
#ifndef TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_
#define TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace triage {

class Segmenter;

class LogPrefix {
 public:
  // The length of the learned prefix at the start of `line`, or 0 (nothing learned, or another shape).
  // A line that ends inside the prefix's trailing separators (a blank line of the log, its trailing
  // blank trimmed) matches as a whole.
  size_t Match(std::string_view line) const;
  // The same answer as Match, always by the slot by slot walk (the reference Match is tested against).
  size_t MatchBySteps(std::string_view line) const { return StepsFrom(line, 0, 0); }
  // Learns the shape of the record header `line` starts with (RecordHeader); returns its length, or 0
  // when the line starts with none (then nothing changes).
  size_t LearnRecord(std::string_view line);
  // Learns the shape of line[0, at) when it looks like a log prefix (`at`: a traceback header on the
  // line); returns `at`, or 0 when it does not (then nothing changes).
  size_t LearnBefore(std::string_view line, size_t at);
  bool learned() const { return !shape_.empty(); }
  // False when `line` cannot carry the learned prefix: the first byte of the shape that stands for
  // itself is not where the line that taught it had it (give or take one byte: a digit run may be one
  // digit longer or shorter). Two or three comparisons, for a reader of every line (metrics.cc).
  bool MayMatch(std::string_view line) const {
    if (mark_at_ == 0) return true;
    const size_t at = mark_at_;
    return (at < line.size() && line[at] == mark_) || (at + 1 < line.size() && line[at + 1] == mark_) ||
           (at - 1 < line.size() && line[at - 1] == mark_);
  }
  const std::string& shape() const { return shape_; }

  // The length of the log record header `line` starts with (its time stamp and what follows it up to
  // the message), or 0.
  static size_t RecordHeader(std::string_view line);
  // True when `c` may begin a record header: a cheap test before RecordHeader.
  static bool MayStartRecord(char c) {
    return (c >= '0' && c <= '9') || c == '[' || (c >= 'A' && c <= 'Z');
  }

 private:
  // Remembers, for MayMatch, the first byte of `prefix` (the text a shape was learned from) that stands
  // for itself in the shape, and where it was.
  void NoteMark(std::string_view prefix);
  // Sets shape_ to the shape of `prefix`, and the fixed part from it.
  void Learn(std::string_view prefix);
  // The slot by slot walk from shape_[k], line[j] (the line's bytes before j matched shape_'s before k).
  size_t StepsFrom(std::string_view line, size_t k, size_t j) const;

  std::string shape_;  // the prefix learned, with its variable parts as slots; may be empty
  // The fixed part of shape_ (Note: [Learned prefix]): shape_[0, fixed_shape_) stands for exactly the
  // learned text's first fixed_len_ bytes; per 8 of them, three words: the bytes, 0xff where a byte must
  // equal the word's, 0x80 where it must be a digit. fixed_len_ 0: no fixed part.
  size_t fixed_len_ = 0;
  size_t fixed_shape_ = 0;
  std::vector<std::uint64_t> fixed_;
  size_t mark_at_ = 0;  // where the learned text had its first literal byte (0: MayMatch checks nothing)
  char mark_ = 0;
};

class LearnedPrefixReader {
 public:
  // `line` hook: strips the prefix from every normalised line; one may teach a new prefix while no
  // incident or block is open, or in a block that allows it (BlockReader::MayLearnPrefix). A line
  // that carried the prefix is marked so (Segmenter::set_line_prefixed: Note: [Streams]).
  static bool LineHook(Segmenter& s, std::string* line);
  // Removes the learned prefix from *line; while `may_learn` (no block open), a line that starts with a
  // record header (when `may_learn_record`), or whose text before a traceback header looks like a log
  // prefix, teaches a new one. Returns true when a prefix was removed.
  bool Strip(std::string* line, bool may_learn, bool may_learn_record = true);
  const LogPrefix& prefix() const { return prefix_; }
  // How many blanks (spaces, tabs) ended the prefix the last successful Strip removed.
  size_t stripped_blanks() const { return stripped_blanks_; }

 private:
  // Removes line[0, n), remembering how many blanks ended it.
  void Erase(std::string* line, size_t n);

  LogPrefix prefix_;
  size_t stripped_blanks_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_
