// Python's own traceback: "Traceback (most recent call last):", '  File "x.py", line 3, in f' frames
// with their source lines, the "Type: message" line and its continuation lines; chain separators
// (Note: [Chained culprit] in segmenter.cc), "Exception ignored in" (Note: [Handled]), a DataLoader
// worker's "Original Traceback" nested in its wrapper's message, and bare "SomethingError: message"
// lines printed without a traceback.
//
// The reader reads the incident it opens (an incident reader, formats/block.h) in two parts: the frame
// section, then the exception line's message. A DataLoader worker's re-raise ("RuntimeError: Caught
// ValueError in DataLoader worker process 0." then "Original Traceback (most recent call last):" and
// the worker's traceback) is the worker's traceback nested in the wrapper's message: the wrapper is
// suspended (Segmenter::SuspendOpen) while the worker's traceback is read, which becomes its cause;
// then the wrapper's message goes on. A new traceback header in a frame section ends the traceback
// being read and every one suspended around it.
//
// Note: [Wrapped quotes] A terminal, an editor or an issue form wraps a long line where the width ends,
// often inside a quoted path ('Error loading "C:\Users\...\site-packa' + newline + 'ges\torch\lib\c10.dll"
// or one of its dependencies.'). Rules read a message line by line, so a message line that ends inside
// a quotation (one opened after a blank or at the line start, not closed; an escaped \" opens none) is
// joined with the next line, with nothing between, when that line goes on at its first
// column (the wrapped rest; an indented line is the message's own next line), holds the closing quote
// or no blank (a piece of the path), and starts no traceback or exception line; at most 8 lines join one.
// The same holds for a library's path that no quote encloses ("ImportError: /root/.../torch/lib/libto" +
// newline + "rch_cpu.so: undefined symbol: ..."): a message line whose last word is a piece of a path
// (it holds a / or \) joins a next line, at its first column, whose first word is the rest of a
// library's file name up to its ':' (.so, .dll, .dylib, .pyd). A line broken at a blank around a quoted
// item is joined with a blank: a line at its first column that starts with a quotation it closes, after a
// message line ending in a word or ':' ('...Error loading' + newline + '"C:\...\c10.dll" or one ...'), or
// that goes on in small letters after a message line ending with a quotation opened after a blank
// ('... "C:\...\c10.dll"' + newline + 'or one of its dependencies.').
//
// Note: [Padded rows] Some consoles and issue forms wrap a long message into rows padded with blanks to
// their width, so a wrapped row ends with two or more blanks (corpus/wild/autograd/
// simple-cyclegan-discriminator-step-wrapped-version-message: "... inplace operation:
// [torch.cuda.FloatTensor" + blanks + newline + "[3, 64, 7, 7]] is at version 3; ..."). After such a
// row, a line at its first column is kept as the message's next line (one of the 8 joins above), as an
// indented row is, when it closes a '[' the message's last line left open, or goes on in small letters
// after a word in them; an exception line never is. Rows of an indented paste used to be kept as the message's lines
// because they were indented; once the paste's indentation is gone (Note: [Indented pastes] in
// log/indented_paste.h) the padding is what is left to tell them.
//
// Note: [Fence after a cut traceback] A traceback pasted into a Markdown code block and cut before its
// exception line (the reporter copied only part of it) is followed by the block's closing fence ("```",
// "~~~") and the reporter's sentences. The fence, read in the frame section, would be taken for the
// exception line and the traceback would not read as cut (its last source line names what failed). So a
// fence line in the frame section closes the traceback where it stands. Found by the cut-paste measure's
// md_fence_prose form: 8 of 1585 diagnosed corpus logs lost their diagnosis inside a fenced block
// between two sentences, all cut tracebacks.
//
// Note: [Worker death reports] When a DataLoader worker dies (a segfault, the OOM killer), the main
// process notices while it waits for the worker's batch: the wait fails (ConnectionResetError, EOFError,
// queue.Empty in _try_get_data), and DataLoader reports the death while handling that failure, as
// "RuntimeError: DataLoader worker (pid N) is killed by signal: ..." (from its SIGCHLD handler, printed
// after "During handling of the above exception ...") or "... exited unexpectedly" (raised from the
// wait's exception, after "The above exception was the direct cause ..."). Python prints the wait's
// failure first, but it is the consequence: the worker died first. So when a traceback whose message
// starts "DataLoader worker (pid" is chained to one whose first frame is the DataLoader's own
// _try_get_data and that is no such report itself (the handler's report raised inside the wait, then
// raised again "from" it as "exited unexpectedly", is already in order), the link is turned round: the
// wait is caused by the report, and the report is the root.
//
// Note: [Nested chains] The worker's text is traceback.format_exception of the exception its loop
// caught, so a chained exception prints its whole chain there, cause first: the cause's traceback, a
// blank line, "The above exception was the direct cause ..." (or "During handling ..."), a blank line,
// and the next traceback, down to the one the loop caught, whose first frame is the loop itself
// (DataLoader's _worker_loop, the pin-memory thread's _pin_memory_loop, DataParallel's replica
// _worker). So when a nested traceback closes without that first frame, the text goes on: a separator
// after it chains the next nested traceback to it (not to the wrapper, printed in the main process,
// which would make the re-raise the cause of the worker's own exception), and the wrapper's cause is
// the last traceback of the worker's chain.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_

#include <string>
#include <string_view>

#include "log/formats/block.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;

class PythonTracebackReader final : public IncidentReader {
 public:
  // Idle triggers.
  static bool StartHeader(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A traceback pasted without its header: its first `File "...", line N, in F` line (Note: [Headerless
  // tracebacks]).
  static bool StartHeaderless(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartIgnored(Segmenter& s, const std::string& line, std::string_view trimmed);
  static bool StartChain(Segmenter& s, const std::string& line, std::string_view trimmed);
  // "During handling of the above exception, ..." or "The above exception was the direct cause ...".
  static bool IsChainSeparator(std::string_view trimmed);
  static bool StartErrorLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  // Opens `inc`, an exception line read alone (kind kErrorLine, its type and message's first line set), as
  // the open incident whose message may go on over the next lines, as a bare error line's does (CUDA
  // hints, state_dict key lists); `line` is the line it was read from.
  static void OpenErrorLine(Segmenter& s, const std::string& line, Incident inc);
  // `interrupts` hooks: a traceback header, which starts an incident even in another stream's lines.
  static bool IsHeader(std::string_view trimmed);

  // A line of the open traceback: its frame section or its message.
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // A traceback cut in its frame section takes its exception from the last source line, and one with
  // no frame is dropped; interleaved tracebacks end first (formats/interleaved.h).
  bool Close(Segmenter& s) override;
  // The wrapper of a DataLoader worker's traceback: its first line goes to the worker's incident as
  // context, and its message is read on.
  void Resume(Segmenter& s, const Incident& outer, Incident* inner) override;

  // One line of the open traceback's frame section (rich and IPython frames too).
  void FramesLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  // True while the open incident is this reader's and in its message (after the exception line).
  bool ReadingMessage(Segmenter& s);
  // Reads the open incident's next lines as a Python exception's message (a C++ error whose
  // TorchScript report ended with a Python exception line), or its frame section again (interleaved
  // tracebacks, after the twin ended).
  void ReadMessage(Segmenter& s) { Read(s, Part::kMessage); }
  void ReadFrames(Segmenter& s) { Read(s, Part::kFrames); }

  // A traceback cut before its exception line whose last source line is `raise Type("message...")`:
  // the raise statement names the exception and starts its message, so take both from it.
  static void RecoverFromRaise(Incident* inc);

  // ---- Python's frame and exception-line grammar, which the formats that print Python frames (pytest,
  // IPython, rich, TorchScript, faulthandler, anomaly mode's forward trace, interleaved tracebacks) read
  // through this reader: the frame-section state is this reader's. ----
  // Opens a Python traceback at this line (read from its frame section); a new traceback also ends what
  // IPython's and rich's readers had of the last one.
  void StartTraceback(Segmenter& s);
  // Reads one line of a frame section ('  File "x.py", line 3, in f') into *into (the open incident when
  // none is given); true when it was one: then the frame's source line may follow (expects_source()).
  bool ParseFrameLine(Segmenter& s, const std::string& line, Incident* into);
  bool ParseFrameLine(Segmenter& s, const std::string& line);
  // Note: [Plain IPython frames]: reads `File PATH:N` or `File PATH:N in F` (leading blanks aside) into
  // *f; false when `t` is not such a frame line.
  static bool ParsePlainFrame(std::string_view t, Frame* f);
  // Reads "Type: message" (or a line of message alone) into inc's exception and message.
  static void ParseExceptionLine(Segmenter& s, const std::string& line, Incident* inc);
  // True while the next indented line may be the source line of the last frame read.
  bool& expects_source() { return expects_source_; }
  // Note: [Indented tracebacks]. A traceback pasted as an indented block (a Markdown code block
  // indented by four spaces, a logger that indents what it prints) has its exception line at the
  // header's indentation, not at column 0; `header` is the header line, whose blanks are the base.
  void SetHeaderIndent(std::string_view header);

 private:
  enum class Part { kFrames, kMessage };
  // Makes the open incident this reader's, reading `part` next.
  void Read(Segmenter& s, Part part);
  // A line in the frame section, two interleaved tracebacks included.
  void FramesState(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A line after the exception line. Returns true when it closed an incident and resumed an outer one
  // that this line may continue: then the line is to be read again.
  bool MessageLine(Segmenter& s, const std::string& line, std::string_view trimmed);
  // `line` does not go on with the message: closes the incident and reads the line afresh; returns
  // as MessageLine does.
  bool EndMessage(Segmenter& s, const std::string& line, std::string_view trimmed);
  // Note: [Worker death reports]: makes the DataLoader's report of a dead worker, now closing, the cause
  // of the main process's wait it was chained to, and leaves the report unchained.
  void ReverseWorkerDeathChain(Segmenter& s, int cause);

  // The line without the header's indentation (Note: [Indented tracebacks]); as it is when the header
  // was not indented.
  std::string_view Dedented(std::string_view line) const;

  Part part_ = Part::kFrames;
  bool expects_source_ = false;
  // Note: [Frames wrapped before their function]: the last frame line ended in the comma after its line
  // number, so its function may be on the next line.
  bool function_next_ = false;
  // Note: [Indented tracebacks]: the blanks before the open traceback's header.
  size_t header_indent_ = 0;
  // Note: [Nested chains]: the wrapper just resumed after a nested traceback that the other process's
  // loop did not catch, so the chain printed in the other process's text may go on; a chain separator
  // line was read; blank lines read since.
  // Note: [Wrapped quotes]: lines joined to the message's last line since its exception line.
  int wrap_joins_ = 0;
  // Note: [Padded rows]: the message's last line so far ended with padding blanks.
  bool padded_ = false;
  // Note: [Message on the next line]: the exception line ended at its colon ("RuntimeError: "), and no
  // line of the message has been read since.
  bool message_next_line_ = false;
  // Note: [Headerless tracebacks]: the open traceback started at a frame line at column 0
  // (started_flush_left_), and the last frame line read was at column 0 too, so its source line may be.
  bool flush_left_ = false;
  bool started_flush_left_ = false;
  // Note: [Worker death reports]: a chain separator named a cause for the next traceback; the open
  // traceback is that one (its cause is the segmenter's pending cause, renumbered with the rest).
  bool chain_pending_ = false;
  bool chained_ = false;
  bool nested_chain_open_ = false;
  bool nested_separator_ = false;
  int nested_blanks_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PYTHON_TRACEBACK_H_
