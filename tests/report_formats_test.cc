// The Markdown, GitHub-annotation and HTML reports: on every corpus log (structure, escaping, the
// traceback with its failing frame, every plotted point) and end to end through `triage --format`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.h"
#include "corpus_reports.h"
#include "diagnose/escape.h"
#include "triage/triage.h"

namespace {

using namespace triage_test;
namespace fs = std::filesystem;

size_t Count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

// Markdown with its code (fenced blocks and code spans) removed: what GitHub renders as markup.
std::string OutsideCode(const std::string& md) {
  std::string out, fence;
  size_t pos = 0;
  while (pos < md.size()) {
    size_t nl = md.find('\n', pos);
    std::string line = md.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? md.size() : nl + 1;
    size_t ticks = line.find_first_not_of('`');
    if (ticks == std::string::npos) ticks = line.size();
    if (ticks >= 3 && (fence.empty() || (line.find_first_not_of('`') == std::string::npos && ticks >= fence.size()))) {
      fence = fence.empty() ? line.substr(0, ticks) : "";
      continue;
    }
    if (!fence.empty()) continue;
    // Code spans: a run of N backticks up to the next run of exactly N.
    for (size_t i = 0; i < line.size();) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        out += line.substr(i, 2);
        i += 2;
        continue;
      }
      if (line[i] != '`') {
        out += line[i++];
        continue;
      }
      size_t n = line.find_first_not_of('`', i) - i;
      size_t close = line.find(std::string(n, '`'), i + n);
      while (close != std::string::npos && close + n < line.size() && line[close + n] == '`') {
        close = line.find(std::string(n, '`'), line.find_first_not_of('`', close));
      }
      i = close == std::string::npos ? line.size() : close + n;
    }
    out += "\n";
  }
  EXPECT_TRUE(fence.empty()) << "an unclosed fence:\n" << md;
  return out;
}

TEST(MarkdownReport, EveryCorpusReportIsMarkupOnlyWhereWeMeantIt) {
  ASSERT_GE(CorpusReports().size(), 300u);
  for (const triage::Report& r : CorpusReports()) {
    std::string md = triage::ToMarkdown(r);
    std::string prose = OutsideCode(md);
    // The only HTML is ours: <details> and <summary>; log text's < > are character references.
    for (size_t at = prose.find('<'); at != std::string::npos; at = prose.find('<', at + 1)) {
      std::string tag = prose.substr(at, prose.find('>', at) - at + 1);
      EXPECT_TRUE(tag == "<details>" || tag == "</details>" || tag == "<summary>" || tag == "</summary>")
          << r.source << ": " << tag;
    }
    EXPECT_EQ(Count(md, "<details>"), Count(md, "</details>")) << r.source;
    if (r.diagnoses.empty()) {
      EXPECT_NE(md.find("No PyTorch failure recognised"), std::string::npos) << r.source;
      continue;
    }
    const triage::Diagnosis& d = r.diagnoses.front();
    EXPECT_NE(md.find("### `" + d.category + "` " + triage::MarkdownText(d.title) + "\n"), std::string::npos) << md;
    if (r.diagnoses.size() > 1) {
      EXPECT_NE(md.find("<details><summary>Also possible (" + std::to_string(r.diagnoses.size() - 1) + ")</summary>"),
                std::string::npos) << md;
    }
    if (d.incident < 0 || r.incidents[d.incident].kind == triage::Incident::Kind::kSignal) continue;
    // The traceback, frame by frame, the failing frame marked.
    const triage::Incident& inc = r.incidents[d.incident];
    for (size_t i = 0; i < inc.frames.size(); ++i) {
      const triage::Frame& f = inc.frames[i];
      std::string line = "  File \"" + triage::PrintableText(f.file) + "\", line " + std::to_string(f.line) + ", in " +
                         triage::PrintableText(f.function);
      EXPECT_NE(md.find(line + (static_cast<int>(i) == inc.culprit ? "    <-- failing frame of your code\n" : "\n")),
                std::string::npos) << r.source << ": " << line << "\n" << md;
    }
  }
}

TEST(MarkdownReport, FromTheCommandLine) {
  ShellResult r = Shell(Triage("--format markdown " + kFixture));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "## triage: `" + kFixture + "`\n\n"
            "### `shape.matmul_mismatch` Linear layer gets a different number of features than it was built for\n\n"
            "Confidence 80%, rule `linear-features`. `RuntimeError in program.py:12 in train_step: return model(x), "
            "lines 1-11 of " + kFixture + "`\n\n"
            "```text\n"
            "Traceback (most recent call last):\n"
            "  File \"/work/main/tests/fixtures/chained_direct_cause/program.py\", line 12, in train_step    "
            "<-- failing frame of your code\n"
            "    return model(x)\n"
            "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1194, in _call_impl\n"
            "    return forward_call(*input, **kwargs)\n"
            "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 114, in forward\n"
            "    return F.linear(input, self.weight, self.bias)\n"
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n"
            "```\n\n"
            "The layer expects 64 input features but receives 57600\\.\n\n"
            "**Likely causes, most likely first:**\n\n"
            "1. A feature map flattened to 57600 features\\.\n"
            "   - test: `print(x.shape) before the layer`\n"
            "   - fix: Linear\\(57600, 128\\)\n\n"
            "**Verify the fix:** one step runs\n\n"
            "\n*rules besides the bundled ones: " + triage::MarkdownText(RuleDir()) + " \\(\\-\\-rules\\)*\n");
}

TEST(GithubAnnotations, EveryCorpusDiagnosisIsOneCommandAtItsFailingFrame) {
  int with_file = 0;
  for (const triage::Report& r : CorpusReports()) {
    std::string out = triage::ToGithubAnnotations(r);
    EXPECT_EQ(Count(out, "\n"), r.diagnoses.size()) << r.source << "\n" << out;
    EXPECT_EQ(Count(out, "::error "), r.diagnoses.empty() ? 0u : 1u) << out;
    EXPECT_EQ(out.find('\r'), std::string::npos);
    for (size_t k = 0; k < r.diagnoses.size(); ++k) {
      const triage::Diagnosis& d = r.diagnoses[k];
      size_t at = out.find(k == 0 ? "::error " : "::warning ");
      ASSERT_NE(at, std::string::npos);
      if (d.incident >= 0 && r.incidents[d.incident].culprit >= 0) {
        const triage::Incident& inc = r.incidents[d.incident];
        const triage::Frame& f = inc.frames[inc.culprit];
        EXPECT_NE(out.find("file=" + triage::WorkflowCommandText(f.file, true) + ",line=" + std::to_string(f.line) + ","),
                  std::string::npos) << out;
        ++with_file;
      }
      EXPECT_NE(out.find("title=" + triage::WorkflowCommandText(d.category, true) + " ("), std::string::npos) << out;
    }
  }
  EXPECT_GT(with_file, 150);
}

TEST(GithubAnnotations, FromTheCommandLineRelativeToTheWorkspace) {
  ShellResult r = Shell("GITHUB_WORKSPACE=/work/main/ " + Triage("--format github " + kFixture));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "::error file=tests/fixtures/chained_direct_cause/program.py,line=12,"
            "title=shape.matmul_mismatch (80%25)%3A Linear layer gets a different number of features than it was built "
            "for::RuntimeError in program.py:12 in train_step: return model(x), lines 1-11 of " + kFixture +
            "%0AThe layer expects 64 input features but receives 57600.%0Afix: Linear(57600, 128)\n");
  // Nothing diagnosed: no annotation at all (a healthy CI log stays clean).
  EXPECT_EQ(Shell("echo 'epoch 1 loss 0.3' | " + Triage("--format github")).out, "");
}

// Checks that tags nest and close (void elements and self-closed SVG elements aside); returns the
// first problem, or "".
std::string TagProblem(const std::string& html) {
  std::vector<std::string> open;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    size_t end = html.find('>', at);
    if (end == std::string::npos) return "unclosed '<'";
    std::string tag = html.substr(at + 1, end - at - 1);
    if (tag.rfind("!DOCTYPE", 0) == 0) continue;
    bool closing = !tag.empty() && tag[0] == '/';
    std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", closing ? 1 : 0) - (closing ? 1 : 0));
    if (name == "meta" || name == "br" || (!tag.empty() && tag.back() == '/')) continue;
    if (!closing) {
      open.push_back(name);
    } else {
      if (open.empty() || open.back() != name) return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

// Note: [Inert CSS in HTML text]. A model loader's frame (`model_zoo.load_url(settings['url'])`) or any
// log line with url(, @import or @font-face keeps its text but never those sequences.
TEST(HtmlReport, LogTextFormsNoCssResourceReference) {
  EXPECT_EQ(triage::HtmlText("model_zoo.load_url(settings['url'])"), "model_zoo.load_url&#40;settings[&#39;url&#39;])");
  EXPECT_EQ(triage::HtmlText("URL(x) @IMPORT a; @font-face b"), "URL&#40;x) &#64;IMPORT a; &#64;font-face b");
  // Other parentheses and at-signs are left as they are.
  EXPECT_EQ(triage::HtmlText("curl(x) f(y) user@host @ 0x1f"), "curl&#40;x) f(y) user@host @ 0x1f");
  EXPECT_EQ(triage::HtmlText("ur(l) (url"), "ur(l) (url");
}

TEST(HtmlReport, EveryCorpusReportIsOneWellFormedSelfContainedPage) {
  int plots = 0;
  for (const triage::Report& r : CorpusReports()) {
    std::string html = triage::ToHtml({r});
    EXPECT_EQ(TagProblem(html), "") << r.source;
    EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
    for (const char* outside : {"<script", "<link", "<img", "<iframe", "<object", "src=\"", "href=\"http", "url(", "@import", "@font-face"}) {
      EXPECT_EQ(html.find(outside), std::string::npos) << r.source << ": " << outside;
    }
    // Every point of every series is drawn: finite values as dots, the others as red marks.
    size_t finite = 0, nonfinite = 0;
    for (const triage::Diagnosis& d : r.diagnoses) {
      for (const triage::SeriesEvidence& s : d.series) {
        for (const auto& p : s.points) (std::isfinite(p.second) ? finite : nonfinite)++;
        ++plots;
      }
    }
    EXPECT_EQ(Count(html, "<circle class=\"pt\""), finite) << r.source;
    EXPECT_EQ(Count(html, "<path class=\"nonfinite\""), nonfinite) << r.source;
    if (r.diagnoses.empty()) continue;
    const triage::Diagnosis& d = r.diagnoses.front();
    EXPECT_NE(html.find("<h3><span class=\"category\">" + triage::HtmlText(d.category) + "</span> " +
                        triage::HtmlText(d.title) + "</h3>"), std::string::npos) << r.source;
    if (d.incident >= 0) {
      const triage::Incident& inc = r.incidents[d.incident];
      if (inc.kind != triage::Incident::Kind::kSignal && inc.culprit >= 0) {
        const triage::Frame& f = inc.frames[inc.culprit];
        EXPECT_NE(html.find("<mark title=\"the failing frame of your code\">  File &quot;" + triage::HtmlText(f.file) +
                            "&quot;, line " + std::to_string(f.line)), std::string::npos) << r.source;
      }
    }
    for (const triage::Hypothesis& h : d.hypotheses) {
      EXPECT_NE(html.find("<li><p>" + triage::HtmlText(h.text)), std::string::npos) << r.source;
    }
  }
  EXPECT_GT(plots, 30) << "the corpus no longer has metric series to plot";
}

TEST(HtmlReport, PlotMarksOnsetNonFiniteStepsAndLnC) {
  triage::Report r;
  r.source = "train.log";
  triage::Diagnosis d;
  d.rule = "nan";
  d.category = "numerics.nan_loss";
  d.confidence = 0.9;
  d.title = "Loss became NaN";
  d.captures["classes"] = "10";
  triage::SeriesEvidence s;
  s.name = "loss";
  s.axis = "step";
  for (int i = 0; i < 10; ++i) s.points.push_back({i * 10.0, i < 8 ? 2.3 - 0.1 * i : std::nan("")});
  s.has_onset = true;
  s.onset = 80;
  d.series.push_back(s);
  r.diagnoses.push_back(d);
  std::string html = triage::ToHtml({r});
  EXPECT_EQ(Count(html, "<circle class=\"pt\""), 8u);
  EXPECT_EQ(Count(html, "<path class=\"nonfinite\""), 2u);
  EXPECT_NE(html.find("<title>step 80: loss nan</title>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>onset at step 80</title>"), std::string::npos);
  EXPECT_NE(html.find(">ln 10 = 2.303 (uniform guessing)</text>"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"loss by step: 8 values, 2 not finite, onset at step 80\""), std::string::npos);
  // The onset line sits at x = 80 of 0..90 on the plot area (56..628).
  EXPECT_NE(html.find("<path class=\"onset\" d=\"M564.4 14.0V204.0\">"), std::string::npos) << html;
}

// The numbers of the attribute `name` in each tag starting with `tag`, in page order.
std::vector<double> Attr(const std::string& html, const std::string& tag, const std::string& name) {
  std::vector<double> out;
  for (size_t at = html.find(tag); at != std::string::npos; at = html.find(tag, at + 1)) {
    size_t end = html.find('>', at);
    size_t a = html.find(" " + name + "=\"", at);
    if (a == std::string::npos || a > end) continue;
    out.push_back(std::stod(html.substr(a + name.size() + 3)));
  }
  return out;
}

// Note: [Healthy band]: shaded behind the points, the range taking in its edge even when every point
// lies above it, its label in the caption.
TEST(HtmlReport, PlotShadesTheHealthyBand) {
  triage::Report r;
  triage::Diagnosis d;
  d.rule = "flat";
  d.category = "training.not_learning";
  d.confidence = 0.9;
  triage::SeriesEvidence s;
  s.name = "loss";
  s.axis = "step";
  for (int i = 0; i < 10; ++i) s.points.push_back({i * 10.0, 2.30 + 0.01 * (i % 2)});
  s.has_band = true;
  s.band_low = -INFINITY;
  s.band_high = 2.0;
  s.band_label = "healthy: below 2 (the plateau less 13%)";
  d.series.push_back(s);
  r.diagnoses.push_back(d);
  std::string html = triage::ToHtml({r});
  EXPECT_EQ(TagProblem(html), "");
  EXPECT_NE(html.find("data-band=\"1\""), std::string::npos);
  // The y range takes in the edge (2.0) below every point (up to 2.31) and a quarter of that span
  // more (down to 1.9225), then 5% room each side: the band fills from y(2.0) = 160.8 down to the
  // plot's foot (204), a fifth of the plot.
  std::vector<double> y = Attr(html, "<rect class=\"band\"", "y"), h = Attr(html, "<rect class=\"band\"", "height");
  ASSERT_EQ(y.size(), 1u);
  EXPECT_NEAR(y[0], 160.8, 0.11);
  EXPECT_NEAR(y[0] + h[0], 204, 0.11);
  EXPECT_EQ(Count(html, "<path class=\"band-edge\""), 1u);
  EXPECT_NE(html.find(">healthy below 2</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("<figcaption>loss by step: 10 values; healthy: below 2 (the plateau less 13%)</figcaption>"),
            std::string::npos) << html;
  // The band is behind the series: drawn before it.
  EXPECT_LT(html.find("<rect class=\"band\""), html.find("<path class=\"series\""));
  // Without a band, none of it.
  r.diagnoses[0].series[0].has_band = false;
  html = triage::ToHtml({r});
  EXPECT_EQ(html.find("class=\"band"), std::string::npos);
  EXPECT_EQ(html.find("data-band"), std::string::npos);
}

// Note: [Layer plots]: one bar per layer inside the plot, the thresholds as lines, the flagged layers
// marked, non-finite and zero values on a log axis, long names cut, and many layers capped.
TEST(HtmlReport, LayerPlotsDrawEveryLayerWithThresholdsAndFlaggedOnes) {
  triage::Report r;
  triage::Diagnosis d;
  d.rule = "probe:grad-health";
  d.category = "numerics.exploding_gradients";
  d.confidence = 0.8;
  triage::LayerSeries g;
  g.probe = "grad-health";
  g.name = "grad_norm";
  g.log_scale = true;
  g.has_above = true;
  g.above = 100;
  g.has_below = true;
  g.below = 1e-7;
  const std::string long_name = "encoder.layers.11.attention.output.dense.weight";
  g.layers = {{"fc1.weight", 0.5, false}, {"fc2.weight", 2500, true}, {"fc3.weight", std::nan(""), true},
              {"unused.weight", 0, true}, {long_name, 1e-9, true}};
  triage::LayerSeries dead;
  dead.probe = "dead-activations";
  dead.name = "dead_fraction";
  dead.has_above = true;
  dead.above = 0.5;
  for (int i = 0; i < 50; ++i) dead.layers.push_back({"relu after fc" + std::to_string(i), i == 45 ? 0.9 : 0.1, i == 45});
  d.layer_series = {g, dead};
  r.diagnoses.push_back(d);
  std::string html = triage::ToHtml({r});
  EXPECT_EQ(TagProblem(html), "");
  EXPECT_EQ(Count(html, "<svg class=\"layers\""), 2u);
  EXPECT_NE(html.find("<svg class=\"layers\" viewBox=\"0 0 640.0 286.0\" role=\"img\" data-bars=\"5\" data-flagged=\"4\""),
            std::string::npos) << html;
  // Every bar inside the plot's 8..632.
  std::vector<double> x = Attr(html, "<rect class=\"bar", "x"), w = Attr(html, "<rect class=\"bar", "width");
  ASSERT_EQ(x.size(), 5u + 40u) << "50 ReLUs: 40 rows, the flagged one among them";
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_GE(x[i], 8);
    EXPECT_LE(x[i] + w[i], 632.05);
  }
  // Log axis from 1e-9 to 1e4: 0.5 ends at (log10 0.5 + 9) / 13 of the width, 2500 at (3.398 + 9) / 13.
  EXPECT_NEAR(w[0], (std::log10(0.5) + 9) / 13 * 624, 0.1);
  EXPECT_NEAR(w[1], (std::log10(2500.0) + 9) / 13 * 624, 0.1);
  EXPECT_NEAR(w[2], 624, 0.05) << "a NaN fills its row";
  EXPECT_NEAR(w[3], 0, 0.05) << "0 has no bar on a log axis";
  EXPECT_EQ(Count(html, "<rect class=\"bar off\""), 4u + 1u);
  EXPECT_NE(html.find(">fc2.weight (flagged)</text>"), std::string::npos);
  EXPECT_NE(html.find(">fc1.weight</text>"), std::string::npos);
  EXPECT_NE(html.find(">nan</text>"), std::string::npos);
  EXPECT_NE(html.find(">encoder.layers.11.attention.output.\xE2\x80\xA6 (flagged)</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>" + long_name + ": grad_norm 1e-09, flagged by grad-health</title>"), std::string::npos);
  // Both thresholds, labelled, and in the caption.
  EXPECT_NE(html.find(">offends above 100</text>"), std::string::npos);
  EXPECT_NE(html.find(">offends below 1e-07</text>"), std::string::npos);
  EXPECT_EQ(Count(html, "<path class=\"limit\""), 3u);
  EXPECT_NE(html.find("<figcaption>grad_norm per layer (probe grad-health): 5 layers, 4 flagged; offends above 100; "
                      "offends below 1e-07 (log scale)</figcaption>"), std::string::npos) << html;
  EXPECT_NE(html.find("<figcaption>dead_fraction per layer (probe dead-activations): 50 layers, 1 flagged; 40 shown, "
                      "every flagged one among them; offends above 0.5</figcaption>"), std::string::npos) << html;
  EXPECT_NE(html.find(">relu after fc45 (flagged)</text>"), std::string::npos);
  EXPECT_EQ(html.find(">relu after fc46</text>"), std::string::npos) << "the 41st unflagged ReLU is left out";
  // The dead-unit threshold 0.5 on a linear axis from 0 to 1 (0.9 rounded up): at 8 + 0.5 * 624.
  EXPECT_NE(html.find("<path class=\"limit\" d=\"M320.0 12.0V"), std::string::npos) << html;
  // A probe report read no log: no "0 lines" under its heading.
  EXPECT_EQ(html.find(" lines</small>"), std::string::npos);
  r.lines = 12;
  EXPECT_NE(triage::ToHtml({r}).find(" <small class=\"meta\">12 lines</small></h2>"), std::string::npos);
}

TEST(HtmlReport, LogTextIsShownNeverRun) {
  std::string log = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
                    "ZorkError: <script>alert(\"x\")</script> & <img src=x onerror=alert(1)>\n";
  TempDir dir("triage_html_escape");
  std::ofstream(dir.path + "/log.txt") << log;
  ShellResult r = Shell(Triage("--format html " + dir.path + "/log.txt"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.find("<script"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("<img"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ZorkError: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x "
                       "onerror=alert(1)&gt;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("File &quot;&lt;stdin&gt;&quot;, line 1, in &lt;module&gt;"), std::string::npos) << r.out;
  EXPECT_EQ(TagProblem(r.out), "");
}

TEST(HtmlReport, SeveralInputsInOnePage) {
  TempDir dir("triage_html_many");
  std::ofstream(dir.path + "/ok.log") << "epoch 1 loss 0.5\n";
  ShellResult r = Shell(Triage("--format html " + kFixture + " " + dir.path + "/ok.log"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(Count(r.out, "<!DOCTYPE html>"), 1u);
  EXPECT_EQ(Count(r.out, "<section class=\"input\""), 2u);
  EXPECT_NE(r.out.find("<title>triage: 2 inputs</title>"), std::string::npos);
  EXPECT_NE(r.out.find("<a href=\"#input-1\">" + kFixture + "</a>: shape.matmul_mismatch</li>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<a href=\"#input-2\">" + dir.path + "/ok.log</a>: no failure recognised</li>"), std::string::npos);
  EXPECT_EQ(TagProblem(r.out), "");
  EXPECT_EQ(Shell(Triage("--format html --follow " + kFixture + " 2>/dev/null")).status, 2);
}

}  // namespace
