// Note: [Debugger exception panels]
// VS Code's Python debugger (debugpy, whose pydevd writes the text) stops at an uncaught exception and
// shows it in a panel, not as Python prints it: a header that names the type, "Exception has occurred:
// RuntimeError" (the words before the type in the editor's language: "发生异常: KeyError" in the Chinese
// UI, "例外が発生しました: ImportError" in the Japanese one), where pydevd adds after the type a note
// when the debugger stopped in another frame than the raising one, "       (note: full exception trace
// is shown but execution is paused at: _run_module_as_main)"; then the message on the line below the
// header, then the frames, innermost first, with no "Traceback" line. People copy the panel from the
// type on as often as from its first word ("ImportError       (note: full exception trace is shown ...)"
// over an undefined-symbol message: corpus/wild/env/goliath-23-...), and some retype it on one line
// with the message after the note ("KeyError(note: ... paused at: <module>)'running_avg'").
// Read as lines, the header was no exception line (the type is not followed by ':') and the message
// line no exception line either, so the incident a rule made of the message named no type, and the
// rule's confidence was lowered for it (x0.85, ranker.cc). The reader takes such a header: it removes
// the header line and writes its type before the next non-blank line, "TYPE: message", which is then
// read as the exception line Python would have printed (a message after the note on the header's own
// line becomes that line). A header is the type, alone or with pydevd's note after it, behind one of
// the panel's labels or, with the note only, behind nothing or any text (the note is pydevd's alone);
// a line of the message that already starts with the type, a frame line or a traceback header after it
// is left as it is.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_DEBUGGER_PANEL_H_
#define TRIAGE_ENGINE_LOG_FORMATS_DEBUGGER_PANEL_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class DebuggerPanelReader {
 public:
  // `line` hook: takes a panel's header (returns false: nothing else reads it) and writes its type
  // before the message line after it.
  static bool LineHook(Segmenter& s, std::string* line);
  // When `line` is a panel's header, its type (*type) and where the text after the header's note
  // starts (*rest, line.size() when nothing follows); false otherwise.
  static bool Header(std::string_view line, std::string_view* type, size_t* rest);

 private:
  std::string type_;  // the type of the header just read, until the message line is read
  int blanks_ = 0;    // blank lines read since that header
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_DEBUGGER_PANEL_H_
