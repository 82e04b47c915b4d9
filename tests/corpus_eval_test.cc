// The labelled corpus as a gate: accuracy floors, clean negatives, no crash on any case.
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

TEST(CorpusEval, NoNegativeCaseGetsADiagnosis) {
  EXPECT_GT(Eval().negatives, 0);
  std::string flagged;
  for (const EvalCase& c : Eval().cases) {
    if (c.expected == "none" && !c.top1) flagged += "  " + c.dir + ": " + c.got[0].rule + "\n";
  }
  EXPECT_EQ(Eval().negatives_flagged, 0) << flagged;
}

TEST(CorpusEval, TopOneAtLeast97Percent) {
  EXPECT_GE(Eval().Top1Rate(), 0.97) << Eval().ToText();
}

TEST(CorpusEval, TopThreeAtLeast99Percent) {
  EXPECT_GE(Eval().Top3Rate(), 0.99) << Eval().ToText();
}

}  // namespace
}  // namespace triage
