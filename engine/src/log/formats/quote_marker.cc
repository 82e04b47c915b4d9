#include "log/formats/quote_marker.h"

#include "log/segmenter.h"

namespace triage {

size_t QuoteMarkerReader::Markers(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '>') {
    size_t run = n;
    while (run < line.size() && line[run] == '>') ++run;  // ">>": a mail client's quote in a quote
    if (run == line.size()) return run;                    // ">" alone: a blank line of the quote
    if (line[run] != ' ' && line[run] != '\t') break;
    if (run - n == 3) break;  // ">>> ": the interpreter's prompt
    n = run + 1;
  }
  return n;
}

void QuoteMarkerReader::Strip(Segmenter& s, std::string* line, bool from_start) {
  QuoteMarkerReader& self = s.readers().quote_marker;
  const size_t n = Markers(*line);
  const BlockReader* block = s.open_block();
  if (s.state() == Segmenter::State::kIdle) {
    if (from_start || n > 0) self.idle_quoted_ = n > 0;
  } else if (n > 0 && block && block->PrintsQuoteLikeLines() && !self.idle_quoted_) {
    return;  // the block's own marker, in a report that was not quoted
  }
  if (n > 0) line->erase(0, n);
}

bool QuoteMarkerReader::LineHook(Segmenter& s, std::string* line) {
  Strip(s, line, true);
  s.readers().quote_marker.left_ = line->size();
  return true;
}

bool QuoteMarkerReader::AfterPrefixHook(Segmenter& s, std::string* line) {
  // Note: [Quote markers behind a prefix]: only where a prefix reader shortened the line.
  if (line->size() < s.readers().quote_marker.left_ && !line->empty() && (*line)[0] == '>') Strip(s, line, false);
  return true;
}

}  // namespace triage
