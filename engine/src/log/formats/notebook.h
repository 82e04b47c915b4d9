// Jupyter .ipynb files: an error output's "traceback" array holds one JSON string per IPython
// traceback line (ANSI colours as \u001b escapes); each element is read as the lines it encodes.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_NOTEBOOK_H_
#define TRIAGE_ENGINE_LOG_FORMATS_NOTEBOOK_H_

#include <string_view>

namespace triage {

class Segmenter;

class NotebookReader {
 public:
  // `raw_line` hook: reads a raw line; returns true when it was consumed here (an element of the array,
  // its start, or its end "]"). Inside the array the segmenter is not idle (Segmenter::set_raw_reading).
  static bool RawLineHook(Segmenter& s, std::string_view raw);
  bool RawLine(Segmenter& s, std::string_view raw);

 private:
  bool active_ = false;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_NOTEBOOK_H_
