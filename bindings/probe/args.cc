#include "args.h"

#include <cmath>

#include "triage/locale_free.h"

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
    else if (a == "--lr" || a == "--budget") {
      // Read in the "C" locale whatever the process's, and refused when out of range: atof read
      // "1e-3x" as 0.001 and "abc" as 0, which ran the probes with no learning rate or no time. A
      // learning rate of 0 is kept (an optimizer can hold one, and the weight-update probe reports it).
      const bool lr = a == "--lr";
      const char* text = argv[++i];
      double v = 0;
      if (!triage::ParseNumber(text, &v) || !std::isfinite(v) || (lr ? v < 0 : v <= 0)) {
        err << "triage-probe: " << a << (lr ? " takes a number of 0 or more" : " takes a positive number of seconds")
            << ", not '" << text << "'\n" << kUsage;
        return 2;
      }
      (lr ? args->lr : args->budget) = v;
    }
    else if (a == "--optimizer") args->optimizer = argv[++i];
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
