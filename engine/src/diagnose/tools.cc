#include "triage/tools.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <locale>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "diagnose/frame_evidence.h"
#include "diagnose/similar_case.h"
#include "diagnose/ranker.h"
#include "diagnose/report_parts.h"
#include "rules/lua_runtime.h"
#include "rules/rule.h"
#include "rules/signal_rules.h"
#include "triage/locale_free.h"

namespace triage {
namespace fs = std::filesystem;

namespace {

std::string Shorten(const std::string& s, size_t n = 100) {
  std::string one = s.substr(0, s.find('\n'));
  return one.size() > n ? one.substr(0, n) + "..." : one;
}

// Fixed-point text of v (locale_free.h), with `decimals` decimals.
std::string Fixed(double v, int decimals) { return FormatNumber(v, NumberStyle::kFixed, decimals); }

std::string Pct(int a, int b) {
  if (b == 0) return "  -  ";
  std::string s = Fixed(100.0 * a / b, 1);
  if (s.size() < 5) s.insert(0, 5 - s.size(), ' ');
  return s + "%";
}

}  // namespace

RuleTestReport RunRuleExamples(const RuleSet& rules, const std::string& only_rule) {
  RuleTestReport report;
  Engine engine(std::shared_ptr<const RuleSet>(std::shared_ptr<const RuleSet>(), &rules));
  DiagnoseOptions all;
  all.min_confidence = 0;  // an example asks whether the rule fires, not whether it wins
  all.fold_signals = false;  // ... so a signature stays visible even where it supports another answer
  for (size_t index = 0; index < rules.rules.size(); ++index) {
    if (!only_rule.empty() && rules.rules[index].id != only_rule) continue;
    const Rule& rule = rules.Full(static_cast<int>(index));  // its examples (Note: [Texts on demand])
    ++report.rules;
    for (const Example& ex : rule.examples) {
      ExampleResult r;
      r.rule = rule.id;
      r.file = rule.file;
      r.line = ex.pos.line;
      Report got = engine.DiagnoseText(ex.text, all);
      const Diagnosis* mine = nullptr;
      for (const Diagnosis& d : got.diagnoses) {
        // the rule's own reading: a masked cause it promoted (Note: [Masked causes]) carries its id too and
        // ranks ahead of it, with that one hypothesis only
        if (d.rule == rule.id && d.from_hypothesis.empty()) { mine = &d; break; }
      }
      r.kind = ex.kind;
      switch (ex.kind) {
        case ExampleKind::kMatch: {
          if (!mine) {
            std::string others;
            for (const Diagnosis& d : got.diagnoses) others += (others.empty() ? "" : ", ") + d.rule;
            r.detail = "rule did not fire on: " + Shorten(ex.text) +
                       (others.empty() ? " (nothing fired)" : " (fired instead: " + others + ")");
            for (const Problem& p : got.warnings) {
              if (p.rule_id == rule.id) r.detail += "; " + p.ToString();
            }
            break;
          }
          r.passed = true;
          if (ex.check_hypotheses) {
            std::string ids;
            for (const Hypothesis& h : mine->hypotheses) ids += (ids.empty() ? "" : ", ") + h.id;
            std::string want_ids;
            for (const std::string& h : ex.hypotheses) want_ids += (want_ids.empty() ? "" : ", ") + h;
            if (ids != want_ids) {
              r.passed = false;
              r.detail += "hypotheses: expected [" + want_ids + "], got [" + ids + "]; ";
            }
          }
          for (const auto& [name, want] : ex.captures) {
            auto it = mine->captures.find(name);
            std::string have = it == mine->captures.end() ? "<none>" : it->second;
            if (have != want) {
              r.passed = false;
              r.detail += "capture '" + name + "': expected '" + want + "', got '" + have + "'; ";
            }
          }
          break;
        }
        case ExampleKind::kNoMatch:
          r.passed = mine == nullptr;
          if (!r.passed) r.detail = "rule fired on a no_match example: " + Shorten(ex.text);
          break;
        case ExampleKind::kKnownGap:
          r.passed = true;
          if (mine) {
            ++report.gaps_closed;
            r.detail = "known gap now matches (remove the annotation): " + Shorten(ex.text);
          } else {
            ++report.gaps;
            r.detail = ex.why;
          }
          break;
        case ExampleKind::kLuaTest:  // no key of a rule file: the reader never makes one
          r.detail = "a lua_test is not a rule file's example";
          break;
      }
      if (!r.passed) ++report.failed;
      report.results.push_back(std::move(r));
    }
    // Lua unit checks: every global test_* function of the rule's Lua must run without error.
    if (!rule.lua_tests.empty() && rules.lua) {
      LuaRuntime::Lease lease = rules.lua->Acquire();
      for (const std::string& name : rule.lua_tests) {
        ExampleResult r;
        r.rule = rule.id;
        r.file = rule.lua_file;
        r.kind = ExampleKind::kLuaTest;
        LuaValue ignored;
        LuaError error;
        r.passed = lease && lease->Call(static_cast<int>(index), name, nullptr, &ignored, &error);
        if (!r.passed) {
          r.line = error.line;
          if (!error.file.empty()) r.file = error.file;
          r.detail = name + ": " + (lease ? error.message : "could not start Lua");
          ++report.failed;
        }
        report.results.push_back(std::move(r));
      }
    }
  }
  return report;
}

std::string RuleTestReport::ToText(bool verbose) const {
  std::ostringstream out;
  out.imbue(std::locale::classic());  // the numbers whatever std::locale::global says (Note: [Locale-free text])
  std::map<std::string, std::pair<int, int>> per_rule;  // id -> (passed, total), known gaps excluded
  std::vector<std::string> order;
  for (const ExampleResult& r : results) {
    if (!per_rule.count(r.rule)) order.push_back(r.rule);
    auto& pr = per_rule[r.rule];
    if (r.kind == ExampleKind::kKnownGap) continue;
    pr.second++;
    if (r.passed) pr.first++;
  }
  for (const std::string& id : order) {
    auto [ok, n] = per_rule[id];
    bool pass = ok == n;
    if (!pass || verbose) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%-4s %-44s %d/%d examples\n", pass ? "PASS" : "FAIL", id.c_str(), ok, n);
      out << buf;
    }
  }
  for (const ExampleResult& r : results) {
    if (!r.passed) out << r.file << ":" << r.line << ": " << ExampleKindName(r.kind) << " failed (rule " << r.rule << "): " << r.detail << "\n";
    else if (r.kind == ExampleKind::kKnownGap && (verbose || !r.detail.empty()) && r.detail.rfind("known gap now", 0) == 0)
      out << r.file << ":" << r.line << ": note: " << r.detail << "\n";
  }
  int total = 0;
  for (const ExampleResult& r : results) total += r.kind != ExampleKind::kKnownGap;
  out << "rules test: " << rules << " rules, " << (total - failed) << " passed, " << failed << " failed";
  if (gaps || gaps_closed) out << ", " << gaps << " known gaps" << (gaps_closed ? ", " + std::to_string(gaps_closed) + " gaps now closed" : "");
  out << "\n";
  return out.str();
}


// A condition (Note: [Conditions]) as `triage explain` words it.
static std::string ConditionText(const Condition& c);
static std::string ConditionText(const std::vector<Condition>& any) {
  std::string out;
  for (const Condition& c : any) out += (out.empty() ? "" : ", or ") + ConditionText(c);
  return out;
}
static std::string ConditionText(const Condition& c) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : " and ") + part; };
  auto patterns = [](const std::vector<Text>& ps) {
    std::string t;
    for (const Text& p : ps) t += (t.empty() ? "/" : " or /") + p.value + "/";
    return t;
  };
  if (!c.message.empty()) add("the message matches " + patterns(c.message));
  if (!c.input.empty()) add("some incident of the input matches " + patterns(c.input));
  if (!c.frames.empty()) add("a frame of its traceback matches " + patterns(c.frames));
  for (const auto& [name, values] : c.facts) {
    std::string v;
    for (const std::string& x : values) v += (v.empty() ? "" : "|") + x;
    add("the input shows " + name + " " + v);
  }
  return out;
}

std::string ExplainRule(const RuleSet& rules, const std::string& id, bool* found, int width) {
  const Rule* r = rules.Find(id);
  *found = r != nullptr;
  if (!r) return "";
  r = &rules.Full(static_cast<int>(r - rules.rules.data()));  // its texts (Note: [Texts on demand])
  std::ostringstream out;
  out.imbue(std::locale::classic());
  // Prose is wrapped to `width`; patterns, checks (commands) and examples (log lines) stay verbatim so
  // they can be copied.
  auto prose = [width](const std::string& text) { return Wrap(text, width); };
  out << r->id << "  [" << r->category << "]\n" << prose(r->title + "\n");
  out << "file: " << r->file << (r->overrides.empty() ? "" : " (overrides " + r->overrides + ")") << "\n";
  out << "prior confidence: " << FormatNumber(r->prior, NumberStyle::kGeneral, 6) << "\n\n";
  if (r->signal) {
    // A signal rule reads metric series, not messages (rules/README.md "Signal rules").
    out << "Reads metric series: detector " << r->signal->detector << " on";
    for (SeriesId id : r->signal->series) out << " " << SeriesName(id);
    out << "\nparameters:";
    for (const auto& [name, value] : r->signal->params) out << " " << name << "=" << FormatNumber(value, NumberStyle::kGeneral, 6);
    out << "\n";
    if (!r->signal->evidence_for.empty()) {
      out << "evidence for:";
      for (const std::string& c : r->signal->evidence_for) out << " " << c;
      out << "\n";
    }
  } else {
    out << "Matches messages like:\n";
  }
  for (const Text& p : r->patterns) out << "  /" << p.value << "/\n";
  if (!r->exceptions.empty()) {
    out << "raised as:";
    for (const std::string& e : r->exceptions) out << " " << e;
    out << "\n";
  }
  if (!r->context.value.empty()) out << "only when the surrounding lines match: /" << r->context.value << "/\n";
  if (r->frames_none) out << "only when the error has no stack frame (the line pasted alone)\n";
  if (!r->needs.empty()) out << "only when " << ConditionText(r->needs) << "\n";
  if (!r->unless.empty()) out << "not when " << ConditionText(r->unless) << "\n";
  out << "\nExplanation:\n" << prose("  " + r->explain.value + "\n") << "\nHypotheses, most likely first:\n";
  int k = 1;
  for (const HypothesisSpec& h : r->hypotheses) {
    out << prose("  " + std::to_string(k++) + ". " + h.id + ": " + h.text.value + "\n");
    out << prose("     test: " + (h.probe.empty() ? h.test.value : "probe " + h.probe) + "\n");
    out << prose("     fix:  " + h.fix.value + "\n");
    if (!h.when_if.empty()) out << prose("     only when " + ConditionText(h.when_if) + "\n");
    if (!h.first.empty()) out << prose("     first when " + ConditionText(h.first) + "\n");
    if (!h.category.empty()) out << prose("     a cause of category " + h.category + " (also reported as a diagnosis of its own)\n");
  }
  if (!r->checks.empty()) {
    out << "\nChecks:\n";
    for (size_t k = 0; k < r->checks.size(); ++k) {
      out << "  " << r->checks[k].value << "\n";
      if (k < r->checks_when.size() && !r->checks_when[k].empty()) out << "    (only when " << ConditionText(r->checks_when[k]) << ")\n";
    }
  }
  out << "\n" << prose("Verify: " + (r->verify_probe.empty() ? "" : "probe " + r->verify_probe + ": ") + r->verify.value + "\n");
  if (!r->refs.empty()) {
    out << "\nReferences:";
    for (const std::string& ref : r->refs) out << "\n  " << ref;
    out << "\n";
  }
  out << "\nExamples:\n";
  for (const Example& ex : r->examples) {
    std::string kind = ExampleKindName(ex.kind);  // "no_match" reads "no match"
    std::replace(kind.begin(), kind.end(), '_', ' ');
    out << "  " << kind << ": " << Shorten(ex.text, 140) << "\n";
  }
  return out.str();
}

const std::vector<std::string>& TaxonomyCategories() { return KnownCategories(); }

RuleScaffold ScaffoldRule(const std::string& family, const std::string& id, bool with_lua) {
  RuleScaffold out;
  bool kebab = !id.empty() && id.size() <= 80 && id.front() != '-' && id.back() != '-';
  for (char c : id) kebab = kebab && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (!kebab) {
    out.error = "rule id '" + id + "' must be lower-case letters, digits and '-'";
    return out;
  }
  std::string category;
  for (const std::string& c : KnownCategories()) {
    if (c.rfind(family + ".", 0) == 0) { category = c; break; }
  }
  if (category.empty()) {
    std::string families;
    for (const std::string& c : KnownCategories()) {
      std::string f = c.substr(0, c.find('.'));
      if (families.find(" " + f + ",") == std::string::npos) families += " " + f + ",";
    }
    out.error = "unknown family '" + family + "' (one of:" + families.substr(0, families.size() - 1) + ")";
    return out;
  }
  // The example is a real PyTorch 1.13 message (torch.ones(3) + torch.ones(4)), so the scaffold passes
  // `triage rules test` as written; the first edit replaces it with the failure the rule is for.
  out.yaml = "# Rule " + id + R"(: one rule per file, the file stem is the id. Schema: rules/README.md.
# FIXME: every line marked FIXME. Run `triage rules lint` and `triage rules test` after each edit.
id: )" + id + R"(
category: )" + category + R"(   # FIXME: the right key of rules/taxonomy.yaml
title: FIXME one line naming the failure
confidence: 0.8                  # FIXME: how often the diagnosis is right when the pattern matches
match:
  # FIXME: a literal fragment of PyTorch's wording with (?P<name>...) captures for the numbers.
  message: 'The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\)'
  exception: [RuntimeError]
)" + (with_lua ? "values: lua:values                 # " + id + ".lua computes {difference}\n" : "") +
             R"(explain: 'FIXME what the message means: one side has {a} elements, the other {b})" +
             (with_lua ? " ({difference} apart)" : "") + R"(.'
hypotheses:
  - id: fixme-most-likely-cause
)" + (with_lua ? "    when: lua:off_by_one            # shown only when the Lua predicate says so\n" : "") +
             R"(    text: 'FIXME the most likely cause.'
    test: 'FIXME how to confirm it (print a shape, run a check).'
    fix: 'FIXME how to fix it.'
verify: 'FIXME what shows the fix worked.'
examples:
  # FIXME: paste the real output of the failure this rule is for; never invent a PyTorch message.
  - match: 'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0'
    captures: { a: 3, b: 4)" + (with_lua ? ", difference: 1" : "") + R"( }
)" + (with_lua ? "    hypotheses: [fixme-most-likely-cause]\n" : "");
  if (with_lua) {
    out.lua = "-- Lua for rule " + id + R"( (rules/LUA_API.md, API version 1).
-- Global functions are the ones the YAML names (values/when/score) and test_* unit checks run by
-- `triage rules test`; make every helper local. The sandbox offers string, table, math, utf8 and
-- the triage helpers; no files, no os.

-- values: extra template names computed from the captures.
function values(ctx)
  local a, b = triage.number(ctx.captures.a), triage.number(ctx.captures.b)
  -- FIXME: compute what the message only implies.
  return { difference = math.abs(a - b) }
end

-- when: true keeps the hypothesis, false drops it, a string keeps it and says why.
function off_by_one(ctx)
  if ctx.values.difference == "1" then return "the sizes differ by exactly one" end
  return false
end

function test_values()
  local v = values({ captures = { a = "3", b = "4" } })
  assert(v.difference == 1, "expected 1, got " .. tostring(v.difference))
end
)";
  }
  return out;
}

double EvalReport::Top1Rate() const { return total ? static_cast<double>(top1) / total : 0; }
double EvalReport::Top3Rate() const { return total ? static_cast<double>(top3) / total : 0; }

EvalSlice EvalReport::Slice(const std::function<bool(const EvalCase&)>& keep) const {
  EvalSlice s;
  const int kBuckets = 10;
  int n[kBuckets] = {}, right[kBuckets] = {};
  double conf[kBuckets] = {};
  for (const EvalCase& c : cases) {
    if (!c.error.empty() || !keep(c)) continue;
    ++s.total;
    s.top1 += c.top1;
    s.top3 += c.top3;
    if (c.expected == "none") {
      ++s.negatives;
      s.negatives_flagged += !c.top1;
      continue;
    }
    if (c.got.empty()) continue;
    ++s.answered;
    double p = c.got[0].confidence;
    int b = p >= 1 ? kBuckets - 1 : p <= 0 ? 0 : static_cast<int>(p * kBuckets);
    ++n[b];
    right[b] += c.top1;
    conf[b] += p;
  }
  for (int b = 0; b < kBuckets; ++b) {
    if (n[b]) s.ece += (static_cast<double>(n[b]) / s.answered) * std::abs(static_cast<double>(right[b]) / n[b] - conf[b] / n[b]);
  }
  return s;
}

// Note: [Eval splits]
// A corpus has three parts that must never be mixed up in a figure: our own cases (written beside the
// rules), wild logs used to tune rules ("wild": provenance wild), and the frozen held-out wild logs
// (any case under a folder named `heldout`, never read to write a rule). `triage eval` reports each
// part on its own line so the held-out figure is the generalisation measure. The miss list names wild
// and our misses only: it is what a rule writer reads, so held-out misses appear as a count unless the
// report is asked for them (`--list-heldout`, for auditing a finished change, never for writing a rule).
static std::string SplitOf(const fs::path& case_dir, const YAML::Node& label) {
  for (const fs::path& part : case_dir) {
    if (part == "heldout") return "heldout";
  }
  if (label["provenance"] && label["provenance"].IsScalar() && label["provenance"].as<std::string>() == "wild") return "wild";
  return "ours";
}

EvalReport EvaluateCorpus(const Engine& engine, const std::string& dir) {
  EvalReport report;
  std::vector<fs::path> labels;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "label.yaml") labels.push_back(it->path());
  }
  std::sort(labels.begin(), labels.end());
  for (const fs::path& label : labels) {
    EvalCase c;
    c.dir = label.parent_path().string();
    std::string source;
    try {
      YAML::Node node = YAML::LoadFile(label.string());
      if (node["source"] && node["source"].IsScalar()) source = node["source"].as<std::string>();
      c.expected = node["category"] ? node["category"].as<std::string>() : "";
      c.split = SplitOf(label.parent_path(), node);
      if (node["also"]) {
        for (const YAML::Node& a : node["also"]) c.also.push_back(a.as<std::string>());
      }
    } catch (const YAML::Exception& e) {
      c.error = label.string() + ": " + e.what();
    }
    std::ifstream in(label.parent_path() / "log.txt", std::ios::binary);
    if (c.error.empty() && !in) c.error = c.dir + ": no log.txt";
    if (c.error.empty() && c.expected.empty()) c.error = label.string() + ": no category";
    if (!c.error.empty()) {
      ++report.errors;
      report.cases.push_back(std::move(c));
      continue;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    // Note: [Similar known case]: a case is never answered from itself or from its own thread.
    DiagnoseOptions options;
    options.similar_leave_out = {fs::absolute(label.parent_path()).lexically_normal().generic_string(), source};
    Report r = engine.DiagnoseText(ss.str(), options);
    if (c.split != "heldout") {  // Note: [Frame evidence]: read as if no rule had matched
      const int primary = PrimaryIncident(r.incidents);
      const FrameReading fr = ReadFrameEvidence(r.incidents, primary);
      if (fr.entry) c.frame_row = fr.entry->id;
      const SimilarIndex* index = BundledSimilarIndex(engine.rules().cache_dir);
      const std::vector<std::string> words = index ? SimilarWordsOf(r.incidents, primary) : std::vector<std::string>();
      if (!words.empty()) {
        const SimilarVote vote = VoteSimilarCases(*index, words, options.similar_leave_out);
        if (vote.nearest.row) {
          c.similar_case = vote.nearest.row->case_path;
          c.similar_category = vote.nearest.row->category;
          c.similar_score = vote.nearest.score;
          c.similar_tier = vote.tier;
          c.similar_speaks = vote.tier >= 0 && SimilarTiers()[static_cast<size_t>(vote.tier)].speaks;
        }
      }
    }
    for (size_t i = 0; i < r.diagnoses.size() && i < 3; ++i) c.got.push_back(r.diagnoses[i]);
    auto accepted = [&](const std::string& cat) {
      return cat == c.expected || std::find(c.also.begin(), c.also.end(), cat) != c.also.end();
    };
    ++report.total;
    if (c.expected == "none") {
      ++report.negatives;
      c.top1 = c.top3 = r.diagnoses.empty();
      if (!c.top1) ++report.negatives_flagged;
    } else {
      c.top1 = !c.got.empty() && accepted(c.got[0].category);
      c.top3 = std::any_of(c.got.begin(), c.got.end(), [&](const Diagnosis& d) { return accepted(d.category); });
      if (!c.top1 && !c.got.empty()) {
        c.miss = "wrong";
      } else if (!c.top1) {
        // Note: [Miss kinds]: an abstention is told apart by what the engine had: no incident read from
        // the log (the readers), incidents no rule matched (the knowledge), or candidates the threshold
        // dropped (the ranking), and then whether the right category was among them.
        DiagnoseOptions all = options;
        all.min_confidence = 0;
        Report below = engine.DiagnoseText(ss.str(), all);
        if (!below.diagnoses.empty()) {
          c.miss = std::any_of(below.diagnoses.begin(), below.diagnoses.end(),
                               [&](const Diagnosis& d) { return accepted(d.category); })
                       ? "under-threshold-right"
                       : "under-threshold";
        } else {
          c.miss = r.incidents.empty() ? "no-incident" : "no-rule";
        }
      }
    }
    report.top1 += c.top1;
    report.top3 += c.top3;
    report.cases.push_back(std::move(c));
  }
  return report;
}

std::vector<FrameRowMeasure> EvalReport::FrameRows() const {
  std::vector<FrameRowMeasure> rows;
  for (const FrameEvidenceEntry& e : FrameEvidenceTable()) {
    FrameRowMeasure m;
    m.id = e.id;
    m.category = e.category;
    m.speaks = e.speaks;
    const std::string family = e.category.substr(0, e.category.find('.'));
    for (const EvalCase& c : cases) {
      if (!c.error.empty() || c.split == "heldout" || c.frame_row != e.id) continue;
      ++m.n;
      m.right += c.expected == e.category || std::find(c.also.begin(), c.also.end(), e.category) != c.also.end();
      m.family_right += c.expected.substr(0, c.expected.find('.')) == family;
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<SimilarBandMeasure> EvalReport::SimilarBandRows() const {
  std::vector<SimilarBandMeasure> rows;
  for (const SimilarBand& b : SimilarBands()) {
    SimilarBandMeasure m;
    m.low = b.low;
    m.high = b.high;
    for (const EvalCase& c : cases) {
      if (!c.error.empty() || c.split == "heldout" || c.similar_case.empty()) continue;
      if (c.similar_score < b.low || c.similar_score >= b.high) continue;
      ++m.n;
      const bool answer = c.similar_category != "none";
      const bool right = answer && (c.expected == c.similar_category ||
                                    std::find(c.also.begin(), c.also.end(), c.similar_category) != c.also.end());
      const bool family = answer && c.expected.substr(0, c.expected.find('.')) ==
                                        c.similar_category.substr(0, c.similar_category.find('.'));
      m.right += right;
      m.wrong += answer && !right;
      m.family_right += family;
      m.negatives += answer && c.expected == "none";
      m.wild += answer && c.split == "wild";
      m.wild_right += c.split == "wild" && right;
      const bool voted = answer && c.similar_speaks;
      m.vote_right += voted && right;
      m.vote_wrong += voted && !right;
      m.vote_family_right += voted && family;
      m.vote_none += !voted;
    }
    rows.push_back(m);
  }
  return rows;
}

std::vector<SimilarTierMeasure> EvalReport::SimilarTierRows() const {
  std::vector<SimilarTierMeasure> rows;
  const SimilarIndex* index = BundledSimilarIndex();
  for (size_t t = 0; t < SimilarTiers().size(); ++t) {
    SimilarTierMeasure m;
    m.id = SimilarTiers()[t].id;
    m.speaks = SimilarTiers()[t].speaks;
    if (index && t < index->tier_fits.size()) {
      m.fit_n = index->tier_fits[t].n;
      m.fit_right = index->tier_fits[t].right;
      m.confidence = index->tier_fits[t].confidence;
    }
    for (const EvalCase& c : cases) {
      if (!c.error.empty() || c.split == "heldout" || c.similar_case.empty() || c.similar_category == "none") continue;
      if (c.similar_tier != static_cast<int>(t)) continue;
      ++m.n;
      m.right += c.expected == c.similar_category ||
                 std::find(c.also.begin(), c.also.end(), c.similar_category) != c.also.end();
      m.family_right += c.expected.substr(0, c.expected.find('.')) == c.similar_category.substr(0, c.similar_category.find('.'));
      m.negatives += c.expected == "none";
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

std::string BuildSimilarIndex(const Engine& engine, const std::string& corpus_dir, std::string* error) {
  std::vector<fs::path> labels;
  std::error_code ec;
  const fs::path root = fs::path(corpus_dir);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "heldout") {  // Note: [Eval splits]: the frozen split is never read
      it.disable_recursion_pending();
    } else if (it->path().filename() == "label.yaml") {
      labels.push_back(it->path());
    }
  }
  std::sort(labels.begin(), labels.end());
  std::string out =
      "# Known cases for the similar-case answer (Note: [Similar known case] in engine/src/diagnose/similar_case.cc;\n"
      "# rules/README.md \"Similar known case\"): each case's primary error as the engine reads it.\n"
      "# Written by `triage rules similar-index corpus > rules/similar/cases.tsv` (never from corpus/heldout/);\n"
      "# do not edit. Columns (tab-separated): case, category (then its also: categories, comma-separated),\n"
      "# source thread (- when none), words; then each tier's fit (Note: [Stored tier fits] in similar_case.cc):\n"
      "# !fit, tier, answers, right.\n";
  auto clean = [](std::string s) {
    for (char& ch : s) {
      if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
    }
    return s;
  };
  for (const fs::path& label : labels) {
    std::string category, source;
    try {
      YAML::Node node = YAML::LoadFile(label.string());
      if (node["category"] && node["category"].IsScalar()) category = node["category"].as<std::string>();
      if (!category.empty() && node["also"] && node["also"].IsSequence()) {
        for (const YAML::Node& a : node["also"]) category += "," + a.as<std::string>();
      }
      if (node["source"] && node["source"].IsScalar()) source = node["source"].as<std::string>();
    } catch (const YAML::Exception& e) {
      *error = label.string() + ": " + e.what();
      return "";
    }
    std::ifstream in(label.parent_path() / "log.txt", std::ios::binary);
    if (!in || category.empty()) continue;
    std::ostringstream ss;
    ss << in.rdbuf();
    DiagnoseOptions options;
    options.min_confidence = 1.01;  // only the incidents are wanted
    const Report r = engine.DiagnoseText(ss.str(), options);
    const std::vector<std::string> words = SimilarWordsOf(r.incidents, PrimaryIncident(r.incidents));
    if (words.empty()) continue;
    out += label.parent_path().lexically_relative(root).generic_string() + "\t" + clean(category) + "\t" +
           (source.empty() ? "-" : clean(source)) + "\t";
    for (size_t k = 0; k < words.size(); ++k) out += (k ? " " : "") + words[k];
    out += "\n";
  }
  // Note: [Stored tier fits] (similar_case.cc): the rows just written, fitted once here, not at each load.
  SimilarIndex index;
  if (!ParseSimilarIndex(out, &index, error)) return "";
  return out + SimilarTierFitLines(index);
}

std::string EvalReport::ToText(bool list_heldout_misses) const {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  struct Row { int n = 0, t1 = 0, t3 = 0; };
  std::map<std::string, Row> rows;
  for (const EvalCase& c : cases) {
    if (!c.error.empty()) continue;
    Row& r = rows[c.expected];
    r.n++;
    r.t1 += c.top1;
    r.t3 += c.top3;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-36s %4s %7s %7s\n", "category", "n", "top-1", "top-3");
  out << buf;
  for (const auto& [cat, r] : rows) {
    std::snprintf(buf, sizeof buf, "%-36s %4d %7s %7s\n", cat.c_str(), r.n, Pct(r.t1, r.n).c_str(), Pct(r.t3, r.n).c_str());
    out << buf;
  }
  bool any_miss = false;
  int unlisted = 0;
  for (const EvalCase& c : cases) {
    if (!c.error.empty()) {
      out << (any_miss ? "" : "\nmisses:\n") << "  ERROR " << c.error << "\n";
      any_miss = true;
      continue;
    }
    if (c.top1) continue;
    if (!any_miss) out << "\nmisses:\n";
    any_miss = true;
    if (c.split == "heldout" && !list_heldout_misses) {
      ++unlisted;
      continue;
    }
    out << "  " << c.dir << ": expected " << c.expected << ", got ";
    if (c.got.empty()) out << "nothing (" << c.miss << ")";
    for (size_t i = 0; i < c.got.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%s%s (%s, %s)", i ? ", " : "", c.got[i].category.c_str(),
                    Fixed(c.got[i].confidence, 2).c_str(), c.got[i].rule.c_str());
      out << buf;
    }
    out << "\n";
  }
  if (unlisted) {
    out << "  (" << unlisted << " held-out miss" << (unlisted == 1 ? "" : "es")
        << " not named: held-out cases are not read to tune rules; `triage eval DIR --list-heldout` names them)\n";
  }
  // Calibration: does a top-1 answer given confidence p turn out right about p of the time?
  auto calibration = [&](const char* title, const std::function<bool(const EvalCase&)>& keep) {
    const double edges[] = {0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01};
    std::string table;
    for (int b = 0; b + 1 < 7; ++b) {
      int n = 0, right = 0;
      double sum = 0;
      for (const EvalCase& c : cases) {
        if (!c.error.empty() || c.expected == "none" || c.got.empty() || !keep(c)) continue;
        double p = c.got[0].confidence;
        if (p < edges[b] || p >= edges[b + 1]) continue;
        ++n;
        right += c.top1;
        sum += p;
      }
      if (n == 0) continue;
      std::snprintf(buf, sizeof buf, "  %s-%s    %5d %9s %9s\n", Fixed(edges[b], 2).c_str(),
                    Fixed(std::min(edges[b + 1], 1.0), 2).c_str(), n, Pct(right, n).c_str(), Fixed(sum / n, 2).c_str());
      table += buf;
    }
    if (table.empty()) return;
    out << "\ncalibration (" << title << "):\n";
    std::snprintf(buf, sizeof buf, "  %-12s %5s %9s %9s\n", "confidence", "n", "accuracy", "mean conf");
    out << buf << table;
    std::snprintf(buf, sizeof buf, "  expected calibration error %s\n", Fixed(Slice(keep).ece, 3).c_str());
    out << buf;
  };
  calibration("top-1 answers on positive cases, all splits", [](const EvalCase&) { return true; });
  calibration("wild and held-out cases", [](const EvalCase& c) { return c.split != "ours"; });
  // The map of rules/calibration.yaml is fitted on the wild tuning split; the held-out table checks it.
  calibration("wild tuning cases", [](const EvalCase& c) { return c.split == "wild"; });
  calibration("held-out cases", [](const EvalCase& c) { return c.split == "heldout"; });

  // Note: [Eval splits]: one table per split, then per family within each split.
  const char* kSplits[] = {"ours", "wild", "heldout"};
  auto slice_row = [&](const std::string& name, const EvalSlice& s) {
    std::snprintf(buf, sizeof buf, "  %-22s %5d %7s %7s %9s %6s\n", name.c_str(), s.total, Pct(s.top1, s.total).c_str(),
                  Pct(s.top3, s.total).c_str(),
                  (std::to_string(s.negatives - s.negatives_flagged) + "/" + std::to_string(s.negatives)).c_str(),
                  Fixed(s.ece, 3).c_str());
    out << buf;
  };
  // Note: [Miss kinds]: where each split's misses come from, as counts (held-out cases stay unnamed).
  out << "\nmisses by kind (positive cases; see `triage eval` in bindings/cli/README.md):\n";
  std::snprintf(buf, sizeof buf, "  %-10s %6s %11s %8s %15s %21s\n", "split", "wrong", "no-incident", "no-rule",
                "under-threshold", "under-threshold-right");
  out << buf;
  for (const char* split : {"ours", "wild", "heldout"}) {
    std::map<std::string, int> kinds;
    int n = 0;
    for (const EvalCase& c : cases) {
      if (c.error.empty() && c.split == split) ++n, ++kinds[c.miss];
    }
    if (!n) continue;
    std::snprintf(buf, sizeof buf, "  %-10s %6d %11d %8d %15d %21d\n", split, kinds["wrong"], kinds["no-incident"],
                  kinds["no-rule"], kinds["under-threshold"], kinds["under-threshold-right"]);
    out << buf;
  }
  // Note: [Masked causes] (diagnose/ranker.cc): how often a masked cause among the first three is an
  // accepted answer, the measure behind its confidence factor, and how many misses it turns into top-3.
  out << "\nmasked causes among the first three answers (Note: [Masked causes]):\n";
  std::snprintf(buf, sizeof buf, "  %-10s %6s %9s %7s %25s\n", "split", "shown", "accepted", "rate", "top-1 wrong, top-3 right");
  out << buf;
  for (const char* split : {"ours", "wild", "heldout"}) {
    int shown = 0, accepted = 0, rescued = 0;
    for (const EvalCase& c : cases) {
      if (!c.error.empty() || c.split != split || c.expected == "none") continue;
      for (const Diagnosis& d : c.got) {
        if (d.from_hypothesis.empty()) continue;
        ++shown;
        if (d.category == c.expected || std::find(c.also.begin(), c.also.end(), d.category) != c.also.end()) {
          ++accepted;
          if (!c.top1) ++rescued;
        }
      }
    }
    if (!shown) continue;
    std::snprintf(buf, sizeof buf, "  %-10s %6d %9d %7s %25d\n", split, shown, accepted, Pct(accepted, shown).c_str(), rescued);
    out << buf;
  }
  // Note: [Frame evidence] (diagnose/frame_evidence.cc): each row's precision read as if no rule had
  // matched, the measure that decides whether it speaks.
  out << "\nframe evidence, each case read as if no rule matched (ours + wild; Note: [Frame evidence]):\n";
  std::snprintf(buf, sizeof buf, "  %-26s %-32s %6s %4s %11s %11s\n", "row", "category", "speaks", "n", "category",
                "family");
  out << buf;
  for (const FrameRowMeasure& m : FrameRows()) {
    if (!m.n) continue;
    std::snprintf(buf, sizeof buf, "  %-26s %-32s %6s %4d %4d %6s %4d %6s\n", m.id.c_str(), m.category.c_str(),
                  m.speaks ? "yes" : "no", m.n, m.right, Pct(m.right, m.n).c_str(), m.family_right,
                  Pct(m.family_right, m.n).c_str());
    out << buf;
  }
  // Note: [Similar known case] (diagnose/similar_case.cc): leaving out each case's own thread, what the
  // nearest known case alone would answer per band of similarity, and what the vote answers (right /
  // wrong / none, then family right), the measure the tiers were chosen from.
  out << "\nsimilar known case, each case read as if no rule matched, its own case and thread left out (ours + wild;\n"
         "Note: [Similar known case]): nearest case alone, then the vote of its tiers that speak\n";
  std::snprintf(buf, sizeof buf, "  %-10s %4s | %-28s %9s %16s | %-22s %6s\n", "similarity", "n", "nearest: right wrong",
                "family", "wild: n, right", "vote: right wrong none", "family");
  out << buf;
  for (const SimilarBandMeasure& m : SimilarBandRows()) {
    if (!m.n) continue;
    std::snprintf(buf, sizeof buf, "  %s-%s  %4d | %4d %6s %4d %12d %9d %4d %6s | %4d %6s %4d %4d %6d\n",
                  Fixed(m.low, 2).c_str(), Fixed(std::min(m.high, 1.0), 2).c_str(), m.n, m.right,
                  Pct(m.right, m.right + m.wrong).c_str(), m.wrong, m.family_right, m.wild, m.wild_right,
                  Pct(m.wild_right, m.wild).c_str(), m.vote_right, Pct(m.vote_right, m.vote_right + m.vote_wrong).c_str(),
                  m.vote_wrong, m.vote_none, m.vote_family_right);
    out << buf;
  }
  out << "\nsimilar-case vote by tier (ours + wild; the confidence is fitted on the index: right / n):\n";
  std::snprintf(buf, sizeof buf, "  %-14s %6s %4s %11s %6s %9s %14s %10s\n", "tier", "speaks", "n", "right", "family",
                "negatives", "fit: n, right", "confidence");
  out << buf;
  for (const SimilarTierMeasure& m : SimilarTierRows()) {
    std::snprintf(buf, sizeof buf, "  %-14s %6s %4d %4d %6s %6d %9d %8d %5d %10s\n", m.id.c_str(), m.speaks ? "yes" : "no",
                  m.n, m.right, Pct(m.right, m.n).c_str(), m.family_right, m.negatives, m.fit_n, m.fit_right,
                  Fixed(m.confidence, 3).c_str());
    out << buf;
  }
  out << "\nby split:\n";
  std::snprintf(buf, sizeof buf, "  %-22s %5s %7s %7s %9s %6s\n", "split", "n", "top-1", "top-3", "neg clean", "ECE");
  out << buf;
  for (const char* split : kSplits) {
    EvalSlice s = Slice([&](const EvalCase& c) { return c.split == split; });
    if (s.total) slice_row(split, s);
  }
  for (const char* split : kSplits) {
    std::map<std::string, bool> families;
    for (const EvalCase& c : cases) {
      if (c.error.empty() && c.split == split) families[c.expected.substr(0, c.expected.find('.'))] = true;
    }
    if (families.empty()) continue;
    out << "\nby family, " << split << ":\n";
    std::snprintf(buf, sizeof buf, "  %-22s %5s %7s %7s %9s %6s\n", "family", "n", "top-1", "top-3", "neg clean", "ECE");
    out << buf;
    for (const auto& entry : families) {
      const std::string& family = entry.first;  // a structured binding cannot be captured in C++17 (clang refuses)
      slice_row(family, Slice([&](const EvalCase& c) {
        return c.split == split && c.expected.substr(0, c.expected.find('.')) == family;
      }));
    }
  }
  std::snprintf(buf, sizeof buf,
                "\neval: %d cases, top-1 %s (%d/%d), top-3 %s (%d/%d), negatives %d/%d clean, %d errors\n", total,
                Pct(top1, total).c_str(), top1, total, Pct(top3, total).c_str(), top3, total,
                negatives - negatives_flagged, negatives, errors);
  out << buf;
  for (const char* split : kSplits) {
    EvalSlice s = Slice([&](const EvalCase& c) { return c.split == split; });
    if (!s.total || s.total == total) continue;
    std::snprintf(buf, sizeof buf, "eval %s: %d cases, top-1 %s (%d/%d), top-3 %s (%d/%d), negatives %d/%d clean, ECE %s\n",
                  split, s.total, Pct(s.top1, s.total).c_str(), s.top1, s.total, Pct(s.top3, s.total).c_str(), s.top3,
                  s.total, s.negatives - s.negatives_flagged, s.negatives, Fixed(s.ece, 3).c_str());
    out << buf;
  }
  return out.str();
}

}  // namespace triage
