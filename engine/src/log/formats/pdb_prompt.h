// Note: [Pdb prompt]
// A debugger session pasted with its output: pdb (python -m pdb, breakpoint()), pdb++ and ipdb print
// their prompt, "(Pdb) ", "(Pdb++) " or "ipdb> ", and the text a command printed follows it on the same
// line: "(Pdb) Traceback (most recent call last):" when the program under `python -m pdb` raised. The
// reader removes the prompt where a line starts with it, so the text after it is read as printed.
//
// Note: [Debugger answers]
// What a person learns in a debugger is the answer to an expression typed at the prompt, which the
// debugger prints on the next line by itself: "ipdb> torch.isnan(data['y']).sum()" then
// "tensor(2994, device='cuda:0')", "(Pdb) p torch.isfinite(loss).all()" then "tensor(False)". Neither
// line says anything alone (the answer is a bare number), so the reader reads a command and a one-line
// answer right under it as one record, "COMMAND ANSWER", for the rules (Segmenter::JoinLogLine): the
// two lines become a log-line incident when a rule recognises the record, and are read as before
// otherwise. Only an expression (or p / pp and an expression): after the debugger's own commands ("c",
// "n", "until", "where") the next line is the program's output, not a value. Only the line right after
// the prompt's, of the same stream, while no incident or block is open, and not itself a prompt, pdb's
// error report ("*** NameError: ...", read by itself), an exception line or a line that starts an
// incident; an answer that runs over several lines (a printed tensor's rows) is left alone. The prompt line asks the log path to
// read the line after it (Segmenter::ReadNextFlushLine): a bare number holds no keyword. The hook runs
// twice, before the learned prefix is removed and after (formats/registry.cc), so a session pasted from a
// logger's output is read the same; the command's line seen again and an answer the first call could not
// join are left to the second call.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class PdbPromptReader {
 public:
  // `line` hook: removes a debugger prompt from the start of *line, and reads a command typed at the
  // prompt with its one-line answer (Note: [Debugger answers]).
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of the debugger prompt at the start of `line`, or 0.
  static size_t Prompt(std::string_view line);
  // Exposed for tests: true when `t`, the line under a command, may be the command's whole answer.
  static bool MayBeAnswer(std::string_view t);

 private:
  bool command_active_ = false;   // the last line was a command typed at the prompt
  std::string command_;           // its text, without the prompt
  std::uint64_t command_line_ = 0;
  std::string command_rank_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_
