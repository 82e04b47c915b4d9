// Note: [Quote markers]
// A log quoted in a reply on GitHub, a forum or a mail client arrives with a Markdown block-quote marker
// before every line: "> Traceback (most recent call last):", ">   File \"train.py\", line 3, in <module>",
// a bare ">" for a blank line, "> > " for a quote inside a quote. The reader removes the markers where a
// line starts with them, so the text after them is read as printed (its own indentation kept: one blank
// after each '>' belongs to the marker). A marker is a '>' followed by a blank or the line's end, so the
// interpreter's ">>> " prompt is no marker. pytest marks a failing source line with ">       " itself: in
// its report (BlockReader::PrintsQuoteLikeLines) markers are removed only when the line that opened
// the report carried them, a quoted report. Metric extraction reads
// the lines before the segmenter does; its readers of a line's first column (epoch tables, CSV rows, the
// tutorial layouts) skip the same markers, through LinePrefixLength (registry.h).
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
  // The length of the quote markers at the start of `line`, or 0.
  static size_t Markers(std::string_view line);

 private:
  bool idle_quoted_ = false;  // the last line read outside any incident or block carried markers
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_QUOTE_MARKER_H_
