// The log formats the segmenter reads: one reader object each (its own state, in its own file here),
// and the format table: each reader's idle triggers, in the order they are tried on a line outside any
// incident, and the hooks by which the segmenter calls readers at fixed points of its work. The
// segmenter names no format: what it knows of one is in this table. Adding a format: engine/README.md,
// "Adding a log format".
#ifndef TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_
#define TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "log/formats/aligned_continuation.h"
#include "log/formats/block.h"
#include "log/formats/compose_prefix.h"
#include "log/formats/cxx_error.h"
#include "log/formats/debugger_panel.h"
#include "log/formats/elastic_summary.h"
#include "log/formats/embedded_error.h"
#include "log/formats/escaped.h"
#include "log/formats/exception_group.h"
#include "log/formats/fatal_dump.h"
#include "log/formats/forward_trace.h"
#include "log/formats/interleaved.h"
#include "log/formats/ipython.h"
#include "log/formats/learned_prefix.h"
#include "log/formats/markdown_emphasis.h"
#include "log/formats/markdown_escape.h"
#include "log/formats/mp_spawn.h"
#include "log/formats/native_crash.h"
#include "log/formats/notebook.h"
#include "log/formats/pdb_prompt.h"
#include "log/formats/process_tag.h"
#include "log/formats/pytest.h"
#include "log/formats/quote_marker.h"
#include "log/formats/python_traceback.h"
#include "log/formats/rank_prefix.h"
#include "log/formats/rich.h"
#include "log/formats/srun_label.h"
#include "log/formats/torchscript.h"
#include "log/formats/warnings.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;

// One reader of each format, owned by a Segmenter (so one stream's state never leaks into another's).
struct FormatReaders {
  NotebookReader notebook;            // .ipynb error outputs (raw lines)
  QuoteMarkerReader quote_marker;     // "> " before every line of a quoted log
  MarkdownEmphasisReader markdown_emphasis;  // "**" around a whole pasted traceback
  PdbPromptReader pdb_prompt;         // a debugger's prompt; a command with its one-line answer
  EscapedReader escaped;              // tracebacks flattened with "\n" escapes, JSON strings (raw lines)
  SrunLabelReader srun_label;         // srun --label's task numbers, once the input shows them
  ComposePrefixReader compose_prefix; // Docker Compose's "service_1  | ", once the input shows them
  AlignedContinuationReader aligned_continuation;  // a log record wrapped to its message's column
  LearnedPrefixReader learned_prefix; // a per-line log prefix (timestamps, levels, pids)
  DebuggerPanelReader debugger_panel; // VS Code's exception panel: its type header over the message
  ExceptionGroupReader exception_group;
  PythonTracebackReader python;       // "Traceback (most recent call last):", chains, bare error lines
  InterleavedReader interleaved;      // two tracebacks written line by line at once
  RichReader rich;
  IPythonReader ipython;
  TorchScriptReader torchscript;
  CxxErrorReader cxx;                 // terminate called / what() / c10::Error backtraces
  PytestReader pytest;
  ElasticSummaryReader elastic;       // torchrun's ChildFailedError summary
  FatalDumpReader fatal_dump;         // faulthandler
  ForwardTraceReader forward_trace;   // anomaly mode's forward-call traceback
  WarningsReader warnings;            // warnings-module lines and their source line
  MpSpawnReader mp_spawn;             // torch.multiprocessing.spawn's child-error banner
  NativeCrashReader native_crash;     // the shell's and gdb's reports of a segfault
};

// The open block's reader, found in the readers of the segmenter reading it (a function rather than a
// pointer, so that a copied Segmenter reads its own): Block<&FormatReaders::pytest>. The open
// incident's reader likewise: IncidentBy<&FormatReaders::cxx>. (BlockOf, IncidentReaderOf: block.h.)
template <auto kMember>
BlockReader& Block(FormatReaders& readers) {
  return readers.*kMember;
}
template <auto kMember>
IncidentReader& IncidentBy(FormatReaders& readers) {
  return readers.*kMember;
}

// What a format reader does besides reading the lines its trigger or its block hands it: the hooks by
// which the segmenter calls it at fixed points of its own work, without knowing which format it is.
// Each is optional; the segmenter calls every reader's hook of a kind in the table's order.
struct FormatHooks {
  // A raw line as read (before normalisation); returns true when the reader consumed it (a notebook's
  // traceback array, a traceback flattened onto one line), which then goes no further.
  bool (*raw_line)(Segmenter& s, std::string_view raw) = nullptr;
  // Every normalised line, before any reader reads it: may rewrite *line (strip a prefix, undo a
  // decoration); returns false when the line was consumed (then nothing else reads it).
  bool (*line)(Segmenter& s, std::string* line) = nullptr;
  // A line of another stream than the open incident's, while one is open (Note: [Streams]): true when
  // it starts an incident by itself, which ends the open one. Must not change any state.
  bool (*interrupts)(std::string_view trimmed) = nullptr;
  // A line the rules recognised, about to become the log-line incident *inc: returns true when the
  // reader knows the line's shape and filled *inc (type, message, frames); then no later hook is
  // tried. *next may name the block (formats/block.h) to hand the line after it to, once *inc is kept
  // and nothing is open.
  bool (*log_line)(Segmenter& s, const std::string& line, Incident* inc, BlockOf* next) = nullptr;
  // An incident (of any kind) about to be kept: the reader may add to it what it held for it.
  void (*emit)(Segmenter& s, Incident* inc) = nullptr;
  // The open incident is closing: its reader's Close has run, nothing is open, and the incident is
  // about to be kept (and a suspended outer one resumed) or dropped.
  void (*closed)(Segmenter& s) = nullptr;
  // A line outside any incident that no idle trigger took and the rules did not recognise (it would be
  // ordinary output): returns true when the reader took it (kept an incident of it). The line holds
  // one of the row's keywords or a keyword of another row (the log path reads no other while idle).
  bool (*unrecognised)(Segmenter& s, const std::string& line, std::string_view trimmed) = nullptr;
};

// One row of the format table: a name, the idle keywords, the idle trigger, and the reader's hooks.
//
// The idle trigger: a line outside any incident that `start` acts on (it returns true when it took the
// line) holds one of `keywords` (any case), so lines with none of them can be skipped unread (Note:
// [Line prefilter] in line_scanner.h). `start` may be null: then the keywords name lines that must be
// read for another reason, given in the table, or the row is there for its hooks alone.
struct FormatEntry {
  const char* name;
  std::vector<std::string> keywords;
  bool (*start)(Segmenter& s, const std::string& line, std::string_view trimmed) = nullptr;
  FormatHooks hooks = {};
};

// One hook each, for the table's rows: {"name", {}, nullptr, OnEmit(&Reader::Attach)}.
inline FormatHooks OnRawLine(bool (*f)(Segmenter&, std::string_view)) {
  FormatHooks h;
  h.raw_line = f;
  return h;
}
inline FormatHooks OnLine(bool (*f)(Segmenter&, std::string*)) {
  FormatHooks h;
  h.line = f;
  return h;
}
inline FormatHooks OnInterrupt(bool (*f)(std::string_view)) {
  FormatHooks h;
  h.interrupts = f;
  return h;
}
inline FormatHooks OnLogLine(bool (*f)(Segmenter&, const std::string&, Incident*, BlockOf*)) {
  FormatHooks h;
  h.log_line = f;
  return h;
}
inline FormatHooks OnEmit(void (*f)(Segmenter&, Incident*)) {
  FormatHooks h;
  h.emit = f;
  return h;
}
inline FormatHooks OnClosed(void (*f)(Segmenter&)) {
  FormatHooks h;
  h.closed = f;
  return h;
}
inline FormatHooks OnUnrecognised(bool (*f)(Segmenter&, const std::string&, std::string_view)) {
  FormatHooks h;
  h.unrecognised = f;
  return h;
}

// True when a format reader's line hook may strip a prefix from this line (quote markers, a rank
// prefix, an srun label, a debugger prompt, a process tag): the log path's prefilter then lets the segmenter read the
// line rather than judging its text alone (Note: [Line prefilter] in line_scanner.h).
bool MayCarryLinePrefix(std::string_view line);

// The length of the prefixes at the start of `line` that the line hooks strip wherever they are present
// (quote markers, then a process tag, a rank prefix and the quote markers behind them), or 0: metric extraction, which reads raw lines, skips them before
// reading a line from its first column (Note: [Quote markers]).
size_t LinePrefixLength(std::string_view line);

// The format table (formats/registry.cc): the idle triggers in the order they are tried, and the
// hooks, called in the same order.
const std::vector<FormatEntry>& FormatTable();

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_
