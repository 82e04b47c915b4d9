// Note: [Emphasis across lines]
// A traceback pasted into an issue or a forum without a code block is sometimes set in bold or italics as a
// whole: "**" (or "__") before its first line and after its last ("**File \".../helper.py\", line 333, in
// save_features" ... "RuntimeError: stack expects each tensor to be equal size, ...**"). An exception line in
// emphasis on its own is read by the error-line trigger (WithoutEmphasis in python_traceback.cc). A pair that
// spans lines leaves its opener glued to a header or a frame line, which is then read as text (the frames are
// lost, the report has no location), and its closer glued to the message. The reader removes a "**" or "__"
// at the very start of a line when what follows starts a traceback (its header, a frame line, a chain
// separator) or is an exception line, and holds no other such mark ("**ImportError:** ..." is a bold label);
// the same mark at the end of that line closes the pair at once. Else the mark that ends a later line holding
// no other such mark closes it and is removed. A
// blank line ends the paragraph, which Markdown's emphasis never crosses, and so does kMaxOpenLines lines
// without a closer: the state is one flag and a count. Lines are read as they are everywhere else: a "**"
// before ordinary text, or in a source line (`f(**kwargs)`), is left alone.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_EMPHASIS_H_
#define TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_EMPHASIS_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class MarkdownEmphasisReader {
 public:
  // `line` hook: removes an emphasis pair's marks from a traceback's first and last lines.
  static bool LineHook(Segmenter& s, std::string* line);
  // The mark ("**" or "__") that opens `line` before the start of a traceback or an exception line, or
  // empty.
  static std::string_view Opener(std::string_view line);

 private:
  static constexpr int kMaxOpenLines = 500;
  std::string_view open_;  // the mark of the pair that is open ("**", "__"), or empty
  int open_lines_ = 0;     // lines read since it opened
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_EMPHASIS_H_
