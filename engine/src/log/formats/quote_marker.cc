#include "log/formats/quote_marker.h"

#include "log/segmenter.h"

namespace triage {

size_t QuoteMarkerReader::Markers(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '>') {
    if (n + 1 == line.size()) return n + 1;  // ">" alone: a blank line of the quote
    if (line[n + 1] != ' ' && line[n + 1] != '\t') break;
    n += 2;
  }
  return n;
}

bool QuoteMarkerReader::LineHook(Segmenter& s, std::string* line) {
  QuoteMarkerReader& self = s.readers().quote_marker;
  const size_t n = Markers(*line);
  const BlockReader* block = s.open_block();
  if (s.state() == Segmenter::State::kIdle) {
    self.idle_quoted_ = n > 0;
  } else if (n > 0 && block && block->PrintsQuoteLikeLines() && !self.idle_quoted_) {
    return true;  // the block's own marker, in a report that was not quoted
  }
  if (n > 0) line->erase(0, n);
  return true;
}

}  // namespace triage
