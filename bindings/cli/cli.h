// The `triage` command: shared pieces of its subcommands. Reference: bindings/cli/README.md.
#ifndef TRIAGE_CLI_CLI_H_
#define TRIAGE_CLI_CLI_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage::cli {

// Exit codes (documented in README.md and bindings/cli/README.md).
constexpr int kExitFound = 0;     // a diagnosis was found / the command succeeded
constexpr int kExitNone = 1;      // no diagnosis / a check failed (rules test, eval thresholds)
constexpr int kExitUsage = 2;     // usage, input or rule-loading error

// Options common to every subcommand that loads rules.
struct RuleFlags {
  std::vector<std::string> dirs;  // --rules DIR (repeatable)
  bool bundled = true;            // --no-bundled clears it
  bool strict = false;            // --strict
};

// Tries to consume a rule flag at argv[*i]; returns true if it did. Sets *error on a bad value.
bool ParseRuleFlag(int argc, char** argv, int* i, RuleFlags* flags, std::string* error);

// Loads rules per flags; prints every problem to stderr. Returns the result (rules never null).
// `diagnosing`: a load for diagnosing logs, which reads no rule's examples and only the texts of the
// rules that fire (LoadOptions::examples false, LoadOptions::texts_on_demand).
LoadResult LoadWithFlags(const RuleFlags& flags, bool quiet_warnings, bool diagnosing = false);

int RunRules(int argc, char** argv);    // triage rules list|lint|test ...
int RunExplain(int argc, char** argv);  // triage explain RULE_ID
int RunEval(int argc, char** argv);     // triage eval DIR

void PrintError(const std::string& message);  // "triage: message" to stderr
// Starts the start-up arena (Note: [Start-up arena] in startup_arena.cc): main calls it after
// PrepareHeap; operator new uses malloc until then.
void StartStartupArena();

// Columns to wrap text at: `asked` (--width; 0: no wrapping) when it is >= 0, else COLUMNS, else the
// width of the terminal on `fd`, else 80 (main.cc).
int TextWidth(int asked, int fd);

// " (did you mean 'X'?)" for the candidate closest to `word` by edit distance when it is close enough
// (at most a third of the word's letters differ), or a candidate that contains it; else "".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates,
                       const std::string& prefix = "");

// Prints one report in the chosen format (main.cc).
using ReportPrinter = std::function<void(const Report&)>;

struct FollowTiming {
  double idle_exit = 0;  // stop after this many quiet seconds; 0: never (until a stop signal)
  double settle = 1.0;   // report an incident still open after this many quiet seconds
  double poll = 0.1;     // how often to look for new data
};

// triage --follow FILE (follow.cc, Note: [Follow]): prints each new diagnosis through `print`.
// Returns 0, or kExitUsage when the file cannot be read.
int Follow(const std::string& name, const std::shared_ptr<const RuleSet>& rules, const DiagnoseOptions& options,
           const FollowTiming& timing, const ReportPrinter& print);

}  // namespace triage::cli

#endif  // TRIAGE_CLI_CLI_H_
