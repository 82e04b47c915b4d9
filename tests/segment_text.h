// Test helper: the incidents a segmenter alone (no rules unless `classify` says) finds in a text, fed line by
// line as AddLine takes them, then finished.
#ifndef TRIAGE_TESTS_SEGMENT_TEXT_H_
#define TRIAGE_TESTS_SEGMENT_TEXT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "log/segmenter.h"

namespace triage_test {

inline std::vector<triage::Incident> SegmentText(
    const std::string& text,
    triage::Segmenter::Classifier classify = [](std::string_view) { return -1; }) {
  triage::Segmenter seg(triage::SegmenterOptions(), std::move(classify));
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    seg.AddLine(std::string_view(text).substr(at, nl - at));
    at = nl + 1;
  }
  seg.Finish();
  return seg.incidents();
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_SEGMENT_TEXT_H_
