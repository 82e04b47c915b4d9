// Engine and Session: bytes -> lines -> Segmenter -> incidents -> ranked diagnoses.
#include <algorithm>
#include <map>

#include "metrics.h"
#include "ranker.h"
#include "rule.h"
#include "segmenter.h"

namespace triage {

std::string Incident::CulpritText() const {
  if (culprit < 0 || culprit >= static_cast<int>(frames.size())) return "";
  const Frame& f = frames[culprit];
  size_t slash = f.file.find_last_of("/\\");
  std::string out = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  out += ":" + std::to_string(f.line);
  if (!f.function.empty()) out += " in " + f.function;
  if (!f.source.empty()) out += ": " + f.source;
  return out;
}

namespace {

// Merges identical incidents (the same failure printed by several ranks, or repeated lines far apart)
// into their first occurrence, keeping caused_by links valid.
void DedupIncidents(std::vector<Incident>* incidents) {
  std::map<std::string, int> first;
  std::vector<int> remap(incidents->size());
  std::vector<Incident> out;
  for (size_t i = 0; i < incidents->size(); ++i) {
    Incident& inc = (*incidents)[i];
    std::string key = std::to_string(static_cast<int>(inc.kind)) + '\x1f' + inc.exception + '\x1f' + inc.message +
                      '\x1f' + inc.CulpritText();
    auto it = first.find(key);
    if (it != first.end()) {
      out[it->second].count += inc.count;
      remap[i] = it->second;
      continue;
    }
    first[key] = static_cast<int>(out.size());
    remap[i] = static_cast<int>(out.size());
    out.push_back(std::move(inc));
  }
  for (Incident& inc : out) {
    if (inc.caused_by >= 0) inc.caused_by = remap[inc.caused_by];
  }
  // A link to itself (cause and effect merged) means no link.
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].caused_by == static_cast<int>(i)) out[i].caused_by = -1;
  }
  incidents->swap(out);
}

}  // namespace

struct Session::Impl {
  std::shared_ptr<const RuleSet> rules;
  DiagnoseOptions options;
  std::string source;
  Segmenter segmenter;
  std::string partial;         // an unfinished line carried between Feed calls (bounded)
  bool skipping = false;       // inside an over-long line: drop bytes until its newline
  std::uint64_t bytes = 0;
  std::uint64_t long_lines = 0;
  size_t max_line;
  bool collect_metrics;        // some rule reads metric series (signal_rules.h)
  MetricCollector metrics;     // fed every byte before any line is skipped

  Impl(std::shared_ptr<const RuleSet> r, DiagnoseOptions o, std::string s)
      : rules(std::move(r)),
        options(o),
        source(std::move(s)),
        segmenter(SegmenterOptions(), [this](std::string_view line) { return Classify(line); }),
        max_line(SegmenterOptions().max_line),
        collect_metrics(std::any_of(rules->rules.begin(), rules->rules.end(),
                                    [](const Rule& rule) { return rule.signal != nullptr; })) {}

  int Classify(std::string_view line) const {
    std::vector<int> hits = rules->Match(line);
    if (hits.empty()) return -1;
    return rules->patterns[hits.front()].rule;
  }

  void Feed(std::string_view data) {
    bytes += data.size();
    if (collect_metrics) metrics.Feed(data);
    while (!data.empty()) {
      size_t nl = data.find('\n');
      std::string_view piece = data.substr(0, nl);
      if (skipping) {
        if (nl == std::string_view::npos) return;
        skipping = false;
      } else if (partial.empty() && nl != std::string_view::npos) {
        segmenter.AddLine(piece);  // the common case: a whole line inside this buffer, no copy
      } else {
        size_t room = max_line > partial.size() ? max_line - partial.size() : 0;
        partial.append(piece.substr(0, room));
        if (piece.size() > room) {
          // Over-long line: keep its first max_line bytes, drop the rest up to the newline.
          ++long_lines;
          segmenter.AddLine(partial);
          partial.clear();
          skipping = nl == std::string_view::npos;
        } else if (nl != std::string_view::npos) {
          segmenter.AddLine(partial);
          partial.clear();
        }
      }
      if (nl == std::string_view::npos) return;
      data.remove_prefix(nl + 1);
    }
  }

  Report MakeReport(Segmenter& seg) const {
    Report report;
    report.source = source;
    report.incidents = seg.incidents();
    report.lines = seg.lines();
    report.bytes = bytes;
    DedupIncidents(&report.incidents);
    if (long_lines > 0) {
      Problem p;
      p.severity = Problem::Severity::kWarning;
      p.code = "long-line";
      p.file = source;
      p.message = std::to_string(long_lines) + " line(s) longer than " + std::to_string(max_line) +
                  " bytes were cut to that length";
      report.warnings.push_back(p);
    }
    if (seg.dropped_incidents() > 0) {
      Problem p;
      p.severity = Problem::Severity::kWarning;
      p.code = "too-many-incidents";
      p.file = source;
      p.message = std::to_string(seg.dropped_incidents()) + " incident(s) beyond the first " +
                  std::to_string(SegmenterOptions().max_incidents) + " were not kept";
      report.warnings.push_back(p);
    }
    if (collect_metrics) {
      MetricCollector all = metrics;  // a copy: a snapshot must not end the input
      all.FinishInput();
      Diagnose(*rules, options, &report, &all);
    } else {
      Diagnose(*rules, options, &report);
    }
    return report;
  }
};

Session::Session(std::shared_ptr<const RuleSet> rules, DiagnoseOptions options, std::string source)
    : impl_(std::make_unique<Impl>(std::move(rules), options, std::move(source))) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::Feed(std::string_view bytes) { impl_->Feed(bytes); }

int Session::CompletedIncidents() const { return impl_->segmenter.completed(); }

Report Session::Snapshot() const {
  Segmenter copy = impl_->segmenter;
  if (!impl_->partial.empty()) copy.AddLine(impl_->partial);
  copy.Finish();
  return impl_->MakeReport(copy);
}

Report Session::Finish() {
  if (!impl_->partial.empty()) {
    impl_->segmenter.AddLine(impl_->partial);
    impl_->partial.clear();
  }
  impl_->segmenter.Finish();
  return impl_->MakeReport(impl_->segmenter);
}

Engine::Engine(std::shared_ptr<const RuleSet> rules) : rules_(std::move(rules)) {
  if (!rules_) rules_ = std::make_shared<RuleSet>();
}

Report Engine::DiagnoseText(std::string_view text, const DiagnoseOptions& options) const {
  Session session(rules_, options, "-");
  session.Feed(text);
  return session.Finish();
}

}  // namespace triage
