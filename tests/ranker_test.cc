// Ranking (Note: [Ranking] in rules/README.md): exception-type agreement, specificity, incident order.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "triage/triage.h"

namespace triage {
namespace {

std::string MakeRule(const std::string& id, const std::string& category, const std::string& pattern,
                     const std::string& extra_match = "", const std::string& extra = "") {
  return "id: " + id + "\ncategory: " + category + "\ntitle: t\n" + extra + "match:\n  message: '" + pattern + "'\n" +
         extra_match + "explain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n" +
         "examples:\n  - match: 'x'\n";
}

Engine Make(const std::vector<std::pair<std::string, std::string>>& rules) {
  LoadResult r = LoadRulesFromStrings(rules);
  for (const Problem& p : r.problems) ADD_FAILURE() << p.ToString();
  return Engine(r.rules);
}

TEST(Ranker, CxxErrorAgreesWithRuntimeError) {
  Engine e = Make({{"a.yaml", MakeRule("a", "shape.matmul_mismatch", "mat1 and mat2", "  exception: [RuntimeError]\n")}});
  Report r = e.DiagnoseText(
      "terminate called after throwing an instance of 'c10::Error'\n"
      "  what():  mat1 and mat2 shapes cannot be multiplied (8x300 and 256x64)\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
  // A different known Python type does not agree.
  EXPECT_TRUE(e.DiagnoseText("ValueError: mat1 and mat2 shapes cannot be multiplied\n").diagnoses.empty());
}

// Note: [RuntimeError subclasses]: torch's own subclasses of RuntimeError (2.1+'s DistBackendError for
// the same NCCL text 1.x raised as RuntimeError) agree with a rule that lists RuntimeError; other
// known types still do not, and a rule that lists only a subclass is not widened to RuntimeError.
TEST(Ranker, TorchRuntimeErrorSubclassesAgreeWithRuntimeError) {
  Engine e = Make({{"a.yaml", MakeRule("a", "distributed.collective_timeout", "is setting up NCCL communicator",
                                       "  exception: [RuntimeError]\n", "confidence: 0.8\n")}});
  const std::string text =
      " is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
      "store->get('0') got error: Connection reset by peer\n";
  Report backend = e.DiagnoseText("torch.distributed.DistBackendError: [3]" + text);
  ASSERT_EQ(backend.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(backend.diagnoses[0].confidence, 0.8) << "a known type that agrees costs nothing";
  EXPECT_EQ(e.DiagnoseText("torch.AcceleratorError: [3]" + text).diagnoses.size(), 1u);
  EXPECT_TRUE(e.DiagnoseText("ValueError: [3]" + text).diagnoses.empty());
  Engine only = Make({{"a.yaml", MakeRule("a", "distributed.rendezvous", "Socket Timeout", "  exception: [DistStoreError]\n")}});
  EXPECT_TRUE(only.DiagnoseText("RuntimeError: Socket Timeout\n").diagnoses.empty());
  EXPECT_EQ(only.DiagnoseText("torch.distributed.DistStoreError: Socket Timeout\n").diagnoses.size(), 1u);
}

// Note: [Carried exception types]: a wrapper whose message starts with another exception (its type and a
// colon, or its repr) agrees with a rule listing that exception; a message that merely mentions one later,
// or starts with a word that is not an exception type, does not.
TEST(Ranker, WrapperCarryingAnExceptionAgreesWithItsType) {
  Engine e = Make({{"a.yaml", MakeRule("a", "shape.matmul_mismatch", "mat1 and mat2 shapes", "  exception: [RuntimeError]\n")}});
  const std::string msg = "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)";
  EXPECT_EQ(e.DiagnoseText("torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: " + msg + "\n").diagnoses.size(), 1u);
  EXPECT_EQ(e.DiagnoseText("Exception: RuntimeError('" + msg + "')\n").diagnoses.size(), 1u);
  EXPECT_TRUE(e.DiagnoseText("Exception: ValueError: " + msg + "\n").diagnoses.empty());
  EXPECT_TRUE(e.DiagnoseText("Exception: failed after RuntimeError: " + msg + "\n").diagnoses.empty());
  EXPECT_TRUE(e.DiagnoseText("Exception: Runtime: " + msg + "\n").diagnoses.empty());
}

// Note: [Wrapped exception types]: torch.compile's TorchRuntimeError is judged on the error it wraps
// (the wordings are the real ones of the bundled rules' examples).
TEST(Ranker, TorchRuntimeErrorIsJudgedOnTheErrorItWraps) {
  const std::string later =  // 2.3+: the wrapped type is named
      "torch._dynamo.exc.TorchRuntimeError: Dynamo failed to run FX node with fake tensors: call_function <built-in "
      "function linear>(*(FakeTensor(..., size=(s0, 6)), Parameter(FakeTensor(..., size=(3, 3), requires_grad=True))), "
      "**{}): got RuntimeError('a and b must have same reduction dim, but got [s0, 6] X [3, 3].')\n";
  const std::string early =  // 2.0-2.2: only its message, on the next line
      "torch._dynamo.exc.TorchRuntimeError: Failed running call_module L__self___fc(*(FakeTensor(..., device='cuda:0', "
      "size=(1, 209088)),), **{}):\na and b must have same reduction dim, but got [1, 209088] X [10080, 1].\n";
  Engine runtime = Make({{"a.yaml", MakeRule("a", "shape.matmul_mismatch", "same reduction dim", "  exception: [RuntimeError]\n")}});
  Engine value = Make({{"a.yaml", MakeRule("a", "shape.matmul_mismatch", "same reduction dim", "  exception: [ValueError]\n")}});
  ASSERT_EQ(runtime.DiagnoseText(later).diagnoses.size(), 1u);
  ASSERT_EQ(runtime.DiagnoseText(early).diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(runtime.DiagnoseText(early).diagnoses[0].confidence,
                   runtime.DiagnoseText("RuntimeError: a and b must have same reduction dim, but got [1, 209088] X [10080, 1].\n")
                       .diagnoses[0].confidence) << "the wrapper costs no confidence";
  EXPECT_TRUE(value.DiagnoseText(later).diagnoses.empty()) << "2.3+ names RuntimeError, which a ValueError rule is not";
  EXPECT_EQ(value.DiagnoseText(early).diagnoses.size(), 1u) << "2.0-2.2 hides the type: the pattern decides";
}

TEST(Ranker, MissingTypeLowersConfidence) {
  Engine e = Make({{"a.yaml", MakeRule("a", "cuda.oom", "CUDA out of memory", "  exception: [RuntimeError]\n",
                                       "confidence: 0.8\n")}});
  Report typed = e.DiagnoseText("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n");
  Report bare = e.DiagnoseText("CUDA out of memory. Tried to allocate 2.00 MiB\n");
  ASSERT_EQ(typed.diagnoses.size(), 1u);
  ASSERT_EQ(bare.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(typed.diagnoses[0].confidence, 0.8);
  EXPECT_DOUBLE_EQ(bare.diagnoses[0].confidence, 0.8 * 0.85);
}

// An issue title that quotes the error after other words (sgadgil6/cnslab_fmri#4, a wild case): no reader
// takes it as an exception line, but its type is shown, so the confidence is not lowered; a type glued to
// another word ("XRuntimeError: ") is not the type.
TEST(Ranker, ATypeQuotedInsideALineIsShown) {
  Engine e = Make({{"a.yaml", MakeRule("a", "autograd.backward_twice", "Trying to backward through the graph a second time",
                                       "  exception: [RuntimeError]\n", "confidence: 0.8\n")}});
  Report r = e.DiagnoseText(
      "Basic S-CNN - RuntimeError: Trying to backward through the graph a second time; try [retain_graph=True]\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, 0.8);
  EXPECT_TRUE(r.diagnoses[0].ranking.empty()) << r.diagnoses[0].ranking;
  Report glued = e.DiagnoseText("Basic S-CNN - XRuntimeError: Trying to backward through the graph a second time\n");
  ASSERT_EQ(glued.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(glued.diagnoses[0].confidence, 0.8 * 0.85);
}

TEST(Ranker, BareErrorPrefixCountsAsNoType) {
  Engine e = Make({{"a.yaml", MakeRule("a", "cuda.arch_mismatch", "Unexpected error from cudaGetDeviceCount",
                                       "  exception: [RuntimeError]\n", "confidence: 0.8\n")}});
  // A UI's generic "Error:" prefix is not a Python exception class: matched like an untyped line.
  Report r = e.DiagnoseText("Error: Unexpected error from cudaGetDeviceCount(). Error 803\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, 0.8 * 0.85);
  // A named type that is not listed still disagrees.
  EXPECT_TRUE(e.DiagnoseText("ValueError: Unexpected error from cudaGetDeviceCount(). Error 803\n").diagnoses.empty());
}

TEST(Ranker, MostSpecificRuleWinsAndAlternativesStay) {
  Engine e = Make({{"general.yaml", MakeRule("general", "cuda.library_error", "CUBLAS_STATUS")},
                   {"specific.yaml", MakeRule("specific", "cuda.library_error", "CUBLAS_STATUS_EXECUTION_FAILED when calling")}});
  Report r = e.DiagnoseText("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`\n");
  ASSERT_EQ(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "specific");
  EXPECT_EQ(r.diagnoses[1].rule, "general");
  EXPECT_DOUBLE_EQ(r.diagnoses[1].confidence, r.diagnoses[0].confidence * 0.8);
  // Note: [Demotion notes]: the lowered one says why; the one ranked first on its own merit says nothing.
  EXPECT_EQ(r.diagnoses[0].ranking, "");
  EXPECT_EQ(r.diagnoses[1].ranking,
            "Confidence lowered (x0.8): rule specific matched the same error with a more specific pattern.");
}

TEST(Ranker, ContextMakesARuleMoreSpecific) {
  Engine e = Make({{"lib.yaml", MakeRule("lib", "cuda.library_error", "CUBLAS_STATUS_EXECUTION_FAILED")},
                   {"assert.yaml", MakeRule("assert", "cuda.device_side_assert", "Assertion `srcIndex < srcSelectDimSize` failed")},
                   {"idx.yaml", MakeRule("idx", "index.out_of_range", "CUBLAS_STATUS_EXECUTION_FAILED",
                                         "  context: 'srcIndex < srcSelectDimSize'\n")}});
  Report r = e.DiagnoseText(
      "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0] "
      "Assertion `srcIndex < srcSelectDimSize` failed.\n"
      "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`\n");
  ASSERT_GE(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "idx");
  // Without the assertion before it, the context rule does not fire.
  Report plain = e.DiagnoseText("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm`\n");
  ASSERT_EQ(plain.diagnoses.size(), 1u);
  EXPECT_EQ(plain.diagnoses[0].rule, "lib");
}

TEST(Ranker, ContextSeesFrames) {
  Engine e = Make({{"collate.yaml", MakeRule("collate", "data.collate_mismatch", "stack expects each tensor",
                                             "  context: '_utils/collate\\.py'\n")}});
  Report r = e.DiagnoseText(
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/collate.py\", line 163, in collate_tensor_fn\n"
      "    return torch.stack(batch, 0, out=out)\n"
      "RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_TRUE(e.DiagnoseText("RuntimeError: stack expects each tensor to be equal size\n").diagnoses.empty());
}

// `match.frames: none`: the rule reads the error line pasted alone and steps aside for a traceback,
// whose frames the other rules read; a rule without the condition matches both.
TEST(Ranker, FramesNoneMatchesOnlyAnIncidentWithoutFrames) {
  Engine e = Make({{"bare.yaml", MakeRule("bare", "data.collate_mismatch", "stack expects each tensor", "  frames: none\n")},
                   {"any.yaml", MakeRule("any", "shape.concat_mismatch", "stack expects each tensor")}});
  Report alone = e.DiagnoseText("RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1\n");
  ASSERT_EQ(alone.diagnoses.size(), 2u);
  EXPECT_EQ(alone.diagnoses[0].rule, "bare");
  Report traced = e.DiagnoseText(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 40, in <module>\n"
      "    feats = torch.stack(outs, 0)\n"
      "RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1\n");
  ASSERT_EQ(traced.diagnoses.size(), 1u);
  EXPECT_EQ(traced.diagnoses[0].rule, "any");
}

TEST(Ranker, MessagelessExceptionMatchesByType) {
  Engine e = Make({{"rdzv.yaml", MakeRule("rdzv", "distributed.rendezvous", "RendezvousTimeoutError")}});
  Report r = e.DiagnoseText(
      "Traceback (most recent call last):\n"
      "  File \"/w/run.py\", line 3, in <module>\n"
      "    main()\n"
      "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
}

TEST(Ranker, EarliestExceptionIsTheRootCause) {
  Engine e = Make({{"oom.yaml", MakeRule("oom", "cuda.oom", "CUDA out of memory", "", "confidence: 0.8\n")},
                   {"nccl.yaml", MakeRule("nccl", "distributed.collective_timeout", "Watchdog caught collective", "",
                                          "confidence: 0.85\n")}});
  Report r = e.DiagnoseText(
      "[rank1]:RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
      "[rank0]:RuntimeError: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)\n");
  ASSERT_EQ(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "oom") << "0.8 on the root beats 0.85 x 0.9 on the consequence";
  EXPECT_NEAR(r.diagnoses[1].confidence, 0.85 * 0.9, 1e-9);
  EXPECT_EQ(r.diagnoses[0].ranking, "");
  EXPECT_EQ(r.diagnoses[1].ranking,
            "Confidence lowered (x0.9): this error (line 2) is not the input's first (line 1), and later errors are "
            "most often consequences of the first.");
  // The output contract's `ranking` field (engine/README.md) carries it; a diagnosis without one has none.
  const std::string json = ToJson(r);
  EXPECT_NE(json.find("\"ranking\":\"Confidence lowered (x0.9)"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"ranking\""), json.rfind("\"ranking\"")) << json;
}

// Note: [Masked causes]: a hypothesis naming another category adds a diagnosis of that category, below
// the error it hides behind, once per category, and only behind an error that cleared the threshold.
TEST(Ranker, MaskedCauseRanksBelowTheErrorItHidesBehind) {
  const std::string masking =
      "id: a\ncategory: cuda.library_error\ntitle: t\nconfidence: 0.9\nmatch:\n  message: 'CUBLAS_STATUS_(?P<status>\\w+)'\n"
      "explain: e\nhypotheses:\n"
      "  - id: library\n    text: the library\n    test: t\n    fix: f\n"
      "  - id: earlier-index\n    category: index.out_of_range\n    text: 'an index before {status}'\n"
      "    test: t2\n    fix: f2\nverify: v\nexamples:\n  - match: 'CUBLAS_STATUS_X'\n";
  const std::string text = "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm\n";
  Engine e = Make({{"a.yaml", masking}});
  Report r = e.DiagnoseText(text);
  ASSERT_EQ(r.diagnoses.size(), 2u);
  const Diagnosis& top = r.diagnoses[0];
  const Diagnosis& masked = r.diagnoses[1];
  EXPECT_EQ(top.category, "cuda.library_error");
  EXPECT_TRUE(top.from_hypothesis.empty());
  EXPECT_EQ(top.hypotheses.size(), 2u);
  EXPECT_EQ(masked.category, "index.out_of_range");
  EXPECT_EQ(masked.rule, "a");
  EXPECT_EQ(masked.from_hypothesis, "earlier-index");
  EXPECT_DOUBLE_EQ(masked.confidence, top.confidence * 0.2);
  ASSERT_EQ(masked.hypotheses.size(), 1u);
  EXPECT_EQ(masked.hypotheses[0].text, "an index before EXECUTION_FAILED");
  EXPECT_EQ(masked.hypotheses[0].fix, "f2");
  EXPECT_NE(masked.title.find("ndex"), std::string::npos) << "the taxonomy's title: " << masked.title;
  EXPECT_NE(masked.ranking.find("earlier-index"), std::string::npos) << masked.ranking;
  EXPECT_EQ(masked.incident, top.incident);
  // A category the input already has from a rule of its own is not added again.
  Engine both = Make({{"a.yaml", masking}, {"b.yaml", MakeRule("b", "index.out_of_range", "cublasSgemm", "", "confidence: 0.5\n")}});
  Report rb = both.DiagnoseText(text);
  ASSERT_EQ(rb.diagnoses.size(), 2u);
  EXPECT_EQ(rb.diagnoses[1].rule, "b");
  EXPECT_TRUE(rb.diagnoses[1].from_hypothesis.empty());
  // The threshold is not applied to it again: its error cleared it. An error under the threshold brings none.
  DiagnoseOptions strict;
  strict.min_confidence = 0.6;
  Report rs = e.DiagnoseText(text, strict);
  ASSERT_EQ(rs.diagnoses.size(), 2u);
  EXPECT_EQ(rs.diagnoses[1].from_hypothesis, "earlier-index");
  strict.min_confidence = 0.95;
  EXPECT_TRUE(e.DiagnoseText(text, strict).diagnoses.empty());
}

// A cuBLAS-status rule whose second hypothesis names index.out_of_range, promoted by an index error's line
// elsewhere in the input (the masked-cause tests below).
const char* const kMaskingRule =
    "id: a\ncategory: cuda.library_error\ntitle: t\nconfidence: 0.9\nmatch:\n  message: 'CUBLAS_STATUS_(?P<status>\\w+)'\n"
    "explain: e\nhypotheses:\n"
    "  - id: library\n    text: the library\n    test: t\n    fix: f\n"
    "  - id: earlier-index\n    category: index.out_of_range\n    first: { input: 'index out of range in self' }\n"
    "    text: 'an index before {status}'\n    test: t2\n    fix: f2\nverify: v\nexamples:\n  - match: 'CUBLAS_STATUS_X'\n";

// Note: [Masked causes]: a masked cause whose `first:` holds (the input shows its evidence) takes the
// confidence of the error it hides behind and ranks just ahead of it; both ranking notes say why. Without
// that evidence it stays at 0.2 below.
TEST(Ranker, MaskedCauseWithItsEvidenceRanksAheadOfTheError) {
  const std::string masking = kMaskingRule;
  Engine e = Make({{"a.yaml", masking}});
  const std::string bare = "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm\n";
  Report silent = e.DiagnoseText(bare);
  ASSERT_EQ(silent.diagnoses.size(), 2u);
  EXPECT_EQ(silent.diagnoses[0].category, "cuda.library_error");
  EXPECT_DOUBLE_EQ(silent.diagnoses[1].confidence, silent.diagnoses[0].confidence * 0.2);
  Report r = e.DiagnoseText("IndexError: index out of range in self\nepoch 2\n" + bare);
  ASSERT_GE(r.diagnoses.size(), 2u);
  const Diagnosis& promoted = r.diagnoses[0];
  const Diagnosis& surface = r.diagnoses[1];
  EXPECT_EQ(promoted.category, "index.out_of_range");
  EXPECT_EQ(promoted.from_hypothesis, "earlier-index");
  EXPECT_EQ(surface.category, "cuda.library_error");
  EXPECT_DOUBLE_EQ(promoted.confidence, surface.confidence);
  EXPECT_NE(promoted.ranking.find("Promoted"), std::string::npos) << promoted.ranking;
  EXPECT_NE(promoted.ranking.find("index out of range in self"), std::string::npos) << promoted.ranking;
  ASSERT_EQ(promoted.hypotheses.size(), 1u);
  EXPECT_NE(promoted.hypotheses[0].evidence.find("index out of range in self"), std::string::npos);
  EXPECT_NE(surface.ranking.find("Ranked below index.out_of_range"), std::string::npos) << surface.ranking;
}

// Note: [Promoted cause already answered]: where a rule of the promoted category already answered below the
// surface diagnosis, that diagnosis is lifted to the surface one's confidence and ranked just ahead of it
// (no masked copy is added); without the evidence, or when it already ranks ahead, nothing moves.
TEST(Ranker, PromotedCauseAlreadyAnsweredIsLiftedAheadOfTheError) {
  const std::string masking = kMaskingRule;
  Engine e = Make({{"a.yaml", masking},
                   {"b.yaml", MakeRule("b", "index.out_of_range", "index out of range in self", "", "confidence: 0.5\n")}});
  const std::string bare = "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm\n";
  Report r = e.DiagnoseText("IndexError: index out of range in self\nepoch 2\n" + bare);
  ASSERT_GE(r.diagnoses.size(), 2u);
  const Diagnosis& lifted = r.diagnoses[0];
  const Diagnosis& surface = r.diagnoses[1];
  EXPECT_EQ(lifted.category, "index.out_of_range");
  EXPECT_EQ(lifted.rule, "b");
  EXPECT_TRUE(lifted.from_hypothesis.empty());
  EXPECT_EQ(surface.category, "cuda.library_error");
  EXPECT_DOUBLE_EQ(lifted.confidence, surface.confidence);
  EXPECT_NE(lifted.ranking.find("Raised to the confidence of the cuda.library_error diagnosis"), std::string::npos)
      << lifted.ranking;
  EXPECT_NE(lifted.ranking.find("index out of range in self"), std::string::npos) << lifted.ranking;
  EXPECT_NE(surface.ranking.find("Ranked below index.out_of_range"), std::string::npos) << surface.ranking;
  for (const Diagnosis& d : r.diagnoses) EXPECT_TRUE(d.from_hypothesis.empty()) << "no masked copy: " << d.rule;
  // A rule of that category more confident than the surface one keeps its own confidence and place.
  Engine strong = Make({{"a.yaml", masking},
                        {"b.yaml", MakeRule("b", "index.out_of_range", "index out of range in self", "", "confidence: 0.99\n")}});
  Report rs = strong.DiagnoseText("IndexError: index out of range in self\nepoch 2\n" + bare);
  ASSERT_GE(rs.diagnoses.size(), 2u);
  EXPECT_EQ(rs.diagnoses[0].rule, "b");
  EXPECT_EQ(rs.diagnoses[0].ranking.find("Raised to the confidence"), std::string::npos) << rs.diagnoses[0].ranking;
}

// Note: [Call-site evidence]: a `first:` with `frames:` reads the traceback, not the message, so it promotes a
// masked cause as an `input:` line does; the same error line without those frames (or with a frame that calls no
// embedding) keeps the surface reading first. The frames are those of corpus/index/embedding-negative-padding
// (Debian 1.13 on the CPU) down to the model's own line, under the cuBLAS error's 1.x-2.x wording.
TEST(Ranker, MaskedCauseWithCallSiteEvidenceRanksAheadOfTheError) {
  const std::string masking =
      "id: a\ncategory: cuda.library_error\ntitle: t\nconfidence: 0.9\nmatch:\n  message: 'CUBLAS_STATUS_(?P<status>\\w+)'\n"
      "explain: e\nhypotheses:\n"
      "  - id: library\n    text: the library\n    test: t\n    fix: f\n"
      "  - id: earlier-index\n    category: index.out_of_range\n"
      "    first: { message: 'EXECUTION_FAILED', frames: ': .*\\bself\\.(?:embed|emb)\\(' }\n"
      "    text: 'an index before {status}'\n    test: t2\n    fix: f2\nverify: v\nexamples:\n  - match: 'CUBLAS_STATUS_X'\n";
  Engine e = Make({{"a.yaml", masking}});
  const std::string error =
      "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n";
  auto traceback = [&](const std::string& model_line) {
    return "Traceback (most recent call last):\n"
           "  File \"/work/main/corpus/index/embedding-negative-padding/program.py\", line 21, in <module>\n"
           "    print(model(ids))\n"
           "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1194, in _call_impl\n"
           "    return forward_call(*input, **kwargs)\n"
           "  File \"/work/main/corpus/index/embedding-negative-padding/program.py\", line 15, in forward\n"
           "    " + model_line + "\n" + error;
  };
  Report r = e.DiagnoseText(traceback("return self.fc(self.embed(ids).mean(dim=1))"));
  ASSERT_GE(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].category, "index.out_of_range");
  EXPECT_EQ(r.diagnoses[0].from_hypothesis, "earlier-index");
  EXPECT_DOUBLE_EQ(r.diagnoses[0].confidence, r.diagnoses[1].confidence);
  EXPECT_NE(r.diagnoses[0].ranking.find("raised inside `return self.fc(self.embed(ids).mean(dim=1))` at program.py:15"),
            std::string::npos) << r.diagnoses[0].ranking;
  EXPECT_NE(r.diagnoses[1].ranking.find("Ranked below index.out_of_range"), std::string::npos) << r.diagnoses[1].ranking;
  // The statement calls no embedding table: the GEMM's own reading stays first, the index reading at x0.2.
  Report plain = e.DiagnoseText(traceback("return self.fc(self.pool(x).mean(dim=1))"));
  ASSERT_EQ(plain.diagnoses.size(), 2u);
  EXPECT_EQ(plain.diagnoses[0].category, "cuda.library_error");
  EXPECT_DOUBLE_EQ(plain.diagnoses[1].confidence, plain.diagnoses[0].confidence * 0.2);
  // The error line alone has no frame to read.
  EXPECT_EQ(e.DiagnoseText(error).diagnoses[0].category, "cuda.library_error");
  // Every part must hold: a status cuBLAS returns for the call itself is not a broken context.
  std::string unsupported = traceback("return self.fc(self.embed(ids).mean(dim=1))");
  unsupported.replace(unsupported.find("EXECUTION_FAILED"), std::strlen("EXECUTION_FAILED"), "NOT_SUPPORTED");
  EXPECT_EQ(e.DiagnoseText(unsupported).diagnoses[0].category, "cuda.library_error");
}

TEST(Ranker, AbstainsBelowThreshold) {
  Engine e = Make({{"weak.yaml", MakeRule("weak", "numerics.nan_loss", "loss is nan", "", "confidence: 0.3\n")}});
  EXPECT_TRUE(e.DiagnoseText("RuntimeError: loss is nan\n").diagnoses.empty());
  DiagnoseOptions all;
  all.min_confidence = 0;
  EXPECT_EQ(e.DiagnoseText("RuntimeError: loss is nan\n", all).diagnoses.size(), 1u);
}

TEST(Ranker, SameRuleOnManyIncidentsIsReportedOnceWithItsCount) {
  Engine e = Make({{"a.yaml", MakeRule("a", "shape.view_invalid", "is invalid for input of size")}});
  Report r = e.DiagnoseText(
      "RuntimeError: shape '[4, 2]' is invalid for input of size 6\n"
      "epoch 2\n"
      "RuntimeError: shape '[5, 2]' is invalid for input of size 6\n");
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].occurrences, 2);
  // The run went on after the first error ("epoch 2"): it was handled, and the later one is the
  // fatal, primary incident (Incident::handled), so the diagnosis is reported on it.
  EXPECT_EQ(r.diagnoses[0].incident, 1);
  EXPECT_TRUE(r.incidents[0].handled);
}

TEST(Ranker, HandledErrorDoesNotOutrankTheFatalOne) {
  Engine e = Make({{"dtype.yaml", MakeRule("dtype", "dtype.mismatch", "expected scalar type Float", "", "confidence: 0.85\n")},
                   {"oom.yaml", MakeRule("oom", "cuda.oom", "CUDA out of memory", "", "confidence: 0.8\n")}});
  Report r = e.DiagnoseText(
      "RuntimeError: expected scalar type Float but found Double\n"
      "epoch 3 loss 0.41\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
  ASSERT_EQ(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].rule, "oom") << "0.8 on the fatal error beats 0.85 x 0.9 on the handled one";
}

}  // namespace
}  // namespace triage
