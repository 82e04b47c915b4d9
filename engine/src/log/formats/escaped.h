// Tracebacks flattened onto one line with literal "\n" (a job scheduler's error field, a JSON log
// record): the pieces are read as lines, with JSON/Python string escapes undone.
//
// Note: [One-line tracebacks] A traceback whose newlines a form, a chat or an HTML page lost arrives as
// one line, its pieces run together with a blank (or none) where each line ended: "Traceback (most
// recent call last): File "x.py", line 3, in <module> y = f(x) File ... RuntimeError: ...". A line
// holding the header followed (after blanks) by a frame's `File "` and more text after that frame (a
// header joined to its first frame alone, the other newlines kept, is read line by line as before) is
// read as the lines it was: the
// header, each `File "PATH", line N, in F` as a frame line and the text up to the next frame as its
// source line; after the last frame, the source line ends where an exception line starts (the first
// word, after a blank, that is an exception type followed by ':'), and a chain sentence ("The above
// exception was the direct cause ...", "During handling ...") or a worker's "Original Traceback" in
// the message starts lines of its own. Text before the header is a line of its own. A line that merely
// quotes the header (no frame after it) is read as it is. Found by the cut-paste measure's one_line
// form (tests/cut_paste_test.cc): of 836 diagnosed corpus tracebacks joined onto one line, 582 lost
// their diagnosis before.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_ESCAPED_H_
#define TRIAGE_ENGINE_LOG_FORMATS_ESCAPED_H_

#include <string_view>

namespace triage {

class Segmenter;

class EscapedReader {
 public:
  // `raw_line` hook: reads a raw line holding a flattened traceback; returns false (nothing read) for
  // any other line.
  static bool RawLineHook(Segmenter& s, std::string_view raw);
  // `raw_line` hook: reads a raw line holding a one-line traceback (Note: [One-line tracebacks]);
  // returns false (nothing read) for any other line.
  static bool OneLineHook(Segmenter& s, std::string_view raw);
  // Reads `text` with escapes undone, as lines split at "\n" (in JSON, up to the first unescaped quote).
  static void ReadEscaped(Segmenter& s, std::string_view text, bool json);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_ESCAPED_H_
