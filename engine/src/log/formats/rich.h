// Note: [rich tracebacks]
// rich.traceback draws the frames in a box: "│ /path/program.py:12 in encode │", a window of numbered
// source lines with "❱" on the line that ran (indent guides drawn as "│"), and "╰───╯" before the plain
// exception line.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_RICH_H_
#define TRIAGE_ENGINE_LOG_FORMATS_RICH_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class RichReader {
 public:
  // Idle trigger: "╭─── Traceback (most recent call last) ───╮" starts a traceback read as a box.
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A line of the open traceback's frame section; true when it belonged to the box.
  bool BoxLine(Segmenter& s, std::string_view trimmed);
  bool active() const { return active_; }
  void Reset() { active_ = false; }

 private:
  bool active_ = false;  // the open traceback is rich's box
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_RICH_H_
