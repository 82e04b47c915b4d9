#include "ranker.h"

#include <algorithm>
#include <set>

#include "template.h"

namespace triage {
namespace {

// Compares exception types on their last dotted/:: component: "OutOfMemoryError" agrees with
// "torch.cuda.OutOfMemoryError".
std::string LastComponent(const std::string& type) {
  size_t p = type.find_last_of(".:");
  return p == std::string::npos ? type : type.substr(p + 1);
}

bool TypeAgrees(const Rule& rule, const Incident& inc) {
  std::string got = LastComponent(inc.exception);
  for (const std::string& t : rule.exceptions) {
    if (LastComponent(t) == got) return true;
  }
  return false;
}

bool CapturesOf(const RE2& re, std::string_view text, std::map<std::string, std::string>* out) {
  if (!re.ok()) return false;
  int n = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(n + 1);
  if (!re.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, groups.data(), n + 1)) {
    return false;
  }
  for (const auto& [name, index] : re.NamedCapturingGroups()) {
    if (index <= n && groups[index].data() != nullptr) (*out)[name] = std::string(groups[index]);
  }
  return true;
}

}  // namespace

std::vector<Candidate> MatchIncident(const RuleSet& rules, const std::vector<Incident>& incidents, int index) {
  std::vector<Candidate> out;
  const Incident& inc = incidents[index];
  if (inc.message.empty()) return out;
  std::set<int> seen_rules;
  std::string context;  // joined lazily: only rules with a context pattern need it
  bool context_built = false;
  for (int hit : rules.Match(inc.message)) {
    const RuleSet::PatternRef& ref = rules.patterns[hit];
    if (seen_rules.count(ref.rule)) continue;
    const Rule& rule = rules.rules[ref.rule];
    if (!rule.exceptions.empty() && !inc.exception.empty() && !TypeAgrees(rule, inc)) continue;
    if (rules.contexts[ref.rule]) {
      if (!context_built) {
        for (const std::string& c : inc.context) context += c + "\n";
        context_built = true;
      }
      const RE2& cre = rules.contexts[ref.rule]->Get();
      if (!cre.ok() || !RE2::PartialMatch(context, cre)) continue;
    }
    Candidate c;
    c.rule = ref.rule;
    c.incident = index;
    if (!CapturesOf(rules.regexes[hit]->Get(), inc.message, &c.captures)) continue;
    seen_rules.insert(ref.rule);
    c.specificity = rule.specificity >= 0 ? rule.specificity : ref.literal_chars + (rule.context.value.empty() ? 0 : 20);
    c.confidence = rule.prior;
    if (!rule.exceptions.empty() && inc.exception.empty()) c.confidence *= 0.85;
    out.push_back(std::move(c));
  }
  return out;
}

Diagnosis Render(const RuleSet& rules, const Candidate& c, const Incident& incident) {
  const Rule& rule = rules.rules[c.rule];
  auto lookup = [&](const std::string& name, std::string* value) {
    if (auto it = c.captures.find(name); it != c.captures.end()) {
      *value = it->second;
      return true;
    }
    if (name == "exception") {
      *value = incident.exception.empty() ? "error" : incident.exception;
      return true;
    }
    if (name == "location") {
      *value = incident.culprit >= 0 ? incident.CulpritText() : "unknown location";
      return true;
    }
    return false;
  };
  auto render = [&](const Text& t) { return RenderTemplate(t.value, lookup); };
  Diagnosis d;
  d.rule = rule.id;
  d.category = rule.category;
  d.confidence = c.confidence;
  d.title = rule.title;
  d.explanation = render(rule.explain);
  for (const HypothesisSpec& h : rule.hypotheses) {
    Hypothesis out;
    out.id = h.id;
    out.text = render(h.text);
    out.probe = h.probe;
    out.test = h.probe.empty() ? render(h.test) : "probe " + h.probe;
    out.fix = render(h.fix);
    d.hypotheses.push_back(std::move(out));
  }
  for (const Text& t : rule.checks) d.checks.push_back(render(t));
  d.verify = rule.verify_probe.empty() ? render(rule.verify)
                                       : "probe " + rule.verify_probe +
                                             (rule.verify.value.empty() ? "" : ": " + render(rule.verify));
  d.incident = c.incident;
  d.captures = c.captures;
  d.specificity = c.specificity;
  return d;
}

void Diagnose(const RuleSet& rules, const DiagnoseOptions& options, Report* report) {
  const std::vector<Incident>& incidents = report->incidents;
  const int n = static_cast<int>(incidents.size());

  // Incident groups: follow caused_by to the root; the root cause of the earliest exception group is
  // the primary incident (factor 1.0); every other incident is a likely consequence (0.9).
  auto root_of = [&](int i) {
    int steps = 0;
    while (incidents[i].caused_by >= 0 && incidents[i].caused_by < n && steps++ < n) i = incidents[i].caused_by;
    return i;
  };
  int primary = -1;
  int primary_line = 0;
  for (int i = 0; i < n; ++i) {
    if (incidents[i].kind == Incident::Kind::kLogLine) continue;
    int r = root_of(i);
    // A group's position is where it starts in the input: its earliest line.
    int line = std::min(incidents[i].line_start, incidents[r].line_start);
    if (primary < 0 || line < primary_line) {
      primary = r;
      primary_line = line;
    }
  }

  std::vector<Candidate> all;
  for (int i = 0; i < n; ++i) {
    std::vector<Candidate> cands = MatchIncident(rules, incidents, i);
    std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
      if (a.specificity != b.specificity) return a.specificity > b.specificity;
      return a.confidence > b.confidence;
    });
    double incident_factor = (i == primary || primary < 0) ? 1.0 : 0.9;
    double alt = 1.0;
    for (Candidate& c : cands) {
      c.confidence *= alt * incident_factor;
      alt *= 0.8;
      all.push_back(std::move(c));
    }
  }
  // One entry per rule: the best incident it matched, with the number of incidents it matched.
  std::map<int, std::pair<int, int>> best;  // rule -> (index in all, count)
  for (int k = 0; k < static_cast<int>(all.size()); ++k) {
    auto it = best.find(all[k].rule);
    if (it == best.end()) {
      best[all[k].rule] = {k, incidents[all[k].incident].count};
      continue;
    }
    it->second.second += incidents[all[k].incident].count;
    if (all[k].confidence > all[it->second.first].confidence) it->second.first = k;
  }
  std::vector<Diagnosis> out;
  for (const auto& [rule, entry] : best) {
    const Candidate& c = all[entry.first];
    if (c.confidence < options.min_confidence) continue;
    Diagnosis d = Render(rules, c, incidents[c.incident]);
    d.occurrences = entry.second;
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const Diagnosis& a, const Diagnosis& b) {
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    if (a.incident != b.incident) return a.incident < b.incident;
    return a.rule < b.rule;
  });
  if (options.top > 0 && static_cast<int>(out.size()) > options.top) out.resize(options.top);
  report->diagnoses = std::move(out);
}

}  // namespace triage
