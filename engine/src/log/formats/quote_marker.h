// Note: [Quote markers]
// A log quoted in a reply on GitHub, a forum or a mail client arrives with a Markdown block-quote marker
// before every line: "> Traceback (most recent call last):", ">   File \"train.py\", line 3, in <module>",
// a bare ">" for a blank line, "> > " for a quote inside a quote, ">> " where a mail client nests quotes
// (mailing-list replies quoting a traceback, ">>>>>> Traceback ..." six deep). The reader removes the
// markers where a line starts with them, so the text after them is read as printed (its own indentation
// kept: one blank after each run of '>' belongs to the marker). A marker is a run of '>' followed by a
// blank or the line's end, except a run of exactly three: the interpreter's ">>> " prompt, whose input
// lines must not read as text (a REPL line after an error line would join its message:
// corpus/wild/env/pytorch-libcaffe2-old-libc10-usr-local's ">>> caffe2.__file__"). pytest marks a failing source line with ">       " itself: in
// its report (BlockReader::PrintsQuoteLikeLines) markers are removed only when the line that opened
// the report carried them, a quoted report. Metric extraction reads
// the lines before the segmenter does; its readers of a line's first column (epoch tables, CSV rows, the
// tutorial layouts) skip the same markers, through LinePrefixLength (registry.h).
//
// Note: [Quote markers behind a prefix] A marker may also stand after a prefix another reader strips:
// a quoted log that a launcher then prefixed ("[rank0]: > Traceback ..."), or a logging formatter's
// record around a quoted message ("2024-01-01 12:00:00,123 INFO > Traceback ..."). A second hook,
// after the line prefixes' readers (rank prefix, srun label, pdb prompt, learned prefix), removes the
// markers that stand at the start of what those readers left, only on a line one of them shortened, and
// with the same exception for a pytest report's own markers.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_QUOTE_MARKER_H_
#define TRIAGE_ENGINE_LOG_FORMATS_QUOTE_MARKER_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class QuoteMarkerReader {
 public:
  // `line` hook: removes the quote markers from the start of *line.
  static bool LineHook(Segmenter& s, std::string* line);
  // `line` hook after the line prefixes' readers: removes the markers a prefix stood before (Note:
  // [Quote markers behind a prefix]).
  static bool AfterPrefixHook(Segmenter& s, std::string* line);
  // The length of the quote markers at the start of `line`, or 0.
  static size_t Markers(std::string_view line);

 private:
  // Removes the markers at the start of *line unless they are a pytest report's own; `from_start`: the
  // line as it came (the first hook).
  static void Strip(Segmenter& s, std::string* line, bool from_start);

  bool idle_quoted_ = false;  // the last line read outside any incident or block carried markers
  size_t left_ = 0;           // the line's length after the first hook (a prefix reader shortens it)
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_QUOTE_MARKER_H_
