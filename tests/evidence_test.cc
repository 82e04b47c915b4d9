// ApplyEvidence (engine/src/diagnose/evidence.cc): probe verdicts on a report, torch-free.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "triage/evidence.h"

namespace triage {
namespace {

Diagnosis MakeDiagnosis(const std::string& rule, const std::string& category, double confidence,
                        std::vector<std::pair<std::string, std::string>> hypotheses) {
  Diagnosis d;
  d.rule = rule;
  d.category = category;
  d.confidence = confidence;
  for (auto& [id, probe] : hypotheses) {
    Hypothesis h;
    h.id = id;
    h.probe = probe;
    d.hypotheses.push_back(h);
  }
  return d;
}

ProbeEvidence Evidence(const std::string& probe, Verdict verdict, const std::string& category = "",
                       const std::string& summary = "s") {
  ProbeEvidence e;
  e.probe = probe;
  e.verdict = verdict;
  e.category = category;
  e.summary = summary;
  return e;
}

TEST(ApplyEvidence, ConfirmedHypothesisIsMarkedRaisedAndMovedFirst) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("a", "dtype.mismatch", 0.8, {{"x", ""}}));
  r.diagnoses.push_back(MakeDiagnosis("linear-in-features", "shape.matmul_mismatch", 0.6,
                                      {{"config", ""}, {"flattened-feature-map", "shape-trace"}}));
  ApplyEvidence(r, {Evidence("shape-trace", Verdict::kConfirmed, "shape.matmul_mismatch",
                            "fc expects 64 features, receives 57600 from conv1's [4, 64, 30, 30] output")});
  ASSERT_EQ(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "linear-in-features");  // 0.6 -> 0.6 + 0.4 * 0.7 * 0.8 = 0.824 > 0.8
  EXPECT_NEAR(r.diagnoses[0].confidence, 0.824, 1e-9);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].id, "flattened-feature-map");
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].evidence,
            "confirmed: fc expects 64 features, receives 57600 from conv1's [4, 64, 30, 30] output");
  EXPECT_EQ(r.diagnoses[0].hypotheses[1].status, HypothesisStatus::kUntested);
}

// A calibrated confidence can lie above the cap a probe's boost stops at (0.99). Confirming such a
// diagnosis must not lower it below an unconfirmed rival it outranked: the zoo's negative_labels
// program (target-negative confirmed by label-range, target-out-of-bounds unconfirmed) lost its top
// place that way once the calibration map put the rival at 0.9904.
TEST(ApplyEvidence, ConfirmationNeverLowersAConfidenceAboveTheBoostCap) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("target-out-of-bounds", "loss.target_out_of_range", 0.9904, {{"one-based", ""}}));
  r.diagnoses.push_back(MakeDiagnosis("target-negative", "loss.target_out_of_range", 0.995,
                                      {{"negative-labels", "label-range"}}));
  ApplyEvidence(r, {Evidence("label-range", Verdict::kConfirmed, "loss.target_out_of_range")});
  ASSERT_EQ(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "target-negative");
  EXPECT_NEAR(r.diagnoses[0].confidence, 0.995, 1e-9);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  EXPECT_NEAR(r.diagnoses[1].confidence, 0.9904, 1e-9);
}

TEST(ApplyEvidence, RefutedHypothesesLowerConfidence) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("a", "numerics.nan_loss", 0.8, {{"h1", "nan-source"}, {"h2", "grad-health"}}));
  ApplyEvidence(r, {Evidence("nan-source", Verdict::kRefuted), Evidence("grad-health", Verdict::kInconclusive, "", "no step function")});
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kRefuted);
  EXPECT_EQ(r.diagnoses[0].hypotheses[1].status, HypothesisStatus::kUntested);
  EXPECT_EQ(r.diagnoses[0].hypotheses[1].evidence, "inconclusive: no step function");
  EXPECT_NEAR(r.diagnoses[0].confidence, 0.8 * 0.75, 1e-9);
}

TEST(ApplyEvidence, AllRefutedBelowThresholdIsDropped) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("a", "numerics.nan_loss", 0.5, {{"h1", "nan-source"}}));
  ApplyEvidence(r, {Evidence("nan-source", Verdict::kRefuted)});
  EXPECT_TRUE(r.diagnoses.empty());
}

TEST(ApplyEvidence, FindingWithoutRuleBecomesDiagnosis) {
  Report r;
  ProbeEvidence e = Evidence("weight-update", Verdict::kConfirmed, "training.not_learning", "no parameter changed");
  e.hypothesis = "missing-optimizer-step";
  e.strength = 0.9;
  e.fix = "call step()";
  ApplyEvidence(r, {e, Evidence("grad-health", Verdict::kRefuted)});
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].rule, "probe:weight-update");
  EXPECT_EQ(r.diagnoses[0].category, "training.not_learning");
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, 0.9);
  ASSERT_EQ(r.diagnoses[0].hypotheses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].id, "missing-optimizer-step");
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].fix, "call step()");
}

TEST(ApplyEvidence, FindingOfOtherCategoryDoesNotConfirm) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("a", "shape.matmul_mismatch", 0.7, {{"h", "shape-trace"}}));
  ApplyEvidence(r, {Evidence("shape-trace", Verdict::kConfirmed, "shape.channel_mismatch")}, {false, 0.35});
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kUntested);
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, 0.7);
}

TEST(ApplyEvidence, NoEvidenceChangesNothing) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("a", "dtype.mismatch", 0.7, {{"h", "dtype-audit"}}));
  ApplyEvidence(r, {});
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kUntested);
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, 0.7);
}

// "Nothing found" must not hide "nothing could run": with every verdict inconclusive, each probe's
// reason becomes a note; one verdict that settles something is enough to say nothing more.
TEST(ApplyEvidence, AllInconclusiveSaysWhyEachProbeCouldNotTell) {
  Report r;
  ApplyEvidence(r, {Evidence("init-loss", Verdict::kInconclusive, "", "could not run: the forward raises X"),
                    Evidence("init-loss", Verdict::kInconclusive, "", "second item of the same probe"),
                    Evidence("weight-update", Verdict::kInconclusive, "", "needs the trainer's step function (none given)")});
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0].code, "probe-inconclusive");
  EXPECT_EQ(r.warnings[0].message, "probe init-loss could not tell: could not run: the forward raises X");
  EXPECT_EQ(r.warnings[1].message, "probe weight-update could not tell: needs the trainer's step function (none given)");

  Report settled;
  ApplyEvidence(settled, {Evidence("init-loss", Verdict::kInconclusive), Evidence("dtype-audit", Verdict::kRefuted)});
  EXPECT_TRUE(settled.warnings.empty());
}


TEST(ApplyEvidence, FindingNamingAnotherHypothesisConfirmsOnlyThatOne) {
  // Regression: a NaN finding from nan-source ("lr-too-high": the weights blew up) confirmed every
  // hypothesis of loss-is-nan that named nan-source, including unsafe-op.
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("loss-is-nan", "numerics.nan_loss", 0.8,
                                      {{"lr-too-high", "grad-health"}, {"unsafe-op", "nan-source"}}));
  ProbeEvidence e = Evidence("nan-source", Verdict::kConfirmed, "numerics.nan_loss", "weights non-finite");
  e.hypothesis = "lr-too-high";
  ApplyEvidence(r, {e});
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].id, "lr-too-high");
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  EXPECT_EQ(r.diagnoses[0].hypotheses[1].status, HypothesisStatus::kUntested);
}

TEST(ApplyEvidence, SpecificFindingConfirmsTheProbesHypothesis) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("loss-is-nan", "numerics.nan_loss", 0.8,
                                      {{"lr-too-high", "grad-health"}, {"unsafe-op", "nan-source"}}));
  ProbeEvidence e = Evidence("nan-source", Verdict::kConfirmed, "numerics.nan_loss", "aten::log got zeros");
  e.hypothesis = "log-of-zero";
  ApplyEvidence(r, {e, Evidence("grad-health", Verdict::kInconclusive, "", "gradients are NaN")});
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].id, "unsafe-op");
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  EXPECT_EQ(r.diagnoses[0].hypotheses[1].status, HypothesisStatus::kUntested);
}

LayerSeries GradNorms() {
  LayerSeries s;
  s.probe = "grad-health";
  s.name = "grad_norm";
  s.log_scale = true;
  s.has_above = true;
  s.above = 100;
  s.layers = {{"fc1.weight", 0.5, false}, {"fc2.weight", 250, true}, {"fc3.weight", std::nan(""), true}};
  return s;
}

// The per-layer measurements travel with the verdict a diagnosis takes (confirmed, refuted,
// inconclusive, or a finding made into a diagnosis), once per probe and measurement, and nowhere else.
TEST(ApplyEvidence, DiagnosesTakeTheLayerSeriesOfTheEvidenceTheyUse) {
  Report r;
  r.diagnoses.push_back(MakeDiagnosis("loss-is-nan", "numerics.nan_loss", 0.8,
                                      {{"lr-too-high", "grad-health"}, {"grads", "grad-health"}}));
  r.diagnoses.push_back(MakeDiagnosis("oom", "cuda.oom", 0.7, {{"batch", "memory-budget"}}));
  ProbeEvidence huge = Evidence("grad-health", Verdict::kConfirmed, "numerics.nan_loss", "norms above 100");
  huge.layer_series = {GradNorms()};
  LayerSeries dead;
  dead.probe = "dead-activations";
  dead.name = "dead_fraction";
  dead.layers = {{"relu after fc1", 0.9, true}};
  ProbeEvidence relu = Evidence("dead-activations", Verdict::kConfirmed, "training.dead_activations", "dead");
  relu.layer_series = {dead};
  ApplyEvidence(r, {huge, relu});
  ASSERT_EQ(r.diagnoses.size(), 3u);
  const Diagnosis* nan = nullptr;
  for (const Diagnosis& d : r.diagnoses) {
    if (d.rule == "loss-is-nan") nan = &d;
    if (d.rule == "oom") {
      EXPECT_TRUE(d.layer_series.empty());
    }
    if (d.rule == "probe:dead-activations") {
      ASSERT_EQ(d.layer_series.size(), 1u);
      EXPECT_EQ(d.layer_series[0].name, "dead_fraction");
    }
  }
  ASSERT_NE(nan, nullptr);
  ASSERT_EQ(nan->layer_series.size(), 1u) << "two hypotheses took the same probe's evidence: one plot";
  EXPECT_EQ(nan->layer_series[0].layers.size(), 3u);
  EXPECT_TRUE(nan->layer_series[0].layers[1].offending);

  // A refuting verdict brings its measurements too (the bars show why nothing was found).
  Report refuted;
  refuted.diagnoses.push_back(MakeDiagnosis("flat", "training.not_learning", 0.8, {{"grads", "grad-health"}}));
  ProbeEvidence fine = Evidence("grad-health", Verdict::kRefuted, "", "every gradient finite");
  fine.layer_series = {GradNorms()};
  ApplyEvidence(refuted, {fine});
  ASSERT_EQ(refuted.diagnoses.size(), 1u);
  EXPECT_EQ(refuted.diagnoses[0].layer_series.size(), 1u);

  // Another probe's finding settles the hypothesis; the probe it names still ran and measured.
  Report settled;
  settled.diagnoses.push_back(MakeDiagnosis("loss-is-nan", "numerics.nan_loss", 0.8, {{"lr-too-high", "grad-health"}}));
  ProbeEvidence weights = Evidence("nan-source", Verdict::kConfirmed, "numerics.nan_loss", "weights non-finite");
  weights.hypothesis = "lr-too-high";
  ProbeEvidence nan_grads = Evidence("grad-health", Verdict::kInconclusive, "", "gradients are NaN");
  nan_grads.layer_series = {GradNorms()};
  ApplyEvidence(settled, {weights, nan_grads});
  ASSERT_EQ(settled.diagnoses.size(), 1u);
  EXPECT_EQ(settled.diagnoses[0].hypotheses[0].status, HypothesisStatus::kConfirmed);
  ASSERT_EQ(settled.diagnoses[0].layer_series.size(), 1u);
  EXPECT_EQ(settled.diagnoses[0].layer_series[0].probe, "grad-health");

  // In the report's JSON only where a diagnosis has some; non-finite values as strings.
  std::string json = ToJson(r);
  EXPECT_NE(json.find("\"layer_series\":[{\"probe\":\"grad-health\",\"name\":\"grad_norm\",\"scale\":\"log\","
                      "\"above\":100,\"layers\":[{\"layer\":\"fc1.weight\",\"value\":0.5,\"offending\":false},"
                      "{\"layer\":\"fc2.weight\",\"value\":250,\"offending\":true},"
                      "{\"layer\":\"fc3.weight\",\"value\":\"nan\",\"offending\":true}]}]"),
            std::string::npos) << json;
  Report plain;
  plain.diagnoses.push_back(MakeDiagnosis("oom", "cuda.oom", 0.7, {{"batch", ""}}));
  EXPECT_EQ(ToJson(plain).find("layer_series"), std::string::npos);
}

TEST(EvidenceToJson, CarriesLayerSeriesOnlyWhenThereAreSome) {
  ProbeEvidence e = Evidence("grad-health", Verdict::kConfirmed, "numerics.exploding_gradients");
  e.layer_series = {GradNorms()};
  std::string json = EvidenceToJson({e, Evidence("nan-source", Verdict::kRefuted)});
  EXPECT_NE(json.find("\"seconds\":0,\"layer_series\":[{\"probe\":\"grad-health\""), std::string::npos) << json;
  EXPECT_EQ(json.find("layer_series"), json.rfind("layer_series")) << "the second item has none";
}

// The JSON and the reports spell verdicts and statuses through one name table each.
TEST(ApplyEvidence, VerdictAndStatusNames) {
  for (Verdict v : {Verdict::kInconclusive, Verdict::kConfirmed, Verdict::kRefuted}) {
    Verdict back = v == Verdict::kConfirmed ? Verdict::kRefuted : Verdict::kConfirmed;
    ASSERT_TRUE(VerdictFromName(VerdictName(v), &back)) << VerdictName(v);
    EXPECT_EQ(back, v) << VerdictName(v);
  }
  EXPECT_STREQ(VerdictName(Verdict::kInconclusive), "inconclusive");
  EXPECT_STREQ(VerdictName(Verdict::kConfirmed), "confirmed");
  EXPECT_STREQ(VerdictName(Verdict::kRefuted), "refuted");
  Verdict kept = Verdict::kRefuted;
  EXPECT_FALSE(VerdictFromName("Confirmed", &kept));
  EXPECT_FALSE(VerdictFromName("", &kept));
  EXPECT_EQ(kept, Verdict::kRefuted);
  EXPECT_STREQ(HypothesisStatusName(HypothesisStatus::kUntested), "untested");
  EXPECT_STREQ(HypothesisStatusName(HypothesisStatus::kConfirmed), "confirmed");
  EXPECT_STREQ(HypothesisStatusName(HypothesisStatus::kRefuted), "refuted");
  const std::string json = EvidenceToJson({Evidence("nan-source", Verdict::kRefuted)});
  EXPECT_NE(json.find("\"verdict\":\"refuted\""), std::string::npos) << json;
}

}  // namespace
}  // namespace triage
