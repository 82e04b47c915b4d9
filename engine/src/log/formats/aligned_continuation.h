// Note: [Aligned continuations]
// rich's RichHandler (kohya_ss, so-vits-svc and many web UIs log through it) lays a record out in
// columns: the time, the level padded to its width, then the message; a message longer than the
// terminal goes on on the next lines, indented to the message's column, and the first line may end in
// the right-hand column of the file that logged it ("warnings.py:109"):
//
//   02:54:18-197331 ERROR    Could not load torch: [WinError 126] ... Error loading
//                            "P:\AI\kohya_ss\venv\lib\site-packages\torch\lib\fbgemm.dll" or one of ...
//
// Read line by line, no rule sees the record's text, which neither line holds whole. So a record line
// of a leveled logger (a time-like prefix or none, a level word ERROR or WARNING in capitals padded to
// its column's width by at least two blanks, then the message at column c) makes the lines right after it, while nothing is open, continuations of
// its message when each is indented by exactly c spaces and goes on with text that starts nothing by
// itself (no traceback header or frame, no exception line, no drawing of rich's traceback box, no line
// an `interrupts` hook names). The record's text, the path column cut off, and the continuations joined
// with one space each are classified as one line (Segmenter::ContinueLogLine): the log-line incident
// spans the record's lines, or the record line's own incident goes on. A line indented otherwise (a
// warning's source line, two columns further in; ordinary indented output) ends the record and is read
// as before; so does a record line a format's trigger took. Only ERROR and WARNING records are read:
// each holds an idle keyword ("Error", "Warning"), so the log path's prefilter never skips one, and the
// line after it is read too when it starts with the record's indentation (Segmenter::ReadNextLine):
// the log path and a line-by-line reader find the same. At most 64 lines join one record. A record
// whose every line carries a learned prefix before the logger's own layout (a collector's time stamps:
// Note: [Learned prefix]) is read the same way after that prefix. A level followed by one blank or by a
// separator ("2024-05-01 12:00:01,123 ERROR Killed", "... - ERROR - ...", logging's usual formats) is no
// column layout: such a logger does not align a message's rest, and its record header is the learned
// prefix's to learn and strip (tests/paste_forms_test.cc, form timed_logging: 31 of the 1122 diagnosed
// corpus logs lost or changed their diagnosis with that prefix on every line before this). Nor is a
// record whose message is a traceback's frame line (`... ERROR   File "x.py", line 3, in f`): the blanks
// after the level are the frame's own indentation behind a one-blank separator, not a padded column
// (Note: [Headerless tracebacks] in python_traceback.cc). A record pasted inside one pair of Markdown
// inline backticks has the opening backtick before its first line only (also behind a collector's
// prefix): the record's time may carry that one backtick, the continuations are read at the console's
// indentation, one column less, and the joined text leaves the backtick out (wild
// sdnext-sdxl-on-original-backend-proj-in-linear-vs-conv). When such a record is the log's first line,
// nothing is learned yet, so the record header the learned prefix would learn from it is looked behind
// (LogPrefix::RecordHeader), which stops before a second time, backticked or not.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_ALIGNED_CONTINUATION_H_
#define TRIAGE_ENGINE_LOG_FORMATS_ALIGNED_CONTINUATION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class AlignedContinuationReader {
 public:
  // `line` hook: a continuation of the record before it is joined to that record and consumed; any
  // other line read while idle may start a record.
  static bool LineHook(Segmenter& s, std::string* line);
  // The column at which a record line's message starts, or 0 when `line` is no ERROR or WARNING record
  // of a leveled logger.
  static size_t MessageColumn(std::string_view line);
  // True when the line being read is a record line this reader took, whose time and level it reads
  // as the record's own (no learned prefix is stripped from it: Note: [Learned prefix]).
  bool TookRecordLine(std::uint64_t line_no) const { return active_ && !outer_ && joined_ == 0 && last_line_ == line_no; }
  // The level words a record may carry.
  static const char* const kLevels[2];

 private:
  bool active_ = false;          // the last line read was a record or one of its continuations
  std::uint64_t first_line_ = 0;  // the record's first line
  std::uint64_t last_line_ = 0;   // its last line so far
  size_t column_ = 0;             // its message column
  bool outer_ = false;            // its lines carry the learned prefix: columns count after it
  int joined_ = 0;                // continuations joined so far
  std::string rank_;              // the rank prefix its lines carried
  std::string text_;              // the record's text so far, as one line
  std::string path_column_;       // the right-hand path column of its first line ("   warnings.py:109")
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_ALIGNED_CONTINUATION_H_
