// Note: [Pdb prompt]
// A debugger session pasted with its output: pdb (python -m pdb, breakpoint()), pdb++ and ipdb print
// their prompt, "(Pdb) ", "(Pdb++) " or "ipdb> ", and the text a command printed follows it on the same
// line: "(Pdb) Traceback (most recent call last):" when the program under `python -m pdb` raised. The
// reader removes the prompt where a line starts with it, so the text after it is read as printed.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class PdbPromptReader {
 public:
  // `line` hook: removes a debugger prompt from the start of *line.
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of the debugger prompt at the start of `line`, or 0.
  static size_t Prompt(std::string_view line);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PDB_PROMPT_H_
