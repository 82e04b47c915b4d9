// Report output: JSON (the output contract, engine/README.md) and text for terminals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "diagnose/escape.h"
#include "diagnose/json_writer.h"
#include "diagnose/name_table.h"
#include "diagnose/report_parts.h"
#include "triage/locale_free.h"
#include "triage/triage.h"

namespace triage {

namespace {

// The one table of status names, and of audience names.
constexpr std::pair<HypothesisStatus, const char*> kStatusNames[] = {
    {HypothesisStatus::kUntested, "untested"}, {HypothesisStatus::kConfirmed, "confirmed"},
    {HypothesisStatus::kRefuted, "refuted"}};
constexpr std::pair<Audience, const char*> kAudienceNames[] = {{Audience::kPython, "python"}, {Audience::kCxx, "cpp"}, {Audience::kAuto, "auto"}};

}  // namespace

const char* HypothesisStatusName(HypothesisStatus status) { return NameIn(kStatusNames, status); }

const char* AudienceName(Audience audience) { return NameIn(kAudienceNames, audience); }

bool AudienceFromName(std::string_view name, Audience* audience) { return ValueIn(kAudienceNames, name, audience); }

namespace {

// A number for JSON: non-finite values (which JSON cannot spell) as the strings "nan", "inf", "-inf".
void AppendJsonNumber(std::string* out, double v) {
  if (std::isnan(v)) { *out += "\"nan\""; return; }
  if (std::isinf(v)) { *out += v > 0 ? "\"inf\"" : "\"-inf\""; return; }
  AppendNumber(out, v, NumberStyle::kGeneral, 9);
}

// "series": {"name": "loss", "axis": "step", "points": [[x, value], ...], "onset": x}
void WriteSeries(std::string* out, const SeriesEvidence& s) {
  JsonObject o(out);
  o.Str("name", s.name);
  o.Str("axis", s.axis);
  o.Key("points");
  out->push_back('[');
  for (size_t i = 0; i < s.points.size(); ++i) {
    if (i) out->push_back(',');
    out->push_back('[');
    AppendJsonNumber(out, s.points[i].first);
    out->push_back(',');
    AppendJsonNumber(out, s.points[i].second);
    out->push_back(']');
  }
  out->push_back(']');
  if (s.has_onset) {
    o.Key("onset");
    AppendJsonNumber(out, s.onset);
  }
}

}  // namespace

// [{"probe": "grad-health", "name": "grad_norm", "scale": "log", "above": 100, "below": 1e-07,
//   "layers": [{"layer": "fc1", "value": 0.52, "offending": false}, ...]}, ...]
void AppendLayerSeriesJson(std::string* out, const std::vector<LayerSeries>& all) {
  out->push_back('[');
  for (size_t i = 0; i < all.size(); ++i) {
    const LayerSeries& s = all[i];
    if (i) out->push_back(',');
    JsonObject o(out);
    o.Str("probe", s.probe);
    o.Str("name", s.name);
    o.Str("scale", s.log_scale ? "log" : "linear");
    if (s.has_above) {
      o.Key("above");
      AppendJsonNumber(out, s.above);
    }
    if (s.has_below) {
      o.Key("below");
      AppendJsonNumber(out, s.below);
    }
    List(o, "layers", s.layers, [&](JsonObject& l, const LayerValue& v) {
      l.Str("layer", v.layer);
      l.Key("value");
      AppendJsonNumber(out, v.value);
      l.Bool("offending", v.offending);
    });
  }
  out->push_back(']');
}

std::string ToJson(const Report& report) {
  std::string out;
  {
    JsonObject root(&out);
    root.Str("source", report.source);
    List(root, "diagnoses", report.diagnoses, [&](JsonObject& o, const Diagnosis& d) {
      o.Str("rule", d.rule);
      o.Str("category", d.category);
      o.Num("confidence", d.confidence);
      o.Str("title", d.title);
      o.Str("explanation", d.explanation);
      if (!d.ranking.empty()) o.Str("ranking", d.ranking);
      if (!d.from_hypothesis.empty()) o.Str("from_hypothesis", d.from_hypothesis);
      List(o, "hypotheses", d.hypotheses, [&](JsonObject& h, const Hypothesis& hy) {
        h.Str("id", hy.id);
        h.Str("text", hy.text);
        h.Str("status", HypothesisStatusName(hy.status));
        h.Str("test", hy.test);
        if (!hy.probe.empty()) h.Str("probe", hy.probe);
        h.Str("fix", hy.fix);
        if (!hy.evidence.empty()) h.Str("evidence", hy.evidence);
      });
      o.StrList("checks", d.checks);
      o.Str("verify", d.verify);
      o.Int("incident", d.incident);
      o.Key("captures");
      {
        JsonObject c(&out);
        for (const auto& [k, v] : d.captures) c.Str(k, v);
      }
      o.Int("occurrences", d.occurrences);
      if (!d.evidence.empty()) o.StrList("evidence", d.evidence);
      if (!d.series.empty()) {
        o.Key("series");
        WriteSeries(&out, d.series.front());
      }
      if (d.series.size() > 1) {
        o.Key("supporting_series");
        out.push_back('[');
        for (size_t i = 1; i < d.series.size(); ++i) {
          if (i > 1) out.push_back(',');
          WriteSeries(&out, d.series[i]);
        }
        out.push_back(']');
      }
      if (!d.layer_series.empty()) {
        o.Key("layer_series");
        AppendLayerSeriesJson(&out, d.layer_series);
      }
    });
    List(root, "incidents", report.incidents, [&](JsonObject& o, const Incident& inc) {
      o.Str("exception", inc.exception);
      o.Str("message", inc.message);
      o.Int("line_start", inc.line_start);
      o.Int("line_end", inc.line_end);
      o.Str("kind", IncidentKindName(inc.kind));
      o.Str("culprit", inc.CulpritText());
      List(o, "frames", inc.frames, [&](JsonObject& f, const Frame& fr) {
        f.Str("file", fr.file);
        f.Int("line", fr.line);
        f.Str("function", fr.function);
        f.Str("source", fr.source);
        f.Bool("user", fr.user);
      });
      o.Int("caused_by", inc.caused_by);
      o.Int("count", inc.count);
      if (!inc.rank.empty()) o.Str("rank", inc.rank);
      if (inc.handled) o.Bool("handled", true);
      o.StrList("context", inc.context);
    });
    List(root, "warnings", report.warnings, [&](JsonObject& o, const Problem& p) {
      o.Str("code", p.code);
      o.Str("message", p.message);
      o.Str("text", p.ToString());
    });
    root.Int("lines", static_cast<long long>(report.lines));
    if (!report.rule_sources.empty()) {
      List(root, "rule_sources", report.rule_sources, [&](JsonObject& o, const RuleSource& r) {
        o.Str("dir", r.dir);
        o.Str("origin", r.origin);
      });
    }
  }
  out.push_back('\n');
  return out;
}

std::string ToJson(const LoadResult& result) {
  std::string out;
  {
    JsonObject root(&out);
    List(root, "problems", result.problems, [](JsonObject& o, const Problem& p) {
      o.Str("severity", p.severity == Problem::Severity::kError ? "error" : "warning");
      o.Str("code", p.code);
      o.Str("file", p.file);
      o.Int("line", p.line);
      o.Int("column", p.column);
      o.Str("rule", p.rule_id);
      o.Str("message", p.message);
    });
    root.Int("rules", static_cast<long long>(CountRules(*result.rules)));
    root.Int("errors", result.errors());
    root.Int("warnings", result.warnings());
  }
  out.push_back('\n');
  return out;
}

const Incident* IncidentOf(const Report& report, const Diagnosis& d) {
  return d.incident >= 0 && d.incident < static_cast<int>(report.incidents.size()) ? &report.incidents[d.incident]
                                                                                   : nullptr;
}

std::string Where(const Incident& inc, const std::string& src) {
  std::string where = inc.exception;
  std::string culprit = inc.CulpritText();
  if (!culprit.empty()) where += (where.empty() ? "in " : " in ") + culprit;
  // An incident not read from numbered input (line 0: a message handed to the Guard) has no line.
  if (inc.line_start > 0) {
    where += (where.empty() ? "" : ", ") + std::string("line") +
             (inc.line_end > inc.line_start ? "s " + std::to_string(inc.line_start) + "-" + std::to_string(inc.line_end)
                                            : " " + std::to_string(inc.line_start)) + " of " + src;
  } else if (culprit.empty()) {
    where += (where.empty() ? "" : ", ") + std::string("reported by ") + src;
  }
  // A rank is a number; a process that is not one is named as its reader named it ("pid 909597").
  if (!inc.rank.empty()) {
    const bool number = inc.rank.find_first_not_of("0123456789") == std::string::npos;
    where += (number ? ", rank " : ", ") + inc.rank;
  }
  return where;
}

std::string Percent(double v) { return std::to_string(static_cast<int>(v * 100 + 0.5)) + "%"; }

std::string RuleSourcesNote(const Report& report) {
  std::string out;
  for (const RuleSource& r : report.rule_sources) {
    const std::string how = r.origin == "cli" ? "--rules" : r.origin == "env" ? "TRIAGE_RULES_PATH" : r.origin;
    out += (out.empty() ? "rules besides the bundled ones: " : ", ") + r.dir + " (" + how + ")";
  }
  return out;
}

std::string FirstLines(const std::string& s, int n) {
  size_t pos = 0;
  for (int i = 0; i < n; ++i) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) return s;
    pos = nl + 1;
  }
  return s.substr(0, pos - 1) + " ...";
}

std::string SourceName(const Report& report) { return report.source == "-" ? "stdin" : report.source; }

std::vector<TracebackLine> TracebackLines(const Incident& inc) {
  std::vector<TracebackLine> out;
  if (!inc.frames.empty()) out.push_back({"Traceback (most recent call last):", false});
  for (size_t i = 0; i < inc.frames.size(); ++i) {
    const Frame& f = inc.frames[i];
    bool culprit = static_cast<int>(i) == inc.culprit;
    out.push_back({"  File \"" + f.file + "\", line " + std::to_string(f.line) + ", in " + f.function, culprit});
    if (!f.source.empty()) out.push_back({"    " + f.source, culprit});
  }
  std::string last = inc.exception.empty() ? inc.message : inc.exception + (inc.message.empty() ? "" : ": " + inc.message);
  size_t pos = 0;
  do {
    size_t nl = last.find('\n', pos);
    out.push_back({last.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos), false});
    pos = nl == std::string::npos ? last.size() + 1 : nl + 1;
  } while (pos <= last.size());
  return out;
}

namespace {

struct Style {
  bool on;
  std::string Bold(const std::string& s) const { return on ? "\x1b[1m" + s + "\x1b[0m" : s; }
  std::string Red(const std::string& s) const { return on ? "\x1b[1;31m" + s + "\x1b[0m" : s; }
  std::string Dim(const std::string& s) const { return on ? "\x1b[2m" + s + "\x1b[0m" : s; }
  std::string Green(const std::string& s) const { return on ? "\x1b[32m" + s + "\x1b[0m" : s; }
};

std::string Indent(const std::string& text, const std::string& pad) {
  std::string out = pad;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}


// A one-line picture of a series: eight bar heights, 'x' for a non-finite value, log scale when the
// values span more than two orders of magnitude; a second line marks the onset with '^'.
std::string Sparkline(const SeriesEvidence& s, const std::string& pad) {
  static const char* const kBars[] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
  const size_t n = s.points.size();
  if (n == 0) return "";
  const size_t width = std::min<size_t>(n, 60);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& p : s.points) {
    if (std::isfinite(p.second)) { lo = std::min(lo, p.second); hi = std::max(hi, p.second); }
  }
  bool log = lo > 0 && hi / lo > 100;
  auto level = [&](double v) {
    double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi, x = log ? std::log10(v) : v;
    if (!(b > a)) return 3;
    return std::clamp(static_cast<int>((x - a) / (b - a) * 7.999), 0, 7);
  };
  std::string bars, marks;
  bool marked = false;
  for (size_t col = 0; col < width; ++col) {
    size_t from = col * n / width, to = std::max(from + 1, (col + 1) * n / width);
    bool bad = false;
    double peak = -std::numeric_limits<double>::infinity();
    for (size_t i = from; i < to; ++i) {
      if (!std::isfinite(s.points[i].second)) bad = true;
      else peak = std::max(peak, s.points[i].second);
    }
    bars += bad ? "x" : std::isfinite(peak) ? kBars[level(peak)] : " ";
    bool onset_here = s.has_onset && !marked && s.points[to - 1].first >= s.onset;
    marks += onset_here ? "^" : " ";
    marked = marked || onset_here;
  }
  auto num = [](double v) { return FormatNumber(v, NumberStyle::kGeneral, 4); };
  std::string axis = s.axis == "index" ? "points" : s.axis + "s";
  std::string label = s.name;
  label.resize(std::max<size_t>(label.size(), 10), ' ');
  std::string out = pad + label + " " + bars + "  " + axis + " " + num(s.points.front().first) + ".." +
                    num(s.points.back().first) + (std::isfinite(lo) ? ", " + num(lo) + ".." + num(hi) : "") +
                    (log ? " (log scale)" : "") + "\n";
  if (marked) {
    while (!marks.empty() && marks.back() == ' ') marks.pop_back();
    out += pad + std::string(11, ' ') + marks + " onset at " + (s.axis == "index" ? "#" : s.axis + " ") + num(s.onset) + "\n";
  }
  return out;
}


// How to run the probes that would test a diagnosis' untested hypotheses: for Python, from Python
// and from the command line (bindings/python/README.md, bindings/probe/main.cc); for C++, with the
// probes library (probes/include/triage/probes.h). Empty when there are none.
std::string ProbeCommands(const Diagnosis& d, Audience audience) {
  std::vector<std::string> names;
  for (const Hypothesis& h : d.hypotheses) {
    if (h.probe.empty() || h.status != HypothesisStatus::kUntested) continue;
    if (std::find(names.begin(), names.end(), h.probe) == names.end()) names.push_back(h.probe);
  }
  if (names.empty()) return "";
  if (audience == Audience::kCxx) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
    return "     run the probes on your model (triage/probes.h, a ProbeContext ctx):\n"
           "       C++: for (const char* probe : {" + list + "}) triage::probes::RunProbe(probe, ctx);\n";
  }
  std::string py, cli;
  for (const std::string& n : names) {
    py += (py.empty() ? "" : ", ") + ("'" + n + "'");
    cli += " --probe " + n;
  }
  return "     run the probes on your model:\n"
         "       Python: triage.check(model, batch, targets, loss_fn, probes=[" + py + "])\n"
         "       shell:  triage-probe --model model.pt --inputs x.pt --targets y.pt" + cli + "\n";
}

// Columns a string takes on a terminal: UTF-8 code points, ANSI escape sequences take none.
size_t Columns(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {  // CSI ... final byte
      for (++i; i < s.size() && !(s[i] >= '@' && s[i] <= '~' && s[i] != '['); ++i) {}
      continue;
    }
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Where a line's text starts for its continuation lines: leading blanks plus a list or quote marker
// ("1. ", "- ", "| ", "test: ", "fix:  ", "cause: " ...), so wrapped text lines up under its first word.
size_t HangingIndent(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos) return 0;
  std::string_view rest = line.substr(i);
  size_t digits = rest.find_first_not_of("0123456789");
  if (digits > 0 && digits != std::string_view::npos && rest.substr(digits, 2) == ". ") return i + digits + 2;
  for (std::string_view marker : {"- ", "| "}) {
    if (rest.substr(0, marker.size()) == marker) return i + marker.size();
  }
  size_t colon = rest.find(": ");
  if (colon != std::string_view::npos && colon <= 8 && rest.substr(0, colon).find(' ') == std::string_view::npos) {
    size_t j = colon + 1;
    while (j < rest.size() && rest[j] == ' ') ++j;
    return i + j;
  }
  return i;
}

// Wraps one line (no '\n') at spaces to `width` columns; a word longer than a line is cut.
void WrapLine(std::string_view line, size_t width, std::string* out) {
  if (Columns(line) <= width) {
    out->append(line);
    out->push_back('\n');
    return;
  }
  size_t indent = std::min(HangingIndent(line), width / 2);
  std::string pad(indent, ' ');
  bool first = true;
  while (!line.empty()) {
    size_t room = first ? width : width - indent;
    // The longest prefix that fits, in bytes, ending at a code point boundary.
    size_t cols = 0, fit = 0, last_space = std::string_view::npos;
    for (size_t i = 0; i < line.size();) {
      size_t len = 1;
      unsigned char c = static_cast<unsigned char>(line[i]);
      if (c == 0x1b) {
        while (i + len < line.size() && !(line[i + len] >= '@' && line[i + len] <= '~' && line[i + len] != '[')) ++len;
        ++len;
      } else {
        while (i + len < line.size() && (static_cast<unsigned char>(line[i + len]) & 0xC0) == 0x80) ++len;
        if (cols == room) break;
        ++cols;
        if (c == ' ' && i > 0) last_space = i;
      }
      i = std::min(i + len, line.size());
      fit = i;
    }
    if (fit >= line.size()) {
      last_space = std::string_view::npos;
    } else if (last_space != std::string_view::npos && last_space > (first ? indent : 0)) {
      fit = last_space;
    }
    std::string_view piece = line.substr(0, fit);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (!first) *out += pad;
    out->append(piece);
    out->push_back('\n');
    line.remove_prefix(fit);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    first = false;
  }
}

}  // namespace

std::string Wrap(const std::string& text, int width) {
  if (width <= 0) return text;
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    WrapLine(std::string_view(text).substr(pos, nl - pos), static_cast<size_t>(std::max(width, 20)), &out);
    pos = nl + 1;
  }
  if (!text.empty() && text.back() != '\n') out.pop_back();
  return out;
}

namespace {



// --brief: what to do next, on one screen.
std::string BriefText(const Report& report, const Style& st) {
  const auto P = PrintableText;
  std::string src = SourceName(report);
  const Diagnosis& d = report.diagnoses.front();
  std::string out = st.Red(P(d.category)) + " (" + Percent(d.confidence) + ")  " + st.Bold(P(d.title)) + "\n";
  if (const Incident* inc = IncidentOf(report, d)) {
    out += "  at:    " + P(Where(*inc, src)) + "\n";
    if (inc->kind != Incident::Kind::kSignal) {
      out += "  error: " + P((inc->exception.empty() ? "" : inc->exception + ": ") + FirstLines(inc->message, 1)) + "\n";
    }
  }
  if (!d.hypotheses.empty()) {
    const Hypothesis& h = d.hypotheses.front();
    out += "  cause: " + P(h.text) + (h.status == HypothesisStatus::kUntested ? "" : " [" + std::string(HypothesisStatusName(h.status)) + "]") + "\n";
    if (!h.fix.empty()) out += Indent("fix:   " + P(FirstLines(h.fix, 2)), "  ") + "\n";
  }
  std::string confirm = !d.hypotheses.empty() && !d.hypotheses.front().test.empty() ? d.hypotheses.front().test
                        : !d.checks.empty() ? d.checks.front() : "";
  if (!confirm.empty()) out += Indent("check: " + P(FirstLines(confirm, 3)), "  ") + "\n";
  size_t more = report.diagnoses.size() - 1;
  out += st.Dim("  (" + (more ? std::to_string(more) + " more diagnos" + (more == 1 ? "is" : "es") + "; " : std::string()) +
                "the full report: without --brief)") + "\n";
  if (std::string rules = RuleSourcesNote(report); !rules.empty()) out += st.Dim("  note: " + P(rules)) + "\n";
  return out;
}

// "── triage: diagnosis of train.log (1234 lines) ─────" across `width` columns (at least 3 rule
// characters after the title).
std::string Heading(const Report& report, int width) {
  const std::string rule = "\u2500";
  std::string title = rule + rule + " triage: diagnosis of " +
                      PrintableText(SourceName(report)) + " (" +
                      std::to_string(report.lines) + " lines) ";
  std::string out = title;
  for (size_t used = Columns(title); used < std::max<size_t>(width, Columns(title) + 3); ++used) out += rule;
  return out + "\n";
}

}  // namespace

std::string ToText(const Report& report, const TextOptions& options) {
  Style st{options.color};
  std::string head = options.header ? Heading(report, options.width > 0 ? options.width : 80) : "";
  if (options.brief && !report.diagnoses.empty()) return head + Wrap(BriefText(report, st), options.width);
  std::string out;
  std::string src = PrintableText(SourceName(report));
  if (report.diagnoses.empty()) {
    out += "triage: no PyTorch failure recognised in " + src + " (" + std::to_string(report.lines) + " lines, " +
           std::to_string(report.incidents.size()) + " incident(s))\n";
    for (const Incident& inc : report.incidents) {
      if (inc.kind == Incident::Kind::kLogLine) continue;
      out += "  unrecognised: " + PrintableText((inc.exception.empty() ? std::string() : inc.exception + ": ") +
                                                FirstLines(inc.message, 1)) +
             (inc.line_start > 0 ? " (line " + std::to_string(inc.line_start) + ")" : std::string()) + "\n";
    }
  }
  for (size_t k = 0; k < report.diagnoses.size(); ++k) {
    const Diagnosis& d = report.diagnoses[k];
    const Incident* inc = IncidentOf(report, d);
    bool main = k == 0;
    if (k == 1) out += "\n" + st.Bold("Also possible:") + "\n";
    out += (main ? "" : "\n") + st.Red(PrintableText(d.category)) + "  " + st.Bold(PrintableText(d.title)) + "\n";
    out += st.Dim("  confidence " + Percent(d.confidence) + ", rule " + PrintableText(d.rule) +
                  (d.from_hypothesis.empty() ? "" : ", its cause " + PrintableText(d.from_hypothesis)) +
                  (d.occurrences > 1 ? ", seen " + std::to_string(d.occurrences) + " times" : "")) + "\n";
    if (!d.ranking.empty()) out += st.Dim(Indent(PrintableText(d.ranking), "  ")) + "\n";
    if (inc) {
      out += "  " + PrintableText(Where(*inc, src)) + "\n";
      // A signature's message is its evidence, listed below with the series.
      if (main && inc->kind != Incident::Kind::kSignal) out += Indent(PrintableText(FirstLines(inc->message, 3)), "  | ") + "\n";
    }
    out += "\n" + Indent(PrintableText(d.explanation), "  ") + "\n";
    if (!d.evidence.empty() && (main || options.verbose)) {
      out += "\n  " + st.Bold("Evidence from the metrics:") + "\n";
      for (const std::string& e : d.evidence) out += Indent("- " + PrintableText(e), "    ") + "\n";
    }
    for (size_t i = 0; i < d.series.size() && i < (main || options.verbose ? 4u : 1u); ++i) {
      out += (i == 0 ? "\n" : "") + PrintableText(Sparkline(d.series[i], "    "));
    }
    if (!main && !options.verbose) continue;
    if (!d.hypotheses.empty()) {
      out += "\n  " + st.Bold("Likely causes, most likely first:") + "\n";
      for (size_t i = 0; i < d.hypotheses.size(); ++i) {
        const Hypothesis& h = d.hypotheses[i];
        std::string status = h.status == HypothesisStatus::kUntested ? "" : " [" + std::string(HypothesisStatusName(h.status)) + "]";
        out += "  " + std::to_string(i + 1) + ". " + PrintableText(h.text) + status + "\n";
        out += Indent("test: " + PrintableText(h.test), "       ") + "\n";
        out += Indent("fix:  " + PrintableText(h.fix), "       ") + "\n";
        if (!h.evidence.empty()) out += Indent("evidence: " + PrintableText(h.evidence), "       ") + "\n";
      }
      out += ProbeCommands(d, report.audience);
    }
    if (!d.checks.empty()) {
      out += "\n  " + st.Bold("Checks you can run:") + "\n";
      for (const std::string& c : d.checks) out += Indent(PrintableText(c), "    ") + "\n";
    }
    if (!d.verify.empty()) out += "\n  " + st.Bold("Verify the fix: ") + PrintableText(d.verify) + "\n";
  }
  for (const Problem& p : report.warnings) out += st.Dim("note: " + PrintableText(p.ToString())) + "\n";
  if (std::string rules = RuleSourcesNote(report); !rules.empty()) out += st.Dim("note: " + PrintableText(rules)) + "\n";
  return head + Wrap(out, options.width);
}

}  // namespace triage
