// Signal rules: the `signal:` schema in the loader, the detectors on real training logs, folding
// into the shared ranking, and the series evidence in the reports.
#include "rules/signal_rules.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "rules/rule.h"
#include "rules/yaml_tree.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

const std::string kCorpus = std::string(TRIAGE_SOURCE_DIR) + "/corpus/signals";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string RuleWithSignal(const std::string& signal) {
  return "id: s\ncategory: training.not_learning\ntitle: t\nsignal: " + signal +
         "\nexplain: 'e {series}'\nhypotheses:\n  - { id: h, text: t, test: t, fix: f }\nverify: v\n"
         "examples:\n  - match: 'loss=1'\n";
}

// A detector's spec from a `signal:` mapping; null (and a failed expectation) on any problem.
std::shared_ptr<const SignalSpec> Spec(const char* yaml) {
  std::vector<SignalProblem> problems;
  YamlTree tree;
  LoadYamlTree(yaml, &tree);
  std::shared_ptr<const SignalSpec> spec = ParseSignalSpec(tree.Root(), &problems);
  EXPECT_TRUE(problems.empty()) << yaml;
  return problems.empty() ? spec : nullptr;
}

// Runs a detector over the metric series of a log's text.
bool Holds(const SignalSpec& spec, const std::string& text, SignalHit* hit) {
  MetricCollector m;
  m.Feed(text);
  m.FinishInput();
  return DetectSignal(spec, m, hit);
}

TEST(SignalRuleLoader, ReportsEveryBadSignalWithItsCode) {
  struct Case {
    const char* signal;
    const char* code;
  };
  const Case kCases[] = {
      {"{ detector: wobble }", "unknown-detector"},
      {"{ series: loss }", "missing-key"},
      {"{ detector: flat, series: lossy }", "unknown-series"},
      {"{ detector: flat, tolerance: -1 }", "bad-value"},
      {"{ detector: flat, tolerance: [1] }", "bad-value"},
      {"{ detector: flat, windw: 5 }", "unknown-key"},
      {"{ detector: growth, evidence_for: [numerics.nope] }", "unknown-category"},
      {"flat", "bad-type"},
  };
  for (const Case& c : kCases) {
    LoadResult r = LoadRulesFromStrings({{"<s>", RuleWithSignal(c.signal)}});
    bool found = false;
    std::string got;
    for (const Problem& p : r.problems) {
      got += p.ToString() + "\n";
      found = found || p.code == c.code;
    }
    EXPECT_TRUE(found) << c.signal << ": expected " << c.code << ", got:\n" << got;
  }
}

TEST(SignalRuleLoader, RejectsMatchAndSignalTogetherAndUnknownTemplateNames) {
  std::string both = RuleWithSignal("{ detector: flat }") + "match: { message: 'loss is flat' }\n";
  LoadResult r = LoadRulesFromStrings({{"<s>", both}});
  EXPECT_FALSE(r.ok());
  std::string bad_template = RuleWithSignal("{ detector: flat }");
  bad_template.replace(bad_template.find("{series}"), 8, "{ratio}");  // a growth capture, not a flat one
  r = LoadRulesFromStrings({{"<s>", bad_template}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.problems.front().code, "unknown-capture") << r.problems.front().ToString();
}

TEST(SignalRuleLoader, FillsDefaultsAndKeepsOverrides) {
  std::vector<SignalProblem> problems;
  YamlTree tree;
  LoadYamlTree("{ detector: spike, factor: 20 }", &tree);
  std::shared_ptr<const SignalSpec> spec = ParseSignalSpec(tree.Root(), &problems);
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(spec->params.at("factor"), 20);
  EXPECT_EQ(spec->params.at("window"), 10);
  ASSERT_EQ(spec->series.size(), 1u);
  EXPECT_EQ(spec->series[0], SeriesId::kLoss);
}

// Every case of corpus/signals: the expected category first, and nothing at all for the healthy runs.
TEST(SignalRuleLoader, ExplainShowsTheDetectorAndItsParameters) {
  LoadResult r = LoadRulesFromStrings({{"<s>", RuleWithSignal("{ detector: spike, factor: 20, evidence_for: [numerics.nan_loss] }")}});
  ASSERT_TRUE(r.ok()) << r.problems.front().ToString();
  bool found = false;
  std::string text = ExplainRule(*r.rules, "s", &found);
  ASSERT_TRUE(found);
  EXPECT_NE(text.find("Reads metric series: detector spike on loss"), std::string::npos) << text;
  EXPECT_NE(text.find("factor=20"), std::string::npos) << text;
  EXPECT_NE(text.find("evidence for: numerics.nan_loss"), std::string::npos) << text;
  EXPECT_EQ(text.find("Matches messages like"), std::string::npos) << text;
}

TEST(SignalRules, CorpusCasesGetTheirSignatureAndHealthyRunsNothing) {
  LoadOptions o;
  o.env_path = false;
  LoadResult rules = LoadRules(o);
  for (const Problem& p : rules.problems) {  // other families are not this test's business
    EXPECT_EQ(p.file.find("/rules/signals/"), std::string::npos) << p.ToString();
  }
  Engine engine(rules.rules);
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    YAML::Node label = YAML::LoadFile((entry.path() / "label.yaml").string());
    std::string expected = label["category"].as<std::string>();
    Report r = engine.DiagnoseText(ReadFile((entry.path() / "log.txt").string()));
    ++cases;
    if (expected == "none") {
      EXPECT_TRUE(r.diagnoses.empty()) << entry.path().filename() << ": got " << r.diagnoses.front().rule << " "
                                       << (r.diagnoses.front().evidence.empty() ? "" : r.diagnoses.front().evidence[0]);
      continue;
    }
    ASSERT_FALSE(r.diagnoses.empty()) << entry.path().filename() << ": expected " << expected;
    EXPECT_EQ(r.diagnoses.front().category, expected) << entry.path().filename() << ": got rule " << r.diagnoses.front().rule;
    EXPECT_FALSE(r.diagnoses.front().evidence.empty()) << entry.path().filename();
    EXPECT_FALSE(r.diagnoses.front().series.empty()) << entry.path().filename();
  }
  EXPECT_GE(cases, 14);
}

TEST(SignalRanking, NanDiagnosisCarriesTheExplosionAsEvidence) {
  LoadOptions o;
  o.env_path = false;
  Engine engine(LoadRules(o).rules);
  Report r = engine.DiagnoseText(ReadFile(kCorpus + "/nan-lr-too-high-kv/log.txt"));
  ASSERT_FALSE(r.diagnoses.empty());
  const Diagnosis& top = r.diagnoses.front();
  EXPECT_EQ(top.category, "numerics.nan_loss");
  bool explosion = false, onset = false;
  for (const std::string& e : top.evidence) {
    explosion = explosion || e.find("[grad-norm-explodes] grad_norm grew") != std::string::npos;
    onset = onset || e.find("loss = nan at step 190") != std::string::npos;
  }
  EXPECT_TRUE(explosion) << "the grad-norm explosion must be evidence of the NaN diagnosis";
  EXPECT_TRUE(onset) << "the first non-finite loss must be named with its step";
  for (const Diagnosis& d : r.diagnoses) {
    EXPECT_NE(d.category, "numerics.exploding_gradients") << "the explosion must not be a separate answer";
  }
  std::string json = ToJson(r);
  EXPECT_NE(json.find("\"series\":{\"name\":\"loss\",\"axis\":\"step\",\"points\":[[10,"), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("[190,\"nan\"]"), std::string::npos) << "non-finite values are written as strings";
  EXPECT_NE(json.find("\"onset\":190"), std::string::npos);
  std::string text = ToText(r, {});
  EXPECT_NE(text.find("onset at step 190"), std::string::npos) << text;
}

TEST(SignalRanking, SignatureStandsAloneWithoutAMessageAndMakesAnIncident) {
  LoadOptions o;
  o.env_path = false;
  Engine engine(LoadRules(o).rules);
  Report r = engine.DiagnoseText(ReadFile(kCorpus + "/memory-growth-loss-graph-kept/log.txt"));
  ASSERT_FALSE(r.diagnoses.empty());
  const Diagnosis& top = r.diagnoses.front();
  EXPECT_EQ(top.rule, "memory-keeps-growing");
  ASSERT_GE(top.incident, 0);
  const Incident& inc = r.incidents[top.incident];
  EXPECT_EQ(inc.kind, Incident::Kind::kSignal);
  EXPECT_EQ(inc.line_start, 1);
  EXPECT_EQ(inc.line_end, 32);
  EXPECT_NE(top.explanation.find("Memory rose from 256.2 MB"), std::string::npos) << top.explanation;
}

// grad-norm-astronomical reads the grad_norm series (detector `above`): a norm of a million or more,
// printed once anywhere in a long run, in any format the extractor reads, is its diagnosis; a run whose
// largest norm stays below the threshold has none. (It was three message patterns whose literal
// 'grad_norm': every line of a Hugging Face log holds, so the line prefilter read every line: issue 15.)
TEST(SignalRules, AstronomicalGradNormInAnyFormatAnywhereInTheRun) {
  LoadOptions o;
  o.env_path = false;
  std::shared_ptr<const RuleSet> rules = LoadRules(o).rules;
  ASSERT_TRUE(rules->Find("grad-norm-astronomical"));
  EXPECT_TRUE(rules->Find("grad-norm-astronomical")->signal) << "a signal rule, not message patterns";
  Engine engine(rules);
  struct Format {
    const char* name;
    std::string (*line)(int step, const std::string& norm);
  } formats[] = {
      {"hf dict", [](int step, const std::string& norm) {
         return "{'loss': 0.5, 'grad_norm': " + norm + ", 'learning_rate': 4e-05, 'epoch': " + std::to_string(step / 1000.0) + "}\n";
       }},
      {"key=value", [](int step, const std::string& norm) {
         return "step=" + std::to_string(step) + " loss=0.5 grad_norm=" + norm + " lr=0.001\n";
       }},
      {"mmcv", [](int step, const std::string& norm) {
         return "2021-01-03 10:02:15,629 - mmdet - INFO - Epoch [1][" + std::to_string(step) +
                "/9000]   lr: 1.996e-02, loss: 0.5, grad_norm: " + norm + "\n";
       }},
  };
  for (const Format& f : formats) {
    for (const char* peak : {"36071025.2", "999999.9"}) {
      std::string log;
      for (int step = 1; step <= 5000; ++step) log += f.line(step, step == 3217 ? peak : "1.25");
      Report r = engine.DiagnoseText(log);
      const Diagnosis* hit = nullptr;
      for (const Diagnosis& d : r.diagnoses) {
        if (d.rule == "grad-norm-astronomical") hit = &d;
      }
      if (std::string(peak) == "999999.9") {
        EXPECT_FALSE(hit) << f.name << ": below the threshold";
        continue;
      }
      ASSERT_TRUE(hit) << f.name;
      EXPECT_EQ(hit->captures.at("value"), "3.6071e+07") << f.name;
      // (grad-norm-explodes, the same category, sees the jump too and is folded in: Note: [Signal folding].)
      bool line = false;
      for (const std::string& e : hit->evidence) {
        line = line || (e.find("grad_norm = 3.6071e+07 at ") != std::string::npos && e.find("(line 3217)") != std::string::npos);
      }
      EXPECT_TRUE(line) << f.name << ": " << (hit->evidence.empty() ? "" : hit->evidence[0]);
    }
  }
}

// Note: [Healthy band]: the band is where the detector's own threshold puts a healthy series, it
// reaches the diagnosis' series, and no output but the HTML report carries it.
TEST(SignalRules, TheHealthyBandIsTheDetectorsThreshold) {
  LoadOptions o;
  o.env_path = false;
  Engine engine(LoadRules(o).rules);
  struct Case {
    const char* dir;
    const char* rule;
    double high;
    const char* label;
  } cases[] = {
      // loss-flat-at-log-classes: log_c_tolerance 0.03 below ln 10.
      {"not-learning-no-step-hf-dict", "loss-flat-at-log-classes", std::log(10.0) * 0.97,
       "(ln 10 less the 3% log_c_tolerance)"},
      // memory-keeps-growing: min_rise 0.2 above the first value, 256.2 MB.
      {"memory-growth-loss-graph-kept", "memory-keeps-growing", 256.2 * 1.2, "(the start 256.2 plus the 20% min_rise)"},
  };
  for (const Case& c : cases) {
    Report r = engine.DiagnoseText(ReadFile(kCorpus + "/" + c.dir + "/log.txt"));
    ASSERT_FALSE(r.diagnoses.empty()) << c.dir;
    const Diagnosis& top = r.diagnoses.front();
    EXPECT_EQ(top.rule, c.rule) << c.dir;
    ASSERT_FALSE(top.series.empty()) << c.dir;
    const SeriesEvidence& s = top.series.front();
    EXPECT_TRUE(s.has_band) << c.dir;
    EXPECT_NEAR(s.band_high, c.high, 1e-4 * c.high) << c.dir;
    EXPECT_TRUE(std::isinf(s.band_low) && s.band_low < 0) << c.dir;
    EXPECT_EQ(s.band_label.rfind("healthy: below ", 0), 0u) << s.band_label;
    EXPECT_NE(s.band_label.find(c.label), std::string::npos) << s.band_label;
    for (const std::string& out : {ToJson(r), ToText(r, {}), ToMarkdown(r)}) {
      EXPECT_EQ(out.find("healthy"), std::string::npos) << c.dir << ": only the HTML report draws the band";
    }
    EXPECT_NE(ToHtml({r}).find("data-band=\"1\""), std::string::npos) << c.dir;
  }
  // A signature with no level to stay under (a NaN onset) sets none.
  Report nan = engine.DiagnoseText(ReadFile(kCorpus + "/nan-lr-too-high-kv/log.txt"));
  ASSERT_FALSE(nan.diagnoses.empty());
  ASSERT_FALSE(nan.diagnoses.front().series.empty());
  EXPECT_EQ(nan.diagnoses.front().series.front().name, "loss");
  EXPECT_FALSE(nan.diagnoses.front().series.front().has_band);
}

// flat's min_chunk_points: a short run of a noisy loss (one example per print) is judged on parts of
// at least that many values, not on medians of two. The ten losses of the char-RNN classification
// tutorial's output in corpus/wild/training/char-rnn-optimizer-bound-to-first-rnn-instance (18 classes,
// no learning) hold for halves and not for fifths; a run that falls in its second half holds for neither.
TEST(SignalRules, FlatJudgesShortNoisyRunsOnPartsOfMinChunkPoints) {
  auto collect = [](const std::vector<double>& losses) {
    MetricCollector m;
    std::string text;
    for (size_t i = 0; i < losses.size(); ++i) text += "step " + std::to_string(i + 1) + " loss " + std::to_string(losses[i]) + "\n";
    m.Feed(text);
    m.FinishInput();
    return m;
  };
  const MetricCollector flat_noisy = collect({2.9460, 2.9493, 2.9261, 2.9530, 2.7749, 2.8230, 2.9910, 2.9733, 2.7955, 2.9550});
  const MetricCollector falling = collect({2.9460, 2.9493, 2.9261, 2.9530, 2.7749, 2.5230, 2.3910, 2.2733, 2.1955, 2.0550});
  const auto fifths = Spec("{ detector: flat, require_log_c: 1, tolerance: 0.03, min_points: 10 }");
  const auto halves = Spec("{ detector: flat, require_log_c: 1, tolerance: 0.03, min_points: 10, min_chunk_points: 5 }");
  ASSERT_TRUE(fifths && halves);
  EXPECT_EQ(fifths->params.at("min_chunk_points"), 1) << "the default keeps fifths";
  SignalHit hit;
  EXPECT_FALSE(DetectSignal(*fifths, flat_noisy, &hit)) << "the third fifth's median of two values is 5% low";
  ASSERT_TRUE(DetectSignal(*halves, flat_noisy, &hit));
  EXPECT_EQ(hit.captures.at("classes"), "19") << "the median 2.948 is nearest ln 19";
  EXPECT_NE(hit.evidence.find("first fifth 2.94765, last fifth 2.87525"), std::string::npos) << "the evidence names fifths however it tested: " << hit.evidence;
  EXPECT_FALSE(DetectSignal(*halves, falling, &hit)) << hit.evidence;
  // Twenty-five values make parts of five: fifths again, so a late fall is still seen.
  std::vector<double> late_fall(20, 2.30);
  for (double v : {2.0, 1.8, 1.6, 1.5, 1.4}) late_fall.push_back(v);
  EXPECT_FALSE(DetectSignal(*halves, collect(late_fall), &hit)) << hit.evidence;
  late_fall.resize(20);
  EXPECT_TRUE(DetectSignal(*halves, collect(late_fall), &hit));
}

// Note: [Descent to the floor]: the softmax reading needs the loss to have come down from ln C towards
// the floor; a level that never moved fits some larger C's start and floor too.
TEST(SignalRules, SoftmaxFloorNeedsADescentFromLogCToTheFloor) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: softmax_floor }");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->params.at("min_descent"), 0.5);
  auto series = [](const std::vector<double>& losses) {
    std::string text;
    for (size_t i = 0; i < losses.size(); ++i) text += "step " + std::to_string(i + 1) + " loss " + std::to_string(losses[i]) + "\n";
    return text;
  };
  SignalHit hit;
  // Ten classes: from ln 10 = 2.303 down to just above ln(1 + 9/e) = 1.409, and level there.
  EXPECT_TRUE(Holds(*spec, series({2.30, 2.05, 1.80, 1.62, 1.52, 1.47, 1.46, 1.45, 1.45, 1.44, 1.45, 1.44}), &hit));
  // CIFAR-100's ln 100 = 4.605 from the first step: within 15% of ln 207 = 5.33 and 6% above its floor
  // 4.34, but the loss never came down.
  EXPECT_FALSE(Holds(*spec, series(std::vector<double>(14, 4.600)), &hit)) << hit.evidence;
  EXPECT_FALSE(Holds(*spec, series({4.61, 4.60, 4.61, 4.60, 4.60, 4.61, 4.60, 4.60, 4.60, 4.61, 4.60, 4.60}), &hit)) << hit.evidence;
  // A level of 5.0 likewise (C = 303: floor 4.72, ln C 5.71).
  EXPECT_FALSE(Holds(*spec, series(std::vector<double>(12, 5.0)), &hit)) << hit.evidence;
}

// Note: [Chance level]: the loss at ln C and the accuracy at 1/C, for one C, at the end of the run.
TEST(SignalRules, ChanceLevelNeedsTheLossAndTheAccuracyOfOneGuess) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: chance_level }");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->params.at("min_points"), 2);
  auto holds = [&](const std::string& text, SignalHit* hit) { return Holds(*spec, text, hit); };
  SignalHit hit;
  // corpus/wild/training/rasbt-vgg16-loss-printed-as-percent-flat-ln10: a percentage, the test accuracy.
  ASSERT_TRUE(holds("Epoch: 001/010 | Loss: 2.520%\nEpoch: 010/010 | Loss: 2.303%\nTest accuracy: 10.00%\n", &hit));
  EXPECT_EQ(hit.captures.at("classes"), "10");
  EXPECT_EQ(hit.captures.at("accuracy"), "10%");
  EXPECT_NE(hit.evidence.find("= ln 10"), std::string::npos) << hit.evidence;
  ASSERT_EQ(hit.supporting.size(), 1u);
  EXPECT_EQ(hit.supporting[0].name, "val_acc");
  // A fraction, the training accuracy, two classes.
  ASSERT_TRUE(holds("epoch 1 loss 0.7012 acc 0.4990\nepoch 2 loss 0.6932 acc 0.5020\n", &hit));
  EXPECT_EQ(hit.captures.at("classes"), "2");
  EXPECT_EQ(hit.captures.at("accuracy"), "0.502");
  // Not chance: one point; the loss went under ln C before; the accuracy is not 1/C; another C; no accuracy.
  EXPECT_FALSE(holds("loss 2.303 acc 0.10\n", &hit));
  EXPECT_FALSE(holds("loss 1.90 acc 0.31\nloss 2.303 acc 0.10\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("loss 2.52 acc 0.09\nloss 2.303 acc 0.35\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("loss 0.75 acc 11.0\nloss 0.6932 acc 10.0\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("loss 2.52\nloss 2.303\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("loss 2.52 acc 0.1\nloss 2.25 acc 0.1\n", &hit)) << "2.25 is 2.3% off ln 10: " << hit.evidence;
}

// Note: [Falling validation accuracy]: the accuracy side of val_rising.
TEST(SignalRules, ValFallingNeedsTheValidationAccuracyToFallWhileTrainingAccuracyRises) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: val_falling }");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->params.at("min_falling"), 3);
  auto run = [](const double* train, const double* val, int n, const char* unit) {
    std::string text;
    for (int e = 0; e < n; ++e) {
      text += "epoch " + std::to_string(e + 1) + " train_acc " + std::to_string(train[e]) + unit + " val_acc " +
              std::to_string(val[e]) + unit + "\n";
    }
    return text;
  };
  const double train[] = {0.50, 0.70, 0.82, 0.90, 0.95, 0.97, 0.98, 0.99};
  const double val[] = {0.55, 0.66, 0.72, 0.71, 0.69, 0.68, 0.66, 0.65};
  SignalHit hit;
  ASSERT_TRUE(Holds(*spec, run(train, val, 8, ""), &hit));
  EXPECT_EQ(hit.captures.at("best"), "0.72");
  EXPECT_EQ(hit.captures.at("value"), "0.65");
  EXPECT_NE(hit.evidence.find("val_acc fell from its best 0.72"), std::string::npos) << hit.evidence;
  ASSERT_EQ(hit.supporting.size(), 1u);
  EXPECT_EQ(hit.supporting[0].name, "acc");
  // the same run printed in percent
  const double train_pct[] = {50, 70, 82, 90, 95, 97, 98, 99};
  const double val_pct[] = {55, 66, 72, 71, 69, 68, 66, 65};
  EXPECT_TRUE(Holds(*spec, run(train_pct, val_pct, 8, "%"), &hit)) << hit.evidence;
  // a fall of 3 points (under `drop`), a fall while training accuracy falls too, too few evaluations after the best
  const double small[] = {0.55, 0.66, 0.72, 0.71, 0.71, 0.70, 0.70, 0.69};
  EXPECT_FALSE(Holds(*spec, run(train, small, 8, ""), &hit)) << hit.evidence;
  const double train_down[] = {0.50, 0.70, 0.75, 0.72, 0.68, 0.64, 0.60, 0.58};
  EXPECT_FALSE(Holds(*spec, run(train_down, val, 8, ""), &hit)) << hit.evidence;
  const double late_best[] = {0.55, 0.60, 0.62, 0.64, 0.66, 0.72, 0.66, 0.65};
  EXPECT_FALSE(Holds(*spec, run(train, late_best, 8, ""), &hit)) << hit.evidence;
}

// Note: [Accuracy gap]: the training accuracy reaches (nearly) every example while validation stalls far below.
TEST(SignalRules, AccGapNeedsAStalledValidationAccuracyFarUnderAFullTrainingAccuracy) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: acc_gap }");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->params.at("min_gap"), 0.25);
  auto run = [](const std::vector<double>& train, const std::vector<double>& val, const char* unit) {
    std::string text;
    for (size_t e = 0; e < train.size(); ++e) {
      text += "epoch " + std::to_string(e + 1) + " train_acc " + std::to_string(train[e]) + unit + " val_acc " +
              std::to_string(val[e]) + unit + "\n";
    }
    return text;
  };
  const std::vector<double> train = {0.55, 0.72, 0.86, 0.94, 0.98, 0.99, 1.00, 1.00};
  const std::vector<double> val = {0.52, 0.58, 0.61, 0.62, 0.61, 0.62, 0.60, 0.61};
  SignalHit hit;
  ASSERT_TRUE(Holds(*spec, run(train, val, ""), &hit));
  EXPECT_EQ(hit.captures.at("train"), "1");
  EXPECT_EQ(hit.captures.at("value"), "0.61");
  EXPECT_EQ(hit.captures.at("best"), "0.62");
  EXPECT_NE(hit.evidence.find("acc rose from 0.72 to 1"), std::string::npos) << hit.evidence;
  ASSERT_EQ(hit.supporting.size(), 1u);
  EXPECT_EQ(hit.supporting[0].name, "acc");
  // the same run printed in percent, and with the validation accuracy in percent only
  std::vector<double> train_pct, val_pct;
  for (double x : train) train_pct.push_back(100 * x);
  for (double x : val) val_pct.push_back(100 * x);
  EXPECT_TRUE(Holds(*spec, run(train_pct, val_pct, "%"), &hit)) << hit.evidence;
  // a healthy run's gap of a few points; a validation accuracy still climbing; a training accuracy short of
  // min_train; one that was already there at the first print (a model evaluated after training)
  const std::vector<double> val_close = {0.60, 0.75, 0.85, 0.90, 0.92, 0.93, 0.93, 0.93};
  EXPECT_FALSE(Holds(*spec, run(train, val_close, ""), &hit)) << hit.evidence;
  const std::vector<double> val_climbing = {0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65};
  EXPECT_FALSE(Holds(*spec, run(train, val_climbing, ""), &hit)) << hit.evidence;
  const std::vector<double> train_short = {0.50, 0.70, 0.80, 0.88, 0.90, 0.92, 0.93, 0.93};
  EXPECT_FALSE(Holds(*spec, run(train_short, val, ""), &hit)) << hit.evidence;
  const std::vector<double> train_done = {0.99, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00};
  EXPECT_FALSE(Holds(*spec, run(train_done, val, ""), &hit)) << hit.evidence;
}

// Note: [One class]: an F1 and an accuracy of one evaluation that are those of a constant prediction.
TEST(SignalRules, OneClassReadsTheF1OfAConstantPrediction) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: one_class }");
  ASSERT_TRUE(spec);
  auto holds = [&](const std::string& text, SignalHit* hit) { return Holds(*spec, text, hit); };
  SignalHit hit;
  // corpus/wild/training/absa-bert-spc-test-acc-stuck-0.65-bad-commit: 2 x 0.65 / 1.65 / 3 = 0.26263.
  ASSERT_TRUE(holds("loss: 0.9447, acc: 0.6562, test_acc: 0.6500, f1: 0.2626\n", &hit));
  EXPECT_EQ(hit.captures.at("classes"), "3");
  EXPECT_EQ(hit.captures.at("accuracy"), "0.65") << "the test accuracy of the F1's line, not the training one";
  // Percentages, two classes (90% of one class: 2 x 0.9 / 1.9 / 2 = 0.47368).
  ASSERT_TRUE(holds("epoch 3 val_acc 90.00 macro_f1 47.37\n", &hit));
  EXPECT_EQ(hit.captures.at("classes"), "2");
  // A model that tells classes apart (yangheng95/PyABSA#5); one class of a binary F1 (C = 1); an F1
  // from another line than the accuracy; a near miss beyond the printed precision.
  EXPECT_FALSE(holds("loss: 0.6642, acc: 61.53, test_acc: 73.12, f1: 70.47\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("val_acc 0.90 f1 0.9474\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("val_acc 0.65\nf1 0.2626\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("val_acc 0.65 f1 0.2660\n", &hit)) << hit.evidence;
}

// Note: [Zero learning rate]: an lr that is 0 from some point to the end, at least half of the printed
// values, while the loss printed from there does not fall.
TEST(SignalRules, LrZeroNeedsZerosToTheEndAndALossThatDoesNotFall) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: lr_zero }");
  ASSERT_TRUE(spec);
  auto holds = [&](const std::string& text, SignalHit* hit) { return Holds(*spec, text, hit); };
  SignalHit hit;
  // corpus/wild/training/vitpose-layer-decay-lr-to-zero: eight decimals, all zero, loss level.
  ASSERT_TRUE(holds("Epoch [000/210] | Loss 0.0029 | LR 0.00000000 | x\n"
                    "Epoch [001/210] | Loss 0.0037 | LR 0.00000000 | x\n", &hit));
  EXPECT_EQ(hit.captures.at("zeros"), "2");
  EXPECT_EQ(hit.captures.at("printed"), "2");
  // A geometric decay that reached 0 after two non-zero prints: zeros are most of the run.
  ASSERT_TRUE(holds("step 1 loss 2.30 lr 0.001\nstep 2 loss 2.31 lr 0.0\nstep 3 loss 2.30 lr 0.0\nstep 4 loss 2.29 lr 0.0\n", &hit));
  EXPECT_EQ(hit.captures.at("zeros"), "3");
  // A warm-up that starts at 0 (corpus/wild/amp/fengshenbang-randeng-t5-precision16-loss-nan's lr).
  EXPECT_FALSE(holds("Batch 0 | Train Loss 2.1 | Learning Rate 0.0\nBatch 100 | Train Loss 2.1 | Learning Rate 2e-08\n"
                     "Batch 200 | Train Loss 2.1 | Learning Rate 4e-08\n", &hit)) << hit.evidence;
  // A decay that ends at 0: its zeros are under half of the points.
  EXPECT_FALSE(holds("step 1 loss 1.0 lr 0.3\nstep 2 loss 0.9 lr 0.2\nstep 3 loss 0.9 lr 0.1\nstep 4 loss 0.9 lr 0.0\nstep 5 loss 0.9 lr 0.0\n", &hit))
      << hit.evidence;
  // A small lr printed with too few decimals: the loss still falls, so steps are taken.
  EXPECT_FALSE(holds("step 1 loss 2.0 lr 0.0000\nstep 2 loss 1.5 lr 0.0000\nstep 3 loss 1.1 lr 0.0000\n", &hit)) << hit.evidence;
  // One zero is not enough, and without a loss there is no run to judge.
  EXPECT_FALSE(holds("step 1 loss 2.0 lr 0.0\n", &hit)) << hit.evidence;
  EXPECT_FALSE(holds("lr 0.0\nlr 0.0\nlr 0.0\n", &hit)) << hit.evidence;
}

// Note: [Epochs per print]: a step-based logger's fractional epoch two or more passes apart on each
// printed line, and a loss that fell to a tenth of its start over at least eight of them.
TEST(SignalRules, EpochsPerPrintNeedsFractionalEpochsFarApartAndACollapsedLoss) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: epochs_per_print }");
  ASSERT_TRUE(spec);
  auto holds = [&](const std::string& text, SignalHit* hit) { return Holds(*spec, text, hit); };
  SignalHit hit;
  // corpus/wild/training/chatglm-tuning-lora-loss-drops-too-fast-many-epochs (the HF Trainer's dicts).
  ASSERT_TRUE(holds("{'loss': 6.4776, 'learning_rate': 1.9914000000000003e-05, 'epoch': 4.17}\n"
                    "{'loss': 2.0588, 'learning_rate': 1.9814000000000004e-05, 'epoch': 8.33}\n"
                    "{'loss': 0.6284, 'learning_rate': 1.9714e-05, 'epoch': 12.5}\n"
                    "{'loss': 0.1956, 'learning_rate': 1.9614000000000002e-05, 'epoch': 16.67}\n", &hit));
  EXPECT_EQ(hit.captures.at("epochs"), "16.67");
  EXPECT_EQ(hit.captures.at("loss_from"), "6.4776");
  // Whole epochs printed at a stride the program chose: no word on the data set's size.
  EXPECT_FALSE(holds("Epoch 10 loss 2.0\nEpoch 20 loss 0.9\nEpoch 30 loss 0.3\nEpoch 40 loss 0.1\n", &hit)) << hit.evidence;
  // Fractions of an epoch per print (a data set larger than the logging interval).
  EXPECT_FALSE(holds("{'loss': 2.0, 'epoch': 0.25}\n{'loss': 0.9, 'epoch': 0.5}\n{'loss': 0.1, 'epoch': 0.75}\n", &hit))
      << hit.evidence;
  // Epochs far apart but a loss that only halved, and a collapse over too few passes.
  EXPECT_FALSE(holds("{'loss': 2.0, 'epoch': 4.5}\n{'loss': 1.5, 'epoch': 9.0}\n{'loss': 1.0, 'epoch': 13.5}\n", &hit))
      << hit.evidence;
  EXPECT_FALSE(holds("{'loss': 2.0, 'epoch': 2.5}\n{'loss': 0.5, 'epoch': 5.0}\n{'loss': 0.1, 'epoch': 7.5}\n", &hit))
      << hit.evidence;
}

// Note: [Still climbing at the end]: growth that slows without stopping (corpus/wild/memory/
// pytorch-5902-free-loop-pandas-workers-cow-growth, used RAM from `free` in a loop) fails late_share; with end_rise
// it holds when each of the last two steps still rose by that share of the whole growth, and a curve that
// levelled off after start-up still fails.
TEST(SignalRules, MemoryGrowthStillClimbingAtTheEndOnlyWithEndRise) {
  std::shared_ptr<const SignalSpec> plain = Spec("{ detector: memory_growth, series: host_memory, min_points: 4 }");
  std::shared_ptr<const SignalSpec> end = Spec("{ detector: memory_growth, series: host_memory, min_points: 4, end_rise: 0.05 }");
  ASSERT_TRUE(plain && end);
  std::string slowing;
  for (int used : {5909424, 9803196, 12532152, 14393964, 15684068, 16577944}) {
    slowing += "              total        used        free      shared  buff/cache   available\n"
               "Mem:       62880028 " + std::to_string(used) + "    44929360       97812     1372724    45709892\n";
  }
  SignalHit hit;
  EXPECT_FALSE(Holds(*plain, slowing, &hit)) << hit.evidence;
  ASSERT_TRUE(Holds(*end, slowing, &hit));
  EXPECT_EQ(hit.captures.at("start"), "5770.92");
  // Start-up that levelled off: the last two steps are a few MB of a 10 GB rise.
  std::string levelled;
  for (int used : {5909424, 12803196, 15532152, 16393964, 16394068, 16395944}) {
    levelled += "Mem:       62880028 " + std::to_string(used) + "    44929360       97812     1372724    45709892\n";
  }
  EXPECT_FALSE(Holds(*end, levelled, &hit)) << hit.evidence;
}

// Note: [A steady creep]: a small rise that never fell, rose at a third of the prints or more and lies on a
// straight line holds with creep_rise (corpus/wild/memory/pytorch-115255-saved-tensors-hooks-identity-allocated-
// creeps, allocated memory printed to one decimal); without it, or for a staircase of a few jumps, a series
// that fell once, or one under creep_rise, it does not.
TEST(SignalRules, MemoryGrowthSteadyCreepOnlyWithCreepRise) {
  std::shared_ptr<const SignalSpec> plain = Spec("{ detector: memory_growth, series: memory, min_points: 4 }");
  std::shared_ptr<const SignalSpec> creep = Spec("{ detector: memory_growth, series: memory, min_points: 4, creep_rise: 0.02 }");
  ASSERT_TRUE(plain && creep);
  auto text = [](std::initializer_list<double> values) {
    std::string t;
    for (double v : values) {
      std::ostringstream o;
      o << "Mem memory (MB) | allocated: " << v << " | reserved: 26.0\n";
      t += o.str();
    }
    return t;
  };
  const std::string steady = text({20.4, 20.5, 20.5, 20.6, 20.6, 20.6, 20.7, 20.7, 20.8, 20.8, 20.9, 20.9, 21.0, 21.0});
  SignalHit hit;
  EXPECT_FALSE(Holds(*plain, steady, &hit)) << hit.evidence;
  ASSERT_TRUE(Holds(*creep, steady, &hit));
  EXPECT_EQ(hit.captures.at("creep"), "1");
  EXPECT_NE(hit.evidence.find("steady creep"), std::string::npos) << hit.evidence;
  // a running peak: level, then a few jumps
  EXPECT_FALSE(Holds(*creep, text({20.0, 20.0, 20.0, 20.0, 20.3, 20.3, 20.3, 20.3, 20.3, 20.9, 20.9, 20.9, 20.9, 20.9}), &hit))
      << hit.evidence;
  // fell once
  EXPECT_FALSE(Holds(*creep, text({20.4, 20.5, 20.5, 20.6, 20.6, 20.5, 20.7, 20.7, 20.8, 20.8, 20.9, 20.9, 21.0, 21.0}), &hit))
      << hit.evidence;
  // under creep_rise
  EXPECT_FALSE(Holds(*creep, text({200.4, 200.5, 200.5, 200.6, 200.6, 200.6, 200.7, 200.7, 200.8, 200.8, 200.9, 200.9, 201.0, 201.0}),
                     &hit))
      << hit.evidence;
  // too few prints for a creep
  EXPECT_FALSE(Holds(*creep, text({20.4, 20.5, 20.6, 20.7, 20.8}), &hit)) << hit.evidence;
}

// Note: [Non-finite from the start]: a series that printed only non-finite values has its onset at its
// first value when the rule asks for it (from_start), and only then; a nan before finite values stays a
// placeholder.
TEST(SignalRules, NonFiniteFromTheStartOnlyWhenAsked) {
  std::shared_ptr<const SignalSpec> plain = Spec("{ detector: nonfinite, series: grad_norm, min_count: 2 }");
  std::shared_ptr<const SignalSpec> start = Spec("{ detector: nonfinite, series: grad_norm, min_count: 2, from_start: 1 }");
  ASSERT_TRUE(plain && start);
  // corpus/wild/numerics/qwen-vl-finetune-zero2-loss-zero-grad-norm-nan, without its progress bars.
  const std::string all_nan =
      "{'loss': 1.0446, 'grad_norm': nan, 'learning_rate': 1.4925373134328357e-08, 'epoch': 0.0}\n"
      "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 2.9850746268656714e-08, 'epoch': 0.01}\n";
  SignalHit hit;
  EXPECT_FALSE(Holds(*plain, all_nan, &hit)) << hit.evidence;
  ASSERT_TRUE(Holds(*start, all_nan, &hit));
  EXPECT_EQ(hit.captures.at("finite_before"), "0");
  EXPECT_EQ(hit.captures.at("last_finite"), "none");
  EXPECT_EQ(hit.captures.at("nonfinite"), "2");
  // Fewer non-finite values than min_count, or a placeholder followed by finite values: no onset.
  EXPECT_FALSE(Holds(*start, "{'loss': 0.0, 'grad_norm': nan, 'epoch': 0.0}\n", &hit)) << hit.evidence;
  EXPECT_FALSE(Holds(*start, "grad_norm: nan\ngrad_norm: nan\ngrad_norm: 3.9\ngrad_norm: 3.1\n", &hit)) << hit.evidence;
}

TEST(SignalRanking, SnapshotDoesNotEndTheMetricInput) {
  LoadOptions o;
  o.env_path = false;
  Session session(LoadRules(o).rules);
  std::string log = ReadFile(kCorpus + "/memory-growth-loss-graph-kept/log.txt");
  session.Feed(log.substr(0, log.size() / 2));
  Report half = session.Snapshot();
  session.Feed(log.substr(log.size() / 2));
  Report all = session.Finish();
  ASSERT_FALSE(all.diagnoses.empty());
  EXPECT_EQ(all.diagnoses.front().rule, "memory-keeps-growing");
  EXPECT_EQ(all.incidents[all.diagnoses.front().incident].line_end, 32) << "the line split by the snapshot counts once";
  (void)half;
}

// Note: [Negative losses] in signal_rules.cc: the `negative` detector holds when enough printed values of
// the series are under zero (or at most -depth), and reports the lowest; a loss that stays at or above
// zero, or dips under it fewer times than min_points, does not hold.
TEST(SignalDetectors, NegativeHoldsOnValuesUnderZero) {
  std::shared_ptr<const SignalSpec> spec = Spec("{ detector: negative, series: loss, min_points: 2 }");
  ASSERT_TRUE(spec);
  SignalHit hit;
  ASSERT_TRUE(Holds(*spec, "loss: 0.69\nloss: -12.5\nloss: -1086.9\nloss: -20.1\n", &hit));
  EXPECT_EQ(hit.captures["value"], "-1086.9");
  EXPECT_EQ(hit.captures["negatives"], "3");
  EXPECT_EQ(hit.captures["printed"], "4");
  EXPECT_FALSE(Holds(*spec, "loss: 0.69\nloss: 0.0\nloss: 0.12\n", &hit)) << "zero is no negative value";
  EXPECT_FALSE(Holds(*spec, "loss: 0.69\nloss: -0.01\nloss: 0.12\n", &hit)) << "one value under min_points";
  std::shared_ptr<const SignalSpec> deep = Spec("{ detector: negative, series: loss, depth: 10 }");
  ASSERT_TRUE(deep);
  EXPECT_FALSE(Holds(*deep, "loss: -0.9\nloss: -0.93\n", &hit)) << "shallow values under a depth of 10";
  EXPECT_TRUE(Holds(*deep, "loss: -0.9\nloss: -10\n", &hit));
  std::shared_ptr<const SignalSpec> share = Spec("{ detector: negative, series: loss, min_share: 0.5 }");
  ASSERT_TRUE(share);
  EXPECT_FALSE(Holds(*share, "loss: 3\nloss: 2\nloss: 1\nloss: -1\n", &hit)) << "a quarter of the values";
  EXPECT_TRUE(Holds(*share, "loss: 1\nloss: -1\n", &hit));
}

// loss-below-zero (rules/signals): the three wild logs of segmentation masks read as 0/255 get it, as
// loss.target_out_of_range; a Gaussian NLL that starts positive and crosses zero by design gets nothing.
TEST(SignalRules, LossUnderZeroIsReadOnlyWhereNoObjectiveExplainsIt) {
  LoadOptions o;
  o.env_path = false;
  Engine engine(LoadRules(o).rules);
  for (const char* c : {"pytorch-unet-78-masks-0-255-negative-bce-loss", "pytorch-unet-84-png-masks-negative-loss-dice-above-one",
                        "brain-segmentation-36-skimage-019-masks-255-negative-dice-loss"}) {
    const Report r = engine.DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/wild/loss/" + c + "/log.txt"));
    ASSERT_FALSE(r.diagnoses.empty()) << c;
    EXPECT_EQ(r.diagnoses[0].rule, "loss-below-zero") << c;
    EXPECT_EQ(r.diagnoses[0].category, "loss.target_out_of_range") << c;
  }
  const Report healthy =
      engine.DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/signals/healthy-gaussian-nll-negative-hf/log.txt"));
  EXPECT_TRUE(healthy.diagnoses.empty());
  // Deep values keep the rule's prior; a shallow loss under zero throughout is read at a lower confidence.
  const Report deep = engine.DiagnoseText("loss: 0.69\nloss: -1086.9\nloss: -2474.7\n");
  const Report shallow = engine.DiagnoseText("loss: -0.91\nloss: -0.93\nloss: -0.94\n");
  ASSERT_FALSE(deep.diagnoses.empty());
  ASSERT_FALSE(shallow.diagnoses.empty());
  EXPECT_GT(deep.diagnoses[0].confidence, shallow.diagnoses[0].confidence);
}

}  // namespace
}  // namespace triage
