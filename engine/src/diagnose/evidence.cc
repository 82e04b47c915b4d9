// Applying probe verdicts to a report. Torch-free: the probes live in probes/ and only hand over
// plain ProbeEvidence values, so the engine never links LibTorch.
//
// Note: [Evidence]
// A rule hypothesis names the probe that tests it (`test: { probe: NAME }`). A probe answers the
// question "is the fault I look for present?" with confirmed / refuted / inconclusive, and may name
// the taxonomy category of what it found. For each hypothesis naming probe P in a diagnosis of
// category C:
//   - confirmed  when P confirmed a fault of category C (or of no stated category) and the finding
//                does not name another hypothesis of this diagnosis, or when any probe's confirmed
//                finding names this hypothesis id (rules and probes share ids such as lr-too-high);
//   - refuted    when P ran and refuted (found nothing of that kind);
//   - untested   otherwise (P not run, out of budget, or inconclusive: the reason goes to evidence).
// A confirmed hypothesis moves the diagnosis' confidence towards 1 by 70% of the finding's
// strength; refuted hypotheses scale it down in proportion to the share of hypotheses refuted (all
// refuted: halved). A confirmed finding whose category no diagnosis has becomes a diagnosis of its
// own (rule "probe:P"): silent failures (no exception, no log line) are found this way. When every
// verdict is inconclusive the report says so: one note per probe with the reason it could not tell
// (could not run, error no rule knows, budget spent), so "nothing found" never hides "nothing ran".
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "triage/evidence.h"

#include "diagnose/escape.h"
#include "diagnose/json_writer.h"
#include "diagnose/name_table.h"
#include "diagnose/report_parts.h"
#include "diagnose/warning_codes.h"

namespace triage {
namespace {

// The one table of verdict names.
constexpr std::pair<Verdict, const char*> kVerdictNames[] = {
    {Verdict::kInconclusive, "inconclusive"}, {Verdict::kConfirmed, "confirmed"}, {Verdict::kRefuted, "refuted"}};

}  // namespace

const char* VerdictName(Verdict verdict) { return NameIn(kVerdictNames, verdict); }

bool VerdictFromName(std::string_view name, Verdict* verdict) { return ValueIn(kVerdictNames, name, verdict); }

namespace {

constexpr double kConfirmGain = 0.7;
constexpr double kRefutePenalty = 0.5;
constexpr double kMaxConfidence = 0.99;
constexpr size_t kMaxFactsShown = 4;

std::string EvidenceText(const ProbeEvidence& e) {
  std::string out = std::string(VerdictName(e.verdict)) + ": " + e.summary;
  size_t shown = 0;
  for (const auto& [key, value] : e.facts) {
    if (shown == kMaxFactsShown) break;
    out += (shown == 0 ? " (" : "; ") + key + "=" + value;
    ++shown;
  }
  if (shown > 0) out += ")";
  return out;
}

bool SameCategory(const ProbeEvidence& e, const std::string& category) {
  return e.category.empty() || e.category == category;
}

bool HasHypothesis(const Diagnosis& d, const std::string& id) {
  return std::any_of(d.hypotheses.begin(), d.hypotheses.end(), [&](const Hypothesis& h) { return h.id == id; });
}

Hypothesis FindingHypothesis(const ProbeEvidence& e) {
  Hypothesis h;
  h.id = e.hypothesis.empty() ? e.probe : e.hypothesis;
  h.text = e.text.empty() ? e.summary : e.text;
  h.status = HypothesisStatus::kConfirmed;
  h.test = "probe " + e.probe;
  h.probe = e.probe;
  h.fix = e.fix;
  h.evidence = EvidenceText(e);
  return h;
}

// The per-layer measurements behind evidence a diagnosis took, once per probe and measurement.
void TakeLayers(Diagnosis& d, const ProbeEvidence& e) {
  for (const LayerSeries& s : e.layer_series) {
    bool have = std::any_of(d.layer_series.begin(), d.layer_series.end(),
                            [&](const LayerSeries& t) { return t.probe == s.probe && t.name == s.name; });
    if (!have) d.layer_series.push_back(s);
  }
}

double Boost(double confidence, double strength) {
  return std::max(confidence, std::min(kMaxConfidence, confidence + (1.0 - confidence) * kConfirmGain * strength));
}

}  // namespace

void ApplyEvidence(Report& report, const std::vector<ProbeEvidence>& evidence,
                   const EvidenceOptions& options) {
  std::vector<bool> used(evidence.size(), false);
  for (Diagnosis& d : report.diagnoses) {
    double best_strength = 0;
    int refuted = 0;
    for (Hypothesis& h : d.hypotheses) {
      const ProbeEvidence* confirmed = nullptr;
      const ProbeEvidence* refuting = nullptr;
      const ProbeEvidence* inconclusive = nullptr;
      const ProbeEvidence* own = nullptr;  // the first verdict of the probe the hypothesis names
      for (size_t i = 0; i < evidence.size(); ++i) {
        const ProbeEvidence& e = evidence[i];
        if (own == nullptr && !h.probe.empty() && e.probe == h.probe) own = &e;
        // A confirmed finding naming this hypothesis by id settles it whichever probe found it.
        if (e.verdict == Verdict::kConfirmed && !e.hypothesis.empty() && e.hypothesis == h.id && SameCategory(e, d.category)) {
          if (confirmed == nullptr || e.strength > confirmed->strength) confirmed = &e;
          used[i] = true;
          continue;
        }
        if (h.probe.empty() || e.probe != h.probe) continue;
        // A finding that names another hypothesis of this diagnosis is about that one only.
        bool names_other = !e.hypothesis.empty() && e.hypothesis != h.id && HasHypothesis(d, e.hypothesis);
        bool about_this = (!e.hypothesis.empty() && e.hypothesis == h.id) || (SameCategory(e, d.category) && !names_other);
        if (e.verdict == Verdict::kConfirmed && about_this) {
          if (confirmed == nullptr || e.strength > confirmed->strength) confirmed = &e;
          used[i] = true;
        } else if (e.verdict == Verdict::kRefuted && about_this) {
          refuting = &e;
        } else if (e.verdict == Verdict::kInconclusive) {
          inconclusive = &e;
        }
      }
      if (confirmed != nullptr) {
        h.status = HypothesisStatus::kConfirmed;
        h.evidence = EvidenceText(*confirmed);
        TakeLayers(d, *confirmed);
        best_strength = std::max(best_strength, confirmed->strength);
      } else if (h.probe.empty()) {
        continue;
      } else if (refuting != nullptr) {
        h.status = HypothesisStatus::kRefuted;
        h.evidence = EvidenceText(*refuting);
        TakeLayers(d, *refuting);
        ++refuted;
      } else if (inconclusive != nullptr) {
        h.evidence = EvidenceText(*inconclusive);
        TakeLayers(d, *inconclusive);
      }
      // The hypothesis' own probe ran: what it measured belongs to the diagnosis even when another
      // probe's finding settled the hypothesis (nan-source confirming lr-too-high, which names
      // grad-health, whose per-layer norms show where the gradients went non-finite).
      if (own != nullptr) TakeLayers(d, *own);
    }
    // A confirmed finding of this diagnosis' category from a probe no hypothesis names still
    // supports it: it is attached as a confirmed hypothesis.
    for (size_t i = 0; i < evidence.size(); ++i) {
      const ProbeEvidence& e = evidence[i];
      if (used[i] || e.verdict != Verdict::kConfirmed || e.category.empty() || e.category != d.category) continue;
      d.hypotheses.insert(d.hypotheses.begin(), FindingHypothesis(e));
      TakeLayers(d, e);
      best_strength = std::max(best_strength, e.strength);
      used[i] = true;
    }
    if (best_strength > 0) {
      d.confidence = Boost(d.confidence, best_strength);
      // The confirmed hypothesis is the answer: show it first, keeping the others' order.
      std::stable_partition(d.hypotheses.begin(), d.hypotheses.end(),
                            [](const Hypothesis& h) { return h.status == HypothesisStatus::kConfirmed; });
    } else if (refuted > 0 && !d.hypotheses.empty()) {
      d.confidence *= 1.0 - kRefutePenalty * refuted / static_cast<double>(d.hypotheses.size());
    }
  }

  if (options.add_findings) {
    for (size_t i = 0; i < evidence.size(); ++i) {
      const ProbeEvidence& e = evidence[i];
      if (used[i] || e.verdict != Verdict::kConfirmed || e.category.empty()) continue;
      auto same = std::find_if(report.diagnoses.begin(), report.diagnoses.end(),
                               [&](const Diagnosis& d) { return d.category == e.category; });
      if (same != report.diagnoses.end()) {
        same->hypotheses.push_back(FindingHypothesis(e));
        TakeLayers(*same, e);
        same->confidence = std::max(same->confidence, std::min(kMaxConfidence, e.strength));
        continue;
      }
      Diagnosis d;
      d.rule = "probe:" + e.probe;
      d.category = e.category;
      d.confidence = std::min(kMaxConfidence, e.strength);
      d.title = e.title.empty() ? e.summary : e.title;
      d.explanation = e.summary;
      d.hypotheses.push_back(FindingHypothesis(e));
      TakeLayers(d, e);
      d.verify = "Run probe " + e.probe + " again after the fix: it reports refuted.";
      report.diagnoses.push_back(std::move(d));
    }
  }

  const bool settled = std::any_of(evidence.begin(), evidence.end(),
                                   [](const ProbeEvidence& e) { return e.verdict != Verdict::kInconclusive; });
  if (!settled) {
    std::vector<std::string> noted;
    for (const ProbeEvidence& e : evidence) {
      if (std::find(noted.begin(), noted.end(), e.probe) != noted.end()) continue;
      noted.push_back(e.probe);
      report.warnings.push_back({Problem::Severity::kWarning, WarningCodeName(WarningCode::kProbeInconclusive), "", 0, 0, "",
                                 "probe " + e.probe + " could not tell: " + (e.summary.empty() ? "no reason given" : e.summary)});
    }
  }

  std::stable_sort(report.diagnoses.begin(), report.diagnoses.end(),
                   [](const Diagnosis& a, const Diagnosis& b) { return a.confidence > b.confidence; });
  report.diagnoses.erase(
      std::remove_if(report.diagnoses.begin(), report.diagnoses.end(),
                     [&](const Diagnosis& d) { return d.confidence < options.min_confidence; }),
      report.diagnoses.end());
}

std::string EvidenceToJson(const std::vector<ProbeEvidence>& evidence) {
  std::string out = "[";
  for (size_t i = 0; i < evidence.size(); ++i) {
    const ProbeEvidence& e = evidence[i];
    if (i) out += ",";
    JsonObject o(&out);
    o.Str("probe", e.probe);
    o.Str("verdict", VerdictName(e.verdict));
    o.Str("summary", e.summary);
    o.Str("category", e.category);
    o.Str("hypothesis", e.hypothesis);
    o.Str("title", e.title);
    o.Str("text", e.text);
    o.Str("fix", e.fix);
    o.Key("facts");
    out += "[";
    for (size_t f = 0; f < e.facts.size(); ++f) {
      if (f) out += ",";
      out += "[";
      AppendJsonString(&out, e.facts[f].first);
      out += ",";
      AppendJsonString(&out, e.facts[f].second);
      out += "]";
    }
    out += "]";
    o.Num("strength", e.strength, NumberStyle::kGeneral, 6);
    o.Num("seconds", e.seconds, NumberStyle::kGeneral, 6);
    if (!e.layer_series.empty()) {
      o.Key("layer_series");
      AppendLayerSeriesJson(&out, e.layer_series);
    }
  }
  out += "]";
  return out;
}

}  // namespace triage
