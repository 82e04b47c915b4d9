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
//
// Note: [Bare warning lines]. Some wrappers, notebooks and people print a warning as its category and text
// only, `UserWarning: Using a target size (...) that is different to the input size (...)`, without the
// `path:N: ` the warnings module puts in front (IPython's and Colab's display of a warning, a logger's
// `captureWarnings` format, a paste that kept the line's tail). A line that starts with a category, a
// capitalised name ending in `Warning` with something before it (`UserWarning`, `FutureWarning`,
// `torch.jit.TracerWarning`; not `Warning:` nor `WARNING:`), then `: `, is read as that warning when a
// rule recognises it: its type and message as for a warnings-module line, and no frame. Only a line a rule
// recognised is read so (the `log_line` hook), so a bare category makes no incident by itself; its type
// keeps rules that list other exception types off it.
//
// Note: [Hand-wrapped warnings]. A person pasting a long warning often breaks it by hand in mid-sentence
// (corpus/wild/shape/pytorch-examples-vae-bce-target-image-vs-flat-recon):
//
//   UserWarning: Using a target size (torch.Size([16, 1, 28, 28])) that is
//   different to the input size (torch.Size([16, 784])) is deprecated.
//
// Neither line holds the sentence a rule reads. So a warning line (bare or with its path) read while
// nothing is open, whose text ends inside a sentence (in a letter, a digit or a comma), makes the next
// line a candidate continuation when that line starts at its first column with a small letter and begins
// nothing by itself (no exception, warning or frame line, no traceback header). The two are joined with a
// blank and go on while the joined text still ends inside a sentence, up to 8 lines; the log path is asked
// to read each such next line (Segmenter::ReadNextFlushLine). A line is joined only where that changes what
// is read: the warning line's own log-line incident goes on, or the rules recognise the joined text
// (Segmenter::JoinLogLine); otherwise the line is read as before. A warning's source line, which the
// warnings module indents, is never a continuation.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_
#define TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_

#include <cstddef>
#include <cstdint>
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
  // The length of the warning category a trimmed line starts with, before its ": " (Note: [Bare warning
  // lines]), or 0.
  static size_t BareWarningType(std::string_view trimmed);
  // `line` hook (Note: [Hand-wrapped warnings]): a line that goes on with the warning line before it is
  // joined to it and consumed where that joins a log line; a warning line read while idle may start one.
  static bool WrapHook(Segmenter& s, std::string* line);

 private:
  bool wrap_active_ = false;      // the last line read was a warning whose sentence may go on
  std::uint64_t wrap_first_ = 0;  // the warning's line
  std::uint64_t wrap_last_ = 0;   // the last line joined to it (or the warning's)
  int wrap_joined_ = 0;
  std::string wrap_rank_;
  std::string wrap_text_;         // the warning's text so far, its lines joined with a blank
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_WARNINGS_H_
