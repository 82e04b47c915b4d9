// Warnings as the warnings module prints them, "path:12: UserWarning: message", then the warning's
// source line, indented. Such a line becomes an incident when a rule recognises it (a log-line
// incident with the warning's type, message and frame: the `log_line` hook); the source line after it
// is then read (a block of one line) even if the line scanner would skip it.
//
// Note: [Warning after a progress bar]. A tqdm bar that was never ended with a newline leaves its last
// state in front of the warning (`  3%|▎  | 3/100 [00:01<00:30,  3.20it/s]/x/y.py:12: UserWarning: ...`,
// a diffusers pipeline's RuntimeWarning after its sampling bar; without a total, tqdm's counter, as in
// Lightning's `Sanity Checking: 0it [00:00, ?it/s]/.../data_connector.py:224: PossibleUserWarning: ...`,
// corpus/wild/negative/nnue-lightning-num-workers-warning-custom-loader). The segmenter hands the log-line hook a
// line a rule recognised with the bar still in front (Note: [Text after a progress bar] in text.h: a
// record keeps its bar, where a rule may read the step it shows), so the warning is read from the text
// after the bar: its type, message and frame are those of the same warning printed on a line of its
// own. A record that is no warning keeps the bar as before.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_
#define TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_

#include <string>
#include <string_view>

#include "log/formats/block.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;

class WarningsReader final : public BlockReader {
 public:
  // `log_line` hook: a warning line a rule recognised becomes a warning incident, whose next line this
  // reader reads.
  static bool LogLine(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next);
  // Parses a warning line into *inc (type, message, one frame); false for any other line.
  static bool ParseWarningLine(std::string_view line, Incident* inc);
  // The line after a warning (a block of one line, entered after the warning's incident was kept): its
  // source line, or an ordinary line.
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // The warning is already kept.
  void Close(Segmenter& s) override;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_
