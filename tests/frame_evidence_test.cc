// Frame evidence (Note: [Frame evidence] in engine/src/diagnose/frame_evidence.cc; rules/README.md Ranking
// step 9): which row reads an incident group, and when the engine answers from it.
#include <gtest/gtest.h>

#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/frame_evidence.h"
#include "log/pattern_atoms.h"
#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {
namespace {

Frame Lib(const std::string& file, const std::string& function) {
  Frame f;
  f.file = file;
  f.line = 10;
  f.function = function;
  return f;
}

Frame User() {
  Frame f;
  f.file = "train.py";
  f.line = 3;
  f.function = "<module>";
  f.user = true;
  return f;
}

Incident Traceback(const std::string& exception, std::vector<Frame> frames) {
  Incident inc;
  inc.kind = Incident::Kind::kTraceback;
  inc.exception = exception;
  inc.message = "a message no row reads";
  inc.frames = std::move(frames);
  return inc;
}

std::string RowOf(const std::vector<Incident>& incidents, int primary = 0) {
  const FrameReading r = ReadFrameEvidence(incidents, primary);
  return r.entry ? r.entry->id : "";
}

TEST(FrameEvidence, TheInnermostLibraryFrameDecides) {
  // A loss function called inside a DataLoader worker's collate: the collate frame is innermost.
  std::vector<Incident> incs = {Traceback("RuntimeError", {User(), Lib("/x/site-packages/torch/multiprocessing/reductions.py", "reduce_storage"),
                                                           Lib("/x/site-packages/torch/utils/data/_utils/collate.py", "default_collate")})};
  EXPECT_EQ(RowOf(incs), "collate");
  std::reverse(incs[0].frames.begin(), incs[0].frames.end());
  EXPECT_EQ(RowOf(incs), "shared-memory-handoff");
}

TEST(FrameEvidence, FunctionPatternsNarrowAFile) {
  std::vector<Incident> incs = {Traceback("RuntimeError", {User(), Lib("/x/torch/serialization.py", "_legacy_load")})};
  EXPECT_EQ(RowOf(incs), "checkpoint-read");
  incs[0].frames.back().function = "validate_cuda_device";
  EXPECT_EQ(RowOf(incs), "checkpoint-cuda-location");
  incs[0].frames.back().function = "save";
  EXPECT_EQ(RowOf(incs), "");
}

TEST(FrameEvidence, WindowsPathsAndUserFrames) {
  std::vector<Incident> incs = {Traceback("", {Lib("C:\\env\\Lib\\site-packages\\torch\\multiprocessing\\reductions.py", "rebuild_storage_fd")})};
  EXPECT_EQ(RowOf(incs), "shared-memory-handoff");
  // The same path as the user's own code is not library evidence.
  incs[0].frames.back().user = true;
  EXPECT_EQ(RowOf(incs), "");
}

TEST(FrameEvidence, ExceptionClassRowsComeFirst) {
  std::vector<Incident> incs = {Traceback("torch.cuda.OutOfMemoryError", {User(), Lib("/x/torch/utils/data/_utils/collate.py", "collate")})};
  EXPECT_EQ(RowOf(incs), "oom-exception");
  incs[0].exception = "torch.OutOfMemoryError";
  EXPECT_EQ(RowOf(incs), "oom-exception");
  incs[0].exception = "RuntimeError";  // the class names nothing: the frame decides
  EXPECT_EQ(RowOf(incs), "collate");
}

TEST(FrameEvidence, AnImportRowReadsTheModuleName) {
  std::vector<Incident> incs = {Traceback("ModuleNotFoundError", {User()})};
  incs[0].message = "No module named 'mmcv.runner'";
  EXPECT_EQ(RowOf(incs), "submodule-not-found");
  incs[0].message = "No module named 'mmcv'";  // a package that is missing: not a release mismatch
  EXPECT_EQ(RowOf(incs), "");
}

TEST(FrameEvidence, TheWholeGroupIsRead) {
  // A wrapper (index 1) raised from the worker's traceback (index 0): the root's evidence comes first,
  // and a wrapper's frames are read too.
  Incident root = Traceback("RuntimeError", {User()});
  Incident wrapper = Traceback("RuntimeError", {User(), Lib("/x/torch/multiprocessing/reductions.py", "rebuild_storage_fd")});
  wrapper.caused_by = 0;
  EXPECT_EQ(RowOf({root, wrapper}), "shared-memory-handoff");
  const FrameReading r = ReadFrameEvidence({root, wrapper}, 0);
  EXPECT_EQ(r.incident, 1);
  EXPECT_EQ(r.frame, "reductions.py:10 in rebuild_storage_fd");
  EXPECT_EQ(RowOf({root, wrapper}, -1), "");
}

TEST(FrameEvidence, EveryRowIsWellFormed) {
  const std::vector<std::string>& categories = KnownCategories();
  std::vector<std::string> ids;
  for (const FrameEvidenceEntry& e : FrameEvidenceTable()) {
    SCOPED_TRACE(e.id);
    EXPECT_TRUE(std::find(categories.begin(), categories.end(), e.category) != categories.end()) << e.category;
    EXPECT_TRUE(std::find(ids.begin(), ids.end(), e.id) == ids.end()) << "duplicate id";
    ids.push_back(e.id);
    EXPECT_TRUE(!e.exception.empty() || !e.file.empty()) << "a row reads a class or a frame";
    EXPECT_TRUE(e.file.empty() || e.message.empty()) << "a frame row does not read the message";
    for (const std::string* p : {&e.exception, &e.file, &e.function, &e.message}) {
      if (!p->empty()) {
        EXPECT_TRUE(RE2(*p).ok()) << *p;
      }
    }
    if (e.speaks) {
      EXPECT_FALSE(e.reading.empty() || e.test.empty() || e.fix.empty() || e.check.empty());
    }
  }
}

// Note: [Frame evidence gates]: most of the table's patterns are gated by their prefilter, and a gate
// passes every text its pattern matches (checked on the texts the table's own tests name, with each of
// a gate's atoms alone, in a path, cut by a character and changed by one).
TEST(FrameEvidence, EveryGatePassesWhatItsPatternMatches) {
  std::vector<std::string> texts = {"torch.cuda.OutOfMemoryError", "FloatingPointError", "torch._dynamo.exc.Unsupported",
                                    "/x/torch/cuda/amp/grad_scaler.py", "/x/torch/amp/grad_scaler.py",
                                    "/x/lightning/pytorch/trainer/connectors/checkpoint_connector.py",
                                    "No module named 'mmcv.runner'", "safetensors_rust.SafetensorError"};
  int gated = 0;
  for (const FrameEvidenceEntry& e : FrameEvidenceTable()) {
    for (const std::string* p : {&e.exception, &e.file, &e.function, &e.message}) {
      if (p->empty()) continue;
      const std::optional<PatternPrefilter> gate = ReadPatternPrefilter(*p);
      if (!gate || gate->atoms().empty()) continue;
      ++gated;
      EXPECT_FALSE(gate->PassesText("")) << *p;
      for (const std::string& atom : gate->atoms()) {
        texts.push_back(atom);
        texts.push_back("/x/" + atom + ".py");
        for (size_t i = 0; i < atom.size(); ++i) {
          texts.push_back(atom.substr(0, i) + atom.substr(i + 1));
          std::string changed = atom;
          changed[i] = changed[i] == 'x' ? 'y' : 'x';
          texts.push_back(changed);
        }
      }
    }
  }
  EXPECT_GT(gated, 25);
  int matched = 0;
  for (const FrameEvidenceEntry& e : FrameEvidenceTable()) {
    for (const std::string* p : {&e.exception, &e.file, &e.function, &e.message}) {
      if (p->empty()) continue;
      const std::optional<PatternPrefilter> gate = ReadPatternPrefilter(*p);
      if (!gate) continue;
      const RE2 re(*p);
      for (const std::string& t : texts) {
        if (RE2::PartialMatch(t, re)) {
          ++matched;
          EXPECT_TRUE(gate->PassesText(t)) << *p << " on " << t;
        }
      }
    }
  }
  EXPECT_GT(matched, 10);
}

// The engine: a traceback whose wording no bundled rule knows (the message is made up for the test).
class FrameEvidenceEngine : public ::testing::Test {
 protected:
  static const Engine& Get() {
    static const Engine engine = [] {
      LoadOptions o;
      o.env_path = false;
      return Engine(LoadRules(o).rules);
    }();
    return engine;
  }
  static std::string Oom(const std::string& message) {
    return "Traceback (most recent call last):\n"
           "  File \"train.py\", line 3, in <module>\n"
           "    y = model(x)\n"
           "  File \"/usr/lib/python3/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
           "    return forward_call(*args, **kwargs)\n"
           "torch.OutOfMemoryError: " + message + "\n";
  }
};

TEST_F(FrameEvidenceEngine, AnswersWhenNoRuleMatched) {
  Report r = Get().DiagnoseText(Oom("qqq allocator refused the block"));
  ASSERT_EQ(r.diagnoses.size(), 1u);
  const Diagnosis& d = r.diagnoses[0];
  EXPECT_EQ(d.rule, "frames:oom-exception");
  EXPECT_EQ(d.category, "cuda.oom");
  EXPECT_DOUBLE_EQ(d.confidence, kFrameEvidenceConfidence);
  EXPECT_NE(d.explanation.find("not from the message"), std::string::npos) << d.explanation;
  EXPECT_NE(d.ranking.find("frames"), std::string::npos) << d.ranking;
  ASSERT_EQ(d.hypotheses.size(), 1u);
  EXPECT_EQ(d.checks.size(), 1u);
  EXPECT_EQ(d.captures.at("evidence"), "torch.OutOfMemoryError");
}

TEST_F(FrameEvidenceEngine, StaysSilentWhenARuleMatched) {
  Report r = Get().DiagnoseText(Oom("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
                                    "23.65 GiB of which 9.06 MiB is free."));
  ASSERT_FALSE(r.diagnoses.empty());
  for (const Diagnosis& d : r.diagnoses) EXPECT_EQ(d.rule.rfind("frames:", 0), std::string::npos) << d.rule;
}

TEST_F(FrameEvidenceEngine, AHigherThresholdOrAnAbstainingRowSaysNothing) {
  DiagnoseOptions strict;
  strict.min_confidence = 0.5;
  EXPECT_TRUE(Get().DiagnoseText(Oom("qqq allocator refused the block"), strict).diagnoses.empty());
  const std::string collate =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    for x in loader:\n"
      "  File \"/usr/lib/python3/site-packages/torch/utils/data/_utils/collate.py\", line 84, in default_collate\n"
      "    return torch.stack(batch, 0)\n"
      "RuntimeError: qqq the batch refused to stack\n";
  Report r = Get().DiagnoseText(collate);
  EXPECT_FALSE(r.incidents.empty());
  EXPECT_TRUE(r.diagnoses.empty()) << r.diagnoses[0].rule;
}

TEST_F(FrameEvidenceEngine, CxxReadersSeeTheAdviceMarked) {
  DiagnoseOptions cxx;
  cxx.audience = Audience::kCxx;
  Report r = Get().DiagnoseText(Oom("qqq allocator refused the block"), cxx);
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].hypotheses[0].fix.rfind("(written for Python) ", 0), 0u);
  EXPECT_TRUE(r.diagnoses[0].checks.empty());
}

}  // namespace
}  // namespace triage
