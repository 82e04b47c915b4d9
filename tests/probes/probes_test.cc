// Tests of the probe framework: the RecordFunction tracer on LibTorch 1.13, state restoration,
// TorchScript models, the monitor and the guard.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>
#include <torch/torch.h>

#include "internal.h"
#include "triage/guard.h"
#include "triage/probes.h"

namespace triage::probes {
namespace {

struct SmallImpl : torch::nn::Module {
  SmallImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(8, 16));
    bn = register_module("bn", torch::nn::BatchNorm1d(16));
    drop = register_module("drop", torch::nn::Dropout(0.5));
    fc2 = register_module("fc2", torch::nn::Linear(16, 4));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(drop(torch::relu(bn(fc1(x))))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(Small);

Small SeededSmall() {
  torch::manual_seed(0);
  return Small();
}

struct Fixture {
  Small net = SeededSmall();  // seeded before construction: every fixture starts identical
  std::shared_ptr<torch::optim::Adam> adam;
  ProbeContext ctx;
  // The model, batch and optimizer on `device`; the batch is drawn on the CPU first, so every device starts
  // from the same numbers.
  explicit Fixture(torch::Device device = torch::kCPU) {
    net->to(device);
    adam = std::make_shared<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(1e-2));
    ctx.model = Model(net.ptr());
    ctx.inputs = torch::randn({32, 8}).to(device);
    ctx.targets = torch::randint(0, 4, {32}, torch::kLong).to(device);
    Small n = net;
    auto opt = adam;
    ctx.forward = [n](const torch::Tensor& x) mutable { return n->forward(x); };
    ctx.train_step = [n, opt](const torch::Tensor& x, const torch::Tensor& y) mutable {
      opt->zero_grad();
      torch::Tensor l = torch::nn::functional::cross_entropy(n->forward(x), y);
      l.backward();
      opt->step();
      return l.detach();
    };
    ctx.optimizer = adam.get();
    // Leave state that a careless probe would disturb: optimizer moments, gradients, a frozen
    // parameter, a submodule in eval mode while the root trains.
    ctx.train_step(ctx.inputs, ctx.targets);
    ctx.train_step(ctx.inputs, ctx.targets);
    net->fc1->bias.set_requires_grad(false);
    net->drop->eval();
  }
};

TEST(OpTracer, RecordsInputsOutputsAndParametersOn113) {
  torch::nn::Linear fc(5, 3);
  auto holder = std::make_shared<torch::nn::Module>();
  holder->register_module("fc", fc);
  OpTracer tracer(Model(holder), {});
  fc->forward(torch::randn({2, 5}));
  // The 1.13 C++ frontend's linear is inline code, not aten::linear: it calls addmm(bias, x, w.t()).
  const OpRecord* addmm = nullptr;
  for (const OpRecord& op : tracer.ops()) {
    if (op.name == "aten::addmm" && op.depth == 0) addmm = &op;
  }
  ASSERT_NE(addmm, nullptr) << "ops seen: " << tracer.ops().size();
  EXPECT_TRUE(addmm->ended);
  EXPECT_FALSE(addmm->failed);
  ASSERT_EQ(addmm->in_shapes.size(), 3u);
  EXPECT_EQ(addmm->in_shapes[1], (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(addmm->in_names, (std::vector<std::string>{"fc.bias", "", "fc.weight"}));
  // Outputs reach end callbacks in 1.13 when the callback asks for them.
  ASSERT_EQ(addmm->out_shapes.size(), 1u);
  EXPECT_EQ(addmm->out_shapes[0], (std::vector<int64_t>{2, 3}));
}

TEST(OpTracer, MarksTheOpThatThrows) {
  torch::nn::Linear fc(5, 3);
  auto holder = std::make_shared<torch::nn::Module>();
  holder->register_module("fc", fc);
  OpTracer tracer(Model(holder), {});
  EXPECT_THROW(fc->forward(torch::randn({2, 7})), c10::Error);
  int failed = tracer.FailedOp();
  ASSERT_GE(failed, 0);
  EXPECT_EQ(tracer.ops()[failed].name, "aten::addmm");
  EXPECT_TRUE(tracer.ops()[failed].out_shapes.empty());
}

TEST(OpTracer, FlagsTheFirstNonFiniteOutput) {
  auto holder = std::make_shared<torch::nn::Module>();
  OpTracer::Options options;
  options.check_finite = true;
  OpTracer tracer(Model(holder), options);
  torch::Tensor x = torch::tensor({1.0f, 0.0f});
  size_t first = tracer.ops().size();  // ops so far built x
  torch::Tensor y = torch::log(x);
  torch::Tensor z = y * 2;
  std::vector<OpRecord> top;  // ops the code above called itself (nested ones have depth > 0)
  for (size_t i = first; i < tracer.ops().size(); ++i) {
    if (tracer.ops()[i].depth == 0) top.push_back(tracer.ops()[i]);
  }
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "aten::log");
  EXPECT_TRUE(top[0].out_nonfinite);
  EXPECT_TRUE(top[0].in_has_zero);
  EXPECT_FALSE(top[0].in_nonfinite);
  EXPECT_EQ(top[1].name, "aten::mul");
  EXPECT_TRUE(top[1].in_nonfinite);
  EXPECT_TRUE(top[1].out_nonfinite);
}

void ExpectEveryProbeLeavesTheModelAsFound(torch::Device device) {
  Fixture f(device);
  for (const ProbeInfo& info : ProbeList()) {
    std::string before = StateHash(f.ctx);
    std::vector<ProbeEvidence> ev = RunProbe(info.name, f.ctx);
    ASSERT_FALSE(ev.empty()) << info.name;
    EXPECT_EQ(before, StateHash(f.ctx)) << info.name << " changed the model: " << ev.front().summary;
    EXPECT_FALSE(f.net->drop->is_training()) << info.name;
    EXPECT_TRUE(f.net->fc2->is_training()) << info.name;
    EXPECT_FALSE(f.net->fc1->bias.requires_grad()) << info.name;
  }
}

TEST(ProbeState, EveryProbeLeavesTheModelAsFound) { ExpectEveryProbeLeavesTheModelAsFound(torch::kCPU); }

TEST(ProbeState, HashSeesEachKindOfState) {
  Fixture f;
  std::string h0 = StateHash(f.ctx);
  f.net->fc2->eval();
  EXPECT_NE(h0, StateHash(f.ctx)) << "mode";
  f.net->fc2->train();
  EXPECT_EQ(h0, StateHash(f.ctx));
  torch::randn({1});
  EXPECT_NE(h0, StateHash(f.ctx)) << "rng";
  std::string h1 = StateHash(f.ctx);
  f.net->fc2->weight.mutable_grad() = torch::Tensor();
  EXPECT_NE(h1, StateHash(f.ctx)) << "grad";
  std::string h2 = StateHash(f.ctx);
  f.adam->step();
  EXPECT_NE(h2, StateHash(f.ctx)) << "params/optimizer";
}

void ExpectTrainingTrajectoryUnchangedByProbes(torch::Device device) {
  // Same training with and without the whole probe battery in the middle: identical weights.
  auto run = [device](bool probe) {
    Fixture f(device);
    for (int i = 0; i < 3; ++i) f.ctx.train_step(f.ctx.inputs, f.ctx.targets);
    if (probe) Checkup(f.ctx, 60.0);
    for (int i = 0; i < 3; ++i) f.ctx.train_step(f.ctx.inputs, f.ctx.targets);
    return f.net->fc2->weight.detach().clone();
  };
  torch::Tensor a = run(false);
  torch::Tensor b = run(true);
  EXPECT_TRUE(torch::equal(a, b)) << "max diff " << (a - b).abs().max().item<double>();
}

TEST(ProbeState, TrainingTrajectoryUnchangedByProbes) { ExpectTrainingTrajectoryUnchangedByProbes(torch::kCPU); }

// The same guarantees with the model on the GPU: the probes' CUDA paths (the CUDA generators saved and
// restored, the allocator read by memory-growth). CI has no GPU, so these skip there; they run on the
// project's GPU machine (probes/README.md, "On a GPU").
#define TRIAGE_NEEDS_CUDA()                                                   \
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device visible"

TEST(ProbeStateCuda, EveryProbeLeavesTheModelAsFound) {
  TRIAGE_NEEDS_CUDA();
  ExpectEveryProbeLeavesTheModelAsFound(torch::kCUDA);
}

TEST(ProbeStateCuda, TrainingTrajectoryUnchangedByProbes) {
  TRIAGE_NEEDS_CUDA();
  ExpectTrainingTrajectoryUnchangedByProbes(torch::kCUDA);
}

TEST(ProbeStateCuda, HashSeesTheCudaGenerator) {
  TRIAGE_NEEDS_CUDA();
  Fixture f(torch::kCUDA);
  std::string h0 = StateHash(f.ctx);
  torch::randn({1}, torch::kCUDA);
  EXPECT_NE(h0, StateHash(f.ctx));
}

TEST(ProbeStateCuda, MemoryGrowthReadsTheCudaAllocator) {
  TRIAGE_NEEDS_CUDA();
  Fixture f(torch::kCUDA);
  // A step that keeps its 1 MiB output, graph and all, on the GPU: the classic leak.
  auto kept = std::make_shared<std::vector<torch::Tensor>>();
  ProbeContext ctx = f.ctx;
  ctx.train_step = [kept](const torch::Tensor& x, const torch::Tensor&) {
    torch::Tensor w = torch::ones({8, 1024 * 256 / 32}, x.options()).requires_grad_();
    torch::Tensor out = x.matmul(w);
    kept->push_back(out);
    return out.sum().detach();
  };
  std::vector<ProbeEvidence> ev = RunProbe("memory-growth", ctx);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.front().category, "memory.growth") << ev.front().summary;
  double cuda_rate = -1;
  for (const auto& [name, value] : ev.front().facts)
    if (name == "cuda_bytes_per_step") cuda_rate = std::stod(value);
  EXPECT_GT(cuda_rate, 1e6) << "the allocator's growth (about 1 MiB a step) was not read";
}

TEST(ProbeRun, UnknownProbeAndMissingStepAreInconclusive) {
  Fixture f;
  EXPECT_EQ(RunProbe("no-such-probe", f.ctx).front().verdict, Verdict::kInconclusive);
  f.ctx.train_step = nullptr;
  auto ev = RunProbe("weight-update", f.ctx);
  EXPECT_EQ(ev.front().verdict, Verdict::kInconclusive);
  EXPECT_NE(ev.front().summary.find("step function"), std::string::npos) << ev.front().summary;
}

TEST(ProbeRun, FailingForwardIsCaught) {
  Fixture f;
  f.ctx.inputs = torch::randn({32, 9});  // wrong width: every forward throws
  for (const ProbeInfo& info : ProbeList()) {
    std::vector<ProbeEvidence> ev;
    EXPECT_NO_THROW(ev = RunProbe(info.name, f.ctx)) << info.name;
    EXPECT_FALSE(ev.empty()) << info.name;
  }
}

// A forward that raises is evidence, read by the rules; reported once in a checkup, and the other
// probes say why they could not run. An error no rule knows stays inconclusive, quoting it.
TEST(ProbeRun, ErrorOfTheModelIsEvidenceReportedOnce) {
  Fixture f;
  f.net->drop->train();  // the fixture's eval-mode dropout is a finding of its own (mode-audit)
  const std::string before = StateHash(f.ctx);
  std::string message = "Expected more than 1 value per channel when training, got input size [1, 16]";
  f.ctx.forward = [&message](const torch::Tensor&) -> torch::Tensor { C10_THROW_ERROR(ValueError, message); };
  std::vector<ProbeEvidence> ev;
  Report report = Checkup(f.ctx, 60, &ev);
  EXPECT_EQ(before, StateHash(f.ctx));
  int confirmed = 0, could_not_run = 0;
  for (const ProbeEvidence& e : ev) {
    if (e.verdict == Verdict::kConfirmed && IsErrorEvidence(e)) {
      ++confirmed;
      EXPECT_EQ(e.category, "shape.batchnorm_single_sample") << e.probe << ": " << e.summary;
      EXPECT_EQ(e.probe, "shape-trace");
      EXPECT_NE(e.summary.find("the forward raises " + message), std::string::npos) << e.summary;
    }
    could_not_run += e.summary.rfind("could not run: the forward raises " + message, 0) == 0;
  }
  EXPECT_EQ(confirmed, 1);
  EXPECT_GE(could_not_run, 5);
  ASSERT_FALSE(report.diagnoses.empty());
  EXPECT_EQ(report.diagnoses.front().category, "shape.batchnorm_single_sample");

  message = "the flux capacitor is not charged";
  auto one = RunProbe("init-loss", f.ctx);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(one[0].summary, "the forward raises the flux capacitor is not charged (no rule recognises it)");
}

// A context over `net` whose step runs `optimizer` (SGD, cross-entropy on 4 classes).
ProbeContext StepContext(torch::nn::Sequential net, std::shared_ptr<torch::optim::Optimizer> optimizer) {
  ProbeContext ctx;
  ctx.model = Model(net.ptr());
  ctx.inputs = torch::randn({32, 32});
  ctx.targets = torch::randint(0, 4, {32}, torch::kLong);
  ctx.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  ctx.train_step = [net, optimizer](const torch::Tensor& x, const torch::Tensor& y) mutable {
    optimizer->zero_grad();
    torch::Tensor l = torch::nn::functional::cross_entropy(net->forward(x), y);
    l.backward();
    optimizer->step();
    return l.detach();
  };
  ctx.optimizer = optimizer.get();
  return ctx;
}

// Parameters one training step cannot move: the optimizer does not hold them, or they are frozen
// while still at their random initialisation (a backbone that was never loaded). Frozen weights
// that were trained are a choice: the probe then leaves the question open, never "refuted".
TEST(WeightUpdate, NamesWhyParametersNeverMove) {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(32, 64), torch::nn::ReLU(), torch::nn::Linear(64, 4));
  auto head_only = std::make_shared<torch::optim::SGD>(net[2]->parameters(), torch::optim::SGDOptions(0.1));
  ProbeContext ctx = StepContext(net, head_only);
  std::string before = StateHash(ctx);
  auto ev = RunProbe("weight-update", ctx);
  EXPECT_EQ(before, StateHash(ctx));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].verdict, Verdict::kConfirmed) << ev[0].summary;
  EXPECT_EQ(ev[0].hypothesis, "parameters-not-in-optimizer");
  EXPECT_EQ(ev[0].summary, "parameters get gradients but never change: the optimizer does not hold them: 0.weight, 0.bias");

  torch::nn::Sequential other(torch::nn::Linear(32, 4));
  ctx = StepContext(net, std::make_shared<torch::optim::SGD>(other->parameters(), torch::optim::SGDOptions(0.1)));
  ev = RunProbe("weight-update", ctx);
  EXPECT_EQ(ev[0].hypothesis, "optimizer-without-model-parameters") << ev[0].summary;

  for (auto& p : net[0]->parameters()) p.set_requires_grad(false);
  ctx = StepContext(net, std::make_shared<torch::optim::SGD>(net->parameters(), torch::optim::SGDOptions(0.1)));
  before = StateHash(ctx);
  ev = RunProbe("weight-update", ctx);
  EXPECT_EQ(before, StateHash(ctx));
  EXPECT_EQ(ev[0].verdict, Verdict::kConfirmed) << ev[0].summary;
  EXPECT_EQ(ev[0].category, "training.not_learning");
  EXPECT_EQ(ev[0].hypothesis, "frozen-random-parameters");
  EXPECT_NE(ev[0].summary.find("2112 of 2372 values"), std::string::npos) << ev[0].summary;

  {
    torch::NoGradGuard no_grad;  // "pretrained": weights far outside the initialisation band
    net[0]->parameters()[0].normal_(0, 0.5);
  }
  ev = RunProbe("weight-update", ctx);
  EXPECT_EQ(ev[0].verdict, Verdict::kInconclusive) << ev[0].summary;
  EXPECT_NE(ev[0].summary.find("(frozen: 0.weight, 0.bias)"), std::string::npos) << ev[0].summary;
}

TEST(ShapeTrace, NamesTheLayerAndWhereItsInputCameFrom) {
  struct CnnImpl : torch::nn::Module {
    CnnImpl() {
      conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3)));
      fc = register_module("fc", torch::nn::Linear(64, 128));
    }
    torch::Tensor forward(torch::Tensor x) { return fc(torch::flatten(torch::relu(conv1(x)), 1)); }
    torch::nn::Conv2d conv1{nullptr};
    torch::nn::Linear fc{nullptr};
  };
  auto net = std::make_shared<CnnImpl>();
  ProbeContext ctx;
  ctx.model = Model(net);
  ctx.inputs = torch::randn({4, 3, 32, 32});
  ctx.targets = torch::zeros({4}, torch::kLong);
  ctx.forward = [net](const torch::Tensor& x) { return net->forward(x); };
  auto ev = RunProbe("shape-trace", ctx);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].verdict, Verdict::kConfirmed);
  EXPECT_EQ(ev[0].hypothesis, "flattened-feature-map");
  EXPECT_EQ(ev[0].summary,
            "fc expects 64 features, receives 57600 from conv1's [4, 64, 30, 30] output (via relu, flatten)");
}

// Runs probe `name` on `ctx` and checks that it left the model bit-identical; returns its one item.
ProbeEvidence RunOnce(const char* name, ProbeContext& ctx) {
  const std::string before = StateHash(ctx);
  std::vector<ProbeEvidence> ev = RunProbe(name, ctx);
  EXPECT_EQ(before, StateHash(ctx)) << name;
  EXPECT_EQ(ev.size(), 1u) << name;
  return ev.empty() ? ProbeEvidence{} : ev.front();
}

// A context over an MLP ending in `head` (a function of the logits) with loss `loss`.
ProbeContext HeadContext(std::function<torch::Tensor(const torch::Tensor&)> head,
                         std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> loss, int64_t classes = 8) {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(16, 32), torch::nn::ReLU(), torch::nn::Linear(32, classes));
  ProbeContext ctx;
  ctx.model = Model(net.ptr());
  ctx.inputs = torch::randn({64, 16});
  ctx.targets = torch::randint(0, classes, {64}, torch::kLong);
  ctx.forward = [net, head](const torch::Tensor& x) mutable { return head(net->forward(x)); };
  ctx.loss = std::move(loss);
  return ctx;
}

torch::Tensor CrossEntropy(const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::cross_entropy(out, y); }
torch::Tensor Nll(const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::nll_loss(out, y); }

// Outputs squashed into [0, 1] and read as logits or log-probabilities: the loss near ln C is no
// sign of health (sigmoid into cross_entropy sits there), its floor for bounded inputs is.
TEST(InitLoss, FindsSquashedOutputsFedToALossThatReadsLogits) {
  ProbeContext ctx = HeadContext([](const torch::Tensor& z) { return torch::sigmoid(z); }, CrossEntropy);
  ProbeEvidence e = RunOnce("init-loss", ctx);
  EXPECT_EQ(e.verdict, Verdict::kConfirmed) << e.summary;
  EXPECT_EQ(e.category, "training.softmax_before_loss");
  EXPECT_EQ(e.hypothesis, "sigmoid-before-cross-entropy");
  EXPECT_NE(e.summary.find("values bounded in [0, 1] (its last op is aten::sigmoid) and aten::cross_entropy_loss reads them "
                           "as logits"), std::string::npos) << e.summary;
  // The floor is the loss of one-hot outputs: ln(e + 7) - 1 = 1.274.
  EXPECT_NE(e.summary.find("(ln 8 = 2.079) and can never fall below 1.274, its value for perfect outputs"), std::string::npos)
      << e.summary;

  ctx = HeadContext([](const torch::Tensor& z) { return torch::softmax(z, 1); }, CrossEntropy);
  EXPECT_EQ(RunOnce("init-loss", ctx).hypothesis, "softmax-before-cross-entropy");

  ctx = HeadContext([](const torch::Tensor& z) { return torch::softmax(z, 1); }, Nll);
  e = RunOnce("init-loss", ctx);
  EXPECT_EQ(e.hypothesis, "nll-on-probabilities") << e.summary;
  EXPECT_NE(e.summary.find("can never fall below -1,"), std::string::npos) << e.summary;

  ctx = HeadContext([](const torch::Tensor& z) { return torch::sigmoid(z); }, [](const torch::Tensor& out, const torch::Tensor& y) {
    return torch::nn::functional::binary_cross_entropy_with_logits(out, torch::one_hot(y, 8).to(torch::kFloat));
  });
  EXPECT_EQ(RunOnce("init-loss", ctx).hypothesis, "sigmoid-before-bce-with-logits");
}

TEST(InitLoss, LeavesOutputsTheLossExpectsAlone) {
  ProbeContext ctx = HeadContext([](const torch::Tensor& z) { return z; }, CrossEntropy);
  EXPECT_EQ(RunOnce("init-loss", ctx).verdict, Verdict::kRefuted);
  ctx = HeadContext([](const torch::Tensor& z) { return torch::log_softmax(z, 1); }, Nll);
  ProbeEvidence e = RunOnce("init-loss", ctx);
  EXPECT_EQ(e.verdict, Verdict::kRefuted) << e.summary;
  EXPECT_EQ(e.summary.rfind("outputs are log-probabilities, as nll_loss expects", 0), 0u) << e.summary;
  // Probabilities for a loss that expects them, and probabilities the loss takes the log of first.
  ctx = HeadContext([](const torch::Tensor& z) { return torch::sigmoid(z); }, [](const torch::Tensor& out, const torch::Tensor& y) {
    return torch::nn::functional::binary_cross_entropy(out, torch::one_hot(y, 8).to(torch::kFloat));
  });
  EXPECT_EQ(RunOnce("init-loss", ctx).verdict, Verdict::kInconclusive);
  ctx = HeadContext([](const torch::Tensor& z) { return torch::softmax(z, 1); },
                    [](const torch::Tensor& out, const torch::Tensor& y) { return Nll(torch::log(out), y); });
  EXPECT_NE(RunOnce("init-loss", ctx).verdict, Verdict::kConfirmed);
}

// Prediction and target of different shapes that broadcast: in the C++ frontend's mse_loss (which
// expands both first) and in a loss written out by hand.
TEST(LossBroadcast, FindsPredictionAndTargetThatBroadcast) {
  auto mse = [](const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::mse_loss(out, y); };
  ProbeContext ctx = HeadContext([](const torch::Tensor& z) { return z; }, mse, 1);
  ctx.targets = torch::randn({64});
  ProbeEvidence e = RunOnce("loss-broadcast", ctx);
  EXPECT_EQ(e.verdict, Verdict::kConfirmed) << e.summary;
  EXPECT_EQ(e.category, "shape.loss_input_target");
  EXPECT_EQ(e.summary.rfind("aten::mse_loss in the loss broadcasts the prediction [64, 1] against the target [64] to [64, 64]", 0), 0u)
      << e.summary;

  ctx.loss = [](const torch::Tensor& out, const torch::Tensor& y) { return (out - y).pow(2).mean(); };
  e = RunOnce("loss-broadcast", ctx);
  EXPECT_EQ(e.verdict, Verdict::kConfirmed) << e.summary;
  EXPECT_EQ(e.summary.rfind("aten::sub in the loss broadcasts", 0), 0u) << e.summary;

  ctx.targets = torch::randn({64, 1});
  EXPECT_EQ(RunOnce("loss-broadcast", ctx).verdict, Verdict::kRefuted);
  ctx = HeadContext([](const torch::Tensor& z) { return z; }, CrossEntropy);
  EXPECT_EQ(RunOnce("loss-broadcast", ctx).verdict, Verdict::kRefuted);
}

struct BnMlpImpl : torch::nn::Module {
  BnMlpImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(8, 16));
    bn = register_module("bn", torch::nn::BatchNorm1d(16));
    fc2 = register_module("fc2", torch::nn::Linear(16, 4));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(bn(fc1(x)))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};
TORCH_MODULE(BnMlp);

// BatchNorm in training mode on one value per channel: confirmed on a batch of one, an open
// question on a larger batch (a batch of one would fail), refuted where one sample still gives
// several values per channel (after a convolution) or in eval mode.
TEST(NormBatch, FindsBatchNormOnOneValuePerChannel) {
  torch::manual_seed(0);
  BnMlp net;
  ProbeContext ctx;
  ctx.model = Model(net.ptr());
  ctx.inputs = torch::randn({1, 8});
  ctx.targets = torch::zeros({1}, torch::kLong);
  ctx.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  ProbeEvidence e = RunOnce("norm-batch", ctx);
  EXPECT_EQ(e.verdict, Verdict::kConfirmed) << e.summary;
  EXPECT_EQ(e.category, "shape.batchnorm_single_sample");
  EXPECT_EQ(e.summary.rfind("bn runs in training mode on a batch of 1 and gets one value per channel", 0), 0u) << e.summary;

  ctx.inputs = torch::randn({32, 8});
  ctx.targets = torch::zeros({32}, torch::kLong);
  e = RunOnce("norm-batch", ctx);
  EXPECT_EQ(e.verdict, Verdict::kInconclusive) << e.summary;
  EXPECT_EQ(e.summary, "this batch of 32 passes, but a batch of one sample fails at bn (one value per channel in training mode)");

  net->eval();
  EXPECT_EQ(RunOnce("norm-batch", ctx).verdict, Verdict::kRefuted);

  torch::nn::Sequential conv(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3)), torch::nn::BatchNorm2d(4));
  ctx.model = Model(conv.ptr());
  ctx.inputs = torch::randn({1, 3, 8, 8});
  ctx.forward = [conv](const torch::Tensor& x) mutable { return conv->forward(x); };
  e = RunOnce("norm-batch", ctx);
  EXPECT_EQ(e.verdict, Verdict::kInconclusive) << e.summary;  // runs, on the statistics of one sample
  ctx.inputs = torch::randn({4, 3, 8, 8});
  EXPECT_EQ(RunOnce("norm-batch", ctx).verdict, Verdict::kRefuted);
}

// Targets a class-index loss rejects: float or int32 labels, labels past the last class or
// negative; -100 (the default ignore_index) and a label the loss itself ignores are accepted.
TEST(LabelRange, FindsTargetsTheLossRejects) {
  ProbeContext ctx = HeadContext([](const torch::Tensor& z) { return z; }, CrossEntropy);
  const torch::Tensor labels = ctx.targets.clone();
  ctx.targets = labels.to(torch::kFloat);
  ProbeEvidence e = RunOnce("label-range", ctx);
  EXPECT_EQ(e.verdict, Verdict::kConfirmed) << e.summary;
  EXPECT_EQ(e.category, "dtype.integer_expected");
  EXPECT_EQ(e.hypothesis, "labels-loaded-as-float");
  EXPECT_EQ(e.summary.rfind("the targets are Float but cross_entropy reads them as class indices, which must be int64 (Long): "
                            "they hold whole numbers 0 to 7", 0), 0u) << e.summary;

  ctx.targets = labels.to(torch::kInt);
  EXPECT_EQ(RunOnce("label-range", ctx).hypothesis, "labels-int32");

  ctx.targets = labels - 1;
  e = RunOnce("label-range", ctx);
  EXPECT_EQ(e.hypothesis, "negative-labels") << e.summary;
  EXPECT_EQ(e.category, "loss.target_out_of_range");

  ctx.targets = labels.clone();
  ctx.targets[0] = -100;
  e = RunOnce("label-range", ctx);
  EXPECT_EQ(e.verdict, Verdict::kRefuted) << e.summary;

  ctx.targets[0] = 255;
  ctx.loss = [](const torch::Tensor& out, const torch::Tensor& y) {
    return torch::nn::functional::cross_entropy(out, y, torch::nn::functional::CrossEntropyFuncOptions().ignore_index(255));
  };
  e = RunOnce("label-range", ctx);
  EXPECT_EQ(e.verdict, Verdict::kInconclusive) << e.summary;
  EXPECT_NE(e.summary.find("accepts them: they are its ignore_index"), std::string::npos) << e.summary;

  ctx.loss = CrossEntropy;
  ctx.targets = torch::softmax(torch::randn({64, 8}), 1);  // class probabilities: a valid target
  EXPECT_EQ(RunOnce("label-range", ctx).verdict, Verdict::kInconclusive);
}

// A bias whose layer feeds BatchNorm gets no gradient by construction (the batch mean is
// subtracted): grad-health names it and does not call it vanishing.
TEST(GradHealth, BiasBeforeBatchNormIsNotVanishing) {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::BatchNorm2d(8),
                            torch::nn::ReLU(), torch::nn::Flatten(), torch::nn::Linear(8 * 8 * 8, 4));
  ProbeContext ctx;
  ctx.model = Model(net.ptr());
  ctx.inputs = torch::randn({16, 3, 8, 8});
  ctx.targets = torch::randint(0, 4, {16}, torch::kLong);
  ctx.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  ProbeEvidence e = RunOnce("grad-health", ctx);
  EXPECT_EQ(e.verdict, Verdict::kRefuted) << e.summary;
  bool named = false;
  for (const auto& [key, value] : e.facts) named |= key == "biases_before_batchnorm" && value == "0.bias";
  EXPECT_TRUE(named) << e.summary;
}

torch::jit::Module ScriptModel() {
  torch::jit::Module m("Net");
  // Modules compiled from Python carry this attribute; one built in C++ must add it.
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("w", torch::randn({6, 3}), false);
  m.register_parameter("b", torch::zeros({3}), false);
  m.define(R"(
    def forward(self, x):
        return torch.relu(torch.matmul(x, self.w) + self.b)
  )");
  return m;
}

TEST(ScriptModel, ProbesRunAndRestore) {
  torch::manual_seed(0);
  torch::jit::Module m = ScriptModel();
  ProbeContext ctx;
  ctx.model = Model(m);
  ctx.inputs = torch::randn({16, 6});
  ctx.targets = torch::randint(0, 3, {16}, torch::kLong);
  ASSERT_EQ(ctx.model.Parameters().size(), 2u);
  EXPECT_EQ(ctx.model.Parameters()[0].first, "w");
  for (const ProbeInfo& info : ProbeList()) {
    std::string before = StateHash(ctx);
    auto ev = RunProbe(info.name, ctx);
    EXPECT_EQ(before, StateHash(ctx)) << info.name;
  }
  auto labels = RunProbe("label-range", ctx);
  EXPECT_EQ(labels.front().verdict, Verdict::kRefuted) << labels.front().summary;
  ctx.targets = ctx.targets + 1;
  labels = RunProbe("label-range", ctx);
  EXPECT_EQ(labels.front().verdict, Verdict::kConfirmed) << labels.front().summary;
  EXPECT_EQ(labels.front().category, "loss.target_out_of_range");
}

TEST(ScriptModel, ModesRoundTrip) {
  torch::jit::Module m = ScriptModel();
  Model model(m);
  auto modes = model.Modules();
  ASSERT_FALSE(modes.empty());
  EXPECT_TRUE(model.IsTraining());
  m.eval();
  EXPECT_FALSE(model.IsTraining());
  model.SetModes(modes);
  EXPECT_TRUE(model.IsTraining());
}

// Monitor options with these sampling periods (0: never) and the default thresholds.
MonitorOptions Sampling(int grad_every, int weight_every) {
  MonitorOptions options;
  options.grad_every = grad_every;
  options.weight_every = weight_every;
  return options;
}

TEST(Monitor, NonFiniteLossRaisesOnce) {
  Fixture f;
  Monitor monitor(f.ctx.model);
  EXPECT_FALSE(monitor.Observe(torch::tensor(1.5)));
  EXPECT_TRUE(monitor.Observe(torch::tensor(std::nan(""))));
  EXPECT_EQ(monitor.alarm().kind, "non-finite-loss");
  EXPECT_EQ(monitor.alarm().message, "Loss is nan at step 1");
  EXPECT_FALSE(monitor.Observe(torch::tensor(INFINITY)));  // the first alarm is kept
  EXPECT_EQ(monitor.alarm().step, 1);
}

TEST(Monitor, ReadsTheLossInEveryDtypeAndView) {
  Fixture f;
  const MonitorOptions loss_only = Sampling(0, 0);
  // A view with a storage offset, half, bfloat16 and double are read in place; an integer through item().
  const std::vector<torch::Tensor> bad = {
      torch::tensor({1.0f, NAN}).narrow(0, 1, 1).reshape({}), torch::tensor(INFINITY).to(torch::kHalf),
      torch::tensor(-INFINITY).to(torch::kBFloat16), torch::tensor(NAN, torch::kDouble)};
  for (const torch::Tensor& loss : bad) {
    Monitor monitor(f.ctx.model, loss_only);
    EXPECT_FALSE(monitor.Observe(torch::tensor({1.0f, 2.0f}).narrow(0, 1, 1)));
    EXPECT_TRUE(monitor.Observe(loss)) << loss;
    EXPECT_EQ(monitor.alarm().kind, "non-finite-loss");
  }
  Monitor monitor(f.ctx.model, loss_only);
  EXPECT_FALSE(monitor.Observe(torch::tensor(3, torch::kLong)));
  EXPECT_FALSE(monitor.Observe(torch::tensor(2.0).requires_grad_() * 2));
  EXPECT_FALSE(monitor.alarmed());
}

TEST(Monitor, NonFiniteGradient) {
  Fixture f;
  const MonitorOptions options = Sampling(1, 0);
  Monitor monitor(f.ctx.model, options);
  EXPECT_FALSE(monitor.Observe(torch::tensor(1.0)));  // grads from the fixture's steps
  for (auto& [name, p] : f.ctx.model.Parameters()) {
    if (p.grad().defined()) {
      p.mutable_grad().view({-1})[0].fill_(NAN);
      break;
    }
  }
  EXPECT_TRUE(monitor.Observe(torch::tensor(1.0)));
  EXPECT_EQ(monitor.alarm().kind, "non-finite-grad") << monitor.alarm().message;
  EXPECT_EQ(monitor.alarm().message, "Gradient norm is nan at step 1");
}

TEST(Monitor, ExplodingGradientsAndFrozenWeights) {
  Fixture f;
  const MonitorOptions options = Sampling(1, 2);
  Monitor monitor(f.ctx.model, options);
  EXPECT_FALSE(monitor.Observe(torch::tensor(1.0)));  // grads from the fixture's steps; weights sampled
  EXPECT_FALSE(monitor.Observe(torch::tensor(1.0)));
  EXPECT_TRUE(monitor.Observe(torch::tensor(1.0)));   // step 2: no weight moved since step 0
  EXPECT_EQ(monitor.alarm().kind, "weights-frozen") << monitor.alarm().message;

  Monitor exploding(f.ctx.model, options);
  exploding.Observe(torch::tensor(1.0));
  for (auto& [name, p] : f.ctx.model.Parameters()) {
    if (p.grad().defined()) p.mutable_grad() = p.grad() * 1000;
  }
  EXPECT_TRUE(exploding.Observe(torch::tensor(1.0)));
  EXPECT_EQ(exploding.alarm().kind, "exploding-grad") << exploding.alarm().message;
}

TEST(Monitor, QuietOnHealthyTraining) {
  Fixture f;
  const MonitorOptions options = Sampling(1, 1);
  Monitor monitor(f.ctx.model, options);
  for (int i = 0; i < 20; ++i) monitor.Observe(f.ctx.train_step(f.ctx.inputs, f.ctx.targets));
  EXPECT_FALSE(monitor.alarmed()) << monitor.alarm().message;
  EXPECT_EQ(monitor.grad_norms().size(), 20u);
}

TEST(Guard, OkStepCostsNothingAndReportsNothing) {
  Fixture f;
  Guard guard(f.ctx);
  int ran = 0;
  StepResult r = guard.Step([&] { ++ran; });
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(r.report.diagnoses.empty());
  EXPECT_EQ(r.error, nullptr);
}

TEST(Guard, HandsBackTheOriginalError) {
  Fixture f;
  Guard guard(f.ctx);
  StepResult r = guard.Step([&] { f.net->forward(torch::randn({2, 9})); });
  ASSERT_FALSE(r.ok);
  ASSERT_NE(r.error, nullptr);
  EXPECT_NE(r.message.find("mat1 and mat2 shapes cannot be multiplied (2x9 and 8x16)"), std::string::npos) << r.message;
  try {
    std::rethrow_exception(r.error);
    FAIL() << "no exception";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), r.message);
  }
  EXPECT_NO_THROW(guard.Step([] { throw 42; }));
}

// One list of probe names: the engine's (what rules may name) is the registry's, and the guard's
// category and alarm tables and probes/README.md's table name only probes in it.
TEST(ProbeNames, RegistryIsTheEnginesList) {
  std::set<std::string> registry;
  for (const ProbeInfo& p : ProbeList()) registry.insert(p.name);
  const std::set<std::string> engine(ProbeNames().begin(), ProbeNames().end());
  EXPECT_EQ(registry, engine);
  EXPECT_EQ(engine.size(), ProbeNames().size()) << "a name is listed twice";
}

TEST(ProbeNames, CategoryTableNamesKnownProbes) {
  const std::set<std::string> engine(ProbeNames().begin(), ProbeNames().end());
  for (const CategoryProbes& row : CategoryTable()) {
    for (const char* p : row.probes) EXPECT_TRUE(engine.count(p)) << row.category_prefix << " -> " << p;
  }
  for (const AlarmFinding& row : AlarmFindings()) {
    for (const std::string& p : row.probes) EXPECT_TRUE(engine.count(p)) << row.kind << " -> " << p;
  }
}

TEST(ProbeNames, ReadmeTableListsEveryProbe) {
  std::ifstream in(TRIAGE_SOURCE_DIR "/probes/README.md");
  ASSERT_TRUE(in) << "probes/README.md";
  std::set<std::string> listed;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("| name |", 0) == 0) in_table = true;
    else if (in_table && line.rfind("|", 0) != 0) break;
    else if (in_table && line.rfind("|---", 0) != 0) listed.insert(line.substr(2, line.find(" |", 2) - 2));
  }
  EXPECT_EQ(listed, std::set<std::string>(ProbeNames().begin(), ProbeNames().end()));
}

// The trainer's own line, when passed, is the incident's culprit (not "line 1 of guard").
TEST(Guard, ReportNamesTheTrainersSourceLocation) {
  Fixture f;
  Guard guard(f.ctx);
  const int line = __LINE__ + 1;
  StepResult r = guard.Step([&] { f.net->forward(torch::randn({2, 9})); }, TRIAGE_SOURCE_LOCATION);
  ASSERT_FALSE(r.ok);
  ASSERT_FALSE(r.report.diagnoses.empty());
  const Incident& incident = r.report.incidents.at(r.report.diagnoses[0].incident);
  EXPECT_NE(incident.CulpritText().find("probes_test.cc:" + std::to_string(line) + " in TestBody"), std::string::npos)
      << incident.CulpritText();
  EXPECT_NE(ToText(r.report, {}).find("probes_test.cc:" + std::to_string(line)), std::string::npos);
  EXPECT_EQ(r.report.source, "Guard::Step");
  // Without a location the incident has no culprit frame (nothing invented).
  StepResult bare = guard.Step([&] { f.net->forward(torch::randn({2, 9})); });
  EXPECT_EQ(bare.report.incidents.at(0).culprit, -1);
}

// A monitor alarm's report: every cause has a fix, the monitor's finding is LibTorch C++, and
// nothing reaches the trainer's stderr (nan-source runs backward under anomaly mode, whose banner
// LibTorch prints through glog by default).
TEST(Guard, InvestigationSpeaksCxxAndPrintsNothing) {
  Fixture f;
  Guard guard(f.ctx);
  Monitor monitor(f.ctx.model, Sampling(0, 0));
  ASSERT_TRUE(monitor.Observe(torch::tensor(NAN)));
  ::testing::internal::CaptureStderr();
  Report r = guard.Investigate(monitor, TRIAGE_SOURCE_LOCATION);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].category, "numerics.nan_loss");
  bool cxx_fix = false;
  for (const Diagnosis& d : r.diagnoses) {
    ASSERT_FALSE(d.hypotheses.empty()) << d.rule;
    EXPECT_FALSE(d.hypotheses[0].fix.empty()) << d.rule << ": " << d.hypotheses[0].text;
    EXPECT_NE(d.hypotheses[0].text, monitor.alarm().message) << d.rule;
    for (const Hypothesis& h : d.hypotheses) {
      EXPECT_FALSE(h.probe == "monitor" && h.fix.empty()) << h.text;
      if (h.probe == "monitor" && h.fix.find("torch::nn::utils::clip_grad_norm_(model->parameters()") != std::string::npos) cxx_fix = true;
    }
  }
  EXPECT_TRUE(cxx_fix) << ToText(r, {});
}

// What a C++ trainer reads after a NaN loss or exploding gradients: C++ checks and fixes (the rules'
// `cpp:` advice and the monitor's own finding), the trainer's file:line, no Python command, and
// nothing on its stderr from loading the rules to the report.
TEST(Guard, AlarmReportsAreWrittenForTheCxxTrainer) {
  Fixture f;
  TextOptions all;
  all.verbose = true;  // every diagnosis' causes and checks, not only the first's
  const char* const kPython[] = {"python -c", "python ", "torch.nn.utils", "triage.check(", "--include=*.py",
                                 "import torch", "F.log_softmax", "(written for Python)"};

  ::testing::internal::CaptureStderr();
  Guard guard(f.ctx);
  Monitor nan_monitor(f.ctx.model, Sampling(0, 0));
  ASSERT_TRUE(nan_monitor.Observe(torch::tensor(NAN)));
  const int nan_line = __LINE__ + 1;
  Report nan = guard.Investigate(nan_monitor, TRIAGE_SOURCE_LOCATION);
  Monitor exploding(f.ctx.model, Sampling(1, 0));
  exploding.Observe(torch::tensor(1.0));
  for (auto& [name, p] : f.ctx.model.Parameters()) {
    if (p.grad().defined()) p.mutable_grad() = p.grad() * 1000;
  }
  ASSERT_TRUE(exploding.Observe(torch::tensor(1.0)));
  const int explode_line = __LINE__ + 1;
  Report explode = guard.Investigate(exploding, TRIAGE_SOURCE_LOCATION);
  Report nowhere = guard.Investigate(nan_monitor);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(guard.problems().empty());

  const std::string nan_text = ToText(nan, all);
  ASSERT_FALSE(nan.diagnoses.empty()) << nan_text;
  EXPECT_EQ(nan.audience, Audience::kCxx);
  EXPECT_EQ(nan.diagnoses[0].category, "numerics.nan_loss") << nan_text;
  EXPECT_NE(nan_text.find("probes_test.cc:" + std::to_string(nan_line) + " in TestBody"), std::string::npos) << nan_text;
  EXPECT_NE(nan_text.find("torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0)"), std::string::npos) << nan_text;
  EXPECT_NE(nan_text.find("torch::autograd::DetectAnomalyGuard"), std::string::npos) << nan_text;
  EXPECT_NE(nan_text.find("TORCH_CHECK(torch::isfinite(x)"), std::string::npos) << nan_text;

  const std::string explode_text = ToText(explode, all);
  ASSERT_FALSE(explode.diagnoses.empty()) << explode_text;
  EXPECT_EQ(explode.diagnoses[0].category, "numerics.exploding_gradients") << explode_text;
  EXPECT_NE(explode_text.find("probes_test.cc:" + std::to_string(explode_line)), std::string::npos) << explode_text;
  EXPECT_NE(explode_text.find("torch::nn::utils::clip_grad_norm_"), std::string::npos) << explode_text;

  for (const std::string* text : {&nan_text, &explode_text}) {
    EXPECT_EQ(text->find("line 1 of"), std::string::npos) << *text;
    for (const char* python : kPython) EXPECT_EQ(text->find(python), std::string::npos) << python << " in\n" << *text;
    for (const Report* r : {&nan, &explode}) {
      for (const Diagnosis& d : r->diagnoses) {
        for (const Hypothesis& h : d.hypotheses) EXPECT_FALSE(h.fix.empty()) << d.rule << ": " << h.text;
      }
    }
  }
  // Without the caller's location the report claims no line: the alarm was not read from a log.
  const std::string nowhere_text = ToText(nowhere, {});
  EXPECT_EQ(nowhere_text.find("line 1 of"), std::string::npos) << nowhere_text;
  EXPECT_NE(nowhere_text.find("reported by Monitor"), std::string::npos) << nowhere_text;
}

// Real LibTorch errors a C++ trainer meets, each through Guard::Step: every report names a cause
// with a C++ fix, and no text of it (causes, tests, checks, verification, probe hints) is a Python
// command or advice marked "(written for Python)" (Note: [Audience] in rules/README.md).
TEST(Guard, LibTorchErrorsGetCxxAdviceOnly) {
  Fixture f;
  TextOptions all;
  all.verbose = true;
  const char* const kPython[] = {"(written for Python)", "python -c", "python3 -c", "python train", "pip install",
                                 "--include=*.py", "import torch", "torch.nn.utils", "triage.check(", "with torch.no_grad"};
  struct Case {
    const char* name;
    const char* category;  // the top diagnosis' category
    std::function<void()> step;
  };
  const std::vector<Case> cases = {
      {"linear", "shape.matmul_mismatch", [&] { f.net->forward(torch::randn({2, 9})); }},
      {"embedding", "index.out_of_range", [] { torch::embedding(torch::randn({10, 4}), torch::tensor({12})); }},
      {"subscript", "index.out_of_range", [] { torch::randn({3}).index({5}); }},
      {"view", "shape.view_invalid", [] { torch::randn({2, 3}).view({4}); }},
      {"cat", "shape.concat_mismatch", [] { torch::cat({torch::randn({2, 3}), torch::randn({3, 4})}, 0); }},
      {"broadcast", "shape.broadcast_mismatch", [] { torch::randn({3}) + torch::randn({4}); }},
      {"conv-rank", "shape.input_rank", [] { torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3))->forward(torch::randn({3, 8})); }},
      {"target", "loss.target_out_of_range",
       [] { torch::nn::functional::cross_entropy(torch::randn({2, 3}), torch::tensor({0, 5})); }},
      {"dtype", "dtype.mismatch", [] { torch::mm(torch::randn({2, 2}), torch::randn({2, 2}, torch::kDouble)); }},
      {"std-int", "dtype.unsupported_op", [] { torch::arange(5).std(); }},
      {"backward-twice", "autograd.backward_twice",
       [] {
         torch::Tensor x = torch::randn({3}, torch::requires_grad());
         torch::Tensor y = (x.exp() * x).sum();
         y.backward();
         y.backward();
       }},
      {"non-scalar", "autograd.non_scalar_backward",
       [] { (torch::randn({3}, torch::requires_grad()) * 2).backward(); }},
      {"no-grad-fn", "autograd.no_grad_fn", [] { torch::randn({2}).sum().backward(); }},
      {"leaf-inplace", "autograd.leaf_inplace", [] { torch::randn({2}, torch::requires_grad()).add_(1); }},
      {"inplace-saved", "autograd.inplace_modified",
       [] {
         torch::Tensor x = torch::randn({3}, torch::requires_grad());
         torch::Tensor a = x.sigmoid();
         a.mul_(2);
         a.sum().backward();
       }},
  };
  Guard guard(f.ctx);
  ::testing::internal::CaptureStderr();
  std::vector<std::pair<std::string, StepResult>> results;
  for (const Case& c : cases) results.emplace_back(c.name, guard.Step(c.step, TRIAGE_SOURCE_LOCATION));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  for (size_t i = 0; i < cases.size(); ++i) {
    const StepResult& r = results[i].second;
    const std::string text = ToText(r.report, all);
    ASSERT_FALSE(r.ok) << cases[i].name;
    ASSERT_FALSE(r.report.diagnoses.empty()) << cases[i].name << ": " << r.message;
    EXPECT_EQ(r.report.diagnoses[0].category, cases[i].category) << cases[i].name << ": " << r.message << "\n" << text;
    for (const Diagnosis& d : r.report.diagnoses) {
      ASSERT_FALSE(d.hypotheses.empty()) << cases[i].name << ": " << d.rule;
      for (const Hypothesis& h : d.hypotheses) EXPECT_FALSE(h.fix.empty()) << cases[i].name << ": " << d.rule << " " << h.id;
    }
    for (const char* python : kPython) {
      EXPECT_EQ(text.find(python), std::string::npos) << cases[i].name << ": '" << python << "' in\n" << text;
    }
  }
}

// Exploding, vanishing and frozen alarms also become findings with a fix.
TEST(Guard, EveryAlarmKindHasAFinding) {
  Fixture f;
  Guard guard(f.ctx);
  Monitor frozen(f.ctx.model, Sampling(0, 1));
  frozen.Observe(torch::tensor(1.0));
  ASSERT_TRUE(frozen.Observe(torch::tensor(1.0)));
  Report r = guard.Investigate(frozen);
  bool found = false;
  for (const Diagnosis& d : r.diagnoses) {
    for (const Hypothesis& h : d.hypotheses) found = found || (h.id == "monitor-frozen" && h.fix.find("optimizer.step()") != std::string::npos);
  }
  EXPECT_TRUE(found) << ToText(r, {});
}


// triage-probe on TorchScript models and tensors saved from Python (corpus/programs/scripted).
struct CommandResult {
  int status = -1;
  std::string out;
};

CommandResult RunProbeCommand(const std::string& args) {
  std::string dir = std::string(TRIAGE_SOURCE_DIR) + "/corpus/programs/scripted/";
  std::string cmd = std::string(TRIAGE_PROBE_BINARY) + " --format json " + args + " 2>&1";
  for (const char* name : {"softmax_mlp.pt", "clean_mlp.pt", "bn_mlp.pt", "dead_mlp.pt", "x.pt", "x1.pt", "y_1based.pt", "y.pt",
                           "y1.pt", "y_float.pt"}) {
    size_t at = 0;
    while ((at = cmd.find(std::string(" ") + name, at)) != std::string::npos) {
      cmd.insert(at + 1, dir);
      at += dir.size() + 1;
    }
  }
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(TriageProbe, FindsSoftmaxBeforeCrossEntropyInScriptedModel) {
  CommandResult r = RunProbeCommand("--model softmax_mlp.pt --inputs x.pt --targets y.pt --loss cross_entropy");
  EXPECT_EQ(r.status, 1) << r.out;
  auto first = r.out.find("\"category\"");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.compare(first, 41, "\"category\":\"training.softmax_before_loss\""), 0) << r.out;
  EXPECT_NE(r.out.find("\"status\":\"confirmed\""), std::string::npos) << r.out;
}

TEST(TriageProbe, FindsOneBasedLabels) {
  CommandResult r = RunProbeCommand("--model clean_mlp.pt --inputs x.pt --targets y_1based.pt");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("loss.target_out_of_range"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("targets range over [1, 10] but the classifier has 10 outputs"), std::string::npos) << r.out;
}

TEST(TriageProbe, CleanScriptedModelGetsNoDiagnosis) {
  CommandResult r = RunProbeCommand("--model clean_mlp.pt --inputs x.pt --targets y.pt");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"diagnoses\":[]"), std::string::npos) << r.out;
}

// A checkup of a model with dead ReLUs and exploding gradients (corpus/programs/scripted/dead_mlp.pt):
// the per-layer measurements reach the JSON report as numbers and the HTML report as bar charts.
TEST(TriageProbe, PerLayerMeasurementsReachTheJsonAndTheHtmlReport) {
  CommandResult json = RunProbeCommand("--model dead_mlp.pt --inputs x.pt --targets y.pt");
  EXPECT_EQ(json.status, 1) << json.out;
  EXPECT_NE(json.out.find("\"layer_series\":[{\"probe\":\"dead-activations\",\"name\":\"dead_fraction\",\"scale\":\"linear\","
                          "\"above\":0.5,\"layers\":[{\"layer\":\"relu after fc1\",\"value\":0.75,\"offending\":true}]}]"),
            std::string::npos) << json.out;
  EXPECT_NE(json.out.find("{\"probe\":\"grad-health\",\"name\":\"grad_norm\",\"scale\":\"log\",\"above\":100,"
                          "\"below\":1e-07,\"layers\":[{\"layer\":\"fc1.weight\",\"value\":"),
            std::string::npos) << json.out;

  CommandResult html = RunProbeCommand("--model dead_mlp.pt --inputs x.pt --targets y.pt --format html");
  EXPECT_EQ(html.status, 1) << html.out;
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>\n", 0), 0u) << html.out.substr(0, 200);
  EXPECT_NE(html.out.find("<svg class=\"layers\""), std::string::npos) << html.out;
  EXPECT_NE(html.out.find(">relu after fc1 (flagged)</text>"), std::string::npos) << html.out;
  EXPECT_NE(html.out.find(">fc1.weight (flagged)</text>"), std::string::npos) << html.out;
  EXPECT_NE(html.out.find(">offends above 100</text>"), std::string::npos) << html.out;

  CommandResult bad = RunProbeCommand("--model dead_mlp.pt --inputs x.pt --format pdf");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("--format is text, json, markdown or html, not 'pdf'"), std::string::npos) << bad.out;
}

// The category of the first diagnosis in triage-probe's JSON report, or "" when there is none.
std::string FirstCategory(const std::string& json) {
  const std::string key = "\"category\":\"";
  size_t at = json.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return json.substr(at, json.find('"', at) - at);
}

// The loss raises: the message, read by the rules, is the probes' evidence and names the category.
TEST(TriageProbe, ErrorOfTheLossIsDiagnosedByTheRules) {
  CommandResult r = RunProbeCommand("--model clean_mlp.pt --inputs x.pt --targets y_float.pt");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(FirstCategory(r.out), "dtype.integer_expected") << r.out;
  EXPECT_NE(r.out.find("aten::cross_entropy_loss after fc2 failed on inputs [64, 10], [64]: expected scalar type Long but "
                       "found Float (dtype.integer_expected)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"status\":\"confirmed\""), std::string::npos) << r.out;
}

// The scripted model's own code raises (F.batch_norm's batch-size check, a Python ValueError inside
// TorchScript, not an op): the exception line of the traceback is read, not "The following
// operation failed".
TEST(TriageProbe, ExceptionRaisedInScriptedCodeIsEvidence) {
  CommandResult r = RunProbeCommand("--model bn_mlp.pt --inputs x1.pt --targets y1.pt");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(FirstCategory(r.out), "shape.batchnorm_single_sample") << r.out;
  EXPECT_NE(r.out.find("Expected more than 1 value per channel when training"), std::string::npos) << r.out;
}

TEST(TriageProbe, BadModelPathIsAUsageError) {
  CommandResult r = RunProbeCommand("--model /nonexistent.pt --inputs x.pt");
  EXPECT_EQ(r.status, 2) << r.out;
}

}  // namespace
}  // namespace triage::probes
