// Signal rules in the shared ranking.
//
// Note: [Signal folding] Message rules and signal rules rank together (Note: [Ranking]), but one
// failure must read as one answer with its evidence, not as several unrelated answers:
//   1. A signature whose category some message diagnosis already has (the log says "Loss is nan"
//      and the loss series turned NaN) is folded into that diagnosis: its evidence line and series
//      are appended there and the diagnosis gains confidence: c += (1 - c) * 0.5 * s, where s is
//      the signature's confidence. Two signatures of one category fold into the stronger one; a
//      signature whose evidence the host already shows (two rules on one detector) adds nothing.
//   2. A signature whose rule lists `evidence_for` categories (exploding grad norm, loss spikes)
//      folds the same way into the most confident other diagnosis of one of those categories, so a
//      run whose grad norm exploded and then went NaN gets the NaN diagnosis with the explosion as
//      its evidence. Without such a diagnosis the signature stands on its own.
//   3. Diagnoses still under the abstention threshold are dropped only after folding: a weak
//      signature can support an answer without being one.
#include <algorithm>
#include <cmath>

#include "diagnose/signal_ranking.h"

namespace triage {
namespace {

// Equal names and points, NaN equal to NaN (series are compared by what a reader would see).
bool SameSeries(const SeriesEvidence& a, const SeriesEvidence& b) {
  if (a.name != b.name || a.points.size() != b.points.size()) return false;
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (size_t i = 0; i < a.points.size(); ++i) {
    if (!same(a.points[i].first, b.points[i].first) || !same(a.points[i].second, b.points[i].second)) return false;
  }
  return true;
}

}  // namespace

void AddSignalCandidates(const RuleSet& rules, const MetricCollector& metrics, Report* report,
                         std::vector<Candidate>* candidates, std::vector<SignalHit>* hits) {
  if (metrics.empty()) return;
  for (int r = 0; r < static_cast<int>(rules.rules.size()); ++r) {
    const Rule& rule = rules.rules[r];
    if (!rule.signal) continue;
    SignalHit hit;
    if (!DetectSignal(*rule.signal, metrics, &hit)) continue;
    Incident inc;
    inc.kind = Incident::Kind::kSignal;
    inc.message = hit.evidence;
    inc.line_start = static_cast<int>(hit.line_start);
    inc.line_end = static_cast<int>(hit.line_end);
    report->incidents.push_back(std::move(inc));
    Candidate c;
    c.rule = r;
    c.incident = static_cast<int>(report->incidents.size()) - 1;
    c.captures = hit.captures;
    c.confidence = rule.prior;
    c.specificity = rule.specificity >= 0 ? rule.specificity : 0;
    c.signal = static_cast<int>(hits->size());
    hits->push_back(std::move(hit));
    candidates->push_back(std::move(c));
  }
}

void AttachSignal(const SignalHit& hit, Diagnosis* d) {
  d->evidence.push_back(hit.evidence);
  d->series.push_back(hit.series);
  d->series.insert(d->series.end(), hit.supporting.begin(), hit.supporting.end());
}

void FoldSignals(const RuleSet& rules, bool fold, std::vector<Diagnosis>* diagnoses) {
  std::vector<Diagnosis>& ds = *diagnoses;
  auto spec_of = [&](const Diagnosis& d) -> const SignalSpec* {
    const Rule* r = rules.Find(d.rule);
    return r ? r->signal.get() : nullptr;
  };
  std::vector<bool> gone(ds.size(), false);
  // The confidence of the signature each diagnosis' series came from: a series is replaced only by the
  // same series from a stronger signature (its onset wins), never by a weaker one folded in later.
  std::vector<std::vector<double>> source(ds.size());
  for (size_t j = 0; j < ds.size(); ++j) source[j].assign(ds[j].series.size(), ds[j].confidence);
  // Weakest signatures first, so a chain (spike -> explosion -> NaN) ends on the strongest host.
  std::vector<size_t> order(ds.size());
  for (size_t i = 0; i < ds.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ds[a].confidence < ds[b].confidence; });
  for (size_t i : order) {
    const SignalSpec* spec = fold ? spec_of(ds[i]) : nullptr;
    if (!spec) continue;
    int host = -1;
    for (size_t j = 0; j < ds.size(); ++j) {  // rule 1: a message diagnosis of the same category
      if (j != i && !gone[j] && !spec_of(ds[j]) && ds[j].category == ds[i].category &&
          (host < 0 || ds[j].confidence > ds[host].confidence)) {
        host = static_cast<int>(j);
      }
    }
    for (size_t j = 0; host < 0 && j < ds.size(); ++j) {  // rule 1 again: a stronger signature of the same category
      if (j != i && !gone[j] && ds[j].category == ds[i].category &&
          (ds[j].confidence > ds[i].confidence || (ds[j].confidence == ds[i].confidence && j < i))) {
        host = static_cast<int>(j);
      }
    }
    if (host < 0) {  // rule 2: a diagnosis of a category this signature is evidence for
      for (size_t j = 0; j < ds.size(); ++j) {
        if (j == i || gone[j]) continue;
        if (std::find(spec->evidence_for.begin(), spec->evidence_for.end(), ds[j].category) == spec->evidence_for.end()) {
          continue;
        }
        if (host < 0 || ds[j].confidence > ds[host].confidence) host = static_cast<int>(j);
      }
    }
    if (host < 0) continue;
    Diagnosis& h = ds[host];
    bool news = false;
    for (const std::string& e : ds[i].evidence) {
      // Two rules on one detector word the same evidence: show it once.
      bool dup = std::any_of(h.evidence.begin(), h.evidence.end(), [&](const std::string& x) {
        return x.size() >= e.size() && x.compare(x.size() - e.size(), e.size(), e) == 0;
      });
      if (!dup) h.evidence.push_back("[" + ds[i].rule + "] " + e);
      news = news || !dup;
    }
    for (size_t k = 0; k < ds[i].series.size(); ++k) {
      const SeriesEvidence& s = ds[i].series[k];
      const double from = source[i][k];
      auto same = std::find_if(h.series.begin(), h.series.end(), [&](const SeriesEvidence& x) { return SameSeries(x, s); });
      if (same == h.series.end()) {
        h.series.push_back(s);
        source[host].push_back(from);
      } else if (size_t at = static_cast<size_t>(same - h.series.begin()); from > source[host][at]) {
        *same = s;
        source[host][at] = from;
      }
    }
    if (news) h.confidence += (1 - h.confidence) * 0.5 * ds[i].confidence;  // the same evidence twice is no news
    gone[i] = true;
  }
  std::vector<Diagnosis> kept;
  for (size_t i = 0; i < ds.size(); ++i) {
    if (!gone[i]) kept.push_back(std::move(ds[i]));
  }
  ds.swap(kept);
}

}  // namespace triage
