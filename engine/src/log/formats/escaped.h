// Tracebacks flattened onto one line with literal "\n" (a job scheduler's error field, a JSON log
// record): the pieces are read as lines, with JSON/Python string escapes undone.
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
  // Reads `text` with escapes undone, as lines split at "\n" (in JSON, up to the first unescaped quote).
  static void ReadEscaped(Segmenter& s, std::string_view text, bool json);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_ESCAPED_H_
