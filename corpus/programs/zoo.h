// A zoo of small LibTorch trainers, each with one planted bug, plus clean controls.
//
// Each program is a builder returning a Trainer: the model, its optimizer, one batch, and the
// trainer's own forward / loss / step code with the bug in it. They are compiled into the probe
// test binary (tests/probes/zoo_test.cc) rather than as separate programs, because every LibTorch
// translation unit costs ~1 minute of CI compile time. The test runs each one under the guard and
// the monitor and checks that the diagnosis names the planted bug's category first, with a
// hypothesis a probe confirmed; clean controls must get no diagnosis.
#ifndef TRIAGE_CORPUS_PROGRAMS_ZOO_H_
#define TRIAGE_CORPUS_PROGRAMS_ZOO_H_

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace triage::zoo {

struct Trainer {
  std::shared_ptr<torch::nn::Module> model;
  std::shared_ptr<torch::optim::Optimizer> optimizer;
  torch::Tensor x, y;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> loss;
  std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> step;
  std::string loss_name = "cross_entropy";
  // Called by every step between backward() and optimizer.step(), where a trainer embeds the
  // monitor (gradients present, the update not yet applied). Empty: nothing.
  std::shared_ptr<std::function<void(const torch::Tensor& loss)>> after_backward =
      std::make_shared<std::function<void(const torch::Tensor&)>>();
};

struct Program {
  const char* name;
  const char* bug;        // what was planted
  const char* expected;   // taxonomy category, or "none" for a clean control
  std::function<Trainer()> build;
};

constexpr int64_t kBatch = 64, kFeatures = 32, kHidden = 128, kClasses = 10;

// A learnable synthetic task: labels from a fixed random linear teacher.
inline void MakeData(Trainer& t, uint64_t seed = 7) {
  torch::manual_seed(seed);
  t.x = torch::randn({kBatch, kFeatures});
  torch::Tensor teacher = torch::randn({kFeatures, kClasses});
  t.y = t.x.matmul(teacher).argmax(1);
}

// One MLP with switches for the forward-pass bugs. Clean when every switch is off.
struct NetOptions {
  int64_t outputs = kClasses;
  bool dropout = false;
  bool batchnorm = false;         // BatchNorm1d after fc1
  bool softmax_out = false;       // probabilities out, then cross_entropy
  bool sigmoid_out = false;       // values in [0, 1] out
  bool log_softmax_out = false;   // log-probabilities out
  bool detach_hidden = false;     // graph cut after fc1
  bool unused_layer = false;      // a registered layer forward never calls
  bool inplace_after_sigmoid = false;
  bool normalise_by_std = false;  // (x - mean) / std inside forward
};

struct NetImpl : torch::nn::Module {
  explicit NetImpl(NetOptions o) : options(o) {
    fc1 = register_module("fc1", torch::nn::Linear(kFeatures, kHidden));
    fc2 = register_module("fc2", torch::nn::Linear(kHidden, kHidden));
    fc3 = register_module("fc3", torch::nn::Linear(kHidden, o.outputs));
    if (o.dropout) drop = register_module("drop", torch::nn::Dropout(0.3));
    if (o.batchnorm) bn = register_module("bn", torch::nn::BatchNorm1d(kHidden));
    if (o.unused_layer) extra = register_module("extra", torch::nn::Linear(kHidden, kHidden));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (options.normalise_by_std) x = (x - x.mean(0)) / x.std(0);
    torch::Tensor h;
    if (options.inplace_after_sigmoid) {
      h = torch::sigmoid(fc1(x));
      h.relu_();  // BUG: modifies sigmoid's output, which SigmoidBackward needs
    } else {
      h = fc1(x);
      if (bn) h = bn(h);
      h = torch::relu(h);
    }
    if (options.detach_hidden) h = h.detach();  // BUG: fc1 never gets a gradient
    if (drop) h = drop(h);
    h = torch::relu(fc2(h));
    torch::Tensor out = fc3(h);
    if (options.softmax_out) out = torch::softmax(out, 1);  // BUG with cross_entropy or nll_loss
    if (options.sigmoid_out) out = torch::sigmoid(out);
    if (options.log_softmax_out) out = torch::log_softmax(out, 1);
    return out;
  }
  NetOptions options;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr}, extra{nullptr};
  torch::nn::Dropout drop{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};
TORCH_MODULE(Net);

// A convolutional classifier with BatchNorm and global pooling, for 3x16x16 images.
struct BnCnnImpl : torch::nn::Module {
  BnCnnImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1)));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(16));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(32));
    fc = register_module("fc", torch::nn::Linear(32, kClasses));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn1(conv1(x)));
    x = torch::max_pool2d(x, 2);
    x = torch::relu(bn2(conv2(x)));
    return fc(x.mean({2, 3}));
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(BnCnn);

// Sequence classifiers over [batch, time, features]: an LSTM read at its last step, and one
// transformer encoder block (the C++ layer takes [time, batch, features]) averaged over time.
constexpr int64_t kSteps = 6;

struct LstmNetImpl : torch::nn::Module {
  LstmNetImpl() {
    lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(kFeatures, 64).batch_first(true)));
    fc = register_module("fc", torch::nn::Linear(64, kClasses));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(std::get<0>(lstm(x)).select(1, -1)); }
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(LstmNet);

struct BlockNetImpl : torch::nn::Module {
  BlockNetImpl() {
    embed = register_module("embed", torch::nn::Linear(kFeatures, 32));
    block = register_module(
        "block", torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(32, 4).dim_feedforward(64).dropout(0.1)));
    fc = register_module("fc", torch::nn::Linear(32, kClasses));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(block(embed(x).transpose(0, 1)).mean(0)); }
  torch::nn::Linear embed{nullptr}, fc{nullptr};
  torch::nn::TransformerEncoderLayer block{nullptr};
};
TORCH_MODULE(BlockNet);

// conv1 (3->64, 3x3, no padding) turns 32x32 into 30x30; the head is sized for 64 features.
struct CnnImpl : torch::nn::Module {
  explicit CnnImpl(int64_t head_in) {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3)));
    fc = register_module("fc", torch::nn::Linear(head_in, 128));
    out = register_module("out", torch::nn::Linear(128, kClasses));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv1(x));
    x = torch::flatten(x, 1);
    return out(torch::relu(fc(x)));
  }
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::Linear fc{nullptr}, out{nullptr};
};
TORCH_MODULE(Cnn);

struct EmbedImpl : torch::nn::Module {
  EmbedImpl() {
    emb = register_module("emb", torch::nn::Embedding(50, 16));
    fc = register_module("fc", torch::nn::Linear(16, kClasses));
  }
  torch::Tensor forward(torch::Tensor idx) { return fc(emb(idx).mean(1)); }
  torch::nn::Embedding emb{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Embed);

// The usual step: zero_grad, forward, loss, backward, step.
inline void StandardStep(Trainer& t) {
  auto forward = t.forward;
  auto loss = t.loss;
  auto opt = t.optimizer;
  auto hook = t.after_backward;
  t.step = [forward, loss, opt, hook](const torch::Tensor& x, const torch::Tensor& y) {
    opt->zero_grad();
    torch::Tensor l = loss(forward(x), y);
    l.backward();
    if (*hook) (*hook)(l);
    opt->step();
    return l.detach();
  };
}

// A trainer for any module: SGD or Adam over its parameters, cross-entropy, the standard step.
template <typename ModuleHolder>
Trainer ModuleTrainer(ModuleHolder net, double lr, bool adam) {
  Trainer t;
  t.model = net.ptr();
  if (adam) {
    t.optimizer = std::make_shared<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(lr));
  } else {
    t.optimizer = std::make_shared<torch::optim::SGD>(net->parameters(), torch::optim::SGDOptions(lr));
  }
  t.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  t.loss = [](const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::cross_entropy(out, y); };
  StandardStep(t);
  return t;
}

// A sequence classifier (Adam) on sequences whose label comes from a fixed random linear teacher
// on their mean over time.
template <typename ModuleHolder>
Trainer SequenceTrainer(double lr) {
  torch::manual_seed(11);
  torch::Tensor x = torch::randn({kBatch, kSteps, kFeatures});
  torch::Tensor teacher = torch::randn({kFeatures, kClasses});
  Trainer t = ModuleTrainer(ModuleHolder(), lr, true);
  t.x = x;
  t.y = x.mean(1).matmul(teacher).argmax(1);
  return t;
}

// Replaces the trainer's loss (and rebuilds its step around it).
inline void SetLoss(Trainer& t, std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> loss) {
  t.loss = std::move(loss);
  StandardStep(t);
}

inline Trainer MlpTrainer(NetOptions o, double lr, bool adam = false) {
  Trainer data;
  MakeData(data);
  torch::manual_seed(1);
  Trainer t = ModuleTrainer(Net(o), lr, adam);
  t.x = data.x;
  t.y = data.y;
  return t;
}

// A regression task: one target per sample from a fixed random linear teacher, shaped [batch, 1]
// like the head's output; Adam, mean squared error.
inline Trainer RegressionTrainer() {
  NetOptions o;
  o.outputs = 1;
  Trainer t = MlpTrainer(o, 1e-2, true);
  torch::manual_seed(2);
  t.y = t.x.matmul(torch::randn({kFeatures, 1})) / std::sqrt(static_cast<double>(kFeatures));
  SetLoss(t, [](const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::mse_loss(out, y); });
  return t;
}

// conv1 -> flatten -> fc on 4 images of 3x32x32; `head_in` is fc's in_features (64 * 30 * 30 fits).
inline Trainer CnnTrainer(int64_t head_in) {
  torch::manual_seed(3);
  torch::Tensor x = torch::randn({4, 3, 32, 32});
  Trainer t = ModuleTrainer(Cnn(head_in), 0.01, false);
  t.x = x;
  t.y = torch::tensor({1, 0, 3, 2}, torch::kLong);
  return t;
}

inline std::vector<Program> Programs() {
  std::vector<Program> p;
  // ---- clean controls ----
  p.push_back({"clean-sgd", "none", "none", [] { return MlpTrainer({}, 0.1); }});
  p.push_back({"clean-adam-dropout", "none", "none", [] {
                 NetOptions o;
                 o.dropout = true;
                 return MlpTrainer(o, 1e-3, true);
               }});
  p.push_back({"clean-cnn", "none", "none", [] { return CnnTrainer(64 * 30 * 30); }});
  p.push_back({"clean-bn-cnn", "none", "none", [] {
                 torch::manual_seed(4);
                 torch::Tensor x = torch::randn({16, 3, 16, 16});
                 Trainer t = ModuleTrainer(BnCnn(), 1e-3, true);
                 t.x = x;
                 t.y = torch::arange(16, torch::kLong) % kClasses;
                 return t;
               }});
  p.push_back({"clean-lstm", "none", "none", [] { return SequenceTrainer<LstmNet>(1e-2); }});
  p.push_back({"clean-transformer-block", "none", "none", [] { return SequenceTrainer<BlockNet>(1e-3); }});
  p.push_back({"clean-regression", "none", "none", [] { return RegressionTrainer(); }});
  p.push_back({"clean-multilabel-sigmoid-bce", "none", "none", [] {
                 NetOptions o;
                 o.sigmoid_out = true;  // probabilities for binary_cross_entropy, which expects them
                 Trainer t = MlpTrainer(o, 1e-3, true);
                 t.y = (t.x.narrow(1, 0, kClasses) > 0).to(torch::kFloat);
                 SetLoss(t, [](const torch::Tensor& out, const torch::Tensor& y) {
                   return torch::nn::functional::binary_cross_entropy(out, y);
                 });
                 return t;
               }});
  p.push_back({"clean-log-softmax-nll", "none", "none", [] {
                 NetOptions o;
                 o.log_softmax_out = true;
                 Trainer t = MlpTrainer(o, 1e-3, true);
                 SetLoss(t, [](const torch::Tensor& out, const torch::Tensor& y) { return torch::nn::functional::nll_loss(out, y); });
                 return t;
               }});
  // ---- planted bugs ----
  p.push_back({"missing-optimizer-step", "optimizer.step() never called", "training.not_learning", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 auto forward = t.forward;
                 auto loss = t.loss;
                 auto opt = t.optimizer;
                 auto hook = t.after_backward;
                 t.step = [=](const torch::Tensor& x, const torch::Tensor& y) {
                   opt->zero_grad();
                   torch::Tensor l = loss(forward(x), y);
                   l.backward();
                   if (*hook) (*hook)(l);
                   return l.detach();  // BUG: no opt->step()
                 };
                 return t;
               }});
  p.push_back({"missing-zero-grad", "optimizer.zero_grad() never called", "training.missing_zero_grad", [] {
                 Trainer t = MlpTrainer({}, 0.01);
                 auto forward = t.forward;
                 auto loss = t.loss;
                 auto opt = t.optimizer;
                 auto hook = t.after_backward;
                 t.step = [=](const torch::Tensor& x, const torch::Tensor& y) {
                   torch::Tensor l = loss(forward(x), y);  // BUG: gradients never zeroed
                   l.backward();
                   if (*hook) (*hook)(l);
                   opt->step();
                   return l.detach();
                 };
                 return t;
               }});
  p.push_back({"frozen-random-backbone", "fc1 and fc2 frozen (requires_grad false) at their random initialisation",
               "training.not_learning", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 auto* net = static_cast<NetImpl*>(t.model.get());
                 for (torch::nn::Linear* layer : {&net->fc1, &net->fc2}) {
                   for (torch::Tensor& p : (*layer)->parameters()) p.set_requires_grad(false);  // BUG: never loaded
                 }
                 return t;
               }});
  p.push_back({"lr-zero", "learning rate 0", "training.not_learning", [] { return MlpTrainer({}, 0.0); }});
  p.push_back({"lr-too-high", "SGD learning rate 200: weights blow up to NaN", "numerics.nan_loss",
               [] { return MlpTrainer({}, 200.0); }});
  p.push_back({"log-of-zero", "hand-written NLL takes log of probabilities that underflow to 0", "numerics.nan_loss", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 t.loss_name = "nll_of_log";
                 SetLoss(t, [](const torch::Tensor& out, const torch::Tensor& y) {
                   torch::Tensor p = torch::relu(out);
                   p = p / (p.sum(1, true) + 1e-6);
                   return torch::nn::functional::nll_loss(torch::log(p), y);  // BUG: log(0) for zeroed classes
                 });
                 return t;
               }});
  p.push_back({"divide-by-zero-std", "inputs standardised by a per-feature std that is 0 for a constant feature",
               "numerics.nan_loss", [] {
                 NetOptions o;
                 o.normalise_by_std = true;
                 Trainer t = MlpTrainer(o, 0.1);
                 t.x.select(1, 0).fill_(1.0);  // a constant feature: its std is 0
                 return t;
               }});
  p.push_back({"detach-cuts-graph", "hidden activations detached after fc1", "training.unused_parameters", [] {
                 NetOptions o;
                 o.detach_hidden = true;
                 return MlpTrainer(o, 0.1);
               }});
  p.push_back({"unused-layer", "a registered Linear forward never calls", "training.unused_parameters", [] {
                 NetOptions o;
                 o.unused_layer = true;
                 return MlpTrainer(o, 0.1);
               }});
  p.push_back({"left-in-eval-mode", "model->eval() before the training loop (dropout off)", "training.eval_mode", [] {
                 NetOptions o;
                 o.dropout = true;
                 Trainer t = MlpTrainer(o, 1e-3, true);
                 t.model->eval();  // BUG: left over from a validation pass
                 return t;
               }});
  p.push_back({"softmax-before-cross-entropy", "forward returns softmax probabilities fed to cross_entropy",
               "training.softmax_before_loss", [] {
                 NetOptions o;
                 o.softmax_out = true;
                 return MlpTrainer(o, 1e-3, true);
               }});
  p.push_back({"labels-out-of-range", "labels 1..10 for a 10-way classifier", "loss.target_out_of_range", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 t.y = t.y + 1;  // BUG: 1-based labels
                 return t;
               }});
  p.push_back({"wrong-in-features", "Linear(64, 128) after a conv whose flattened output is 64x30x30",
               "shape.matmul_mismatch", [] {
                 return CnnTrainer(64);  // BUG: should be 64 * 30 * 30
               }});
  p.push_back({"float64-inputs", "inputs in float64 (from numpy) for a float32 model", "dtype.mismatch", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 t.x = t.x.to(torch::kDouble);  // BUG
                 return t;
               }});
  p.push_back({"inplace-relu", "relu_ applied in place to sigmoid's saved output", "autograd.inplace_modified", [] {
                 NetOptions o;
                 o.inplace_after_sigmoid = true;
                 return MlpTrainer(o, 0.1);
               }});
  p.push_back({"loss-accumulated-with-graph", "backward(retain_graph=true) plus a running loss summed as a tensor: every step's graph stays alive",
               "memory.growth", [] {
                 Trainer t = MlpTrainer({}, 0.01);
                 auto forward = t.forward;
                 auto loss = t.loss;
                 auto opt = t.optimizer;
                 auto total = std::make_shared<torch::Tensor>(torch::zeros({}));
                 auto hook = t.after_backward;
                 t.step = [=](const torch::Tensor& x, const torch::Tensor& y) {
                   opt->zero_grad();
                   torch::Tensor l = loss(forward(x), y);
                   l.backward(/*gradient=*/{}, /*retain_graph=*/true);
                   if (*hook) (*hook)(l);
                   opt->step();
                   *total = *total + l;  // BUG: keeps each step's graph alive (use l.item<double>())
                   return l.detach();
                 };
                 return t;
               }});
  p.push_back({"embedding-index-out-of-range", "token ids up to 59 for an Embedding(50, 16)", "index.out_of_range", [] {
                 torch::manual_seed(5);
                 torch::Tensor x = torch::randint(0, 60, {kBatch, 8}, torch::kLong);  // BUG: vocabulary is 50
                 torch::Tensor y = torch::randint(0, kClasses, {kBatch}, torch::kLong);
                 Trainer t = ModuleTrainer(Embed(), 0.1, false);
                 t.x = x;
                 t.y = y;
                 return t;
               }});
  p.push_back({"sigmoid-before-cross-entropy", "a multi-class head ending in sigmoid, fed to cross_entropy",
               "training.softmax_before_loss", [] {
                 NetOptions o;
                 o.sigmoid_out = true;  // BUG: cross_entropy expects logits
                 return MlpTrainer(o, 1e-3, true);
               }});
  p.push_back({"softmax-before-nll", "softmax probabilities fed to nll_loss, which expects log-probabilities",
               "training.softmax_before_loss", [] {
                 NetOptions o;
                 o.softmax_out = true;
                 Trainer t = MlpTrainer(o, 1e-3, true);
                 SetLoss(t, [](const torch::Tensor& out, const torch::Tensor& y) {
                   return torch::nn::functional::nll_loss(out, y);  // BUG: needs log_softmax
                 });
                 return t;
               }});
  p.push_back({"regression-target-broadcast", "a [64, 1] prediction against a [64] target in mse_loss (broadcast to [64, 64])",
               "shape.loss_input_target", [] {
                 Trainer t = RegressionTrainer();
                 t.y = t.y.squeeze(1);  // BUG: the head's output stays [64, 1]
                 return t;
               }});
  p.push_back({"batchnorm-batch-of-one", "BatchNorm1d after a Linear layer, trained on a batch of one sample",
               "shape.batchnorm_single_sample", [] {
                 NetOptions o;
                 o.batchnorm = true;
                 Trainer t = MlpTrainer(o, 0.1);
                 t.x = t.x.narrow(0, 0, 1);  // BUG: the epoch's last batch holds one sample (drop_last off)
                 t.y = t.y.narrow(0, 0, 1);
                 return t;
               }});
  p.push_back({"float-class-targets", "class labels stored as float for cross_entropy", "dtype.integer_expected", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 t.y = t.y.to(torch::kFloat);  // BUG: class indices must be int64
                 return t;
               }});
  p.push_back({"negative-labels", "labels shifted down by one: class 0 became -1", "loss.target_out_of_range", [] {
                 Trainer t = MlpTrainer({}, 0.1);
                 t.y = t.y - 1;  // BUG: the labels were already 0-based
                 return t;
               }});
  return p;
}

}  // namespace triage::zoo

#endif  // TRIAGE_CORPUS_PROGRAMS_ZOO_H_
