// Note: [rich tracebacks]
// rich.traceback draws the frames in a box: "│ /path/program.py:12 in encode │", a window of numbered
// source lines with "❱" on the line that ran (indent guides drawn as "│"), and "╰───╯" before the plain
// exception line.
//
// rich's logging handler (RichHandler(rich_tracebacks=True), logger.exception()) draws the same box in
// the record's message column, so every line of it, the exception line under it included, is indented
// by that column ("                             RuntimeError: mat1 and mat2 shapes"). The box's
// indentation is kept: under the closed box, a line indented exactly as far that reads as an exception
// line is the exception line, and the lines after it at that indentation are its message. rich wraps
// the message, and everything in the box, to the box's width: a message line that ends where the next
// line's first word would not have fitted was broken by rich and is joined back with a blank; other
// lines keep their line breaks. In the box, a frame's "path:line in function" wrapped over several
// lines (a narrow terminal, an 80-column log file) is read whole: its pieces are joined, with nothing
// between when a piece filled the box (a path cut inside a word), else with a blank.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_RICH_H_
#define TRIAGE_ENGINE_LOG_FORMATS_RICH_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class RichReader {
 public:
  // Idle trigger: "╭─── Traceback (most recent call last) ───╮" starts a traceback read as a box (the
  // title may be cut short by a narrow box: "╭─ Traceback (most recent call last─╮").
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A line of the open traceback's frame section; true when it belonged to the box.
  bool BoxLine(Segmenter& s, std::string_view trimmed);
  // Under the closed box of an indented traceback (RichHandler's): `line` is the exception line.
  bool IsExceptionLine(const std::string& line, std::string_view trimmed);
  // While the message under such a box is read: whether `line` goes on with it (it is indented as the
  // box was), and in *wrapped whether rich broke the message there only to fit its width.
  bool InMessage() const { return active_ && closed_ && indent_ > 0; }
  bool MessageLine(const std::string& line, std::string_view trimmed, bool* wrapped);
  bool active() const { return active_; }
  void Reset() { *this = RichReader(); }

 private:
  bool active_ = false;           // the open traceback is rich's box
  bool closed_ = false;           // its "╰───╯" was read
  bool expect_location_ = false;  // the next text in the box is a frame's location (after the top or a blank)
  size_t indent_ = 0;             // the columns before the box's "╭"
  size_t width_ = 0;              // the box's width in characters, "╭" to "╮"
  std::string location_;          // a frame location wrapped over box lines, so far
  bool location_filled_ = false;  // its last piece filled the box (cut inside a word)
  size_t printed_ = 0;            // the characters of the last line printed under the box
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_RICH_H_
