// ApplyEvidence (engine/src/diagnose/evidence.cc): probe verdicts on a report, torch-free.
#include <gtest/gtest.h>

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
