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
  bool dropout = false;
  bool softmax_out = false;       // probabilities out, then cross_entropy
  bool detach_hidden = false;     // graph cut after fc1
  bool unused_layer = false;      // a registered layer forward never calls
  bool inplace_after_sigmoid = false;
  bool normalise_by_std = false;  // (x - mean) / std inside forward
};

struct NetImpl : torch::nn::Module {
  explicit NetImpl(NetOptions o) : options(o) {
    fc1 = register_module("fc1", torch::nn::Linear(kFeatures, kHidden));
    fc2 = register_module("fc2", torch::nn::Linear(kHidden, kHidden));
    fc3 = register_module("fc3", torch::nn::Linear(kHidden, kClasses));
    if (o.dropout) drop = register_module("drop", torch::nn::Dropout(0.3));
    if (o.unused_layer) extra = register_module("extra", torch::nn::Linear(kHidden, kHidden));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (options.normalise_by_std) x = (x - x.mean(0)) / x.std(0);
    torch::Tensor h;
    if (options.inplace_after_sigmoid) {
      h = torch::sigmoid(fc1(x));
      h.relu_();  // BUG: modifies sigmoid's output, which SigmoidBackward needs
    } else {
      h = torch::relu(fc1(x));
    }
    if (options.detach_hidden) h = h.detach();  // BUG: fc1 never gets a gradient
    if (drop) h = drop(h);
    h = torch::relu(fc2(h));
    torch::Tensor out = fc3(h);
    if (options.softmax_out) out = torch::softmax(out, 1);  // BUG: cross_entropy expects logits
    return out;
  }
  NetOptions options;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr}, extra{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(Net);

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

inline Trainer MlpTrainer(NetOptions o, double lr, bool adam = false) {
  Trainer t;
  MakeData(t);
  torch::manual_seed(1);
  Net net(o);
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

inline std::vector<Program> Programs() {
  std::vector<Program> p;
  // ---- clean controls ----
  p.push_back({"clean-sgd", "none", "none", [] { return MlpTrainer({}, 0.1); }});
  p.push_back({"clean-adam-dropout", "none", "none", [] {
                 NetOptions o;
                 o.dropout = true;
                 return MlpTrainer(o, 1e-3, true);
               }});
  p.push_back({"clean-cnn", "none", "none", [] {
                 Trainer t;
                 torch::manual_seed(3);
                 t.x = torch::randn({4, 3, 32, 32});
                 t.y = torch::tensor({1, 0, 3, 2}, torch::kLong);
                 Cnn cnn(64 * 30 * 30);
                 t.model = cnn.ptr();
                 t.optimizer = std::make_shared<torch::optim::SGD>(cnn->parameters(), torch::optim::SGDOptions(0.01));
                 t.forward = [cnn](const torch::Tensor& x) mutable { return cnn->forward(x); };
                 t.loss = [](const torch::Tensor& o, const torch::Tensor& y) { return torch::nn::functional::cross_entropy(o, y); };
                 StandardStep(t);
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
                 t.loss = [](const torch::Tensor& out, const torch::Tensor& y) {
                   torch::Tensor p = torch::relu(out);
                   p = p / (p.sum(1, true) + 1e-6);
                   return torch::nn::functional::nll_loss(torch::log(p), y);  // BUG: log(0) for zeroed classes
                 };
                 StandardStep(t);
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
                 Trainer t;
                 torch::manual_seed(3);
                 t.x = torch::randn({4, 3, 32, 32});
                 t.y = torch::tensor({1, 0, 3, 2}, torch::kLong);
                 Cnn cnn(64);  // BUG: should be 64 * 30 * 30
                 t.model = cnn.ptr();
                 t.optimizer = std::make_shared<torch::optim::SGD>(cnn->parameters(), torch::optim::SGDOptions(0.01));
                 t.forward = [cnn](const torch::Tensor& x) mutable { return cnn->forward(x); };
                 t.loss = [](const torch::Tensor& o, const torch::Tensor& y) { return torch::nn::functional::cross_entropy(o, y); };
                 StandardStep(t);
                 return t;
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
                 Trainer t;
                 torch::manual_seed(5);
                 t.x = torch::randint(0, 60, {kBatch, 8}, torch::kLong);  // BUG: vocabulary is 50
                 t.y = torch::randint(0, kClasses, {kBatch}, torch::kLong);
                 Embed net;
                 t.model = net.ptr();
                 t.optimizer = std::make_shared<torch::optim::SGD>(net->parameters(), torch::optim::SGDOptions(0.1));
                 t.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
                 t.loss = [](const torch::Tensor& o, const torch::Tensor& y) { return torch::nn::functional::cross_entropy(o, y); };
                 StandardStep(t);
                 return t;
               }});
  return p;
}

}  // namespace triage::zoo

#endif  // TRIAGE_CORPUS_PROGRAMS_ZOO_H_
