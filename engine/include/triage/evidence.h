// triage evidence: applying the verdicts of live probes to a report (torch-free).
//
// Usage:
//
//   triage::Report report = engine.DiagnoseText(log);
//   std::vector<triage::ProbeEvidence> ev = ...;   // from triage::probes::RunProbe, or your own checks
//   triage::ApplyEvidence(report, ev);               // statuses, evidence text, confidence, order
//
// Kept apart from triage.h so the probe layer can grow without touching the core header; include
// "triage/triage.h" alone for log triage.
#ifndef TRIAGE_EVIDENCE_H_
#define TRIAGE_EVIDENCE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triage/triage.h"

namespace triage {

// What a probe found: is the fault present (confirmed), absent (refuted), or could it not tell.
enum class Verdict { kInconclusive, kConfirmed, kRefuted };

// The verdict as JSON and the reports spell it: "inconclusive", "confirmed" or "refuted".
const char* VerdictName(Verdict verdict);

// The verdict spelled `name`; false (and *verdict unchanged) when it is none of the three.
bool VerdictFromName(std::string_view name, Verdict* verdict);

// Evidence from one live probe (probes/, or any checker an embedder writes): the torch-free half of
// hypothesis testing. See Note: [Evidence] in engine/src/diagnose/evidence.cc.
struct ProbeEvidence {
  std::string probe;                  // probe name, as rules name it in `test: { probe: NAME }`
  Verdict verdict = Verdict::kInconclusive;  // is the fault present?
  std::string summary;                // one line of what was verified, e.g. "fc expects 64 features, ..."
  std::vector<std::pair<std::string, std::string>> facts;  // measurements, in probe order
  std::vector<LayerSeries> layer_series;  // per-layer measurements (gradient norms, dead units), which
                                          // the reports plot; each also in facts as text
  std::string category;               // taxonomy category of the fault, when the probe names one
  std::string hypothesis;             // hypothesis id for a diagnosis made from this finding
  std::string title;                  // title / hypothesis text / fix for that diagnosis
  std::string text;
  std::string fix;
  double strength = 0.8;              // how sure a confirmed verdict is, in (0, 1]
  double seconds = 0;                 // time the probe took
};

// The names of the live probes (probes/), as rules name them in `test: { probe: NAME }`: the rule
// loader accepts exactly these. The probes registry implements exactly these; the guard's category
// and alarm tables and probes/README.md's table name only these (tests/probes/probes_test.cc,
// ProbeNames.*).
const std::vector<std::string>& ProbeNames();

struct EvidenceOptions {
  bool add_findings = true;  // a confirmed finding whose category no diagnosis has becomes a diagnosis
  double min_confidence = 0.35;  // as DiagnoseOptions: diagnoses left below it are dropped
};

// Applies probe evidence to a report: marks each hypothesis that names a probe confirmed / refuted
// with the evidence text, raises the confidence of diagnoses with a confirmed hypothesis and lowers
// those whose every probe-tested hypothesis was refuted, adds diagnoses for confirmed findings no
// rule produced, and re-sorts. Hypotheses no probe ran for stay "untested". A diagnosis that takes
// evidence from a probe (in a hypothesis' status or text), or one of whose hypotheses names a probe
// that ran, also takes that probe's layer_series. When every verdict is
// inconclusive, a warning per probe ("probe-inconclusive") says why it could not tell.
void ApplyEvidence(Report& report, const std::vector<ProbeEvidence>& evidence,
                   const EvidenceOptions& options = {});

// The evidence as a JSON array of objects with the members of ProbeEvidence (facts as [name, value]
// pairs; layer_series, only when there are some, as in the report's JSON), for a program that hands probe results to another process (triage-probe --evidence, used by
// the Python module's triage.check).
std::string EvidenceToJson(const std::vector<ProbeEvidence>& evidence);

}  // namespace triage

#endif  // TRIAGE_EVIDENCE_H_
