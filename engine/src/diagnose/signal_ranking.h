// Signal rules in the shared ranking (signal_ranking.cc, Note: [Signal folding]): the hooks the
// ranker calls to add signature candidates and to fold signature diagnoses into message diagnoses.
#ifndef TRIAGE_ENGINE_SIGNAL_RANKING_H_
#define TRIAGE_ENGINE_SIGNAL_RANKING_H_

#include <vector>

#include "diagnose/ranker.h"
#include "log/metrics.h"
#include "rules/rule.h"
#include "rules/signal_rules.h"
#include "triage/triage.h"

namespace triage {

// Runs every signal rule over `metrics`; each that holds adds a kSignal incident to report->incidents
// and a candidate (Candidate::signal indexes *hits) to *candidates.
void AddSignalCandidates(const RuleSet& rules, const MetricCollector& metrics, Report* report,
                         std::vector<Candidate>* candidates, std::vector<SignalHit>* hits);
// Copies a hit's evidence line and series into the diagnosis rendered from it.
void AttachSignal(const SignalHit& hit, Diagnosis* d);
// Folds signature diagnoses into the diagnosis they support (Note: [Signal folding]); with fold false,
// does nothing. The caller calibrates and drops those under min_confidence afterwards.
void FoldSignals(const RuleSet& rules, bool fold, std::vector<Diagnosis>* diagnoses);

}  // namespace triage

#endif  // TRIAGE_ENGINE_SIGNAL_RANKING_H_
