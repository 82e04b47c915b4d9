#include "log/formats/registry.h"

#include "log/formats/json_record.h"
#include "log/formats/text.h"

namespace triage {

bool MayCarryLinePrefix(std::string_view line) {
  std::string rank;
  std::string_view service;
  size_t bar = 0;
  return QuoteMarkerReader::Markers(line) > 0 || RankPrefixReader::Prefix(line, &rank) > 0 || SrunLabelReader::Label(line, &rank) > 0 ||
         PdbPromptReader::Prompt(line) > 0 || ProcessTagReader::Tag(line, &rank) > 0 ||
         ComposePrefixReader::Prefix(line, &service, &bar) > 0;
}

size_t LinePrefixLength(std::string_view line) {
  size_t n = QuoteMarkerReader::Markers(line);
  std::string rank;
  n += ProcessTagReader::Tag(line.substr(n), &rank);
  n += RankPrefixReader::Prefix(line.substr(n), &rank);
  return n + QuoteMarkerReader::Markers(line.substr(n));  // Note: [Quote markers behind a prefix]
}

const std::vector<FormatEntry>& FormatTable() {
  // Idle triggers: tried in this order on each non-blank line outside any incident; the first that
  // takes the line wins. A line no trigger takes goes to the rules (a hit is a log-line incident) or is
  // ordinary output. Keywords match in any case: "FAILURES" holds "failure", "Fatal Python error" holds
  // "error". Hooks: called in this order too, each kind at its own point (registry.h, FormatHooks).
  static const std::vector<FormatEntry> kTable = {
      // Readers of raw and normalised lines, before any other reader sees them.
      {"jupyter notebook", {}, nullptr, OnRawLine(&NotebookReader::RawLineHook)},
      // A JSON log record's text (Note: [JSON log records]), before the escaped-traceback reader, which
      // would read the record's other fields as a line of the traceback.
      {"json log record", {}, nullptr, OnRawLine(&JsonRecordReader::RawLineHook)},
      {"escaped traceback", {}, nullptr, OnRawLine(&EscapedReader::RawLineHook)},
      {"one-line traceback", {}, nullptr, OnRawLine(&EscapedReader::OneLineHook)},
      // Line prefixes a format puts before the text: each reader strips its own where it is present
      // (quote markers, a rank prefix, a debugger prompt) or once the input shows the format (srun's
      // task labels). Quote markers first: a quoted log keeps the prefixes its lines had.
      {"quote markers", {}, nullptr, OnLine(&QuoteMarkerReader::LineHook)},
      // Markdown's escapes of '_', '*' and '`' in a paste: every line holding one is read, since an escape
      // can split a keyword ("CUDA\_HOME").
      {"markdown escapes", {"\\_", "\\*", "\\`"}, nullptr, OnLine(&MarkdownEscapeReader::LineHook)},
      // Markdown emphasis around a whole pasted traceback: the opener before its header, first frame or exception
      // line, the closer after its last line (Note: [Emphasis across lines]). Those lines hold the keywords of
      // the traceback rows below.
      {"markdown emphasis across lines", {}, nullptr, OnLine(&MarkdownEmphasisReader::LineHook)},
      // A Ray or vLLM worker's process tag, before the rank prefix a torch process inside it may write
      // (Note: [Process tags]).
      {"process tag", {}, nullptr, OnLine(&ProcessTagReader::LineHook)},
      {"rank prefix", {}, nullptr, OnLine(&RankPrefixReader::LineHook)},
      {"srun label", {}, nullptr, OnLine(&SrunLabelReader::LineHook)},
      // Docker Compose's service prefix, once the input shows it (Note: [Compose service prefixes]).
      {"compose service prefix", {}, nullptr, OnLine(&ComposePrefixReader::LineHook)},
      // torch's rank prefix inside a Compose service's output ("trainer_1  | [rank0]: ...").
      {"rank prefix behind a service", {}, nullptr, OnLine(&RankPrefixReader::LineHook)},
      {"pdb prompt", {}, nullptr, OnLine(&PdbPromptReader::LineHook)},
      // A log record wrapped to its message's column: read with the prefix a later hook may learn to
      // strip, and its lines after the line prefixes above are gone. Its record lines hold "Error" or
      // "Warning", the keywords of rows below (Note: [Aligned continuations]).
      {"aligned continuation", {}, nullptr, OnLine(&AlignedContinuationReader::LineHook)},
      {"learned prefix", {}, nullptr, OnLine(&LearnedPrefixReader::LineHook)},
      // A debugger's prompt behind a learned prefix (a session's lines pasted from a logger's output): the
      // same hook, which reads each line once more (Note: [Debugger answers]).
      {"pdb prompt behind a prefix", {}, nullptr, OnLine(&PdbPromptReader::LineHook)},
      // A process tag behind a learned prefix: a container runtime's or CI runner's time stamp before Ray's
      // or vLLM's tag (Note: [Process tags]).
      {"process tag behind a prefix", {}, nullptr, OnLine(&ProcessTagReader::LineHook)},
      // Quote markers behind one of the prefixes above (Note: [Quote markers behind a prefix]).
      {"quote markers behind a prefix", {}, nullptr, OnLine(&QuoteMarkerReader::AfterPrefixHook)},
      // VS Code's exception panel: the header naming the type is removed and the type written before
      // the message line under it (Note: [Debugger exception panels]). Its keywords: a header whose type
      // holds none of the bare error line's (a label or pydevd's note then names it).
      {"debugger exception panel", {"xception has occurred", "full exception trace is shown"}, nullptr,
       OnLine(&DebuggerPanelReader::LineHook)},
      {"exception group", {}, nullptr, OnLine(&ExceptionGroupReader::LineHook)},
      // A warning a person broke by hand in mid-sentence: its next line, at the first column, joined to it
      // (Note: [Hand-wrapped warnings] in formats/warnings.h). Its warning lines hold "Warning", the
      // keyword of the warnings-module row below.
      {"hand-wrapped warning", {}, nullptr, OnLine(&WarningsReader::WrapHook)},
      // Idle triggers, with the hooks of their readers.
      {"anomaly forward trace", {"Traceback"}, &ForwardTraceReader::Start, OnEmit(&ForwardTraceReader::Attach)},
      {"python traceback", {"Traceback"}, &PythonTracebackReader::StartHeader,
       OnInterrupt(&PythonTracebackReader::IsHeader)},
      // Python's frame line, or IPython's plain one (Note: [Plain IPython frames]: a rooted path, as the
      // IPython row below reads them).
      {"python traceback without header", {"File \"", "File /", "File ~", "File c:", "File d:", "File e:"},
       &PythonTracebackReader::StartHeaderless},
      {"pytest report", {"Failure", "Error"}, &PytestReader::Start},
      {"rich traceback", {"Traceback"}, &RichReader::Start},
      {"ipython traceback", {"Traceback"}, &IPythonReader::Start},
      // Not ".py:": logging prefixes carry it on every line ("INFO trainer.py:214]"). A drive letter
      // past E: is left to the traceback's exception line.
      {"ipython frame without header", {".py in ", "Cell In", "File /", "File ~", "File c:", "File d:", "File e:"},
       &IPythonReader::StartHeaderless},
      {"mp.spawn child error", {"Error"}, &MpSpawnReader::Start},
      {"faulthandler dump", {"Error", "fatal exception"}, &FatalDumpReader::Start, OnEmit(&FatalDumpReader::Attach)},
      {"exception ignored", {"Exception"}, &PythonTracebackReader::StartIgnored},
      {"chain separator", {"Exception"}, &PythonTracebackReader::StartChain},
      {"c++ terminate", {"terminate called"}, &CxxErrorReader::StartTerminate, OnInterrupt(&CxxErrorReader::IsTerminate)},
      {"c++ what()", {"what():"}, &CxxErrorReader::StartWhat},
      {"c10::Error backtrace", {"Exception"}, &CxxErrorReader::StartRaisedFrom},
      // Every ending text::LooksLikeExceptionType accepts.
      {"bare error line", {"Error", "Exception", "Interrupt", "Failure", "StopIteration", "SystemExit"},
       &PythonTracebackReader::StartErrorLine, OnInterrupt(&text::IsExceptionLine)},
      // A line no trigger took and no rule recognised that holds an exception line after other text
      // (Note: [Embedded exception lines] in embedded_error.h); its keywords are the bare error line's.
      {"embedded exception line", {"Error", "Exception", "Interrupt", "Failure"}, nullptr,
       OnUnrecognised(&EmbeddedErrorReader::Unrecognised)},
      // The shell's and gdb's reports of a segfault, which a rule recognises: the reader remembers the
      // last command that imported a module (an "import" line no trigger took and no rule recognised; it
      // stays ordinary output) and gives the report's incident
      // that command as context and gdb's backtrace as frames (Note: [Native crash reports] in
      // formats/native_crash.cc).
      {"native crash report", {"import"}, nullptr, NativeCrashReader::Hooks()},
      // Lines read for another reason: a warnings-module line (a rule may make it an incident, whose
      // type, message, frame and source line its reader reads: formats/warnings.cc), and ESC, because
      // removing ANSI escapes can join a marker.
      {"warnings-module line", {"Warning"}, nullptr, OnLogLine(&WarningsReader::LogLine)},
      {"ANSI escapes", {"\x1b"}, nullptr},
      // No-break spaces and curly quotes, read as a space and a straight quote (Note: [Typographic
      // characters] in text.h): a line holding one may match a rule only once normalised.
      {"typographic characters",
       {"\xc2\xa0", "\xe2\x80\xaf", "\xe2\x80\x98", "\xe2\x80\x99", "\xe2\x80\x9c", "\xe2\x80\x9d"},
       nullptr},
      // A colour code that lost its ESC, removed on a line holding a reset (Note: [Colour codes without
      // ESC] in segmenter.cc), and an ESC spelled in caret notation (Note: [Escapes in caret notation]).
      {"colour codes without ESC", {"[0m", "[0;0m", "^[["}, nullptr},
      // Readers called by another reader, with hooks of their own.
      {"torchscript report", {}, nullptr, OnClosed(&TorchScriptReader::Closed)},
  };
  return kTable;
}

}  // namespace triage
