// triage-probe's command line, read the same way by its two programs (Note: [Probe front]): the
// torch-free front (front.cc), which answers --help, --version and usage errors itself, and the
// LibTorch part it then runs (main.cc). No torch header here.
#ifndef TRIAGE_BINDINGS_PROBE_ARGS_H_
#define TRIAGE_BINDINGS_PROBE_ARGS_H_

#include <ostream>
#include <string>
#include <vector>

namespace triage::probe_cli {

extern const char kUsage[];

struct ProbeArgs {
  std::string model, inputs, targets, log, evidence;
  std::string loss = "cross_entropy";
  std::string format = "text";
  std::vector<std::string> probes;
  std::string optimizer = "adam";
  double lr = 1e-3, budget = 30;
  bool eval = false, verbose = false;
  bool list = false;  // --list: print the probes (arguments after it are not read)
};

// Reads argv[1..argc) into *args. Returns -1 when the command is to run (or list the probes); else
// the exit status of what was already done: --help or --version printed on `out` (0), or a usage
// error written on `err` (2).
int ParseArgs(int argc, char** argv, ProbeArgs* args, std::ostream& out, std::ostream& err);

}  // namespace triage::probe_cli

#endif  // TRIAGE_BINDINGS_PROBE_ARGS_H_
