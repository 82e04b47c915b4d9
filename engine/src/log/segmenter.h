// Segmenter: turns log lines into Incidents (tracebacks, bare error lines, C++ errors, and log lines a
// rule recognises), with memory bounded by the incidents kept, not by the input.
//
//   Segmenter seg(options, [&](std::string_view line) { return rules.Match(line).empty() ? -1 : 0; });
//   for (each line without its '\n') seg.AddLine(line);
//   seg.Finish();
//   for (const Incident& inc : seg.incidents()) ...
//
// Lines are normalised before parsing: trailing CR removed, text before the last '\r' of a progress
// bar dropped, ANSI escapes removed, a rank prefix ("[rank3]:", "[default0]:") recorded and removed.
#ifndef TRIAGE_ENGINE_SEGMENTER_H_
#define TRIAGE_ENGINE_SEGMENTER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "triage/triage.h"

namespace triage {

struct SegmenterOptions {
  size_t max_line = 64 * 1024;      // longer lines are cut (the rest is skipped, counted in warnings)
  size_t max_message = 16 * 1024;   // bytes of an incident message kept
  int max_frames = 200;             // frames kept per incident (the innermost ones)
  int max_context = 24;             // context lines kept per incident
  int max_incidents = 2000;         // distinct incidents kept; later ones are only counted
  int merge_gap = 5;                // log lines of one key within this many lines form one incident
  int context_window = 200;         // log-line incidents this close before/after an exception join its context
};

class Segmenter {
 public:
  // `classify` is called for lines outside any traceback; it returns -1 for an ordinary line, or a
  // key >= 0 (e.g. the first rule that matched) to make the line a kLogLine incident.
  using Classifier = std::function<int(std::string_view line)>;

  Segmenter(SegmenterOptions options, Classifier classify);

  // Adds one line (without its '\n'; a trailing '\r' is fine).
  void AddLine(std::string_view raw);
  // Ends the input: closes any open incident.
  void Finish();

  // Returns true when no incident is open: the next line is read by HandleIdle alone.
  bool idle() const { return state_ == State::kIdle && !notebook_traceback_; }
  // Counts `n` lines the caller has shown to be inert while idle: no idle keyword and no rule hit, and
  // blank after Normalize unless it is followed by a line added with AddLine (which then sets the
  // previous-line context). Precondition: idle(). See Note: [Line prefilter] in line_scanner.h.
  // `blank` of them (if the caller knows) were blank: the others count as ordinary output of the run
  // (Note: [Handled]); a caller that passes no count makes blank lines look like output.
  void SkipLines(std::uint64_t n, std::uint64_t blank = 0) {
    line_no_ += n;
    ordinary_lines_ += n > blank ? n - blank : 0;
  }
  // Returns the literal keywords (any case) one of which every line HandleIdle acts on contains, other
  // than lines a rule matches. Other states read every line and need none.
  static const std::vector<std::string>& IdleKeywords();

  const std::vector<Incident>& incidents() const { return incidents_; }
  std::vector<Incident>& mutable_incidents() { return incidents_; }
  // Incidents that are complete (no longer extended by more input).
  int completed() const { return completed_; }
  std::uint64_t lines() const { return line_no_; }
  std::uint64_t dropped_incidents() const { return dropped_; }

  // Exposed for tests: normalises one line as AddLine does; `rank` receives a rank prefix.
  static std::string Normalize(std::string_view raw, std::string* rank);
  // Exposed for tests: true for frames of torch, site-packages, the standard library and C++ frames.
  static bool IsLibraryFile(std::string_view file);

 private:
  enum class State { kIdle, kFrames, kMessage, kCxxWhat, kCxxFrames, kWarningSource, kPytest, kElasticSummary, kForwardTrace, kFatalDump };

  void ReadLine(std::string_view raw);
  void FramesLine(const std::string& line, std::string_view trimmed);
  bool RichBoxLine(std::string_view trimmed);
  void EndInterleaving();
  bool TorchScriptLine(const std::string& line, std::string_view trimmed);
  bool ExceptionGroupLine(std::string* line);
  void AddFlattened(std::string_view raw, size_t header);
  void ReadEscaped(std::string_view text, bool json);
  void HandleIdle(const std::string& line, std::string_view raw_trimmed);
  void StartTraceback();
  bool ParseFrameLine(const std::string& line);
  bool ParseIPythonFrameLine(std::string_view trimmed);
  void PytestLine(const std::string& line, std::string_view trimmed);
  void ElasticSummaryLine(std::string_view trimmed);
  void FinishElasticSummary();
  void FatalDumpLine(const std::string& line, std::string_view trimmed);
  void FinishFatalDump();
  void InheritCulprit(int index);

  // torchrun's ChildFailedError summary being read (Note: [Elastic summary]).
  struct ElasticSummary {
    int wrapper = -1;            // the ChildFailedError incident
    bool in_root = false;        // inside "Root Cause (first observed failure)"
    bool in_copy = false;        // inside a rank's traceback copied into the summary
    std::string entry_rank;      // rank of the entry being read
    std::string root_rank;
    int signal = -1;             // incident made from a "Signal N (SIG...) received by PID" entry
    std::string copy_line;       // the copied traceback's exception line
    std::uint64_t copy_line_no = 0;
  };
  bool IPythonFrameSectionLine(std::string_view trimmed);
  void ParseExceptionLine(const std::string& line, Incident* inc);
  void CloseOpen();
  void Emit(Incident inc);
  void AppendMessage(Incident* inc, std::string_view text);
  void AddLogLine(const std::string& line, int key);
  void AttachContext(Incident* inc);

  SegmenterOptions options_;
  Classifier classify_;
  State state_ = State::kIdle;
  Incident open_;                 // the incident being built (valid unless state_ == kIdle)
  std::vector<Incident> stack_;   // outer incidents suspended by a nested "Original Traceback"
  bool frame_expects_source_ = false;
  ElasticSummary elastic_;
  std::vector<Frame> forward_frames_;  // anomaly mode's forward-call frames (Note: [Anomaly forward trace])
  std::uint64_t forward_line_ = 0;
  // faulthandler's dump of a crashed process (Note: [Fatal Python error]): the crashing thread's frames,
  // outermost first, kept for the next exception incident of the same stream.
  bool dump_current_thread_ = false;  // reading the "Current thread" section of the dump
  std::vector<Frame> crash_frames_;
  std::uint64_t crash_line_ = 0;
  std::string crash_rank_;
  // A second traceback read at the same time (Note: [Interleaved tracebacks]).
  bool interleaved_ = false;
  Incident twin_;
  bool twin_expects_source_ = false;
  bool twin_fed_last_ = false;
  // A TorchScript interpreter report inside the open incident's message (Note: [TorchScript report]).
  enum class TorchScript { kNone, kReport, kDone };
  TorchScript torchscript_ = TorchScript::kNone;
  bool torchscript_original_ = false;  // in its "original code" traceback
  std::string torchscript_code_;       // the last code line, which a "<--- HERE" marker points at
  bool notebook_traceback_ = false;  // inside an .ipynb error output's "traceback" array
  bool exception_group_ = false;
  int live_exception_ = -1;       // the last exception incident not announced as ignored (Note: [Handled])
  bool ignored_next_ = false;     // "Exception ignored in: ..." announced the next traceback
  std::uint64_t ordinary_lines_ = 0;  // lines read while idle that were part of no incident, since the last exception  // inside an ExceptionGroup rendering (Note: [Exception groups])
  std::string pytest_source_;     // the ">" line of the pytest block being read (Note: [pytest report])
  bool rich_ = false;             // the open traceback is rich's box (Note: [rich tracebacks])
  bool ipython_ = false;          // the open traceback is IPython's (Note: [IPython frames])
  int pending_cause_ = -1;        // set by a chain separator line
  std::vector<int> chain_links_;  // incidents (ascending) whose caused_by came from a chain separator
  int pending_wrapper_ = -1;      // an incident whose cause is the next traceback (nbclient's CellExecutionError)
  std::vector<Incident> incidents_;
  int completed_ = 0;
  std::uint64_t line_no_ = 0;
  std::uint64_t dropped_ = 0;
  std::string rank_;
  // Log-line incident being merged: index into incidents_, its key, and the last line it covered.
  int log_index_ = -1;
  int log_key_ = -1;
  std::uint64_t log_last_line_ = 0;
  std::string prev_line_;         // the previous normalised line (a c10::Error message precedes its trace)
  std::uint64_t prev_line_no_ = 0;
  int last_exception_ = -1;       // index of the last exception incident (for context after it)
  std::string prefix_shape_;      // the per-line log prefix learned (Note: [Learned prefix]); may be empty
  bool open_prefixed_ = false;    // the open incident's first line carried that prefix
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_SEGMENTER_H_
