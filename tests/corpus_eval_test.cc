// The labelled corpus as a gate: accuracy floors, clean negatives, no crash on any case.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

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
// tuning split) are held to clean negatives and, together, to 97% top-1; each wild tuning case is held
// to its known answer (Note: [Known misses] below: corpus/known_misses.txt lists the cases that miss).
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

// Note: [Known misses] The wild tuning split is gated case by case, not by a share. Its top-1 and top-3
// shares were ratchets (floors raised as batches were added, never lowered: 95.8% when set, 97.3% top-1 and
// 98.3% top-3 from the batches 2026-11-30c-* on), and a floor that sits at the level reached turns away an
// honest new miss: a helper of 2026-11-30h left a settled case out of its batch only because the share
// would have fallen under the floor. A corpus that admits only the cases the engine gets right measures
// nothing about logs nobody here wrote. corpus/known_misses.txt lists each wild tuning case the engine does
// not get right, and how far off it is; the gate:
//   - a wild case missing at top-1 (or at top-3) that the list does not name so is a regression: fail;
//   - a listed case now right at top-1 (or now in the top 3) must leave the list (or be moved): fail, so the
//     list only shrinks as the knowledge base improves;
//   - every listed case exists.
// A new case that misses on first contact joins the list in the commit that adds it, where the review sees
// it. OursAndWildTuningTopOneAtLeast97Percent above still holds the tuned splits to 97% together.
struct KnownMiss {
  std::string how;  // "top1": right in the top 3 only; "top3": not in the top 3 either
  bool seen = false;
};

std::map<std::string, KnownMiss> ReadKnownMisses(std::string* problems) {
  std::map<std::string, KnownMiss> known;
  const std::string path = std::string(TRIAGE_SOURCE_DIR) + "/corpus/known_misses.txt";
  std::ifstream in(path);
  if (!in) {
    *problems += "cannot read " + path + "\n";
    return known;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string dir, how, rest;
    fields >> dir >> how;
    if (dir.empty() || (how != "top1" && how != "top3") || (fields >> rest)) {
      *problems += path + ":" + std::to_string(number) + ": expected `wild/FAMILY/CASE top1|top3`\n";
    } else if (!known.emplace(dir, KnownMiss{how}).second) {
      *problems += path + ":" + std::to_string(number) + ": " + dir + " is listed twice\n";
    }
  }
  return known;
}

// The case's folder under corpus/ ("wild/amp/x").
std::string UnderCorpus(const std::string& dir) {
  const std::string mark = "corpus/";
  const size_t at = dir.rfind(mark);
  return at == std::string::npos ? dir : dir.substr(at + mark.size());
}

TEST(CorpusEval, WildTuningMissesAreTheKnownOnes) {
  std::string problems;
  std::map<std::string, KnownMiss> known = ReadKnownMisses(&problems);
  int wild = 0, misses = 0;
  for (const EvalCase& c : Eval().cases) {
    if (c.split != "wild" || c.expected == "none") continue;
    ++wild;
    const std::string dir = UnderCorpus(c.dir);
    auto it = known.find(dir);
    const std::string how = c.top1 ? "" : (c.top3 ? "top1" : "top3");
    if (!how.empty()) ++misses;
    if (it == known.end()) {
      if (!how.empty()) problems += "a regression: " + dir + " misses at " + how + " (" + c.miss + "), and corpus/known_misses.txt does not list it\n";
      continue;
    }
    it->second.seen = true;
    if (how.empty()) {
      problems += "now right: " + dir + " (remove its line from corpus/known_misses.txt)\n";
    } else if (how != it->second.how) {
      problems += dir + " now misses at " + how + ", listed as " + it->second.how + " (change its line)\n";
    }
  }
  for (const auto& [dir, miss] : known) {
    if (!miss.seen) problems += "corpus/known_misses.txt lists " + dir + ", which is no wild positive case\n";
  }
  EXPECT_GT(wild, 400) << "the wild tuning split lost cases";
  EXPECT_EQ(problems, "");
  std::printf("wild tuning: %d positive cases, %d known misses\n", wild, misses);
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
