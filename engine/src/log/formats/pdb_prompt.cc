#include "log/formats/pdb_prompt.h"

#include "log/formats/registry.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

namespace {

// A command or an answer longer than this is no expression and its value (Note: [Debugger answers]).
constexpr size_t kMaxCommand = 400;
constexpr size_t kMaxAnswer = 200;

// True when `command` is one of the debugger's own commands other than p and pp (which print an
// expression's value): "c", "n", "s", "until", "where", "list" run the program or show its state, and
// what follows them is the program's output, not a value. Its first word decides, as in pdb.
bool IsControlCommand(std::string_view command) {
  const size_t end = command.find_first_of(" \t;");
  const std::string_view word = command.substr(0, end);
  static constexpr std::string_view kCommands[] = {
      "h", "help", "w", "where", "bt", "d", "down", "u", "up", "b", "break", "tbreak", "cl", "clear",
      "disable", "enable", "ignore", "condition", "commands", "s", "step", "n", "next", "unt", "until",
      "j", "jump", "c", "cont", "continue", "l", "list", "ll", "longlist", "a", "args", "whatis", "source",
      "display", "undisplay", "interact", "alias", "unalias", "r", "return", "run", "restart", "q", "quit",
      "exit", "debug", "retval", "rv", "sticky"};
  for (std::string_view c : kCommands) {
    if (word == c) return true;
  }
  return false;
}

}  // namespace

size_t PdbPromptReader::Prompt(std::string_view line) {
  for (std::string_view prompt : {"(Pdb) ", "(Pdb++) ", "ipdb> "}) {
    if (text::StartsWith(line, prompt)) return prompt.size();
  }
  return 0;
}

bool PdbPromptReader::MayBeAnswer(std::string_view t) {
  // pdb prints an error as "*** NAME: message", a line the rules read by itself
  return !t.empty() && t.size() <= kMaxAnswer && Prompt(t) == 0 && !text::StartsWith(t, "***") &&
         !text::IsExceptionLine(t) && !Segmenter::StartsIncident(t);
}

bool PdbPromptReader::LineHook(Segmenter& s, std::string* line) {
  PdbPromptReader& r = s.readers().pdb_prompt;
  const bool idle = s.state() == Segmenter::State::kIdle;
  if (size_t n = Prompt(*line); n > 0) {
    line->erase(0, n);
    const std::string_view command = text::Trim(*line);
    r.command_active_ = idle && !command.empty() && command.size() <= kMaxCommand &&
                        !text::StartsWith(command, "Traceback ") && !IsControlCommand(command);
    if (r.command_active_) {
      r.command_.assign(command);
      r.command_line_ = s.line_no();
      r.command_rank_ = s.rank();
      s.ReadNextFlushLine();
    }
    return true;
  }
  if (!r.command_active_ || s.line_no() == r.command_line_) return true;  // (the command's line, read again)
  if (!idle || r.command_line_ + 1 != s.line_no() || s.rank() != r.command_rank_) {
    r.command_active_ = false;
    return true;
  }
  // The hook runs again behind a learned prefix (formats/registry.cc): a line that is no answer, or whose
  // record the rules do not know, may be one once its prefix is gone, so the command waits for that call.
  const std::string_view answer = text::Trim(*line);
  if (!MayBeAnswer(answer)) return true;
  std::string record = r.command_;
  record += ' ';
  record.append(answer);
  if (!s.JoinLogLine(r.command_line_, record, answer)) return true;
  r.command_active_ = false;
  return false;
}

}  // namespace triage
