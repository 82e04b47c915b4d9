// Signal rules: the `signal:` schema and the detectors (rules/README.md "Signal rules").
//
// Each detector states its evidence in numbers a person can find in the log, and each refuses the
// healthy shapes that resemble it: a warm-up bump is not a spike (a spike must also be large against
// the loss the run started from), a placeholder `nan` printed before the first real value is not an
// onset, a single skipped step under loss scaling recovers and is not a NaN loss, and ratio tests
// are skipped for series that go negative (a log-likelihood objective is negative by design).
#include "rules/signal_rules.h"

#include "rules/yaml_tree.h"
#include "triage/locale_free.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace triage {
namespace {

struct ParamDef {
  const char* name;
  double value;
};

struct DetectorDef {
  const char* name;
  std::vector<SeriesId> series;         // default series, primary first
  std::vector<ParamDef> params;         // every parameter with its default
  std::vector<const char*> captures;    // template names besides the common ones
};

// A parameter default that sets no bound (parameters are non-negative numbers).
constexpr double kNoLimit = 1e9;

const std::vector<DetectorDef>& Detectors() {
  static const std::vector<DetectorDef> kDefs = {
      {"nonfinite", {SeriesId::kLoss, SeriesId::kValLoss},
       {{"min_count", 3}, {"min_recoveries", 0}, {"max_recoveries", kNoLimit}, {"from_start", 0}},
       {"value", "finite_before", "last_finite", "preceded", "nonfinite", "recoveries"}},
      {"flat", {SeriesId::kLoss},
       {{"min_points", 10}, {"tolerance", 0.03}, {"max_spread", 1}, {"require_log_c", 0}, {"log_c_tolerance", 0.03},
        {"max_classes", 1000}, {"min_chunk_points", 1}},
       {"value", "classes", "log_c"}},
      {"softmax_floor", {SeriesId::kLoss},
       {{"min_points", 10}, {"plateau_tolerance", 0.06}, {"start_tolerance", 0.15}, {"max_classes", 1000},
        {"min_descent", 0.5}},
       {"value", "classes", "floor"}},
      {"spike", {SeriesId::kLoss}, {{"factor", 10}, {"window", 10}, {"skip", 5}, {"min_level", 0.5}},
       {"value", "before", "ratio"}},
      {"oscillation", {SeriesId::kLoss}, {{"min_points", 30}, {"spread", 3}, {"max_improvement", 0.3}, {"min_level", 0.25}},
       {"low", "high", "early", "late"}},
      {"growth", {SeriesId::kGradNorm}, {{"min_points", 5}, {"factor", 100}, {"window", 5}, {"stays", 0}},
       {"value", "start", "ratio"}},
      {"above", {SeriesId::kGradNorm}, {{"threshold", 1e6}, {"min_points", 1}}, {"value", "first", "threshold"}},
      {"negative", {SeriesId::kLoss}, {{"depth", 0}, {"min_points", 1}, {"min_share", 0}},
       {"value", "first", "negatives", "printed"}},
      {"val_rising", {SeriesId::kValLoss, SeriesId::kLoss},
       {{"min_evaluations", 5}, {"min_rising", 3}, {"rise", 0.1}, {"train_drop", 0.2}},
       {"best", "best_at", "value", "train_from", "train_to"}},
      {"val_falling", {SeriesId::kValAcc, SeriesId::kAcc},
       {{"min_evaluations", 5}, {"min_falling", 3}, {"drop", 0.05}, {"train_rise", 0.05}},
       {"best", "best_at", "value", "train_from", "train_to"}},
      {"acc_gap", {SeriesId::kValAcc, SeriesId::kAcc},
       {{"min_evaluations", 5}, {"min_train", 0.97}, {"min_gap", 0.25}, {"train_rise", 0.1}, {"plateau", 0.02}},
       {"train", "value", "best", "gap"}},
      {"linear_growth", {SeriesId::kGradNorm, SeriesId::kLoss},
       {{"min_points", 10}, {"min_r2", 0.9}, {"min_ratio", 5}, {"loss_worsening", 0.5}},
       {"start", "value", "r2", "loss_from", "loss_to"}},
      {"chance_level", {SeriesId::kLoss, SeriesId::kAcc, SeriesId::kValAcc},
       {{"min_points", 2}, {"log_c_tolerance", 0.005}, {"acc_tolerance", 0.01}, {"max_classes", 1000}, {"min_tail", 3},
        {"require_return", 0}, {"min_dip", 0.1}},
       {"value", "classes", "log_c", "accuracy", "low"}},
      {"one_class", {SeriesId::kF1, SeriesId::kValAcc, SeriesId::kAcc},
       {{"f1_tolerance", 0.0015}, {"min_classes", 2}, {"max_classes", 50}},
       {"value", "accuracy", "classes", "class_f1"}},
      {"memory_growth", {SeriesId::kMemory},
       {{"min_points", 10}, {"monotone", 0.9}, {"min_rise", 0.2}, {"late_share", 0.3}, {"end_rise", 0},
        {"creep_rise", 0}, {"creep_points", 10}, {"creep_r2", 0.95}},
       {"start", "value", "per_point", "creep"}},
      {"lr_zero", {SeriesId::kLr, SeriesId::kLoss},
       {{"min_zeros", 2}, {"zero_share", 0.5}, {"min_loss_points", 2}, {"max_improvement", 0.3}},
       {"zeros", "printed", "loss_from", "loss_to"}},
      {"epochs_per_print", {SeriesId::kLoss},
       {{"min_points", 3}, {"min_stride", 2}, {"min_epochs", 8}, {"max_final_share", 0.1}},
       {"stride", "epochs", "loss_from", "loss_to"}},
  };
  return kDefs;
}

const DetectorDef* FindDetector(const std::string& name) {
  for (const DetectorDef& d : Detectors()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

// Common template names every detector provides.
constexpr const char* kCommonCaptures[] = {"series", "evidence", "onset", "from", "to"};

std::string Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return FormatNumber(v, NumberStyle::kGeneral, 6);
}

// The x a point is labelled with (Note: [Metric axes]).
std::string AxisOf(const std::vector<MetricPoint>& pts) {
  bool steps = !pts.empty(), epochs = !pts.empty();
  for (const MetricPoint& p : pts) {
    steps = steps && !std::isnan(p.step);
    epochs = epochs && !std::isnan(p.epoch);
  }
  return steps ? "step" : epochs ? "epoch" : "index";
}

double XOf(const MetricPoint& p, const std::string& axis) {
  if (axis == "step") return p.step;
  if (axis == "epoch") return p.epoch;
  return static_cast<double>(p.seq + 1);
}

std::string Where(const MetricPoint& p, const std::string& axis) {
  return (axis == "index" ? std::string("#") : axis + " ") + Num(XOf(p, axis));
}

std::string Span(const MetricPoint& a, const MetricPoint& b, const std::string& axis) {
  std::string unit = axis == "index" ? "points #" : axis + "s ";
  return unit + Num(XOf(a, axis)) + ".." + Num(XOf(b, axis));
}

std::vector<double> Values(const std::vector<MetricPoint>& pts, size_t from, size_t to) {
  std::vector<double> v;
  for (size_t i = from; i < to && i < pts.size(); ++i) v.push_back(pts[i].value);
  return v;
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    double lower = *std::max_element(v.begin(), v.begin() + mid);
    m = (m + lower) / 2;
  }
  return m;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::vector<MetricPoint> FiniteOnly(const std::vector<MetricPoint>& pts) {
  std::vector<MetricPoint> out;
  for (const MetricPoint& p : pts) {
    if (p.finite()) out.push_back(p);
  }
  return out;
}

// Finds the class count C (2..max) whose ln C is closest to v, within a relative tolerance.
int LogClasses(double v, double tolerance, int max_classes) {
  if (!(v > 0.5)) return 0;
  double c = std::round(std::exp(v));
  int best = 0;
  double best_err = 1e9;
  for (double k = std::max(2.0, c - 1); k <= std::min<double>(max_classes, c + 1); ++k) {
    double err = std::fabs(v - std::log(k)) / std::log(k);
    if (err < best_err) {
      best_err = err;
      best = static_cast<int>(k);
    }
  }
  return best_err <= tolerance ? best : 0;
}

// CrossEntropyLoss fed probabilities instead of logits bottoms out at ln(1 + (C-1)/e): the loss of
// a one-hot probability vector passed through log_softmax again.
double SoftmaxFloor(int classes) { return std::log(1.0 + (classes - 1) / std::exp(1.0)); }

struct Ctx {
  const SignalSpec& spec;
  const MetricCollector& metrics;
  SignalHit* hit;
  double P(const char* name) const {
    auto it = spec.params.find(name);
    return it == spec.params.end() ? 0 : it->second;
  }
  const MetricSeries* Series(size_t i) const {
    return i < spec.series.size() ? metrics.Find(spec.series[i]) : nullptr;
  }
  SeriesId Id(size_t i) const { return i < spec.series.size() ? spec.series[i] : SeriesId::kCount; }
};

void Finish(Ctx& c, SeriesId id, const std::vector<MetricPoint>& pts, const MetricPoint& first,
            const MetricPoint& last, const MetricPoint* onset, const std::string& evidence) {
  SignalHit& h = *c.hit;
  std::string axis = AxisOf(pts);
  h.series = ToSeriesEvidence(id, pts);
  if (onset) {
    h.series.has_onset = true;
    h.series.onset = XOf(*onset, h.series.axis);
    h.captures["onset"] = Where(*onset, axis);
  } else {
    h.captures["onset"] = Where(first, axis);
  }
  h.captures["series"] = SeriesName(id);
  h.captures["from"] = Where(first, axis);
  h.captures["to"] = Where(last, axis);
  h.evidence = evidence;
  h.captures["evidence"] = evidence;
  h.line_start = std::min(first.line, last.line);
  h.line_end = std::max(first.line, last.line);
  if (onset) h.line_start = std::min<std::uint64_t>(h.line_start, onset->line);
}

// Note: [Healthy band]
// A detector that fires when a series crosses one of its thresholds also knows where a healthy series
// stays: below that threshold. It records that region on the series it reports (SeriesEvidence's band)
// so the HTML report can shade it behind the points, with a label naming the threshold and the rule
// parameter behind it:
//   flat           below the plateau less `tolerance` (or, at ln C, below ln C less `log_c_tolerance`):
//                  a learning loss leaves the level it started at;
//   softmax_floor  below the floor ln(1 + (C-1)/e), which probabilities fed to cross-entropy cannot pass;
//   spike          below `factor` times the median of the values before the jump;
//   growth         below `factor` times the starting gradient norm;
//   above          below `threshold`;
//   val_rising     below the best evaluation plus `rise`;
//   linear_growth  below `min_ratio` times the start;
//   chance_level   below ln C less `log_c_tolerance`: a learning loss goes under uniform guessing;
//   memory_growth  below the start plus `min_rise`.
// The band is open below (-inf). negative (a healthy loss of its kind stays above 0), val_falling and acc_gap (a healthy accuracy stays above a level), nonfinite (a healthy series is finite: the NaN step is the onset
// line), oscillation (a spread, not a level), one_class (an identity, not a level) and lr_zero (a
// healthy lr is any value above 0, which a band open below cannot show) set none. Only
// the HTML report draws it: the text, JSON and Markdown reports do not change with it.
void SetBand(Ctx& c, double high, const std::string& label) {
  if (!std::isfinite(high)) return;
  SeriesEvidence& s = c.hit->series;
  s.has_band = true;
  s.band_low = -std::numeric_limits<double>::infinity();
  s.band_high = high;
  s.band_label = "healthy: below " + Num(high) + " (" + label + ")";
}

// A parameter as a percentage ("3%") for a band's label.
std::string Percent(double fraction) { return Num(100 * fraction) + "%"; }

// What the other series did before a non-finite onset at `line` (NaN onset evidence).
std::string Preceded(Ctx& c, SeriesId onset_series, std::uint64_t line) {
  std::vector<std::string> notes;
  auto before = [&](SeriesId id) {
    std::vector<MetricPoint> out;
    if (const MetricSeries* s = c.metrics.Find(id)) {
      for (const MetricPoint& p : s->Points()) {
        if (p.line <= line) out.push_back(p);
      }
    }
    return out;
  };
  std::vector<MetricPoint> g = before(SeriesId::kGradNorm);
  std::vector<MetricPoint> gf = FiniteOnly(g);
  if (gf.size() >= 3) {
    double start = Median(Values(gf, 0, std::min<size_t>(5, gf.size())));
    auto peak = std::max_element(gf.begin(), gf.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
    if (start > 0 && peak->value / start >= 10) {
      notes.push_back("grad_norm grew from " + Num(start) + " to " + Num(peak->value) + " (x" + Num(peak->value / start) +
                      ") by " + Where(*peak, AxisOf(g)));
      c.hit->supporting.push_back(ToSeriesEvidence(SeriesId::kGradNorm, c.metrics.Find(SeriesId::kGradNorm)->Points()));
    }
  }
  for (const MetricPoint& p : g) {
    if (!p.finite() && onset_series != SeriesId::kGradNorm) {
      notes.push_back("grad_norm was already " + Num(p.value) + " at " + Where(p, AxisOf(g)));
      break;
    }
  }
  std::vector<MetricPoint> own = FiniteOnly(before(onset_series));
  if (own.size() >= 3) {
    auto low = std::min_element(own.begin(), own.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
    double last = own.back().value;
    if (low->value > 0 && last / low->value >= 10) {
      notes.push_back(std::string(SeriesName(onset_series)) + " rose from " + Num(low->value) + " to " + Num(last) +
                      " first");
    }
  }
  std::vector<MetricPoint> lr = FiniteOnly(before(SeriesId::kLr));
  if (lr.size() >= 3 && lr.front().value >= 0 && lr.back().value > 1.5 * lr.front().value) {
    auto top = std::max_element(lr.begin(), lr.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
    std::string axis = AxisOf(lr);
    if (top == lr.end() - 1) {
      notes.push_back("lr was still warming up (" + Num(lr.back().value) + " at " + Where(lr.back(), axis) + ")");
    } else {
      notes.push_back("lr warm-up ended at " + Where(*top, axis) + " (lr " + Num(top->value) + ")");
    }
  }
  std::vector<MetricPoint> scale = FiniteOnly(before(SeriesId::kLossScale));
  if (scale.size() >= 2) {
    double first = scale.front().value, low = first;
    for (const MetricPoint& p : scale) low = std::min(low, p.value);
    if (low <= 1 || (first > 0 && first / std::max(low, 1e-300) >= 8)) {
      notes.push_back("loss scale fell from " + Num(first) + " to " + Num(low) +
                      " (fp16 gradients overflowing step after step)");
    }
  }
  if (notes.empty()) return "nothing unusual in the printed metrics before it";
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

bool DetectNonFinite(Ctx& c) {
  const MetricPoint* best = nullptr;
  const MetricSeries* best_s = nullptr;
  SeriesId best_id = SeriesId::kCount;
  for (size_t i = 0; i < c.spec.series.size(); ++i) {
    const MetricSeries* s = c.Series(i);
    if (!s) continue;
    // Note: [Non-finite from the start]. A non-finite value before the first finite one is read as a
    // placeholder (a metric printed before it has a value). With from_start, a series that has printed
    // nothing but non-finite values, at least min_count of them, has its onset at its first value: a
    // gradient norm that is nan on every step from the first log line (the rule then says, in its
    // Lua, what else must show it is a failure and not a loss scaler's first skipped steps).
    const MetricPoint* onset = s->first_nonfinite();
    if (!onset && c.P("from_start") > 0 && s->never_finite() && s->nonfinite_count() >= c.P("min_count")) {
      onset = s->first();
    }
    if (!onset) continue;
    // A transient non-finite value that recovers (one skipped step under loss scaling) is healthy.
    if (s->last().finite() && s->nonfinite_count() < c.P("min_count")) continue;
    // How often the series came back to finite values tells a NaN that stayed (diverged weights) from
    // overflowing steps a loss scaler skipped; a rule asks for one or the other.
    double recoveries = static_cast<double>(s->recoveries());
    if (recoveries < c.P("min_recoveries") || recoveries > c.P("max_recoveries")) continue;
    if (!best || onset->line < best->line) {
      best = onset;
      best_s = s;
      best_id = c.Id(i);
    }
  }
  if (!best) return false;
  std::vector<MetricPoint> pts = best_s->Points();
  std::string axis = AxisOf(pts);
  const MetricPoint* last_finite = nullptr;
  std::int64_t finite_before = 0;
  for (const MetricPoint& p : pts) {
    if (p.seq >= best->seq) break;
    if (p.finite()) last_finite = &p;
  }
  finite_before = best->seq;  // every point before the onset that followed a finite one is finite or a placeholder
  std::string preceded = Preceded(c, best_id, best->line);
  std::string evidence = std::string(SeriesName(best_id)) + " = " + Num(best->value) + " at " + Where(*best, axis) +
                         " (line " + std::to_string(best->line) + "), after " + std::to_string(finite_before) +
                         " printed values" + (last_finite ? "; last finite value " + Num(last_finite->value) : "") +
                         "; " + std::to_string(best_s->nonfinite_count()) + " non-finite of " +
                         std::to_string(best_s->count()) +
                         (best_s->recoveries() > 0 ? ", back to finite values " + std::to_string(best_s->recoveries()) + " times" : "") +
                         "; before it: " + preceded;
  c.hit->captures["value"] = Num(best->value);
  c.hit->captures["finite_before"] = std::to_string(finite_before);
  c.hit->captures["last_finite"] = last_finite ? Num(last_finite->value) : "none";
  c.hit->captures["preceded"] = preceded;
  c.hit->captures["nonfinite"] = std::to_string(best_s->nonfinite_count());
  c.hit->captures["recoveries"] = std::to_string(best_s->recoveries());
  Finish(c, best_id, pts, pts.front(), pts.back(), best, evidence);
  return true;
}

// Splits finite points into k chunks and returns their medians.
std::vector<double> ChunkMedians(const std::vector<MetricPoint>& f, int k) {
  std::vector<double> out;
  for (int i = 0; i < k; ++i) {
    size_t a = f.size() * i / k, b = f.size() * (i + 1) / k;
    out.push_back(Median(Values(f, a, b)));
  }
  return out;
}

bool DetectFlat(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < c.P("min_points") || f.size() != pts.size()) return false;
  double all = Median(Values(f, 0, f.size()));
  if (!(all > 0)) return false;
  double tol = c.P("tolerance");
  // The run is cut into fifths, or into fewer parts when a fifth would hold under `min_chunk_points`
  // values: the median of two values of a noisy loss (one example per print) is no level.
  const double min_chunk = c.P("min_chunk_points");
  const int parts =
      min_chunk <= 1 ? 5 : static_cast<int>(std::clamp(std::floor(static_cast<double>(f.size()) / min_chunk), 2.0, 5.0));
  std::vector<double> chunks = ChunkMedians(f, parts);
  for (double m : chunks) {
    if (std::fabs(m - all) > tol * all) return false;
  }
  double lo = Quantile(Values(f, 0, f.size()), 0.1), hi = Quantile(Values(f, 0, f.size()), 0.9);
  if (hi - lo > c.P("max_spread") * all) return false;
  int classes = LogClasses(all, c.P("log_c_tolerance"), static_cast<int>(c.P("max_classes")));
  if (c.P("require_log_c") > 0 && classes == 0) return false;
  // The evidence names the fifths whatever the parts tested were, so two rules on this detector that
  // read one series word it alike (Note: [Signal folding] counts the same evidence once).
  const std::vector<double> fifths = parts == 5 ? chunks : ChunkMedians(f, 5);
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " = " + Num(all) + " (10-90%: " + Num(lo) + ".." + Num(hi) +
                         ") at " + Span(f.front(), f.back(), axis) + " over " + std::to_string(s->count()) +
                         " values; first fifth " + Num(fifths.front()) + ", last fifth " + Num(fifths.back());
  if (classes) {
    evidence += "; = ln " + std::to_string(classes) + " = " + Num(std::log(classes)) +
                ", the loss of uniform guessing over " + std::to_string(classes) + " classes";
  }
  c.hit->captures["value"] = Num(all);
  c.hit->captures["classes"] = classes ? std::to_string(classes) : "?";
  c.hit->captures["log_c"] = classes ? "ln " + std::to_string(classes) + " = " + Num(std::log(classes)) : "no ln C";
  Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
  if (classes) {
    SetBand(c, std::log(classes) * (1 - c.P("log_c_tolerance")),
            "ln " + std::to_string(classes) + " less the " + Percent(c.P("log_c_tolerance")) + " log_c_tolerance");
  } else {
    SetBand(c, all * (1 - tol), "the plateau " + Num(all) + " less the " + Percent(tol) + " tolerance");
  }
  return true;
}

// Note: [Chance level]
// A classifier whose outputs are the same for every input scores the loss of uniform guessing, ln C,
// and the accuracy of a guess, 1/C (with balanced classes). Either alone is weak in a short log: a
// loss passes ln C on its way down, an accuracy near 1/C may be a hard task. Both at once, for one C,
// at the end of the run, with the loss never under ln C, are the model predicting nothing; this holds
// even for two printed points (a notebook's first and last epoch). The accuracy may be printed as a
// fraction or as a percentage: both readings are tried. A loss that went under ln C and came back to it
// counts too when its last `min_tail` values all lie within `log_c_tolerance` of ln C: a run that learned a
// little and then fell into uniform guessing (a learning rate too high for the network drives every output
// to one constant) stays there to the printed digits, where a loss on its way down passes ln C once.
// rowanz/r2c#43 printed this: 1.356 after the first epoch, then 1.3864 (ln 4) with an accuracy of 0.249.
// With `require_return` the loss alone is read, and only that return: it went at least `min_dip` under
// ln C (it learned, which no constant output does) and its last `min_tail` values lie within
// `log_c_tolerance` of ln C. No accuracy is needed then: a loss that had learned does not come back to
// the uniform guess's value to the printed digits and stay there unless every output became the same.
bool DetectChanceLevel(Ctx& c) {
  const MetricSeries* loss = c.Series(0);
  if (!loss || loss->has_negative() || loss->count() < c.P("min_points")) return false;
  std::vector<MetricPoint> pts = loss->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() != pts.size() || f.empty()) return false;
  const double tol = c.P("log_c_tolerance");
  const double last = f.back().value;
  const int classes = LogClasses(last, tol, static_cast<int>(c.P("max_classes")));
  if (!classes) return false;
  const double log_c = std::log(classes);
  bool went_under = false;
  for (const MetricPoint& p : f) went_under = went_under || p.value < log_c * (1 - tol);
  // A loss that went under the guess learned something: only a return to it that stayed counts.
  size_t tail = 0;
  while (tail < f.size() && std::fabs(f[f.size() - 1 - tail].value - log_c) <= tol * log_c) ++tail;
  const double min_tail = std::max(2.0, c.P("min_tail"));
  if (went_under && static_cast<double>(tail) < min_tail) return false;
  const std::string axis = AxisOf(pts);
  // What both readings report: the loss's captures, its evidence and the band under ln C.
  auto report = [&](const std::string& evidence) {
    c.hit->captures["value"] = Num(last);
    c.hit->captures["classes"] = std::to_string(classes);
    c.hit->captures["log_c"] = "ln " + std::to_string(classes) + " = " + Num(log_c);
    Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
    SetBand(c, log_c * (1 - tol), "ln " + std::to_string(classes) + " less the " + Percent(tol) + " log_c_tolerance");
  };
  if (c.P("require_return") > 0) {
    const MetricPoint* low = &f.front();
    for (const MetricPoint& p : f) {
      if (p.value < low->value) low = &p;
    }
    if (!went_under || low->value > log_c * (1 - c.P("min_dip"))) return false;
    std::string evidence = std::string(SeriesName(c.Id(0))) + " went down to " + Num(low->value) + " (" +
                           Where(*low, axis) + ", line " + std::to_string(low->line) + "), then came back to ln " +
                           std::to_string(classes) + " = " + Num(log_c) + " and stayed there for its last " +
                           std::to_string(tail) + " of " + std::to_string(loss->count()) + " values, ending at " +
                           Num(last) + " (line " + std::to_string(f.back().line) +
                           "): the loss of uniform guessing over " + std::to_string(classes) + " classes";
    c.hit->captures["low"] = Num(low->value);
    report(evidence);
    return true;
  }
  const double chance = 1.0 / classes;
  for (size_t i = 1; i < c.spec.series.size(); ++i) {
    const MetricSeries* acc = c.Series(i);
    if (!acc || !acc->last().finite()) continue;
    const double a = acc->last().value;
    const bool fraction = std::fabs(a - chance) <= c.P("acc_tolerance");
    const bool percent = std::fabs(a / 100 - chance) <= c.P("acc_tolerance");
    if (!fraction && !percent) continue;
    std::vector<MetricPoint> acc_pts = acc->Points();
    std::string evidence = std::string(SeriesName(c.Id(0))) + " ends at " + Num(last) + " (" +
                           Where(f.back(), axis) + ", line " + std::to_string(f.back().line) + ") = ln " +
                           std::to_string(classes) + " = " + Num(log_c) +
                           (went_under ? ", back at it for the last " + std::to_string(tail) + " of " +
                                             std::to_string(loss->count()) + " values after going under it"
                                       : ", never below it over " + std::to_string(loss->count()) + " values") +
                           ", and " + SeriesName(c.Id(i)) + " ends at " +
                           Num(a) + (percent && !fraction ? "%" : "") + " (line " + std::to_string(acc->last().line) +
                           ") = 1/" + std::to_string(classes) +
                           ": the scores of uniform guessing over " + std::to_string(classes) + " classes";
    c.hit->captures["accuracy"] = Num(a) + (percent && !fraction ? "%" : "");
    report(evidence);
    c.hit->supporting.push_back(ToSeriesEvidence(c.Id(i), acc_pts));
    c.hit->line_start = std::min(c.hit->line_start, acc->last().line);
    c.hit->line_end = std::max(c.hit->line_end, acc->last().line);
    return true;
  }
  return false;
}

// Note: [One class]
// A classifier that predicts one class k for every input scores an accuracy equal to k's share p of
// the evaluated examples, and F1 = 2p / (1 + p) on class k (precision p, recall 1) and 0 on every
// other class, so a macro F1 of exactly 2p / (1 + p) / C over C classes. An F1 and an accuracy printed
// for one evaluation that satisfy this for an integer C >= `min_classes`, to the printed precision
// (`f1_tolerance`), are that collapse whatever the loss says: a model that tells classes apart has a
// macro F1 near its accuracy, not a C-th of 2p / (1 + p). One evaluation is enough; C = 1 (a binary
// F1 of the predicted class) is left out, since a healthy model on a skewed set can land there.
bool DetectOneClass(Ctx& c) {
  const MetricSeries* f1 = c.Series(0);
  if (!f1 || !f1->last().finite()) return false;
  const MetricPoint at = f1->last();
  for (size_t i = 1; i < c.spec.series.size(); ++i) {
    const MetricSeries* acc = c.Series(i);
    if (!acc) continue;
    // The accuracy of the same evaluation: printed on the F1's line.
    std::vector<MetricPoint> acc_pts = acc->Points();
    auto same = std::find_if(acc_pts.rbegin(), acc_pts.rend(), [&](const MetricPoint& p) { return p.line == at.line; });
    if (same == acc_pts.rend() || !same->finite()) continue;
    // Fractions or percentages, as long as both are printed alike.
    const double scale = same->value > 1 || at.value > 1 ? 100 : 1;
    const double a = same->value / scale, f = at.value / scale;
    if (!(a > 0 && a < 1) || !(f > 0)) continue;
    const double class_f1 = 2 * a / (1 + a);
    const int classes = static_cast<int>(std::lround(class_f1 / f));
    if (classes < std::max(2.0, c.P("min_classes")) || classes > c.P("max_classes")) continue;
    if (std::fabs(class_f1 / classes - f) * scale > c.P("f1_tolerance") * scale) continue;
    if (a < 1.0 / classes) continue;  // the predicted class would be rarer than an average one
    std::vector<MetricPoint> f1_pts = f1->Points();
    std::string axis = AxisOf(f1_pts);
    std::string evidence = std::string(SeriesName(c.Id(0))) + " = " + Num(at.value) + " and " + SeriesName(c.Id(i)) +
                           " = " + Num(same->value) + " at line " + std::to_string(at.line) + ": 2 x " + Num(a) +
                           " / (1 + " + Num(a) + ") / " + std::to_string(classes) + " = " + Num(class_f1 / classes) +
                           ", the macro F1 of predicting one class (" + Num(100 * a) + "% of the examples) for all of " +
                           std::to_string(classes) + " classes";
    c.hit->captures["value"] = Num(at.value);
    c.hit->captures["accuracy"] = Num(same->value);
    c.hit->captures["classes"] = std::to_string(classes);
    c.hit->captures["class_f1"] = Num(class_f1 * scale);
    Finish(c, c.Id(0), f1_pts, f1_pts.front(), f1_pts.back(), nullptr, evidence);
    c.hit->supporting.push_back(ToSeriesEvidence(c.Id(i), acc_pts));
    return true;
  }
  return false;
}

// Note: [Descent to the floor]
// Probabilities fed to cross-entropy start where logits do, at ln C, and the loss then falls towards
// the floor ln(1 + (C-1)/e), about one nat lower for a large C (0.38 for C = 2, 0.89 for C = 10). A loss
// that never moved satisfies "starts near ln C, levels off above the floor" for some C too: with the
// 15% start tolerance, a level of 4.3 to 6.3 is within reach of a larger C's ln C and just above its
// floor (CIFAR-100's ln 100 = 4.605 is 6% above the floor of C = 207, whose ln C is 5.33). Such a loss
// is a model that does not learn (the flat detector's reading), not one that learned as far as
// probabilities let it. So the loss must have come down `min_descent` of the way from ln C to the
// floor between its start and its last fifth.
bool DetectSoftmaxFloor(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < c.P("min_points") || f.size() != pts.size()) return false;
  std::vector<double> chunks = ChunkMedians(f, 5);
  double late = chunks.back();
  double low = std::numeric_limits<double>::infinity();
  for (const MetricPoint& p : f) low = std::min(low, p.value);
  double start = 0;
  for (size_t i = 0; i < std::min<size_t>(3, f.size()); ++i) start = std::max(start, f[i].value);
  // The last two fifths must be level: a plateau, not a run still descending through the floor.
  if (std::fabs(chunks[4] - chunks[3]) > c.P("plateau_tolerance") * chunks[4]) return false;
  int max_classes = static_cast<int>(c.P("max_classes"));
  for (int k = 2; k <= max_classes; ++k) {
    double floor = SoftmaxFloor(k);
    if (floor > late) break;
    if (late > floor * (1 + c.P("plateau_tolerance"))) continue;
    if (low < floor - 0.005) continue;  // a loss under the floor rules probabilities out
    if (std::fabs(start - std::log(k)) > c.P("start_tolerance") * std::log(k)) continue;
    if (start - late < c.P("min_descent") * (std::log(k) - floor)) continue;  // Note: [Descent to the floor]
    std::string axis = AxisOf(pts);
    std::string evidence = std::string(SeriesName(c.Id(0))) + " started at " + Num(start) + " (ln " + std::to_string(k) +
                           " = " + Num(std::log(k)) + ") and levels off at " + Num(late) + " over the last fifth (" +
                           Span(f[f.size() * 4 / 5], f.back(), axis) + "), never below " + Num(low) +
                           "; ln(1 + " + std::to_string(k - 1) + "/e) = " + Num(floor) +
                           " is the lowest cross-entropy reachable when the model's outputs are already probabilities";
    c.hit->captures["value"] = Num(late);
    c.hit->captures["classes"] = std::to_string(k);
    c.hit->captures["floor"] = Num(floor);
    Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
    SetBand(c, floor, "the floor ln(1 + " + std::to_string(k - 1) + "/e) of probabilities fed to cross-entropy");
    return true;
  }
  return false;
}

bool DetectSpike(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  size_t window = static_cast<size_t>(std::max(1.0, c.P("window")));
  size_t skip = static_cast<size_t>(std::max(0.0, c.P("skip")));
  if (f.size() < std::max(skip, window) + 1) return false;
  double early = Median(Values(f, 0, window));
  for (size_t i = std::max(skip, window); i < f.size(); ++i) {
    double base = Median(Values(f, i - window, i));
    if (!(base > 0)) continue;
    double ratio = f[i].value / base;
    if (ratio < c.P("factor") || f[i].value < c.P("min_level") * early) continue;
    std::string axis = AxisOf(pts);
    std::string evidence = std::string(SeriesName(c.Id(0))) + " jumped to " + Num(f[i].value) + " at " + Where(f[i], axis) +
                           " (line " + std::to_string(f[i].line) + "), x" + Num(ratio) + " the median " + Num(base) +
                           " of the " + std::to_string(window) + " values before it";
    c.hit->captures["value"] = Num(f[i].value);
    c.hit->captures["before"] = Num(base);
    c.hit->captures["ratio"] = Num(ratio);
    Finish(c, c.Id(0), pts, f.front(), f.back(), &f[i], evidence);
    SetBand(c, base * c.P("factor"), "factor " + Num(c.P("factor")) + " times the median " + Num(base) + " before the jump");
    return true;
  }
  return false;
}

bool DetectOscillation(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < c.P("min_points")) return false;
  // The first tenth is skipped: the initial descent is not the regime being judged.
  size_t a = f.size() / 10, q = f.size() / 4 + a, h = f.size() / 2;
  double early = Median(Values(f, a, q));
  std::vector<double> second = Values(f, h, f.size());
  double late = Median(second);
  double p10 = Quantile(second, 0.1), p90 = Quantile(second, 0.9);
  if (!(p10 > 0) || p90 / p10 < c.P("spread")) return false;
  if (late < early * (1 - c.P("max_improvement"))) return false;
  // The swings must reach a fair share of where the run started: a converged run jittering around a
  // small loss (0.02..0.08 after starting at 2.3) is noise, not instability.
  double start = 0;
  for (size_t i = 0; i < std::min<size_t>(3, f.size()); ++i) start = std::max(start, f[i].value);
  if (p90 < c.P("min_level") * start) return false;
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " swings between " + Num(p10) + " and " + Num(p90) +
                         " (10th-90th percentile, x" + Num(p90 / p10) + ") over " + Span(f[h], f.back(), axis) +
                         " without improving: median " + Num(early) + " early, " + Num(late) + " in the second half";
  c.hit->captures["low"] = Num(p10);
  c.hit->captures["high"] = Num(p90);
  c.hit->captures["early"] = Num(early);
  c.hit->captures["late"] = Num(late);
  Finish(c, c.Id(0), pts, f[h], f.back(), &f[h], evidence);
  return true;
}

bool DetectGrowth(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  size_t window = static_cast<size_t>(std::max(1.0, c.P("window")));
  if (f.size() < c.P("min_points") || f.size() < window + 1) return false;
  double start = Median(Values(f, 0, window));
  if (!(start > 0)) return false;
  auto peak = std::max_element(f.begin() + window, f.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  double ratio = peak->value / start;
  if (ratio < c.P("factor")) return false;
  // With `stays`, the growth must last: from the first value `factor` times the start on, no finite
  // value falls back under ten times the start (a spike a bad batch makes and the run recovers from
  // is another signature, loss-spike's).
  if (c.P("stays") > 0) {
    const double high = start * c.P("factor");
    auto first_high = std::find_if(f.begin() + window, f.end(), [&](const MetricPoint& p) { return p.value >= high; });
    if (std::any_of(first_high, f.end(), [&](const MetricPoint& p) { return p.value < 10 * start; })) return false;
  }
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " grew from " + Num(start) + " (median of the first " +
                         std::to_string(window) + ") to " + Num(peak->value) + " at " + Where(*peak, axis) + " (line " +
                         std::to_string(peak->line) + "), x" + Num(ratio);
  if (s->first_nonfinite()) evidence += ", then " + Num(s->first_nonfinite()->value) + " at " + Where(*s->first_nonfinite(), axis);
  c.hit->captures["value"] = Num(peak->value);
  c.hit->captures["start"] = Num(start);
  c.hit->captures["ratio"] = Num(ratio);
  // The onset: the first point ten times above the start.
  const MetricPoint* onset = &*peak;
  for (const MetricPoint& p : f) {
    if (p.value >= 10 * start) {
      onset = &p;
      break;
    }
  }
  Finish(c, c.Id(0), pts, f.front(), *peak, onset, evidence);
  SetBand(c, start * c.P("factor"), "factor " + Num(c.P("factor")) + " times the start " + Num(start));
  return true;
}

// A value at or above `threshold`: a level no healthy run prints, such as a total gradient norm in the
// millions. One line is enough, wherever it is: a series keeps its maximum (Note: [Metric memory]).
// What a message pattern could say only per format and per digit count ("seven or more digits before
// the point"), this says once for every format the extractor reads.
bool DetectAbove(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  const double threshold = c.P("threshold");
  if (f.empty() || f.size() < c.P("min_points")) return false;
  auto peak = std::max_element(f.begin(), f.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  if (!(peak->value >= threshold)) return false;
  const MetricPoint* first = &*peak;  // the first kept point at or above the threshold
  for (const MetricPoint& p : f) {
    if (p.value >= threshold) {
      first = &p;
      break;
    }
  }
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " = " + Num(peak->value) + " at " + Where(*peak, axis) +
                         " (line " + std::to_string(peak->line) + "), at least " + Num(threshold);
  if (first != &*peak) evidence += "; first " + Num(first->value) + " at " + Where(*first, axis) + " (line " + std::to_string(first->line) + ")";
  c.hit->captures["value"] = Num(peak->value);
  c.hit->captures["first"] = Where(*first, axis);
  c.hit->captures["threshold"] = Num(threshold);
  Finish(c, c.Id(0), pts, *first, *peak, first, evidence);
  SetBand(c, threshold, "threshold " + Num(threshold));
  return true;
}

// Note: [Negative losses]. A value under zero (at most -`depth`, and under 0 when `depth` is 0), printed
// by at least `min_points` points that are at least `min_share` of the finite ones: a level that a
// cross-entropy, a Dice or IoU loss, an MSE or any distance cannot reach whatever the model does, since each
// term is a probability's negative log or a squared or absolute difference. A negative value of such a
// loss is computed on inputs outside the range the loss is defined on (binary cross-entropy and a
// Dice loss on masks read as 0/255 instead of 0/1, a target that is not a probability). A loss that is a
// log-likelihood of continuous values (Gaussian NLL, a normalising flow, an ELBO), a critic's score
// (WGAN) or a policy-gradient objective is negative by design: the rule reading this signature keeps it
// only where its score says the loss is not such an objective. No healthy band is drawn: a healthy
// loss of the first kind stays above 0, which a band open below (Note: [Healthy band]) cannot show.
bool DetectNegative(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.empty()) return false;
  const double depth = c.P("depth");
  auto below = [&](double v) { return depth > 0 ? v <= -depth : v < 0; };
  const MetricPoint* first = nullptr;
  size_t negatives = 0;
  for (const MetricPoint& p : f) {
    if (!below(p.value)) continue;
    if (!first) first = &p;
    ++negatives;
  }
  if (!first || negatives < c.P("min_points") || negatives < c.P("min_share") * f.size()) return false;
  auto low = std::min_element(f.begin(), f.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " = " + Num(low->value) + " at " + Where(*low, axis) +
                         " (line " + std::to_string(low->line) + "), " + std::to_string(negatives) + " of " +
                         std::to_string(f.size()) + " printed values under 0";
  if (first != &*low) evidence += "; first " + Num(first->value) + " at " + Where(*first, axis) + " (line " + std::to_string(first->line) + ")";
  c.hit->captures["value"] = Num(low->value);
  c.hit->captures["first"] = Where(*first, axis);
  c.hit->captures["negatives"] = std::to_string(negatives);
  c.hit->captures["printed"] = std::to_string(f.size());
  Finish(c, c.Id(0), pts, *first, *low, first, evidence);
  return true;
}

// The training series around a validation series' best evaluation (val_rising, val_falling): *from is the
// median of the (up to) five values printed up to the best's line, *to that of the last (up to) five
// printed after it; in a short log the last five overall would reach back before the best and average the
// change away ({'loss': ...} lines of four epochs, each followed by its {'eval_loss': ...}). With none after
// it, the last value. False when either side is empty.
bool TrainAround(const MetricSeries& train, std::uint64_t best_line, double* from, double* to) {
  std::vector<MetricPoint> t = FiniteOnly(train.Points());
  std::vector<double> at_best, at_end;
  for (const MetricPoint& p : t) {
    if (p.line <= best_line) at_best.push_back(p.value);
  }
  if (at_best.size() > 5) at_best.erase(at_best.begin(), at_best.end() - 5);
  for (size_t i = t.size() >= 5 ? t.size() - 5 : 0; i < t.size(); ++i) {
    if (t[i].line > best_line) at_end.push_back(t[i].value);
  }
  if (at_end.empty() && !t.empty()) at_end.push_back(t.back().value);
  if (at_best.empty() || at_end.empty()) return false;
  *from = Median(at_best);
  *to = Median(at_end);
  return true;
}

// The hit of val_rising or val_falling: the evidence line ("val_loss rose from its best ... while loss
// fell from ..."), the captures both share, the training series as support.
void FinishValTrend(Ctx& c, const MetricSeries& val, const MetricSeries& train, const MetricPoint& first,
                    const MetricPoint& best, const MetricPoint& last, int moved, size_t after, const char* val_verb,
                    const char* later, const char* train_verb, double train_from, double train_to) {
  std::vector<MetricPoint> vp = val.Points();
  std::string axis = AxisOf(vp);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " " + val_verb + " from its best " + Num(best.value) + " at " +
                         Where(best, axis) + " to " + Num(last.value) + " at " + Where(last, axis) + " (" +
                         std::to_string(moved) + " of " + std::to_string(after) + " later evaluations " + later + ") while " +
                         SeriesName(c.Id(1)) + " " + train_verb + " from " + Num(train_from) + " to " + Num(train_to);
  c.hit->captures["best"] = Num(best.value);
  c.hit->captures["best_at"] = Where(best, axis);
  c.hit->captures["value"] = Num(last.value);
  c.hit->captures["train_from"] = Num(train_from);
  c.hit->captures["train_to"] = Num(train_to);
  c.hit->supporting.push_back(ToSeriesEvidence(c.Id(1), train.Points()));
  Finish(c, c.Id(0), vp, first, last, &best, evidence);
}

bool DetectValRising(Ctx& c) {
  const MetricSeries* val = c.Series(0);
  const MetricSeries* train = c.Series(1);
  if (!val || !train) return false;
  std::vector<MetricPoint> v = FiniteOnly(val->Points());
  if (v.size() < c.P("min_evaluations")) return false;
  auto best = std::min_element(v.begin(), v.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  size_t after = v.end() - best - 1;
  if (after < c.P("min_rising") || !(best->value > 0)) return false;
  if (v.back().value < best->value * (1 + c.P("rise"))) return false;
  int ups = 0;
  for (auto it = best + 1; it != v.end(); ++it) ups += it->value > (it - 1)->value;
  if (ups < 0.6 * after) return false;
  // Training loss over the same stretch: around the best evaluation vs the end.
  double train_from = 0, train_to = 0;
  if (!TrainAround(*train, best->line, &train_from, &train_to)) return false;
  if (!(train_to < train_from * (1 - c.P("train_drop")))) return false;
  FinishValTrend(c, *val, *train, v.front(), *best, v.back(), ups, after, "rose", "higher", "fell", train_from, train_to);
  SetBand(c, best->value * (1 + c.P("rise")), "the best " + Num(best->value) + " plus the " + Percent(c.P("rise")) + " rise");
  return true;
}

// What turns an accuracy series into fractions: 0.01 for one printed as percentages (any value above 1), else 1.
double FractionScale(const std::vector<MetricPoint>& pts) {
  for (const MetricPoint& p : pts) {
    if (p.value > 1) return 0.01;
  }
  return 1.0;
}

// Note: [Falling validation accuracy]. The accuracy side of val_rising, for the logs that print no
// validation loss (PyTorch Geometric's "Train: 0.99, Val: 0.71, Test: 0.70", Keras-style "acc ... val_acc"
// lines): after its best, the validation accuracy falls in most of at least `min_falling` evaluations
// and ends `drop` under the best, while the training accuracy ends `train_rise` above where it was at
// the best evaluation (TrainAround, as in val_rising). Accuracies are compared as fractions: a series
// printed as percentages (any value above 1) is divided by 100 for the two thresholds. A validation
// accuracy that only wanders around its best, or falls while the training accuracy falls too (a run
// that diverges, not one that memorises), does not count. No healthy band: a healthy series stays
// above a level, and the band is open below (Note: [Healthy band]).
bool DetectValFalling(Ctx& c) {
  const MetricSeries* val = c.Series(0);
  const MetricSeries* train = c.Series(1);
  if (!val || !train) return false;
  std::vector<MetricPoint> v = FiniteOnly(val->Points());
  if (v.size() < c.P("min_evaluations")) return false;
  auto best = std::max_element(v.begin(), v.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  size_t after = v.end() - best - 1;
  if (after < c.P("min_falling")) return false;
  if (!((best->value - v.back().value) * FractionScale(val->Points()) >= c.P("drop"))) return false;
  int downs = 0;
  for (auto it = best + 1; it != v.end(); ++it) downs += it->value < (it - 1)->value;
  if (downs < 0.6 * after) return false;
  double train_from = 0, train_to = 0;
  if (!TrainAround(*train, best->line, &train_from, &train_to)) return false;
  if (!((train_to - train_from) * FractionScale(train->Points()) >= c.P("train_rise"))) return false;
  FinishValTrend(c, *val, *train, v.front(), *best, v.back(), downs, after, "fell", "lower", "rose", train_from, train_to);
  return true;
}

// Note: [Accuracy gap]. Overfitting that a falling validation curve does not show: the training accuracy
// climbs to (nearly) every example right while the validation accuracy stalls far below it. Holds when, as
// fractions (a series with any value above 1 is read as percentages), the median of the last three training
// accuracies is at least `min_train` and at least `train_rise` above the median of the first three (the
// model learned its training set during the log, not before it), the median of the last three validation
// accuracies is `min_gap` or more below it, and the validation accuracy stopped improving: its best in the
// second half of the evaluations is no more than `plateau` above its best in the first half. A healthy run
// ends with a gap of a few points (99% against 93% on CIFAR-10); a validation accuracy still climbing, a
// training accuracy short of `min_train`, or one already there at the first print does not count. A
// validation accuracy that also falls from its best is val_falling's as well (same category). No healthy
// band (Note: [Healthy band]).
bool DetectAccGap(Ctx& c) {
  const MetricSeries* val = c.Series(0);
  const MetricSeries* train = c.Series(1);
  if (!val || !train) return false;
  std::vector<MetricPoint> v = FiniteOnly(val->Points());
  std::vector<MetricPoint> t = FiniteOnly(train->Points());
  if (v.size() < c.P("min_evaluations") || t.size() < 3) return false;
  double ts = FractionScale(t), vs = FractionScale(v);
  double train_start = Median(Values(t, 0, 3)) * ts, train_end = Median(Values(t, t.size() - 3, t.size())) * ts;
  double val_end = Median(Values(v, v.size() - 3, v.size())) * vs;
  if (!(train_end >= c.P("min_train")) || !(train_end - train_start >= c.P("train_rise"))) return false;
  double gap = train_end - val_end;
  if (!(gap >= c.P("min_gap"))) return false;
  size_t half = v.size() / 2;
  auto best_of = [&](size_t from, size_t to) {
    double b = -std::numeric_limits<double>::infinity();
    for (size_t i = from; i < to; ++i) b = std::max(b, v[i].value * vs);
    return b;
  };
  double early_best = best_of(0, half), late_best = best_of(half, v.size());
  if (late_best > early_best + c.P("plateau")) return false;
  auto best = std::max_element(v.begin(), v.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.value < b.value; });
  std::vector<MetricPoint> vp = val->Points();
  std::string axis = AxisOf(vp);
  std::string evidence = std::string(SeriesName(c.Id(1))) + " rose from " + Num(train_start) + " to " + Num(train_end) +
                         " while " + SeriesName(c.Id(0)) + " stalled: its best " + Num(best->value * vs) + " at " +
                         Where(*best, axis) + ", " + Num(val_end) + " at the end, " + Num(gap) +
                         " under the training accuracy (medians of the first and last three values, as fractions)";
  c.hit->captures["train"] = Num(train_end);
  c.hit->captures["value"] = Num(val_end);
  c.hit->captures["best"] = Num(best->value * vs);
  c.hit->captures["gap"] = Num(gap);
  c.hit->supporting.push_back(ToSeriesEvidence(c.Id(1), train->Points()));
  Finish(c, c.Id(0), vp, v.front(), v.back(), &*best, evidence);
  return true;
}

bool DetectLinearGrowth(Ctx& c) {
  const MetricSeries* g = c.Series(0);
  const MetricSeries* loss = c.Series(1);
  if (!g || !loss) return false;
  std::vector<MetricPoint> pts = g->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < c.P("min_points")) return false;
  // Least squares of value on position (seq): a straight climb means every step adds a similar
  // gradient to what is already there.
  double n = static_cast<double>(f.size()), sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (const MetricPoint& p : f) {
    double x = static_cast<double>(p.seq), y = p.value;
    sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y;
  }
  double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  if (vx <= 0 || vy <= 0 || cxy <= 0) return false;
  double r2 = cxy * cxy / (vx * vy);
  double start = Median(Values(f, 0, 3)), end = Median(Values(f, f.size() - 3, f.size()));
  if (r2 < c.P("min_r2") || !(start > 0) || end / start < c.P("min_ratio")) return false;
  std::vector<MetricPoint> lf = FiniteOnly(loss->Points());
  if (lf.size() < 5) return false;
  std::vector<double> chunks = ChunkMedians(lf, 5);
  double best = *std::min_element(chunks.begin(), chunks.end());
  if (!(best > 0) || chunks.back() < best * (1 + c.P("loss_worsening"))) return false;
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " climbs steadily from " + Num(start) + " to " + Num(end) +
                         " over " + Span(f.front(), f.back(), axis) + " (straight-line fit R^2 = " + Num(r2) + ") while " +
                         SeriesName(c.Id(1)) + " worsens from " + Num(best) + " to " + Num(chunks.back()) +
                         " (medians of fifths of the run)";
  c.hit->captures["start"] = Num(start);
  c.hit->captures["value"] = Num(end);
  c.hit->captures["r2"] = Num(r2);
  c.hit->captures["loss_from"] = Num(best);
  c.hit->captures["loss_to"] = Num(chunks.back());
  c.hit->supporting.push_back(ToSeriesEvidence(c.Id(1), loss->Points()));
  Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
  SetBand(c, start * c.P("min_ratio"), "min_ratio " + Num(c.P("min_ratio")) + " times the start " + Num(start));
  return true;
}

bool DetectMemoryGrowth(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < c.P("min_points")) return false;
  int rises = 0, strict = 0;
  for (size_t i = 1; i < f.size(); ++i) {
    rises += f[i].value >= f[i - 1].value;
    strict += f[i].value > f[i - 1].value;
  }
  double first = f.front().value, last = f.back().value, mid = f[f.size() / 2].value;
  if (!(first > 0) || rises < c.P("monotone") * (f.size() - 1)) return false;
  // Note: [A steady creep]. A leak of a few KB or MB per step, printed once per step, shows a small rise over a
  // short watch (torch.cuda.memory_allocated creeping 20.4 -> 21.0 MB over 14 steps): under min_rise, yet no
  // healthy run prints it. Once its buffers exist, a training step allocates and frees the same tensors, so the
  // memory a program prints at the same point of every step is level; start-up growth levels off, and a running
  // peak or a cache rises in a few jumps with long level runs between. Printed to one decimal, a creep smaller
  // than the last digit per step rises at every second or third print, in steps of that digit. With `creep_rise`
  // set, a series of at least `creep_points` prints that never fell, rose strictly at a third of them or more
  // and lies on a straight line (fit R^2 at least `creep_r2`) passes when it ends `creep_rise` above its start;
  // the `creep` capture says so ("1"), and memory-keeps-growing's Lua does not set such a series aside as a
  // staircase.
  const size_t steps = f.size() - 1;
  bool creep = false;
  if (c.P("creep_rise") > 0 && f.size() >= c.P("creep_points") && rises == static_cast<int>(steps) &&
      3 * strict >= static_cast<int>(steps) && last >= first * (1 + c.P("creep_rise"))) {
    double n = static_cast<double>(f.size()), sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    for (const MetricPoint& p : f) {
      double x = static_cast<double>(p.seq), y = p.value;
      sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y;
    }
    double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
    creep = vx > 0 && vy > 0 && cxy > 0 && cxy * cxy / (vx * vy) >= c.P("creep_r2");
  }
  if (last < first * (1 + c.P("min_rise")) && !creep) return false;
  // Still climbing in the second half: growth that levels off after start-up is normal. Note: [Still climbing
  // at the end]: a series whose growth slows without stopping (workers copying a dataset page by page, watched
  // with `free` in a loop) puts less than late_share of it in the second half; with `end_rise` set, it passes
  // when each of its last two steps still rose by at least that share of the whole growth. A curve that levelled
  // off after start-up ends in steps near zero and stays out.
  const double growth = last - first;
  const bool climbing_at_end = c.P("end_rise") > 0 && f.size() >= 3 &&
                               f[f.size() - 1].value - f[f.size() - 2].value >= c.P("end_rise") * growth &&
                               f[f.size() - 2].value - f[f.size() - 3].value >= c.P("end_rise") * growth;
  if (last - mid < c.P("late_share") * growth && !climbing_at_end) return false;
  double per = (last - first) / static_cast<double>(f.back().seq - f.front().seq);
  std::string axis = AxisOf(pts);
  std::string evidence = std::string(SeriesName(c.Id(0))) + " rose from " + Num(first) + " MB to " + Num(last) + " MB over " +
                         Span(f.front(), f.back(), axis) + " (+" + Num(last - first) + " MB, " + Num(per) +
                         " MB per printed point), rising or level at " + std::to_string(rises) + " of " +
                         std::to_string(f.size() - 1) + " points and still climbing in the second half" +
                         (last < first * (1 + c.P("min_rise"))
                              ? "; a small rise, read as a steady creep: it never fell, rose at " + std::to_string(strict) +
                                    " of " + std::to_string(steps) + " prints and lies on a straight line"
                              : std::string());
  c.hit->captures["start"] = Num(first);
  c.hit->captures["value"] = Num(last);
  c.hit->captures["per_point"] = Num(per);
  c.hit->captures["creep"] = creep ? "1" : "0";
  Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
  if (creep && last < first * (1 + c.P("min_rise"))) {
    SetBand(c, first * (1 + c.P("creep_rise")), "the start " + Num(first) + " plus the " + Percent(c.P("creep_rise")) + " creep_rise");
  } else {
    SetBand(c, first * (1 + c.P("min_rise")), "the start " + Num(first) + " plus the " + Percent(c.P("min_rise")) + " min_rise");
  }
  return true;
}

// Note: [Zero learning rate]
// The learning rate printed as zero while the loss is still printed: every lr value from the first zero
// on is 0 (at the precision it was printed: "0.00000000", "0.0", "[0.0]"), there are at least
// `min_zeros` of them and they are at least `zero_share` of all printed lr values, and the loss printed
// from that point on (at least `min_loss_points` values) does not fall more than `max_improvement` below
// its value there. Each guard keeps a healthy schedule out: a warm-up that starts at 0 prints non-zero
// values after it, a decay that ends at 0 prints its zeros only at the end (under half of the points),
// and a small lr printed with too few decimals ("lr 0.0000" for 2e-5) still lowers the loss. What is
// left is an optimizer that takes no step: a scheduler or a layer-decay multiplier that drove every
// group's lr to zero, or a schedule whose total steps were computed as zero.
bool DetectLrZero(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s) return false;
  std::vector<MetricPoint> pts = FiniteOnly(s->Points());
  if (pts.empty()) return false;
  size_t first_zero = pts.size();
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].value == 0) {
      first_zero = i;
      break;
    }
  }
  if (first_zero == pts.size()) return false;
  for (size_t i = first_zero; i < pts.size(); ++i) {
    if (pts[i].value != 0) return false;  // the lr came back: a warm-up from zero, or a restart
  }
  const size_t zeros = pts.size() - first_zero;
  if (zeros < c.P("min_zeros") || zeros < c.P("zero_share") * pts.size()) return false;
  const MetricSeries* loss = c.Series(1);
  if (!loss) return false;
  std::vector<MetricPoint> after;
  for (const MetricPoint& p : FiniteOnly(loss->Points())) {
    if (p.line >= pts[first_zero].line) after.push_back(p);
  }
  if (after.size() < c.P("min_loss_points")) return false;
  const double loss_from = after.front().value;
  double loss_low = loss_from;
  for (const MetricPoint& p : after) loss_low = std::min(loss_low, p.value);
  if (loss_from > 0 && loss_low < (1 - c.P("max_improvement")) * loss_from) return false;  // it still learns
  std::string axis = AxisOf(s->Points());
  std::string evidence = std::string(SeriesName(c.Id(0))) + " printed as 0 at " + std::to_string(zeros) + " of " +
                         std::to_string(pts.size()) + " points, from " + Where(pts[first_zero], axis) + " (line " +
                         std::to_string(pts[first_zero].line) + ") to the end, while " + SeriesName(c.Id(1)) +
                         " went from " + Num(loss_from) + " to " + Num(after.back().value);
  c.hit->captures["zeros"] = std::to_string(zeros);
  c.hit->captures["printed"] = std::to_string(pts.size());
  c.hit->captures["loss_from"] = Num(loss_from);
  c.hit->captures["loss_to"] = Num(after.back().value);
  Finish(c, c.Id(0), s->Points(), pts[first_zero], pts.back(), &pts[first_zero], evidence);
  return true;
}

// Note: [Epochs per print]
// A trainer that logs every N optimizer steps prints the epoch as a fraction of passes over the data
// (the Hugging Face Trainer's 'epoch': 4.17, a step-based logger's epoch=2.5). When each printed line
// is two or more epochs past the one before, one logging interval holds several passes: the data set
// has fewer batches than the interval has steps, and the model sees every example again and again
// between two prints. A loss that falls to a tenth of its first value or less over eight or more
// such passes is the model memorising that small set, what a thread about a loss that fell "too
// fast" settles as overfitting. The fraction is required: a program that prints whole epochs at a
// stride of its own choosing (`if epoch % 10 == 0: print(...)`) says nothing about its data set's
// size, and a long run's falling loss is what training does. A loss that goes negative is an
// objective of another kind and is passed over.
bool DetectEpochsPerPrint(Ctx& c) {
  const MetricSeries* s = c.Series(0);
  if (!s || s->has_negative()) return false;
  std::vector<MetricPoint> pts = s->Points();
  std::vector<MetricPoint> f = FiniteOnly(pts);
  if (f.size() < std::max(2.0, c.P("min_points"))) return false;
  bool fraction = false;
  std::vector<double> strides;
  for (size_t i = 0; i < f.size(); ++i) {
    const double e = f[i].epoch;
    if (!std::isfinite(e) || e < 0) return false;  // every point carries its epoch
    if (std::fabs(e - std::round(e)) > 1e-6) fraction = true;
    if (i > 0) strides.push_back(e - f[i - 1].epoch);
  }
  if (!fraction) return false;
  const double stride = Median(strides);
  if (!(stride >= c.P("min_stride"))) return false;
  if (std::any_of(strides.begin(), strides.end(), [](double d) { return d <= 0; })) return false;  // a restart
  if (f.back().epoch < c.P("min_epochs")) return false;
  const double from = f.front().value, to = f.back().value;
  if (!(from > 0) || to > c.P("max_final_share") * from) return false;
  std::string evidence = std::string(SeriesName(c.Id(0))) + " fell from " + Num(from) + " at epoch " +
                         Num(f.front().epoch) + " to " + Num(to) + " at epoch " + Num(f.back().epoch) + " (line " +
                         std::to_string(f.back().line) + "), " + Num(stride) +
                         " epochs between consecutive prints (median)";
  c.hit->captures["stride"] = Num(stride);
  c.hit->captures["epochs"] = Num(f.back().epoch);
  c.hit->captures["loss_from"] = Num(from);
  c.hit->captures["loss_to"] = Num(to);
  Finish(c, c.Id(0), pts, f.front(), f.back(), nullptr, evidence);
  return true;
}

}  // namespace

std::vector<std::string> SignalDetectorNames() {
  std::vector<std::string> out;
  for (const DetectorDef& d : Detectors()) out.push_back(d.name);
  return out;
}

std::set<std::string> SignalCaptureNames(const std::string& detector) {
  std::set<std::string> out;
  const DetectorDef* d = FindDetector(detector);
  if (!d) return out;
  for (const char* n : kCommonCaptures) out.insert(n);
  for (const char* n : d->captures) out.insert(n);
  return out;
}

std::shared_ptr<const SignalSpec> ParseSignalSpec(const YamlNode& node, std::vector<SignalProblem>* problems) {
  auto add = [&](const YamlNode& at, bool error, ProblemCode code, const std::string& message) {
    SignalProblem p;
    p.error = error;
    YAML::Mark m = at.Mark();
    if (m.line >= 0) {
      p.line = m.line + 1;
      p.column = m.column + 1;
    }
    p.code = code;
    p.message = message;
    problems->push_back(std::move(p));
  };
  if (!node.IsMap()) {
    add(node, true, ProblemCode::kBadType, "'signal' must be a mapping with 'detector' (and optionally 'series', parameters)");
    return nullptr;
  }
  auto spec = std::make_shared<SignalSpec>();
  bool ok = true;
  YamlNode det = node["detector"];
  const DetectorDef* def = nullptr;
  if (!det || !det.IsScalar()) {
    add(node, true, ProblemCode::kMissingKey, "'signal' needs a 'detector'");
    return nullptr;
  }
  spec->detector = det.Scalar();
  def = FindDetector(spec->detector);
  if (!def) {
    std::string names;
    for (const std::string& n : SignalDetectorNames()) names += (names.empty() ? "" : ", ") + n;
    add(det, true, ProblemCode::kUnknownDetector, "unknown detector '" + spec->detector + "' (one of: " + names + ")");
    return nullptr;
  }
  for (const ParamDef& p : def->params) spec->params[p.name] = p.value;
  spec->series = def->series;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YamlNode& v = kv.second;
    if (key == "detector") continue;
    if (key == "series") {
      std::vector<SeriesId> ids;
      std::vector<YamlNode> items;
      if (v.IsScalar()) items.push_back(v);
      else if (v.IsSequence()) for (const YamlNode& i : v) items.push_back(i);
      else add(v, true, ProblemCode::kBadType, "'signal.series' must be a series name or a list of them");
      for (const YamlNode& i : items) {
        SeriesId id = i.IsScalar() ? SeriesFromName(i.Scalar()) : SeriesId::kCount;
        if (id == SeriesId::kCount) {
          add(i, true, ProblemCode::kUnknownSeries,
              "unknown series '" + (i.IsScalar() ? i.Scalar() : std::string("?")) +
                  "' (loss, val_loss, acc, val_acc, lr, grad_norm, memory, loss_scale, f1, host_memory)");
          ok = false;
        } else {
          ids.push_back(id);
        }
      }
      if (ids.size() < def->series.size() && spec->detector != "nonfinite") {
        // Detectors that compare two series keep their defaults for the ones not named.
        for (size_t i = ids.size(); i < def->series.size(); ++i) ids.push_back(def->series[i]);
      }
      if (!ids.empty()) spec->series = ids;
      continue;
    }
    if (key == "evidence_for") {
      std::vector<YamlNode> items;
      if (v.IsScalar()) items.push_back(v);
      else if (v.IsSequence()) for (const YamlNode& i : v) items.push_back(i);
      for (const YamlNode& i : items) {
        if (!i.IsScalar()) {
          add(i, true, ProblemCode::kBadType, "'signal.evidence_for' must list categories");
          ok = false;
          continue;
        }
        spec->evidence_for.push_back(i.Scalar());
      }
      continue;
    }
    auto it = spec->params.find(key);
    if (it == spec->params.end()) {
      std::string names;
      for (const ParamDef& p : def->params) names += (names.empty() ? "" : ", ") + std::string(p.name);
      add(kv.first, false, ProblemCode::kUnknownKey,
          "unknown key 'signal." + key + "' for detector " + spec->detector + " (parameters: " + names + ")");
      continue;
    }
    double d = 0;
    if (!v.IsScalar() || !DecodeYaml(v, &d) || !std::isfinite(d) || d < 0) {
      add(v, true, ProblemCode::kBadValue, "'signal." + key + "' must be a non-negative number");
      ok = false;
      continue;
    }
    it->second = d;
  }
  if (!ok) return nullptr;
  return spec;
}

SeriesEvidence ToSeriesEvidence(SeriesId id, const std::vector<MetricPoint>& points) {
  SeriesEvidence e;
  e.name = SeriesName(id);
  e.axis = AxisOf(points);
  for (const MetricPoint& p : points) e.points.emplace_back(XOf(p, e.axis), p.value);
  return e;
}

bool DetectSignal(const SignalSpec& spec, const MetricCollector& metrics, SignalHit* hit) {
  *hit = SignalHit();
  Ctx c{spec, metrics, hit};
  const std::string& d = spec.detector;
  if (d == "nonfinite") return DetectNonFinite(c);
  if (d == "flat") return DetectFlat(c);
  if (d == "softmax_floor") return DetectSoftmaxFloor(c);
  if (d == "spike") return DetectSpike(c);
  if (d == "oscillation") return DetectOscillation(c);
  if (d == "growth") return DetectGrowth(c);
  if (d == "above") return DetectAbove(c);
  if (d == "negative") return DetectNegative(c);
  if (d == "val_rising") return DetectValRising(c);
  if (d == "val_falling") return DetectValFalling(c);
  if (d == "acc_gap") return DetectAccGap(c);
  if (d == "linear_growth") return DetectLinearGrowth(c);
  if (d == "chance_level") return DetectChanceLevel(c);
  if (d == "one_class") return DetectOneClass(c);
  if (d == "memory_growth") return DetectMemoryGrowth(c);
  if (d == "lr_zero") return DetectLrZero(c);
  if (d == "epochs_per_print") return DetectEpochsPerPrint(c);
  return false;
}

}  // namespace triage
