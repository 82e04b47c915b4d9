// Segmenter: turns log lines into Incidents (tracebacks, bare error lines, C++ errors, and log lines a
// rule recognises), with memory bounded by the incidents kept, not by the input.
//
//   Segmenter seg(options, [&](std::string_view line) { return rules.Match(line).empty() ? -1 : 0; });
//   for (each line without its '\n') seg.AddLine(line);
//   seg.Finish();
//   for (const Incident& inc : seg.incidents()) ...
//
// Lines are normalised before parsing: trailing CR removed, text before the last '\r' of a progress
// bar dropped, a UTF-8 byte order mark at the start removed, ANSI escapes removed (also colour codes that lost their ESC: Note: [Colour codes without
// ESC] in segmenter.cc), no-break spaces and curly quotes read as a space and a
// straight quote (Note: [Typographic characters] in formats/text.h). Prefixes a format puts before the text (a rank prefix "[rank3]:",
// srun's task label "2: ", a debugger prompt "(Pdb) ", Ray's and vLLM's process tag "(pid=123) ") are the
// formats' own: their readers' line hooks strip them where the format says so and record the rank
// (formats/rank_prefix.h, srun_label.h, pdb_prompt.h, process_tag.h).
//
// The segmenter itself owns what every format shares: the open incident (opening it, keeping its
// frames and message, suspending it while a nested one is read and resuming it after), streams (rank
// prefixes, lines that carry a stream's prefix or not), chains, wrappers, handled exceptions and
// log-line incidents. It names no format. Each log format is a reader in formats/ with its own state;
// formats/registry.cc's format table lists the idle triggers (the lines that start a format's
// incident or block), from which IdleKeywords is derived, and the hooks by which the segmenter calls
// readers at fixed points (a raw line, a normalised line, a log line, an incident emitted or closed).
// A format that reads a block of lines alone is a BlockReader, one that reads the rest of the incident
// it opened an IncidentReader (formats/block.h): the segmenter hands them the lines without knowing
// which format they are. engine/README.md: "Adding a log format".
#ifndef TRIAGE_ENGINE_SEGMENTER_H_
#define TRIAGE_ENGINE_SEGMENTER_H_

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "log/formats/registry.h"
#include "triage/triage.h"

namespace triage {

struct SegmenterOptions {
  size_t max_line = 64 * 1024;      // longer lines are cut (the rest is skipped, counted in warnings)
  size_t max_message = 16 * 1024;   // bytes of an incident message kept
  int max_frames = 200;             // frames kept per incident (the innermost ones)
  int max_context = 24;             // context lines kept per incident
  int max_incidents = 2000;         // distinct incidents kept (Note: [Incident bound])
  int merge_gap = 5;                // log lines of one key within this many lines form one incident
  int context_window = 200;         // log-line incidents this close before/after an exception join its context
  // Note: [Incident bound]: an open incident or block closes after this many lines, or bytes, read
  // since it last kept evidence (a frame, message text, a new incident).
  int max_quiet_lines = 2000;
  size_t max_quiet_bytes = 1024 * 1024;
  // Note: [Streams]: an open incident waits through at most this many lines of other streams in a row
  // for its next line (other ranks' progress between a rank's traceback lines).
  int max_foreign_lines = 100;
};

// Merges identical incidents (same kind, exception, message and culprit: the same failure printed by
// several ranks, or repeated far apart) into their first occurrence, adding up `count`, keeping
// caused_by links valid. Incidents from `merge_end` on are kept as they are. Returns, for each old
// index, the index it now has.
std::vector<int> MergeIdenticalIncidents(std::vector<Incident>* incidents, size_t merge_end = SIZE_MAX);

// Note: [Incident bound]
// Memory is bounded by the incidents kept, but the incident that ended a run is usually the last one,
// so the bound must never fall on it. When the kept incidents come near max_incidents, the segmenter
// makes room at the next line read outside a block (formats/block.h; a block reader may hold an
// incident's index): identical incidents are merged first (2,500 copies of one traceback become one
// incident with a count), and only when that is not enough are the oldest incidents after the first
// quarter dropped, down to half the bound. The newest 16 are never merged or dropped (readers look at
// the last incident kept). So the first incidents (where a run's trouble began) and the newest (how it
// ended) are always kept; what was dropped is counted, with its line range, for the report's
// `too-many-incidents` warning. Only when more than an eighth of the bound arrive inside one block
// are further incidents counted and not kept.
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

  // Returns true when no incident is open and no raw-line reader holds the input (set_raw_reading): the
  // next line is read by HandleIdle alone, except one WantsLine names.
  bool idle() const { return state_ == State::kIdle && !raw_reading_; }
  // True when a line hook asked for the next line (ReadNextLine) and `next`, the text from its start
  // (it may go on past the line's end), may be the line it asked for: the log path reads it, inert or not.
  bool WantsLine(std::string_view next) const {
    if (read_next_flush_) return true;  // ReadNextFlushLine: whatever the next line holds
    if (read_next_indent_ == 0) return false;
    if (read_next_outer_) next.remove_prefix(std::min(next.size(), read_next_outer_->Match(next)));
    if (next.size() <= read_next_indent_) return true;  // too little of it to tell
    return next.find_first_not_of(' ') == read_next_indent_ && next[read_next_indent_] != '\n';
  }
  // Counts `n` lines the caller has shown to be inert while idle: no idle keyword and no rule hit, and
  // blank after Normalize unless it is followed by a line added with AddLine (which then sets the
  // previous-line context). Precondition: idle(). See Note: [Line prefilter] in line_scanner.h.
  // `blank` of them (if the caller knows) were blank: the others count as ordinary output of the run
  // (Note: [Handled]); a caller that passes no count makes blank lines look like output.
  void SkipLines(std::uint64_t n, std::uint64_t blank = 0) {
    if (n > 0) {
      read_next_indent_ = 0;
      read_next_flush_ = false;
    }
    line_no_ += n;
    ordinary_lines_ += n > blank ? n - blank : 0;
  }
  // Returns the literal keywords (any case) one of which every line HandleIdle acts on contains, other
  // than lines a rule matches: the keywords of formats/registry.cc's format table. Other states read
  // every line and need none.
  static const std::vector<std::string>& IdleKeywords();

  const std::vector<Incident>& incidents() const { return incidents_; }
  std::vector<Incident>& mutable_incidents() { return incidents_; }
  // Incidents that are complete (no longer extended by more input).
  int completed() const { return completed_; }
  std::uint64_t lines() const { return line_no_; }
  // Incidents not kept (Note: [Incident bound]), and the line range they covered.
  std::uint64_t dropped_incidents() const { return dropped_; }
  int dropped_first_line() const { return dropped_first_line_; }
  int dropped_last_line() const { return dropped_last_line_; }

  // Normalises one line as AddLine does before the format readers' line hooks: the same for every
  // format (CR, progress-bar rewrites, NUL, ANSI escapes, no-break spaces and curly single quotes).
  static std::string Normalize(std::string_view raw);
  // The same, giving the tqdm bar taken from the line's start in `bar` (empty when none: Note: [Text
  // after a progress bar] in formats/text.h).
  static std::string Normalize(std::string_view raw, std::string* bar);
  // Exposed for tests: true for frames of torch, site-packages, the standard library and C++ frames.
  static bool IsLibraryFile(std::string_view file);
  // Exposed for tests: the format table's row (formats/registry.cc) whose idle trigger took the last
  // line given to AddLine, or null when none did (the line was ordinary output, a rule hit, or read
  // inside an incident or a block).
  const FormatEntry* taken_by() const { return taken_by_; }
  // The row whose idle trigger took the line before the last one given to AddLine, or null.
  const FormatEntry* prev_taken_by() const { return prev_taken_by_; }
  // True for a line that begins an incident by itself, even among another stream's lines: one a
  // reader's `interrupts` hook names (formats/registry.h).
  static bool StartsIncident(std::string_view trimmed);

  // ---- For the format readers (formats/): the state they share and the steps they take. ----
  // Which reader the next line goes to: the idle triggers; the open incident's own reader
  // (OpenIncident, ReadIncident); or the open block (EnterBlock).
  enum class State { kIdle, kIncident, kBlock };
  State state() const { return state_; }
  // Makes `inc` the open incident, whose next lines go to `reader` (formats/block.h) until it closes.
  void OpenIncident(Incident inc, IncidentReaderOf reader);
  // Hands the next lines of the open incident (open(), already set) to `reader` until it closes.
  void ReadIncident(IncidentReaderOf reader) {
    if (state_ == State::kIdle) OpenStream();
    incident_reader_ = reader;
    state_ = State::kIncident;
  }
  // The open incident's reader, or null when no incident is open.
  const IncidentReader* incident_reader() {
    return state_ == State::kIncident ? &incident_reader_(readers_) : nullptr;
  }
  // Hands the next lines to a block reader (formats/block.h) until it calls EndBlock.
  void EnterBlock(BlockOf block) {
    if (state_ == State::kIdle) OpenStream();
    block_ = block;
    state_ = State::kBlock;
  }
  void EndBlock() {
    block_ = nullptr;
    state_ = State::kIdle;
  }
  // The open block, or null when none is open.
  const BlockReader* open_block() { return state_ == State::kBlock ? &block_(readers_) : nullptr; }
  FormatReaders& readers() { return readers_; }
  const SegmenterOptions& options() const { return options_; }
  Incident& open() { return open_; }                 // the incident being built (valid unless idle)
  std::vector<Incident>& kept() { return incidents_; }
  std::uint64_t line_no() const { return line_no_; }
  const std::string& rank() const { return rank_; }  // the current line's rank prefix
  void set_rank(std::string rank) { rank_ = std::move(rank); }  // for a line hook that stripped one
  const std::string& prev_line() const { return prev_line_; }  // the previous non-blank normalised line
  std::uint64_t prev_line_no() const { return prev_line_no_; }
  int last_exception() const { return last_exception_; }
  int last_log_line() const { return log_index_; }   // the last log-line incident kept
  // An incident whose cause is the next traceback (nbclient's CellExecutionError, mp.spawn, a group).
  void set_pending_wrapper(int index) { pending_wrapper_ = index; }
  void set_pending_cause(int index) { pending_cause_ = index; }
  int pending_cause() const { return pending_cause_; }  // the incident a chain separator named, or -1
  // The next traceback kept is the cause of the incident `index`, which Python printed before it (a
  // chain printed the other way round, Note: [Worker death reports]): a link, not a new failure, so it
  // marks nothing handled (Note: [Handled]).
  void set_pending_effect(int index) { pending_effect_ = index; }
  void IgnoreNextException() { ignored_next_ = true; }
  // Suspends the open incident (with its reader) while a nested one, opened next, is read (a DataLoader
  // worker's "Original Traceback" inside its wrapper's message). When the nested incident closes it is
  // kept, becomes the outer one's cause, and the outer one is open again: its reader's Resume is called.
  // Note: [Empty nested incident] When the nested one has nothing to keep (its reader's Close says so: a
  // header with no frame after it, where a paste of a DataLoader worker's failure ends on "Original
  // Traceback (most recent call last):"), the outer one is open again all the same, with no cause: the
  // wrapper's exception line is then the only evidence, and it is not lost with the empty header.
  void SuspendOpen() {
    stack_.push_back({std::move(open_), incident_reader_});
    open_ = Incident();
  }
  bool has_suspended() const { return !stack_.empty(); }
  // Removes the last kept incident (a bare error line that turned out to be a C++ error's message).
  void DropLastIncident();
  // Adds a frame to *into (the innermost max_frames are kept), counted as evidence (Note: [Incident bound]).
  void KeepFrame(Incident* into, Frame f);
  // Adds a frame to the open incident.
  void PushFrame(Frame f) { KeepFrame(&open_, std::move(f)); }
  void AppendMessage(Incident* inc, std::string_view text);
  // Appends text to the message's last line, with nothing between (a line a terminal wrapped).
  void JoinMessage(Incident* inc, std::string_view text);
  // Keeps `inc`: the format table's `emit` hooks first, then its culprit, context, chain or wrapper
  // link and `handled` (Note: [Handled]); counted and not kept at the bound (Note: [Incident bound]).
  void Emit(Incident inc);
  // Closes the open incident (emits it, or resumes a suspended outer one) or the open block.
  void CloseOpen();
  // Closes the open incident and every one it resumes, or the open block: afterwards state() is kIdle.
  void CloseAll() {
    while (state_ != State::kIdle) CloseOpen();
  }
  void HandleIdle(const std::string& line, std::string_view trimmed);
  // `first_line`, when not 0, is where the line's record began (an earlier line it goes on from).
  void AddLogLine(const std::string& line, int key, std::uint64_t first_line = 0);
  // For a reader of a log record that a handler wrapped onto the current line (Note: [Aligned
  // continuations] in formats/aligned_continuation.h): `record` is the record's whole text as one line,
  // from `first_line` on, `piece` the current line's part of it. When the record's line before this
  // one is the end of a log-line incident, that incident goes on: `piece` joins its message's last line
  // after a blank (`cut` is removed from that line's end first, where it ends so) and it ends here.
  // Otherwise the rules classify `record`, and a hit is a log-line incident over the record's lines.
  void ContinueLogLine(std::uint64_t first_line, const std::string& record, std::string_view piece, std::string_view cut);
  // The same for a reader that joins a line only where the joined record is a log line (Note: [Hand-wrapped
  // warnings] in formats/warnings.h): true when the incident went on or the rules recognised `record`;
  // false, with nothing changed and the line not counted, otherwise.
  bool JoinLogLine(std::uint64_t first_line, const std::string& record, std::string_view piece);
  // For a line hook: the next line must reach AddLine even on the log path, which otherwise skips lines
  // an idle segmenter would not act on, when it starts with exactly `indent` (> 0) blanks (where a
  // record may go on: WantsLine), after the prefix `outer` when given (Note: [Learned prefix]).
  // Lasts one line.
  void ReadNextLine(size_t indent, const LogPrefix* outer = nullptr) {
    read_next_indent_ = indent;
    read_next_outer_ = outer;
  }
  // Asks the log path to read the next line whatever it holds (a continuation at the first column,
  // which no indentation tells apart).
  void ReadNextFlushLine() { read_next_flush_ = true; }
  // Classifies a line with the rules; a hit becomes a log-line incident. Returns whether it hit.
  bool ClassifyLine(const std::string& line, std::string_view trimmed);
  void ReadLine(std::string_view raw);  // one physical line, after the raw-line readers
  // For an incident reader that closed its incident and resumed an outer one that this line may
  // continue: once the reader returns, the line is read again from its raw form, as a new line is.
  void ReadLineAgain() { read_again_ = true; }
  // For a line hook: the line being read carried the prefix its stream's lines carry (Note: [Learned
  // prefix]), so an open incident of a prefixed stream knows a line without it is another stream's.
  void set_line_prefixed() { line_prefixed_ = true; }
  // For that hook: how many blanks ended the prefix it removed from this line (Note: [Headerless
  // tracebacks] in formats/python_traceback.cc), and the count for the line being read.
  void set_line_prefix_blanks(size_t n) { line_prefix_blanks_ = n; }
  size_t line_prefix_blanks() const { return line_prefix_blanks_; }
  // For a raw-line reader inside a structure of its own, every line of which it must see (a notebook's
  // traceback array): while on, the segmenter is not idle(), so the log path skips none of its lines.
  void set_raw_reading(bool on) { raw_reading_ = on; }

 private:
  void InheritCulprit(int index);
  void MakeRoom();  // Note: [Incident bound]
  void NoteDropped(const Incident& inc);
  void Renumber(const std::vector<int>& to);  // old incident index -> new one, or -1 when dropped
  void AttachContext(Incident* inc);
  // Note: [Streams]: the stream of what opens now (leaving idle) is the current line's.
  void OpenStream();
  // True for a line of another stream than the open incident's, which it lets pass (Note: [Streams]).
  bool IsForeign(std::string_view trimmed) const;
  // Note: [Incident bound]: what the open incident has kept, to tell whether a line added to it.
  struct Evidence {
    std::uint64_t frames_read;
    size_t frames, message;
    int line_start;
    bool operator==(const Evidence& o) const {
      return frames_read == o.frames_read && frames == o.frames && message == o.message && line_start == o.line_start;
    }
  };
  Evidence EvidenceNow() const { return {frames_read_, open_.frames.size(), open_.message.size(), open_.line_start}; }
  // Counts one line read while an incident is open; closes it (and any it resumes) when it has read
  // more than the bound allows without new evidence. Returns true when it closed something.
  bool CloseIfQuiet(size_t bytes);

  SegmenterOptions options_;
  Classifier classify_;
  FormatReaders readers_;
  State state_ = State::kIdle;
  BlockOf block_ = nullptr;       // the open block's reader (state_ == kBlock)
  IncidentReaderOf incident_reader_ = nullptr;  // the open incident's reader (state_ == kIncident)
  Incident open_;                 // the incident being built (valid unless state_ == kIdle)
  struct Suspended {
    Incident incident;
    IncidentReaderOf reader;
  };
  std::vector<Suspended> stack_;  // outer incidents suspended while a nested one is read (SuspendOpen)
  bool read_again_ = false;       // see ReadLineAgain
  bool raw_reading_ = false;      // see set_raw_reading
  size_t read_next_indent_ = 0;   // see ReadNextLine
  bool read_next_flush_ = false;  // see ReadNextFlushLine
  const LogPrefix* read_next_outer_ = nullptr;  // see ReadNextLine
  int live_exception_ = -1;       // the last exception incident not announced as ignored (Note: [Handled])
  bool ignored_next_ = false;     // "Exception ignored in: ..." announced the next traceback
  std::uint64_t ordinary_lines_ = 0;  // lines read while idle that were part of no incident, since the last exception
  int pending_cause_ = -1;        // set by a chain separator line
  int pending_effect_ = -1;       // see set_pending_effect
  std::vector<int> chain_links_;  // incidents (ascending) whose caused_by came from a chain separator
  int pending_wrapper_ = -1;      // an incident whose cause is the next traceback (nbclient's CellExecutionError)
  std::vector<Incident> incidents_;
  int completed_ = 0;
  std::uint64_t line_no_ = 0;
  std::uint64_t dropped_ = 0;
  int dropped_first_line_ = 0;    // lines the dropped incidents covered (0 when none were dropped)
  int dropped_last_line_ = 0;
  std::string rank_;
  // Log-line incident being merged: index into incidents_, its key, and the last line it covered.
  int log_index_ = -1;
  int log_key_ = -1;
  std::uint64_t log_last_line_ = 0;
  std::string bar_;               // the tqdm bar Normalize took from the line read now; a log line keeps it
  std::string prev_line_;         // the previous normalised line (a c10::Error message precedes its trace)
  std::uint64_t prev_line_no_ = 0;
  int last_exception_ = -1;       // index of the last exception incident (for context after it)
  // Note: [Streams]: the stream of the open incident or block (set by the line that left idle).
  std::string stream_rank_;       // its rank prefix
  bool stream_prefixed_ = false;  // whether its first line carried the learned prefix
  bool line_prefixed_ = false;    // whether the line being read carried the learned prefix
  size_t line_prefix_blanks_ = 0; // the blanks that ended that prefix on this line
  // Note: [Incident bound]
  std::uint64_t frames_read_ = 0;  // frames KeepFrame was given, kept or not
  Evidence evidence_{};            // the open incident's evidence when it last grew
  std::uint64_t quiet_lines_ = 0;  // lines, and bytes, read since then
  std::uint64_t quiet_bytes_ = 0;
  int foreign_lines_ = 0;          // lines of other streams since the open incident's last line
  const FormatEntry* taken_by_ = nullptr;  // see taken_by()
  const FormatEntry* prev_taken_by_ = nullptr;  // see prev_taken_by()
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_SEGMENTER_H_
