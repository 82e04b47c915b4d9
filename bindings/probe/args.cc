#include "args.h"

#include <cstdlib>

namespace triage::probe_cli {

const char kUsage[] =
    "usage: triage-probe --model MODEL.pt --inputs X.pt [--targets Y.pt] [--loss cross_entropy|nll|mse|bce_with_logits]\n"
    "                    [--log ERROR.log] [--probe NAME]... [--optimizer adam|sgd] [--lr 0.001] [--budget SECONDS]\n"
    "                    [--format text|json|markdown|html] [--eval] [--verbose] [--evidence FILE] [--list] [--version]\n";

int ParseArgs(int argc, char** argv, ProbeArgs* args, std::ostream& out, std::ostream& err) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool takes_value = a == "--model" || a == "--inputs" || a == "--targets" || a == "--loss" || a == "--log" ||
                             a == "--probe" || a == "--lr" || a == "--optimizer" || a == "--budget" ||
                             a == "--format" || a == "--evidence";
    if (takes_value && i + 1 >= argc) {
      err << "triage-probe: " << a << " needs a value\n" << kUsage;
      return 2;
    }
    if (a == "--model") args->model = argv[++i];
    else if (a == "--inputs") args->inputs = argv[++i];
    else if (a == "--targets") args->targets = argv[++i];
    else if (a == "--loss") args->loss = argv[++i];
    else if (a == "--log") args->log = argv[++i];
    else if (a == "--probe") args->probes.push_back(argv[++i]);
    else if (a == "--lr") args->lr = std::atof(argv[++i]);
    else if (a == "--optimizer") args->optimizer = argv[++i];
    else if (a == "--budget") args->budget = std::atof(argv[++i]);
    else if (a == "--format") args->format = argv[++i];
    else if (a == "--evidence") args->evidence = argv[++i];
    else if (a == "--eval") args->eval = true;
    else if (a == "--verbose") args->verbose = true;
    else if (a == "--list") {
      args->list = true;
      return -1;
    } else if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    } else if (a == "--version") {
      out << "triage-probe " << TRIAGE_VERSION << "\n";
      return 0;
    } else {
      err << "triage-probe: unknown argument " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (args->model.empty() || args->inputs.empty()) {
    err << kUsage;
    return 2;
  }
  const std::string& f = args->format;
  if (f != "text" && f != "json" && f != "markdown" && f != "html") {
    err << "triage-probe: --format is text, json, markdown or html, not '" << f << "'\n" << kUsage;
    return 2;
  }
  return -1;
}

}  // namespace triage::probe_cli
