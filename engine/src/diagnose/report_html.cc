// The HTML report: one self-contained page (inline CSS and SVG, no script, font or network access)
// for one or more inputs, readable on a phone and printable. Every piece of log or rule text goes
// through HtmlText (escape.h). Plots are drawn here as SVG; see Note: [Plots].
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "diagnose/escape.h"
#include "diagnose/report_parts.h"
#include "triage/locale_free.h"
#include "triage/triage.h"

namespace triage {
namespace {

const char kStyle[] = R"(
:root{color-scheme:light dark;--fg:#1d2127;--muted:#5d6673;--bg:#fff;--card:#f6f7f9;--line:#d8dce2;
--bad:#c62828;--good:#2e7d32;--mark:#fff3c4;--accent:#1f5fbf}
@media (prefers-color-scheme:dark){:root{--fg:#e3e6ea;--muted:#9aa3ae;--bg:#15181c;--card:#1e2228;
--line:#39404a;--bad:#ef6c6c;--good:#79c47d;--mark:#4a3f12;--accent:#7fb0ff}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:62rem;padding:1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
h3{font-size:1.1rem;margin:.2rem 0}h4{font-size:1rem;margin:1rem 0 .3rem}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.88em}
pre{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.6rem;white-space:pre-wrap;
overflow-wrap:anywhere;margin:.4rem 0}
pre mark{background:var(--mark);color:inherit;display:block;border-left:3px solid var(--bad);margin-left:-.6rem;
padding-left:calc(.6rem - 3px)}
article{border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem;margin:1rem 0}
article.top{border-left:5px solid var(--bad)}
.category{color:var(--bad);font-weight:600}.meta,.where,.ranking,figcaption{color:var(--muted);font-size:.9rem}
.status{font-size:.8rem;font-weight:600;padding:0 .4rem;border-radius:4px;border:1px solid}
.status.confirmed{color:var(--bad)}.status.refuted{color:var(--good)}.status.inconclusive{color:var(--muted)}
ol li{margin-bottom:.6rem}dl{margin:.2rem 0;display:grid;grid-template-columns:max-content 1fr;gap:.1rem .6rem}
dt{color:var(--muted)}dd{margin:0;min-width:0}
figure{margin:.6rem 0}svg{width:100%;height:auto;display:block;overflow:visible}
svg text{font:11px system-ui,sans-serif;fill:var(--muted)}svg path{fill:none}svg .axis{stroke:var(--line)}
svg .series{fill:none;stroke:var(--accent);stroke-width:1.5}svg .pt{fill:var(--accent)}
svg .nonfinite{fill:var(--bad)}svg .onset{stroke:var(--bad);stroke-dasharray:4 3}
svg .after{fill:var(--bad);opacity:.08}svg .ref{stroke:var(--good);stroke-dasharray:6 4}
svg text.ref{fill:var(--good);stroke:none}
svg .band{fill:var(--good);opacity:.12}svg .band-edge{stroke:var(--good);stroke-width:1}svg text.band-label{fill:var(--good)}
svg .bar{fill:var(--accent)}svg .bar.off{fill:var(--bad)}svg text.off{fill:var(--bad);font-weight:600}
svg .limit{stroke:var(--bad);stroke-dasharray:5 3}svg text.limit-label{fill:var(--bad)}svg text.name{fill:var(--fg)}
@media (max-width:40rem){svg text{font-size:20px}}
nav ul{padding-left:1.2rem}details{margin:1rem 0}summary{cursor:pointer;font-weight:600}
@media print{body{max-width:none;font-size:11pt}article,figure,pre{break-inside:avoid}a{color:inherit}}
)";

std::string Num(double v) { return FormatNumber(v, NumberStyle::kGeneral, 4); }

// Note: [Plots]
// A series is drawn on a fixed 640x240 canvas scaled to the page's width: x linear over the points'
// range, y linear, or log10 when every value is positive and they span more than two decades (as the
// text sparkline). Finite points are joined by a line (broken where a value is not finite) and drawn
// as dots; a non-finite value is a red triangle on the top edge at its x, titled with its value. The
// onset is a dashed vertical line, the region after it lightly shaded. Reference levels a rule
// captured are dashed horizontal lines: ln C (the loss of uniform guessing over C classes) when a
// loss series has a `classes` capture, and the rule's `floor`. The healthy band a signal detector
// records (Note: [Healthy band] in engine/src/rules/signal_rules.cc) is shaded green behind the
// points, its edge a solid line, with its label; the y range always takes in the edge, and a quarter
// more past it on the open side when the edge is the range's end, so the band shows as a region even
// when every point lies outside it. Each element carries a <title>, so
// hovering or a screen reader gives the values. The canvas shrinks with a narrow page, so there its
// labels are drawn larger (about 9 px on a 375 px phone) and may reach into the margin past the axes.
struct Canvas {
  static constexpr double kWidth = 640, kHeight = 240, kLeft = 56, kRight = 12, kTop = 14, kBottom = 36;
  double x0, x1, y0, y1;
  bool log;
  double X(double x) const { return kLeft + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * (kWidth - kLeft - kRight); }
  double Y(double y) const {
    double v = log ? std::log10(y) : y, a = log ? std::log10(y0) : y0, b = log ? std::log10(y1) : y1;
    double t = b > a ? (v - a) / (b - a) : 0.5;
    return kTop + (1 - t) * (kHeight - kTop - kBottom);
  }
};

std::string F(double v) { return FormatNumber(v, NumberStyle::kFixed, 1); }  // a coordinate

// Reference levels for a series: {value, label}.
std::vector<std::pair<double, std::string>> ReferenceLevels(const Diagnosis& d, const SeriesEvidence& s) {
  std::vector<std::pair<double, std::string>> out;
  if (s.name.find("loss") == std::string::npos) return out;
  auto at = d.captures.find("classes");
  if (at != d.captures.end()) {
    double c = 0;
    if (ParseNumber(at->second, &c) && c >= 2 && c < 1e9) out.push_back({std::log(c), "ln " + at->second + " = " + Num(std::log(c)) + " (uniform guessing)"});
  }
  at = d.captures.find("floor");
  if (at != d.captures.end()) {
    double f = 0;
    if (ParseNumber(at->second, &f) && std::isfinite(f)) out.push_back({f, "floor " + Num(f)});
  }
  return out;
}

std::string Plot(const Diagnosis& d, const SeriesEvidence& s) {
  if (s.points.empty()) return "";
  auto refs = ReferenceLevels(d, s);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double xlo = lo, xhi = -lo;
  int finite = 0, nonfinite = 0;
  for (const auto& [x, y] : s.points) {
    xlo = std::min(xlo, x);
    xhi = std::max(xhi, x);
    if (std::isfinite(y)) {
      lo = std::min(lo, y);
      hi = std::max(hi, y);
      ++finite;
    } else {
      ++nonfinite;
    }
  }
  if (!std::isfinite(xlo)) return "";
  if (finite == 0) lo = 0, hi = 1;
  for (const auto& r : refs) lo = std::min(lo, r.first), hi = std::max(hi, r.first);
  // The band's finite edges join the range; an open side runs to the plot's edge.
  const bool band = s.has_band && s.band_low < s.band_high && (std::isfinite(s.band_low) || std::isfinite(s.band_high));
  if (band) {
    for (double edge : {s.band_low, s.band_high}) {
      if (std::isfinite(edge) && (!(lo > 0) || edge > 0)) lo = std::min(lo, edge), hi = std::max(hi, edge);
    }
    // An open side at the range's end would leave the band a sliver: give it a fifth of the plot.
    if (!std::isfinite(s.band_low) && s.band_high <= lo && hi > lo) {
      double below = lo - (hi - lo) / 4;
      if (!(lo > 0 && hi / lo > 100) || below > 0) lo = below;
    } else if (!std::isfinite(s.band_high) && s.band_low >= hi && hi > lo) {
      hi += (hi - lo) / 4;
    }
  }
  Canvas c{xlo, xhi, lo, hi, lo > 0 && hi / lo > 100};
  if (!c.log && hi > lo) {  // a little room above and below
    double pad = (hi - lo) * 0.05;
    c.y0 = lo - pad;
    c.y1 = hi + pad;
  }
  const double left = Canvas::kLeft, right = Canvas::kWidth - Canvas::kRight;
  const double top = Canvas::kTop, bottom = Canvas::kHeight - Canvas::kBottom;
  std::string axis = s.axis == "index" ? "point" : s.axis;
  std::string label = s.name + " by " + axis + ": " + std::to_string(finite) + " values" +
                      (nonfinite ? ", " + std::to_string(nonfinite) + " not finite" : "") +
                      (s.has_onset ? ", onset at " + axis + " " + Num(s.onset) : "") + (c.log ? " (log scale)" : "");
  std::string svg = "<svg viewBox=\"0 0 640 240\" role=\"img\" data-finite=\"" + std::to_string(finite) +
                    "\" data-nonfinite=\"" + std::to_string(nonfinite) + "\"" + (band ? " data-band=\"1\"" : "") +
                    " aria-label=\"" + HtmlText(label) + "\">";
  if (band) {
    // Clipped to the plot: an open side (or an edge a log axis cannot show) runs to the border.
    auto edge_y = [&](double v, double open) {
      if (!std::isfinite(v) || (c.log && v <= 0)) return open;
      return std::clamp(c.Y(v), top, bottom);
    };
    double y_high = edge_y(s.band_high, top), y_low = edge_y(s.band_low, bottom);
    std::string title = "<title>" + HtmlText(s.band_label) + "</title>";
    svg += "<rect class=\"band\" x=\"" + F(left) + "\" y=\"" + F(y_high) + "\" width=\"" + F(right - left) +
           "\" height=\"" + F(std::max(0.0, y_low - y_high)) + "\">" + title + "</rect>";
    for (double v : {s.band_low, s.band_high}) {
      if (!std::isfinite(v) || (c.log && v <= 0)) continue;
      svg += "<path class=\"band-edge\" d=\"M" + F(left) + " " + F(edge_y(v, top)) + "H" + F(right) + "\">" + title + "</path>";
    }
    // A short label inside the band, under its upper edge (above the lower one when the top is open);
    // the whole label is the caption's and the title's.
    const bool upper = std::isfinite(s.band_high);
    double ty = upper ? std::min(y_high + 14, bottom - 4) : std::max(y_low - 4, top + 12);
    svg += "<text class=\"band-label\" x=\"" + F(left + 4) + "\" y=\"" + F(ty) + "\">" +
           HtmlText(upper ? "healthy below " + Num(s.band_high) : "healthy above " + Num(s.band_low)) + "</text>";
  }
  if (s.has_onset) {
    double ox = std::clamp(c.X(s.onset), left, right);
    svg += "<rect class=\"after\" x=\"" + F(ox) + "\" y=\"" + F(top) + "\" width=\"" + F(right - ox) + "\" height=\"" +
           F(bottom - top) + "\"/>";
  }
  // Axes with five ticks each.
  svg += "<path class=\"axis\" d=\"M" + F(left) + " " + F(top) + "V" + F(bottom) + "H" + F(right) + "\"/>";
  for (int i = 0; i <= 4; ++i) {
    double x = c.x0 + (c.x1 - c.x0) * i / 4;
    double px = c.X(x);
    svg += "<text x=\"" + F(px) + "\" y=\"" + F(bottom + 14) + "\" text-anchor=\"middle\">" + Num(x) + "</text>";
    double y = c.log ? std::pow(10, std::log10(c.y0) + (std::log10(c.y1) - std::log10(c.y0)) * i / 4)
                     : c.y0 + (c.y1 - c.y0) * i / 4;
    double py = c.Y(y);
    svg += "<path class=\"axis\" d=\"M" + F(left - 4) + " " + F(py) + "H" + F(left) + "\"/>";
    svg += "<text x=\"" + F(left - 6) + "\" y=\"" + F(py + 4) + "\" text-anchor=\"end\">" + Num(y) + "</text>";
  }
  svg += "<text x=\"" + F((left + right) / 2) + "\" y=\"" + F(Canvas::kHeight - 4) + "\" text-anchor=\"middle\">" +
         HtmlText(axis) + "</text>";
  for (const auto& [value, text] : refs) {
    double py = c.Y(value);
    svg += "<path class=\"ref\" d=\"M" + F(left) + " " + F(py) + "H" + F(right) + "\"><title>" + HtmlText(text) +
           "</title></path><text class=\"ref\" x=\"" + F(right - 4) + "\" y=\"" + F(py - 4) + "\" text-anchor=\"end\">" +
           HtmlText(text) + "</text>";
  }
  // The line, broken at non-finite values, then the points.
  std::string path;
  bool pen = false;
  for (const auto& [x, y] : s.points) {
    if (!std::isfinite(y)) {
      pen = false;
      continue;
    }
    path += (pen ? "L" : "M") + F(c.X(x)) + " " + F(c.Y(y));
    pen = true;
  }
  if (!path.empty()) svg += "<path class=\"series\" d=\"" + path + "\"/>";
  for (const auto& [x, y] : s.points) {
    std::string title = "<title>" + HtmlText(axis + " " + Num(x) + ": " + s.name + " " + Num(y)) + "</title>";
    if (std::isfinite(y)) {
      svg += "<circle class=\"pt\" cx=\"" + F(c.X(x)) + "\" cy=\"" + F(c.Y(y)) + "\" r=\"2\">" + title + "</circle>";
    } else {
      double px = c.X(x);
      svg += "<path class=\"nonfinite\" d=\"M" + F(px - 4) + " " + F(top - 6) + "H" + F(px + 4) + "L" + F(px) + " " +
             F(top + 2) + "Z\">" + title + "</path>";
    }
  }
  if (s.has_onset) {
    double ox = std::clamp(c.X(s.onset), left, right);
    svg += "<path class=\"onset\" d=\"M" + F(ox) + " " + F(top) + "V" + F(bottom) + "\"><title>onset at " +
           HtmlText(axis + " " + Num(s.onset)) + "</title></path>";
  }
  svg += "</svg>";
  return "<figure>" + svg + "<figcaption>" + HtmlText(label + (band ? "; " + s.band_label : "")) + "</figcaption></figure>\n";
}

// Note: [Layer plots]
// A probe's per-layer measurement (LayerSeries: gradient norms, dead-unit fractions) is a bar chart,
// one row per layer in the model's order: the layer's name and its value on a line, its bar under
// them, on the full width of a 640-unit canvas (so a long name never has to share its line with an
// axis). The x axis is linear from 0 up to a round 1, 2 or 5 times a power of ten, or log10 from
// decade to decade when the probe asks (gradient norms span decades).
// Each threshold the probe judged by is a dashed red vertical line over every row, labelled with
// what it means ("offends above 100"); the layers the probe flagged have red bars and a red, bold
// name ending in " (flagged)", so the mark survives printing in grey. A non-finite value fills its row
// in red and prints as nan/inf; a value a log axis cannot show (0) has no bar and prints as 0. A model
// with more than kMaxLayerRows layers shows its flagged layers (the first kMaxLayerRows of them when
// there are more) and the first of the others, in model order, and the caption says how many rows
// were drawn. Names longer than kMaxLayerName
// characters are cut with an ellipsis; every row's <title> holds the whole name and value.
constexpr size_t kMaxLayerRows = 40;
constexpr size_t kMaxLayerName = 36;

std::string LayerPlot(const LayerSeries& s) {
  if (s.layers.empty()) return "";
  constexpr double kW = 640, kLeft = 8, kRight = 632, kRow = 44, kLine = 16;
  // Which rows to draw: all of them, or every flagged one and the first others up to the limit.
  std::vector<const LayerValue*> rows;
  size_t flagged = 0;
  for (const LayerValue& v : s.layers) flagged += v.offending;
  size_t others = flagged >= kMaxLayerRows ? 0 : kMaxLayerRows - flagged;
  for (const LayerValue& v : s.layers) {
    if (v.offending || others > 0) {
      if (!v.offending) --others;
      rows.push_back(&v);
    }
    if (rows.size() == kMaxLayerRows) break;
  }
  // The range: every finite value and threshold (positive ones only on a log axis), from 0 on a
  // linear one.
  std::vector<double> values;
  for (const LayerValue* v : rows) values.push_back(v->value);
  if (s.has_above) values.push_back(s.above);
  if (s.has_below) values.push_back(s.below);
  double lo = s.log_scale ? std::numeric_limits<double>::infinity() : 0, hi = s.log_scale ? -lo : 0;
  for (double v : values) {
    if (!std::isfinite(v) || (s.log_scale && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (s.log_scale) {
    if (!std::isfinite(lo)) lo = 1e-3, hi = 1;
    lo = std::pow(10, std::floor(std::log10(lo)));
    hi = std::pow(10, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
  } else if (hi <= lo) {
    hi = lo + 1;
  } else {
    // Up to a round 1, 2 or 5 times a power of ten, so a share of 0.75 is drawn as three quarters.
    double p = std::pow(10, std::floor(std::log10(hi))), m = hi / p;
    hi = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  auto X = [&](double v) {
    double t = s.log_scale ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return kLeft + std::clamp(t, 0.0, 1.0) * (kRight - kLeft);
  };
  struct Limit {
    double value;
    std::string text;
  };
  std::vector<Limit> limits;
  if (s.has_above && std::isfinite(s.above)) limits.push_back({s.above, "offends above " + Num(s.above)});
  if (s.has_below && std::isfinite(s.below) && (!s.log_scale || s.below > 0)) {
    limits.push_back({s.below, "offends below " + Num(s.below)});
  }
  const double top = 8 + kLine * limits.size();
  const double bottom = top + kRow * rows.size();
  const double height = bottom + 26;
  std::string what = s.name + " per layer (probe " + s.probe + ")";
  std::string caption = what + ": " + std::to_string(s.layers.size()) + (s.layers.size() == 1 ? " layer, " : " layers, ") +
                        std::to_string(flagged) + " flagged";
  if (rows.size() < s.layers.size()) {
    caption += "; " + std::to_string(rows.size()) + (rows.size() < flagged ? " shown, all flagged" : " shown, every flagged one among them");
  }
  for (const Limit& l : limits) caption += "; " + l.text;
  if (s.log_scale) caption += " (log scale)";
  std::string svg = "<svg class=\"layers\" viewBox=\"0 0 " + F(kW) + " " + F(height) + "\" role=\"img\" data-bars=\"" +
                    std::to_string(rows.size()) + "\" data-flagged=\"" + std::to_string(flagged) + "\" aria-label=\"" +
                    HtmlText(caption) + "\">";
  for (size_t i = 0; i < rows.size(); ++i) {
    const LayerValue& v = *rows[i];
    const double y = top + kRow * i;
    std::string name = v.layer;
    if (v.layer.size() > kMaxLayerName) {  // cut at a character boundary, before an ellipsis
      size_t cut = kMaxLayerName - 1;
      while (cut > 0 && (static_cast<unsigned char>(v.layer[cut]) & 0xC0) == 0x80) --cut;
      name = v.layer.substr(0, cut) + "\xE2\x80\xA6";
    }
    const bool finite = std::isfinite(v.value);
    std::string value = finite ? Num(v.value) : std::isnan(v.value) ? "nan" : v.value > 0 ? "inf" : "-inf";
    std::string title = "<title>" + HtmlText(v.layer + ": " + s.name + " " + value + (v.offending ? ", flagged by " + s.probe : "")) + "</title>";
    const std::string off = v.offending || !finite ? " off" : "";
    svg += "<g>" + title + "<text class=\"name" + off + "\" x=\"" + F(kLeft) + "\" y=\"" + F(y + 16) + "\">" +
           HtmlText(name + (v.offending ? " (flagged)" : "")) + "</text><text class=\"value" + off + "\" x=\"" + F(kRight) +
           "\" y=\"" + F(y + 16) + "\" text-anchor=\"end\">" + HtmlText(value) + "</text>";
    double x0 = s.log_scale ? kLeft : X(0), x1 = x0;
    if (!finite) x0 = kLeft, x1 = kRight;
    else if (!s.log_scale || v.value > 0) x1 = X(v.value);
    if (x1 < x0) std::swap(x0, x1);
    svg += "<rect class=\"bar" + off + "\" x=\"" + F(x0) + "\" y=\"" + F(y + 22) + "\" width=\"" + F(x1 - x0) +
           "\" height=\"14\"/></g>";
  }
  // The axis: its two ends and, on a log axis, each decade between.
  svg += "<path class=\"axis\" d=\"M" + F(kLeft) + " " + F(bottom) + "H" + F(kRight) + "\"/>";
  std::vector<double> ticks = {lo, hi};
  if (s.log_scale) {
    for (double t = lo * 10; t < hi * 0.99; t *= 10) ticks.push_back(t);
  } else {
    ticks.push_back((lo + hi) / 2);
  }
  // A tick is labelled when its label keeps clear of those already placed (the ends first), at the
  // width a label takes on a phone (about 12 units a character, as the narrow-page font is 20 units).
  std::vector<std::pair<double, double>> placed;  // [from, to] of each label drawn
  for (size_t i = 0; i < ticks.size(); ++i) {
    double t = ticks[i], x = X(t);
    svg += "<path class=\"axis\" d=\"M" + F(x) + " " + F(bottom) + "V" + F(bottom + 4) + "\"/>";
    std::string text = Num(t);
    double w = 12.0 * text.size();
    double from = i == 0 ? x : i == 1 ? x - w : x - w / 2, to = from + w;
    bool clear = std::all_of(placed.begin(), placed.end(),
                             [&](const std::pair<double, double>& p) { return to + 8 < p.first || from > p.second + 8; });
    if (!clear) continue;
    placed.push_back({from, to});
    const char* anchor = i == 0 ? "start" : i == 1 ? "end" : "middle";
    svg += "<text x=\"" + F(x) + "\" y=\"" + F(bottom + 18) + "\" text-anchor=\"" + anchor + "\">" + HtmlText(text) + "</text>";
  }
  for (size_t i = 0; i < limits.size(); ++i) {
    double x = X(limits[i].value);
    const char* anchor = x > kW / 2 ? "end" : "start";
    svg += "<path class=\"limit\" d=\"M" + F(x) + " " + F(8 + kLine * i + 4) + "V" + F(bottom) + "\"><title>" +
           HtmlText(limits[i].text) + "</title></path><text class=\"limit-label\" x=\"" + F(x > kW / 2 ? x - 4 : x + 4) +
           "\" y=\"" + F(8 + kLine * i + 10) + "\" text-anchor=\"" + anchor + "\">" + HtmlText(limits[i].text) + "</text>";
  }
  svg += "</svg>";
  return "<figure>" + svg + "<figcaption>" + HtmlText(caption) + "</figcaption></figure>\n";
}

std::string Traceback(const Incident& inc) {
  std::string out = "<pre class=\"traceback\">";
  for (const TracebackLine& l : TracebackLines(inc)) {
    if (l.culprit) out += "<mark title=\"the failing frame of your code\">" + HtmlText(l.text) + "</mark>";
    else out += HtmlText(l.text) + "\n";
  }
  return out + "</pre>\n";
}

// Text with its line breaks kept.
std::string Lines(const std::string& text) {
  std::string out;
  for (char c : HtmlText(text)) {
    if (c == '\n') out += "<br>";
    else out.push_back(c);
  }
  return out;
}

std::string DiagnosisHtml(const Report& report, const Diagnosis& d, bool top) {
  std::string out = std::string("<article class=\"diagnosis") + (top ? " top" : "") + "\">\n";
  out += "<h3><span class=\"category\">" + HtmlText(d.category) + "</span> " + HtmlText(d.title) + "</h3>\n";
  out += "<p class=\"meta\">confidence " + Percent(d.confidence) + " · rule <code>" + HtmlText(d.rule) + "</code>" +
         (d.from_hypothesis.empty() ? "" : ", its cause <code>" + HtmlText(d.from_hypothesis) + "</code>") +
         (d.occurrences > 1 ? " · seen " + std::to_string(d.occurrences) + " times" : "") + "</p>\n";
  if (const Incident* inc = IncidentOf(report, d)) {
    out += "<p class=\"where\">" + HtmlText(Where(*inc, SourceName(report))) + "</p>\n";
    if (inc->kind != Incident::Kind::kSignal) out += Traceback(*inc);
  }
  if (!d.ranking.empty()) out += "<p class=\"ranking\">" + HtmlText(d.ranking) + "</p>\n";
  out += "<p class=\"explanation\">" + Lines(d.explanation) + "</p>\n";
  if (!d.evidence.empty()) {
    out += "<h4>Evidence from the metrics</h4>\n<ul>\n";
    for (const std::string& e : d.evidence) out += "<li>" + HtmlText(e) + "</li>\n";
    out += "</ul>\n";
  }
  for (const SeriesEvidence& s : d.series) out += Plot(d, s);
  if (!d.hypotheses.empty()) {
    out += "<h4>Likely causes, most likely first</h4>\n<ol class=\"hypotheses\">\n";
    for (const Hypothesis& h : d.hypotheses) {
      out += "<li><p>" + HtmlText(h.text);
      if (h.status != HypothesisStatus::kUntested) {
        const std::string status = HypothesisStatusName(h.status);
        out += " <span class=\"status " + status + "\">" + status + "</span>";
      }
      out += "</p><dl>";
      if (!h.test.empty()) out += "<dt>test</dt><dd><code>" + Lines(h.test) + "</code></dd>";
      if (!h.fix.empty()) out += "<dt>fix</dt><dd>" + Lines(h.fix) + "</dd>";
      if (!h.evidence.empty()) out += "<dt>evidence</dt><dd>" + Lines(h.evidence) + "</dd>";
      out += "</dl></li>\n";
    }
    out += "</ol>\n";
  }
  if (!d.layer_series.empty()) {
    out += "<h4>What the probes measured, layer by layer</h4>\n";
    for (const LayerSeries& s : d.layer_series) out += LayerPlot(s);
  }
  if (!d.checks.empty()) {
    out += "<h4>Checks you can run</h4>\n<pre class=\"checks\">";
    for (const std::string& c : d.checks) out += HtmlText(c) + "\n";
    out += "</pre>\n";
  }
  if (!d.verify.empty()) out += "<p><strong>Verify the fix:</strong> " + Lines(d.verify) + "</p>\n";
  return out + "</article>\n";
}

std::string InputHtml(const Report& report, size_t index) {
  std::string src = SourceName(report);
  // A report not read from a log (a probe checkup, a Guard's) has no lines to count.
  std::string out = "<section class=\"input\" id=\"input-" + std::to_string(index + 1) + "\">\n<h2>" + HtmlText(src) +
                    (report.lines > 0 ? " <small class=\"meta\">" + std::to_string(report.lines) + " lines</small>" : "") +
                    "</h2>\n";
  if (report.diagnoses.empty()) {
    out += "<p>No PyTorch failure recognised (" + std::to_string(report.incidents.size()) + " incident(s)).</p>\n";
    for (const Incident& inc : report.incidents) {
      if (inc.kind == Incident::Kind::kLogLine) continue;
      out += "<p class=\"where\">Unrecognised, line " + std::to_string(inc.line_start) + ":</p>\n" + Traceback(inc);
    }
  }
  for (size_t k = 0; k < report.diagnoses.size(); ++k) {
    if (k == 1) out += "<details><summary>Also possible (" + std::to_string(report.diagnoses.size() - 1) + ")</summary>\n";
    out += DiagnosisHtml(report, report.diagnoses[k], k == 0);
  }
  if (report.diagnoses.size() > 1) out += "</details>\n";
  if (!report.warnings.empty()) {
    out += "<h4>Notes on the input</h4>\n<ul>\n";
    for (const Problem& p : report.warnings) out += "<li>" + HtmlText(p.ToString()) + "</li>\n";
    out += "</ul>\n";
  }
  if (std::string rules = RuleSourcesNote(report); !rules.empty()) out += "<p class=\"where\">" + HtmlText(rules) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace

std::string ToHtml(const std::vector<Report>& reports) {
  std::string title = reports.size() == 1 ? "triage: " + SourceName(reports.front())
                                          : "triage: " + std::to_string(reports.size()) + " inputs";
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>" + HtmlText(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>" + HtmlText(title) + "</h1>\n";
  if (reports.size() > 1) {
    out += "<nav><ul>\n";
    for (size_t i = 0; i < reports.size(); ++i) {
      const Report& r = reports[i];
      std::string verdict = r.diagnoses.empty() ? "no failure recognised" : r.diagnoses.front().category;
      out += "<li><a href=\"#input-" + std::to_string(i + 1) + "\">" + HtmlText(SourceName(r)) + "</a>: " +
             HtmlText(verdict) + "</li>\n";
    }
    out += "</ul></nav>\n";
  }
  for (size_t i = 0; i < reports.size(); ++i) out += InputHtml(reports[i], i);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace triage
