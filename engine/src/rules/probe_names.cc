// The live probes' names: the one list the rule loader checks `test: { probe: NAME }` against and
// the probes registry (probes/src/probes.cc) implements, tied by tests/probes/probes_test.cc.
#include "triage/evidence.h"

namespace triage {

const std::vector<std::string>& ProbeNames() {
  static const std::vector<std::string> kNames = {
      "device-audit", "dtype-audit",  "label-range", "index-range",      "shape-trace",
      "init-loss",    "dead-activations", "determinism", "mode-audit",   "nan-source",
      "grad-health",  "autograd-anomaly", "weight-update", "memory-growth", "overfit-one-batch",
      "loss-broadcast", "norm-batch"};
  return kNames;
}

}  // namespace triage
