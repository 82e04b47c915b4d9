// Matching incidents against rules and ranking the candidates (Note: [Ranking], rules/README.md).
#ifndef TRIAGE_ENGINE_RANKER_H_
#define TRIAGE_ENGINE_RANKER_H_

#include <vector>

#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {

// One rule matched on one incident, before ranking.
struct Candidate {
  int rule = -1;
  int incident = -1;
  std::map<std::string, std::string> captures;
  double specificity = 0;
  double confidence = 0;
  // Set by the rule's Lua (rules/LUA_API.md): values also merged into captures, hypotheses a `when`
  // ruled out, evidence a `when` returned as a string, a note a `score` appended to the explanation.
  std::map<std::string, std::string> values;
  std::vector<bool> hypothesis_off;
  std::vector<bool> hypothesis_first;  // `first:` held (Note: [Conditions]): shown ahead of the others
  std::vector<bool> check_off;         // a check's `when:` did not hold: left out
  std::map<int, std::string> evidence;
  std::string note;
  std::string ranking;  // why the engine lowered its confidence (Note: [Demotion notes])
  int signal = -1;  // index into the signal hits of this diagnosis (signal rules only)
};

// Returns every candidate the rules produce for one incident (unranked).
std::vector<Candidate> MatchIncident(const RuleSet& rules, const std::vector<Incident>& incidents, int index);

class MetricCollector;  // metrics.h
class EnvFacts;         // log/env_facts.h

// Matches and ranks all incidents; fills report->diagnoses. With `metrics`, signal rules run on
// them too and share the ranking (Note: [Signal folding] in signal_ranking.cc). With `facts`, the
// rules' conditions on environment facts and Lua's ctx.facts read them (Note: [Environment facts]);
// without, no fact is known.
void Diagnose(const RuleSet& rules, const DiagnoseOptions& options, Report* report,
              const MetricCollector* metrics = nullptr, const EnvFacts* facts = nullptr);

// Returns the root (following caused_by) of incident i's group.
int RootOf(const std::vector<Incident>& incidents, int i);

// Returns the primary incident, Note: [Ranking] rule 4: the root of the earliest exception group whose
// root was not handled (Incident::handled: the run went on after it); when every group was handled,
// the earliest group's root; -1 when there is no exception incident (log lines and signals only).
int PrimaryIncident(const std::vector<Incident>& incidents);

// Renders a candidate into a Diagnosis (templates filled from captures), its checks and fixes in
// the language of `audience` (Note: [Audience] in rules/README.md).
Diagnosis Render(const RuleSet& rules, const Candidate& c, const Incident& incident, Audience audience);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RANKER_H_
