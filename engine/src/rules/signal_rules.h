// Signal rules: symptom signatures read from metric series instead of messages (`signal:` in a rule,
// documented in rules/README.md "Signal rules").
//
//   std::vector<SignalProblem> problems;
//   std::shared_ptr<const SignalSpec> spec = ParseSignalSpec(yaml_node, &problems);   // loader hook
//   SignalHit hit;
//   if (spec && DetectSignal(*spec, metrics, &hit)) { /* hit.captures, hit.evidence, hit.series */ }
//
// A detector looks at the downsampled series of a MetricCollector (engine/src/log/metrics.h) and either
// holds, with the evidence a person can check ("loss = 2.3026 at steps 10..400, = ln 10"), or not.
// Every threshold is a rule parameter with a documented default, so users tune signatures in YAML.
#ifndef TRIAGE_ENGINE_SIGNAL_RULES_H_
#define TRIAGE_ENGINE_SIGNAL_RULES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "log/metrics.h"
#include "rules/problem_codes.h"
#include "triage/triage.h"

namespace triage {

class YamlNode;

struct SignalSpec {
  std::string detector;                  // one of SignalDetectorNames()
  std::vector<SeriesId> series;          // series read, primary first (detector default when not given)
  std::map<std::string, double> params;  // every parameter of the detector, defaults filled in
  std::vector<std::string> evidence_for; // categories this signature supports (Note: [Signal folding])
};

// A problem in a `signal:` mapping, located in the rule file (1-based; 0 when unknown).
struct SignalProblem {
  bool error = true;  // false: a warning
  int line = 0;
  int column = 0;
  ProblemCode code = ProblemCode::kBadValue;
  std::string message;
};

// Parses a rule's `signal:` mapping. Returns null when it cannot be used; `problems` lists every
// problem found (unknown detector, unknown series, bad or unknown parameter).
std::shared_ptr<const SignalSpec> ParseSignalSpec(const YamlNode& node, std::vector<SignalProblem>* problems);

// Returns the names of all detectors, in documentation order.
std::vector<std::string> SignalDetectorNames();
// Returns the template names a rule using `detector` may use ({series}, {evidence}, ...); empty for
// an unknown detector.
std::set<std::string> SignalCaptureNames(const std::string& detector);

// What a detector found.
struct SignalHit {
  std::map<std::string, std::string> captures;  // values for the rule's templates
  std::string evidence;                          // one line a person can check against the log
  SeriesEvidence series;                         // the series that triggered it
  std::vector<SeriesEvidence> supporting;        // other series the evidence cites
  std::uint64_t line_start = 0;                  // input lines spanned by the evidence
  std::uint64_t line_end = 0;
};

// Runs a detector over the collected metrics. Returns true and fills *hit when the signature holds.
bool DetectSignal(const SignalSpec& spec, const MetricCollector& metrics, SignalHit* hit);

// Returns the series as report evidence (x = printed step, else epoch, else position; see
// Note: [Metric axes]).
SeriesEvidence ToSeriesEvidence(SeriesId id, const std::vector<MetricPoint>& points);

}  // namespace triage

#endif  // TRIAGE_ENGINE_SIGNAL_RULES_H_
