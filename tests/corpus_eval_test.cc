// The labelled corpus as a gate: accuracy floors, clean negatives, no crash on any case.
#include <cstdio>

#include <gtest/gtest.h>

#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {
namespace {

const EvalReport& Eval() {
  static const EvalReport kReport = [] {
    LoadOptions o;
    o.env_path = false;
    LoadResult rules = LoadRules(o);
    return EvaluateCorpus(Engine(rules.rules), std::string(TRIAGE_SOURCE_DIR) + "/corpus");
  }();
  return kReport;
}

TEST(CorpusEval, EveryCaseIsReadable) {
  EXPECT_EQ(Eval().errors, 0) << Eval().ToText();
  EXPECT_GE(Eval().total, 300) << "the corpus lost cases";
}

// The 97%/99% floors below hold for our own cases (split "ours", Note: [Eval splits]). The wild tuning
// and held-out cases are measured by `triage eval corpus` on lines of their own; they join those floors
// when the knowledge base reaches them. Until then the splits rules are tuned on (ours and the wild
// tuning split) are held to clean negatives and, together, to 97% top-1; the wild tuning split alone is
// held to the floor it has reached (a ratchet: raise it as the knowledge base improves, never lower it).
bool Ours(const EvalCase& c) { return c.split == "ours"; }
bool Any(const EvalCase&) { return true; }
bool Tunable(const EvalCase& c) { return c.split != "heldout"; }

// Clean negatives are gated on the splits a rule may be tuned on. A held-out negative is only measured:
// a gate on it could be met only by reading the frozen split to tune a rule (Note: [Held-out split] in
// corpus/README.md). Its count is printed, never its name; `triage eval` reports it on the held-out line.
TEST(CorpusEval, NoNegativeCaseInATunableSplitGetsADiagnosis) {
  EvalSlice tunable = Eval().Slice(Tunable);
  EXPECT_GT(tunable.negatives, Eval().Slice(Ours).negatives) << "the wild tuning split lost its negatives";
  std::string flagged;
  for (const EvalCase& c : Eval().cases) {
    if (Tunable(c) && c.expected == "none" && !c.top1) flagged += "  " + c.dir + ": " + c.got[0].rule + "\n";
  }
  EXPECT_EQ(tunable.negatives_flagged, 0) << flagged;
  EvalSlice heldout = Eval().Slice([](const EvalCase& c) { return c.split == "heldout"; });
  EXPECT_GT(heldout.negatives, 0) << "the held-out split lost its negatives";
  std::printf("held-out negatives: %d of %d clean\n", heldout.negatives - heldout.negatives_flagged, heldout.negatives);
}

// The issue-12 gate: our cases and the wild tuning split together (the splits rules are tuned on) at
// 97% top-1 or better (97.3%, 1040 of 1069, when set). It replaced a ratchet over every split,
// held-out included (95.8%), which each blind batch lowered and which only tuning on the frozen split
// could have restored. The figure over every split is printed; `triage eval corpus` reports each split.
TEST(CorpusEval, OursAndWildTuningTopOneAtLeast97Percent) {
  EvalSlice tunable = Eval().Slice(Tunable);
  EvalSlice all = Eval().Slice(Any);
  EXPECT_GE(tunable.top1, 0.97 * tunable.total) << Eval().ToText();
  std::printf("ours + wild tuning: %d of %d top-1; every split: %d of %d\n", tunable.top1, tunable.total, all.top1,
              all.total);
}

// The wild tuning split on its own (a ratchet like the one above): 95.8% when set (587 of 613); raised to
// 0.958 on 2026-11-28 at 736 of 768, after the 67 tuning cases of that day's batches (2026-11-28g*) were added; 0.959 at 809 of 843 after the
// batches 2026-11-28h*; 0.963 on 2026-11-29 at 1042 of 1080 (96.5%), after the batches 2026-11-29c-*;
// 0.966 at 1073 of 1110 (96.7%), after the batches 2026-11-29d-*; 0.967 at 1114 of 1151 (96.8%), after the
// batches 2026-11-29e-*; 0.969 at 1170 of 1207 (96.9%), after the batches 2026-11-29f-*; 0.970 at 1200 of
// 1237 (97.0%), after the batches 2026-11-29g-*; 0.971 at 1227 of 1263 (97.1%), after the batches 2026-11-29h-*; 0.972 at 1259 of 1295
// (97.2%), after the batches 2026-11-29i-* (held at 0.972 at 1279 of 1315, 97.26%, after the batches
// 2026-11-30a-*); 0.973 at 1310 of 1346 (97.3%), after the batches 2026-11-30b-* (held at 1331 of 1367, 97.37%, after 2026-11-30c-*). It gates what rule work is judged on, apart from the
// held-out cases, whose figure only measures.
TEST(CorpusEval, WildTuningTopOneHoldsItsFloor) {
  EvalSlice wild = Eval().Slice([](const EvalCase& c) { return c.split == "wild"; });
  EXPECT_GT(wild.total, 400) << "the wild tuning split lost cases";
  EXPECT_GE(wild.top1, 0.973 * wild.total) << Eval().ToText();
}

// The wild tuning split's top-3 (a ratchet, only ever raised): set at 0.978 on 2026-11-29 at 1211 of 1237
// (97.9%), when masked causes (Note: [Masked causes]) first listed the failure a surface error hides; 0.980 at
// 1239 of 1263 (98.1%), after the batches 2026-11-29h-*; 0.981 at 1271 of 1295 (98.1%), after the batches
// 2026-11-29i-*; 0.982 at 1292 of 1315 (98.25%), after the batches 2026-11-30a-* (held at
// 0.982 at 1323 of 1346, 98.29%, after the batches 2026-11-30b-*); 0.983 at 1344 of 1367 (98.32%), after the
// batches 2026-11-30c-*.
TEST(CorpusEval, WildTuningTopThreeHoldsItsFloor) {
  EvalSlice wild = Eval().Slice([](const EvalCase& c) { return c.split == "wild"; });
  EXPECT_GE(wild.top3, 0.983 * wild.total) << Eval().ToText();
}

// Note: [Frame evidence] (engine/src/diagnose/frame_evidence.cc): a row of the frame-evidence table
// answers only where, reading our cases and the wild tuning split as if no rule had matched, its category
// was the label in at least 85% of at least 5 cases. A row that falls below must be turned off (it then
// abstains), not have its bar lowered.
TEST(CorpusEval, EverySpeakingFrameRowIsRightOftenEnough) {
  int speaking = 0;
  for (const FrameRowMeasure& m : Eval().FrameRows()) {
    if (!m.speaks) continue;
    ++speaking;
    EXPECT_GE(m.n, 5) << m.id;
    EXPECT_GE(m.right, 0.85 * m.n) << m.id << ": " << m.right << " of " << m.n;
    std::printf("frame row %s: %d of %d right (%s)\n", m.id.c_str(), m.right, m.n, m.category.c_str());
  }
  EXPECT_GT(speaking, 0);
}

// Note: [Similar known case] (engine/src/diagnose/similar_case.cc): a tier of the similar-case vote
// answers only where, reading our cases and the wild tuning split as if no rule had matched and leaving
// out each case's own thread, the nearest known case's label was accepted in at least 85% of at least 10
// cases; and the confidence it answers with (fitted on the index, labels only) is within 0.05 of that
// measured precision, so the confidence means what it says. A tier that falls below must be turned off,
// not have its bar lowered. The band table (nearest case alone, then the vote) is printed too.
TEST(CorpusEval, EverySpeakingSimilarTierIsRightOftenEnoughAndCalibrated) {
  int measured = 0;
  for (const SimilarBandMeasure& m : Eval().SimilarBandRows()) {
    measured += m.n;
    std::printf("similar band %.2f-%.2f: n %d; nearest %d right, %d wrong; vote %d right, %d wrong, %d none\n", m.low,
                m.high, m.n, m.right, m.wrong, m.vote_right, m.vote_wrong, m.vote_none);
  }
  EXPECT_GT(measured, 1000) << "the similar-case index was not read";
  int speaking = 0;
  for (const SimilarTierMeasure& m : Eval().SimilarTierRows()) {
    std::printf("similar tier %-14s: %d of %d right, family %d, negatives %d; fitted %d of %d, confidence %.3f%s\n",
                m.id.c_str(), m.right, m.n, m.family_right, m.negatives, m.fit_right, m.fit_n, m.confidence,
                m.speaks ? " (speaks)" : "");
    if (!m.speaks) continue;
    ++speaking;
    EXPECT_GE(m.n, 10) << m.id;
    EXPECT_GE(m.right, 0.85 * m.n) << m.id << ": " << m.right << " of " << m.n;
    ASSERT_GT(m.n, 0) << m.id;
    EXPECT_NEAR(m.confidence, static_cast<double>(m.right) / m.n, 0.05) << m.id << ": fitted " << m.fit_right << " of "
                                                                         << m.fit_n << ", measured " << m.right << " of " << m.n;
  }
  EXPECT_GT(speaking, 0);
}

TEST(CorpusEval, NoNegativeCaseGetsADiagnosis) {
  EvalSlice ours = Eval().Slice(Ours);
  EXPECT_GT(ours.negatives, 0);
  std::string flagged;
  for (const EvalCase& c : Eval().cases) {
    if (Ours(c) && c.expected == "none" && !c.top1) flagged += "  " + c.dir + ": " + c.got[0].rule + "\n";
  }
  EXPECT_EQ(ours.negatives_flagged, 0) << flagged;
}

TEST(CorpusEval, TopOneAtLeast97Percent) {
  EvalSlice ours = Eval().Slice(Ours);
  EXPECT_GE(ours.top1, 0.97 * ours.total) << Eval().ToText();
}

TEST(CorpusEval, TopThreeAtLeast99Percent) {
  EvalSlice ours = Eval().Slice(Ours);
  EXPECT_GE(ours.top3, 0.99 * ours.total) << Eval().ToText();
}

}  // namespace
}  // namespace triage
