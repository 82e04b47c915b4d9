// The probes. Each one answers "is the fault I look for present on this model and batch?" and says
// what it measured; RunProbe wraps each in a state snapshot and a catch-all, so a probe body may
// throw and may change the model freely.
#include <malloc.h>

#include <torch/csrc/autograd/anomaly_mode.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#ifdef TRIAGE_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "internal.h"
#include "triage/locale_free.h"

namespace triage::probes {
namespace {

using Evidence = std::vector<ProbeEvidence>;

ProbeEvidence Make(const char* probe, Verdict verdict, std::string summary) {
  ProbeEvidence e;
  e.probe = probe;
  e.verdict = verdict;
  e.summary = std::move(summary);
  return e;
}

ProbeEvidence Finding(const char* probe, const char* category, const char* hypothesis, double strength,
                      std::string summary, std::string fix) {
  ProbeEvidence e = Make(probe, Verdict::kConfirmed, std::move(summary));
  e.category = category;
  e.hypothesis = hypothesis;
  e.strength = strength;
  e.fix = std::move(fix);
  return e;
}

// "%.<precision>g" in the "C" locale, whatever locale the trainer set (Note: [Locale-free text]).
std::string Num(double v, int precision = 4) { return FormatNumber(v, NumberStyle::kGeneral, precision); }

std::string Join(const std::vector<std::string>& items, size_t max_items = 6) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max_items) out += ", ... (" + std::to_string(items.size()) + " in all)";
  return out;
}

double Norm(const torch::Tensor& t) { return t.detach().to(torch::kDouble).norm().item<double>(); }

// The module a traced op ran in: its own parameters, else the closest earlier op with parameters.
std::string WhereOp(const std::vector<OpRecord>& ops, int index) {
  if (!ops[index].in_params.empty()) return "in " + ModuleOf(ops[index].in_params.front());
  for (int i = index - 1; i >= 0; --i) {
    if (ops[i].depth == 0 && !ops[i].in_params.empty()) return "after " + ModuleOf(ops[i].in_params.front());
  }
  return "before any layer with parameters";
}

void ClearGrads(const ProbeContext& ctx) {
  for (auto& [name, p] : ctx.model.Parameters()) p.mutable_grad() = torch::Tensor();
}

// Ops that only re-view a parameter (the C++ frontend's linear transposes its weight first).
bool IsView(const std::string& op) {
  return op == "aten::t" || op == "aten::transpose" || op == "aten::expand" || op == "aten::as_strided" ||
         op == "aten::view" || op == "aten::detach" || op == "aten::to" || op == "aten::contiguous";
}

bool IsReshape(const std::string& op) {
  return op == "aten::flatten" || op == "aten::view" || op == "aten::reshape" || op == "aten::_unsafe_view";
}

// The rules an error is diagnosed with when the context names none: loaded once per process.
std::shared_ptr<const RuleSet> BundledRules() {
  static const std::shared_ptr<const RuleSet> kRules = LoadRules({}).rules;
  return kRules;
}

// Calls fn; an error it raises leaves as a ModelError of `stage` (one already marked keeps its own).
template <typename Fn>
torch::Tensor Marked(const char* stage, Fn&& fn) {
  try {
    return fn();
  } catch (const ModelError&) {
    throw;
  } catch (const std::exception& e) {
    throw ModelError(stage, ExceptionType(e), ErrorText(e));
  }
}

// The context a probe runs with: the trainer's functions, their errors marked as the model's.
ProbeContext Marking(ProbeContext& ctx) {
  ProbeContext run = ctx;
  run.forward = [&ctx](const torch::Tensor& in) { return Marked("forward", [&] { return ctx.Forward(in); }); };
  run.loss = [&ctx](const torch::Tensor& out, const torch::Tensor& target) {
    return Marked("loss", [&] { return ctx.Loss(out, target); });
  };
  if (ctx.train_step) {
    run.train_step = [&ctx](const torch::Tensor& x, const torch::Tensor& y) {
      return Marked("training step", [&] { return ctx.train_step(x, y); });
    };
  }
  return run;
}

// ---- what the loss receives -------------------------------------------------------------------

// Loss ops by the family of input they expect, as the C++ frontend, TorchScript and Python call
// them (cross_entropy's own log_softmax and nll_loss run inside it, one level down).
const char* LossKindOf(const std::string& op) {
  static const std::map<std::string, const char*> kOps = {
      {"aten::cross_entropy_loss", "cross_entropy"},
      {"aten::nll_loss", "nll"},
      {"aten::nll_loss_nd", "nll"},
      {"aten::nll_loss2d", "nll"},
      {"aten::binary_cross_entropy_with_logits", "bce_with_logits"},
      {"aten::binary_cross_entropy", "bce"},
      {"aten::kl_div", "kl_div"},
      {"aten::mse_loss", "mse"},
      {"aten::l1_loss", "l1"},
      {"aten::smooth_l1_loss", "smooth_l1"},
      {"aten::huber_loss", "huber"},
  };
  auto it = kOps.find(op);
  return it == kOps.end() ? nullptr : it->second;
}

// Ops that combine two operands element by element, broadcasting them when their shapes differ.
bool IsElementwise(const std::string& op) {
  static const std::set<std::string> kOps = {
      "aten::sub",    "aten::sub_",     "aten::rsub",    "aten::add",         "aten::add_",
      "aten::mul",    "aten::div",      "aten::pow",     "aten::mse_loss",
      "aten::l1_loss", "aten::smooth_l1_loss", "aten::huber_loss", "aten::binary_cross_entropy",
      "aten::binary_cross_entropy_with_logits", "aten::kl_div"};
  return kOps.count(op) > 0;
}

// Ops that only reshape or re-view their input: the output's activation is the op before them.
bool IsShapeOnly(const std::string& op) {
  return IsView(op) || IsReshape(op) || op == "aten::squeeze" || op == "aten::unsqueeze" || op == "aten::permute" ||
         op == "aten::clone" || op == "aten::select" || op == "aten::slice";
}

// What the loss makes of the model's output: one traced run of the forward and the loss.
struct LossCall {
  torch::Tensor output;               // the model's output
  std::optional<ModelError> error;    // what the loss raised, if it did
  std::string op;                     // the first loss op the trace saw ("aten::cross_entropy_loss"), or ""
  std::string kind;                   // its family (LossKindOf), else the context's loss_name, else ""
  bool takes_output = false;          // that op reads the output itself, not a transformed copy
  std::string activation;             // the forward's last op that computes ("aten::sigmoid")
  std::string broadcast_op;           // the first op of the loss that broadcast the output against the target
  std::vector<int64_t> broadcast_to;  // the shape they broadcast to
};

// Runs forward (an error it raises leaves as the model's) and the loss under the tracer.
LossCall TraceLoss(ProbeContext& ctx) {
  LossCall call;
  torch::NoGradGuard no_grad;
  OpTracer tracer(ctx.model, {});
  call.output = ctx.Forward(ctx.inputs);
  const size_t forward_ops = tracer.ops().size();
  try {
    ctx.Loss(call.output, ctx.targets);
  } catch (const ModelError& e) {
    call.error = e;
  }
  const std::vector<OpRecord>& ops = tracer.ops();
  for (size_t i = forward_ops; i-- > 0;) {
    if (ops[i].depth == 0 && !IsShapeOnly(ops[i].name)) {
      call.activation = ops[i].name;
      break;
    }
  }
  const torch::Tensor& out = call.output;
  if (!out.defined()) return call;
  const void* out_data = out.has_storage() ? out.data_ptr() : nullptr;
  const std::vector<int64_t> out_shape = out.sizes().vec();
  const std::vector<int64_t> target_shape = ctx.targets.defined() ? ctx.targets.sizes().vec() : std::vector<int64_t>{};
  for (size_t i = forward_ops; i < ops.size(); ++i) {
    const OpRecord& op = ops[i];
    if (op.depth != 0) continue;
    int slot = -1;  // the input that is the output (or a view of it)
    for (size_t k = 0; k < op.in_data.size() && slot < 0; ++k) {
      if (out_data != nullptr && op.in_data[k] == out_data) slot = static_cast<int>(k);
    }
    if (call.op.empty()) {
      if (const char* kind = LossKindOf(op.name)) {
        call.op = op.name;
        call.kind = kind;
        call.takes_output = slot == 0;
      }
    }
    if (slot < 0 || !call.broadcast_op.empty() || IsShapeOnly(op.name)) continue;
    const std::vector<int64_t>& seen = op.in_shapes[slot];
    int64_t seen_numel = 1;
    for (int64_t d : seen) seen_numel *= d;
    if (seen != out_shape && seen_numel > out.numel()) {
      // A view of the output larger than the output: expanded against the target (what the C++
      // frontend's mse_loss and smooth_l1_loss do with broadcast_tensors before the op).
      call.broadcast_op = op.name;
      call.broadcast_to = seen;
    } else if (IsElementwise(op.name) && !target_shape.empty()) {
      for (size_t k = 0; k < op.in_shapes.size(); ++k) {
        if (static_cast<int>(k) != slot && op.in_shapes[k] == target_shape && target_shape != seen) {
          call.broadcast_op = op.name;
          call.broadcast_to = at::infer_size(seen, target_shape);
          break;
        }
      }
    }
  }
  if (call.kind.empty()) call.kind = ctx.loss_name;
  return call;
}

// What the output's values already are: probabilities (softmax: rows >= 0 that sum to 1),
// log-probabilities (log_softmax: rows whose exponentials sum to 1), values bounded in [0, 1]
// (sigmoid), or unbounded scores.
std::string OutputRange(const torch::Tensor& out) {
  if (!out.defined() || !out.is_floating_point() || out.numel() < 2 || !AllFinite(out)) return "scores";
  torch::Tensor v = out.detach().to(torch::kDouble);
  const double lo = v.min().item<double>(), hi = v.max().item<double>();
  if (v.dim() >= 2 && v.size(1) >= 2) {
    if (lo >= 0 && (v.sum(1) - 1).abs().max().item<double>() < 1e-3) return "probabilities";
    if (hi <= 0 && v.logsumexp(1).abs().max().item<double>() < 1e-3) return "log-probabilities";
  }
  if (lo >= 0 && hi <= 1) return "bounded";
  return "scores";
}

// The loss of the best outputs a head bounded in [0, 1] can give (one-hot class targets, or the
// targets themselves clamped to [0, 1]): a loss fed bounded values never falls below it. NaN when
// the targets do not say what the best output is.
double BoundedFloor(ProbeContext& ctx, const torch::Tensor& out) {
  const torch::Tensor& t = ctx.targets;
  if (!t.defined() || t.numel() == 0) return NAN;
  torch::Tensor best;
  if (!t.is_floating_point() && out.dim() == 2 && t.dim() == 1) {
    if (t.min().item<int64_t>() < 0 || t.max().item<int64_t>() >= out.size(1)) return NAN;
    best = torch::one_hot(t.to(torch::kLong), out.size(1)).to(out.options());
  } else if (t.is_floating_point() && t.sizes() == out.sizes()) {
    best = t.clamp(0, 1).to(out.options());
  } else {
    return NAN;
  }
  try {
    torch::NoGradGuard no_grad;
    return ctx.Loss(best, t).item<double>();
  } catch (const std::exception&) {
    return NAN;
  }
}

// ---- nan-source -------------------------------------------------------------------------------

Evidence NanSource(ProbeContext& ctx) {
  const char* kName = "nan-source";
  if (!AllFinite(ctx.inputs)) {
    return {Finding(kName, "numerics.nan_loss", "bad-data", 0.9,
                    "the input batch already holds NaN/Inf values", "Clean or filter the data (check the loader and the preprocessing).")};
  }
  constexpr double kHugeWeight = 1e4;
  std::vector<std::string> bad_params;
  double max_weight = 0;
  for (const auto& [name, p] : ctx.model.Parameters()) {
    if (!AllFinite(p)) bad_params.push_back(name);
    else if (p.numel() > 0 && p.is_floating_point()) max_weight = std::max(max_weight, p.detach().abs().max().item<double>());
  }
  if (!bad_params.empty()) {
    return {Finding(kName, "numerics.nan_loss", "lr-too-high", 0.9,
                    "the parameters themselves are already non-finite (" + Join(bad_params) +
                        "): earlier updates blew the weights up (learning rate too high or exploding gradients)",
                    "Lower the learning rate (try 10x smaller), add gradient clipping "
                    "(torch::nn::utils::clip_grad_norm_), and restart from a finite checkpoint.")};
  }
  {
    torch::NoGradGuard no_grad;
    OpTracer::Options options;
    options.check_finite = true;
    OpTracer tracer(ctx.model, options);
    torch::Tensor out = ctx.Forward(ctx.inputs);
    torch::Tensor loss = ctx.Loss(out, ctx.targets);
    const auto& ops = tracer.ops();
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
      const OpRecord& op = ops[i];
      if (op.depth != 0 || !op.out_nonfinite || op.in_nonfinite) continue;
      std::string where = WhereOp(ops, i);
      std::string summary = "first non-finite value comes from " + op.name + " " + where;
      ProbeEvidence e = Make(kName, Verdict::kConfirmed, "");
      e.category = "numerics.nan_loss";
      e.strength = 0.9;
      if (op.name == "aten::log" || op.name == "aten::log_" || op.name == "aten::log2" || op.name == "aten::log10") {
        e.hypothesis = "log-of-zero";
        summary += op.in_has_zero ? ": its input holds exact zeros, and log(0) = -inf" : ": log of a non-positive value";
        e.fix = "Use log_softmax / cross_entropy on logits, or clamp the input (x.clamp_min(1e-12)) before log.";
      } else if (op.name == "aten::div" || op.name == "aten::div_" || op.name == "aten::reciprocal") {
        e.hypothesis = "division-by-zero";
        summary += op.in_has_zero ? ": it divides by exact zeros (0/0 = nan, x/0 = inf)" : ": division overflowed";
        e.fix = "Add an epsilon to the divisor (x / (std + 1e-8)) or drop constant features before normalising.";
      } else if (op.name == "aten::sqrt" || op.name == "aten::rsqrt" || op.name == "aten::pow") {
        e.hypothesis = "invalid-math";
        summary += ": a root/power of a negative or zero value";
        e.fix = "Clamp the input to the valid domain, or add an epsilon inside the root.";
      } else if (op.name == "aten::exp") {
        e.hypothesis = "overflow";
        summary += ": exp overflowed";
        e.fix = "Subtract the maximum before exp (or use logsumexp / softmax).";
      } else if (max_weight > kHugeWeight) {
        // Finite weights of this size overflow float32 in the next matmul: earlier updates blew up.
        e.hypothesis = "lr-too-high";
        summary += ": the weights have grown to |w| = " + Num(max_weight) + " (updates too large: learning rate too high)";
        e.fix = "Lower the learning rate (try 10x smaller), clip gradients, and restart from a finite checkpoint.";
      } else {
        e.hypothesis = "non-finite-op";
        e.fix = "Inspect the inputs of that operation; lower the learning rate if activations are huge.";
      }
      e.summary = summary;
      e.facts.emplace_back("op", op.name);
      e.facts.emplace_back("input_has_zero", op.in_has_zero ? "yes" : "no");
      e.facts.emplace_back("ops_traced", std::to_string(ops.size()));
      return {e};
    }
    if (!AllFinite(out) || !AllFinite(loss)) {
      return {Make(kName, Verdict::kInconclusive, "the output is non-finite but no single traced op produced it first")};
    }
  }
  // Forward is finite: look for the first backward node that produces NaN (anomaly mode).
  ClearGrads(ctx);
  try {
    torch::autograd::DetectAnomalyGuard anomaly;
    torch::Tensor loss = ctx.Loss(ctx.Forward(ctx.inputs), ctx.targets);
    if (loss.requires_grad()) loss.backward();
  } catch (const c10::Error& err) {
    std::string msg = err.msg();
    if (msg.find("nan values") != std::string::npos) {
      return {Finding(kName, "numerics.nan_loss", "backward-nan", 0.85,
                      "forward is finite; in backward (anomaly mode): " + msg.substr(0, msg.find('\n')),
                      "Guard the op whose backward is named (e.g. sqrt at 0, norm of a zero vector) with an epsilon.")};
    }
    throw;
  }
  return {Make(kName, Verdict::kRefuted, "forward, loss and backward are finite on this batch")};
}

// ---- grad-health ------------------------------------------------------------------------------

// Biases whose layer's output goes straight into batch_norm (by data pointer): the normalisation
// subtracts the batch mean, so their gradient is zero by construction (up to rounding), not vanishing.
std::set<std::string> BiasesBeforeBatchNorm(const std::vector<OpRecord>& ops) {
  std::set<const void*> normalised_inputs;
  for (const OpRecord& op : ops) {
    if (op.depth == 0 && op.name == "aten::batch_norm" && !op.in_data.empty()) normalised_inputs.insert(op.in_data.front());
  }
  std::set<std::string> out;
  for (const OpRecord& op : ops) {
    if (op.depth != 0 || op.out_data.empty() || !normalised_inputs.count(op.out_data.front())) continue;
    for (const std::string& p : op.in_params) {
      if (p.size() >= 4 && p.compare(p.size() - 4, 4, "bias") == 0) out.insert(p);
    }
  }
  return out;
}

// grad-health's thresholds on the norm of one parameter's gradient: above kHugeGradNorm it explodes;
// below kTinyGradNorm it vanishes, judged only when another parameter's reaches kVanishingNeedsMax.
constexpr double kHugeGradNorm = 100, kTinyGradNorm = 1e-7, kVanishingNeedsMax = 1e-3;

Evidence GradHealth(ProbeContext& ctx) {
  const char* kName = "grad-health";
  ClearGrads(ctx);
  std::set<std::string> used, normalised;
  torch::Tensor loss;
  {
    OpTracer tracer(ctx.model, {});
    torch::AutoGradMode grad_on(true);
    loss = ctx.Loss(ctx.Forward(ctx.inputs), ctx.targets);
    for (const OpRecord& op : tracer.ops()) used.insert(op.in_params.begin(), op.in_params.end());
    normalised = BiasesBeforeBatchNorm(tracer.ops());
  }
  if (!loss.requires_grad()) {
    return {Finding(kName, "autograd.no_grad_fn", "graph-cut", 0.9,
                    "the loss does not require grad: no parameter is connected to it (detach(), no_grad or frozen parameters)",
                    "Remove the detach()/NoGradGuard between the parameters and the loss.")};
  }
  loss.backward();
  Evidence out;
  std::vector<std::string> unused, cut, nonfinite, huge, tiny;
  std::map<std::string, double> layer_sq;
  std::vector<std::string> layer_order;
  double max_norm = 0, min_norm = INFINITY;
  // The norm of each parameter's gradient, the unit the thresholds judge (a layer's weight and bias
  // apart), for the reports' per-layer plot; a parameter left without a gradient counts 0 and
  // non-finite gradients NaN. Whether it is too small is settled once every norm is known.
  LayerSeries norms;
  norms.probe = kName;
  norms.name = "grad_norm";
  norms.log_scale = true;
  norms.has_above = true;
  norms.above = kHugeGradNorm;
  std::vector<size_t> tiny_rows;
  for (const auto& [name, p] : ctx.model.Parameters()) {
    if (!p.requires_grad()) continue;
    std::string layer = ModuleOf(name);
    if (!layer_sq.count(layer)) layer_order.push_back(layer);
    layer_sq[layer] += 0;
    if (!p.grad().defined()) {
      (used.count(name) ? cut : unused).push_back(name);
      norms.layers.push_back({name, 0, true});
      continue;
    }
    if (!AllFinite(p.grad())) {
      nonfinite.push_back(name);
      norms.layers.push_back({name, std::nan(""), true});
      continue;
    }
    double n = Norm(p.grad());
    layer_sq[layer] += n * n;
    max_norm = std::max(max_norm, n);
    min_norm = std::min(min_norm, n);
    norms.layers.push_back({name, n, n > kHugeGradNorm});
    if (n > kHugeGradNorm) huge.push_back(name + "=" + Num(n));
    if (n < kTinyGradNorm && !normalised.count(name)) {
      tiny.push_back(name + "=" + Num(n));
      tiny_rows.push_back(norms.layers.size() - 1);
    }
  }
  // Vanishing gradients are judged only while others are large enough to compare with (below).
  if (max_norm > kVanishingNeedsMax) {
    norms.has_below = true;
    norms.below = kTinyGradNorm;
    for (size_t row : tiny_rows) norms.layers[row].offending = true;
  }
  std::vector<std::pair<std::string, std::string>> facts;
  for (const std::string& layer : layer_order) facts.emplace_back("grad_norm[" + layer + "]", Num(std::sqrt(layer_sq[layer])));
  if (!normalised.empty()) {
    facts.emplace_back("biases_before_batchnorm", Join(std::vector<std::string>(normalised.begin(), normalised.end())));
  }
  auto with_facts = [&](ProbeEvidence e) {
    e.facts = facts;
    e.layer_series = {norms};
    return e;
  };
  if (!unused.empty()) {
    out.push_back(with_facts(Finding(kName, "training.unused_parameters", "unused-layer", 0.85,
                                     "parameters get no gradient because forward never uses them: " + Join(unused),
                                     "Use the layer in forward(), or remove it (and keep it out of the optimizer).")));
  }
  if (!cut.empty()) {
    out.push_back(with_facts(Finding(kName, "training.unused_parameters", "graph-cut", 0.85,
                                     "parameters are used in forward but get no gradient (the graph is cut after them: "
                                     "detach(), .data, NoGradGuard): " + Join(cut),
                                     "Remove the detach()/.data/no_grad between these layers and the loss.")));
  }
  if (!nonfinite.empty()) {
    // A symptom, not a cause: it neither confirms nor refutes a hypothesis about why (nan-source does).
    out.push_back(with_facts(Make(kName, Verdict::kInconclusive,
                                  "gradients are NaN/Inf for " + Join(nonfinite) + " (run nan-source for the op)")));
  }
  if (!huge.empty()) {
    out.push_back(with_facts(Finding(kName, "numerics.exploding_gradients", "huge-gradients", 0.6,
                                     "gradient norms above 100: " + Join(huge),
                                     "Clip gradients (clip_grad_norm_), lower the learning rate, normalise inputs.")));
  }
  if (!tiny.empty() && max_norm > kVanishingNeedsMax) {
    out.push_back(with_facts(Finding(kName, "numerics.vanishing_gradients", "vanishing-gradients", 0.6,
                                     "gradient norms below 1e-7 while others reach " + Num(max_norm) + ": " + Join(tiny),
                                     "Use ReLU-family activations, residual connections or normalisation; check the init.")));
  }
  if (out.empty()) {
    out.push_back(with_facts(Make(kName, Verdict::kRefuted,
                                  "every trainable parameter gets a finite gradient; norms " + Num(min_norm) + " to " + Num(max_norm))));
  }
  return out;
}

// ---- weight-update ----------------------------------------------------------------------------

// True when a weight matrix still holds PyTorch's default initialisation (Linear/Conv: uniform in
// +-1/sqrt(fan_in)): every value inside the bound and the spread of a uniform draw. Trained or
// pretrained weights leave that band or that spread.
bool LooksFreshlyInitialised(const torch::Tensor& w) {
  if (w.dim() < 2 || w.numel() < 256 || !w.is_floating_point()) return false;
  torch::Tensor v = w.detach().to(torch::kDouble);
  const double bound = 1.0 / std::sqrt(static_cast<double>(w.numel() / w.size(0)));
  const double uniform_std = bound / std::sqrt(3.0);
  return v.abs().max().item<double>() <= bound * (1 + 1e-6) &&
         std::abs(v.std().item<double>() - uniform_std) < 0.1 * uniform_std;
}

Evidence WeightUpdate(ProbeContext& ctx) {
  const char* kName = "weight-update";
  NamedTensors params = ctx.model.Parameters();
  std::vector<torch::Tensor> before;
  for (auto& [name, p] : params) before.push_back(p.detach().clone());
  torch::Tensor loss = ctx.train_step(ctx.inputs, ctx.targets);
  // Why a parameter that did not move stayed: frozen (requires_grad false), or left out of the
  // optimizer although backward gave it a gradient.
  std::set<const void*> stepped;
  if (ctx.optimizer != nullptr) {
    for (const auto& group : ctx.optimizer->param_groups()) {
      for (const torch::Tensor& p : group.params()) stepped.insert(p.unsafeGetTensorImpl());
    }
  }
  std::vector<std::string> frozen, frozen_fresh, outside;
  int64_t frozen_numel = 0, total_numel = 0;
  std::vector<std::string> still;
  std::vector<double> ratios;
  std::vector<torch::Tensor> g1;
  double grad_norm_sq = 0;
  // How far each parameter moved relative to its size (|w1 - w0| / |w0|; 0: it did not move), for the
  // reports' per-layer plot, with the parameters a finding names flagged.
  std::vector<double> moved_by;
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor& p = params[i].second;
    double delta = Norm(p.detach() - before[i]);
    double w = Norm(before[i]);
    moved_by.push_back(delta == 0 ? 0 : w > 0 ? delta / w : INFINITY);
    total_numel += p.numel();
    if (delta == 0) {
      still.push_back(params[i].first);
      if (!p.requires_grad()) {
        frozen.push_back(params[i].first);
        frozen_numel += p.numel();
        if (LooksFreshlyInitialised(p)) frozen_fresh.push_back(params[i].first);
      } else if (ctx.optimizer != nullptr && !stepped.count(p.unsafeGetTensorImpl()) && p.grad().defined() &&
                 Norm(p.grad()) > 0) {
        outside.push_back(params[i].first);
      }
    } else {
      ratios.push_back(w > 0 ? delta / w : INFINITY);
    }
    g1.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::Tensor());
    if (p.grad().defined()) grad_norm_sq += std::pow(Norm(p.grad()), 2);
  }
  std::vector<std::pair<std::string, std::string>> facts;
  facts.emplace_back("params_unchanged", std::to_string(still.size()) + "/" + std::to_string(params.size()));
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    facts.emplace_back("update_ratio_median", Num(ratios[ratios.size() / 2]));
  }
  facts.emplace_back("grad_norm", Num(std::sqrt(grad_norm_sq)));
  if (!frozen.empty()) facts.emplace_back("frozen", std::to_string(frozen.size()) + " tensors, " + std::to_string(frozen_numel) +
                                                        " of " + std::to_string(total_numel) + " values");
  if (ctx.optimizer != nullptr && !ctx.optimizer->param_groups().empty()) {
    facts.emplace_back("lr", Num(ctx.optimizer->param_groups()[0].options().get_lr()));
  }
  auto updates = [&](const std::vector<std::string>& flagged) {
    LayerSeries s;
    s.probe = kName;
    s.name = "update_ratio";
    s.log_scale = true;
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& name = params[i].first;
      s.layers.push_back({name, moved_by[i], std::find(flagged.begin(), flagged.end(), name) != flagged.end()});
    }
    return std::vector<LayerSeries>{s};
  };
  Evidence out;
  if (!params.empty() && still.size() == params.size()) {
    ProbeEvidence e;
    if (grad_norm_sq == 0) {
      e = Finding(kName, "training.not_learning", "no-gradients", 0.85,
                  "no parameter changed in one training step and no gradient reached them (backward() not called on the loss?)",
                  "Call loss.backward() before optimizer.step().");
    } else if (ctx.optimizer != nullptr && outside.size() == params.size()) {
      e = Finding(kName, "training.not_learning", "optimizer-without-model-parameters", 0.9,
                  "no parameter changed in one training step although they get gradients (norm " +
                      Num(std::sqrt(grad_norm_sq)) + "): the optimizer holds none of the model's parameters",
                  "Build the optimizer from model->parameters() of the model you train (after moving it to its "
                  "device), not from a copy or another model.");
    } else if (ctx.optimizer != nullptr && !ctx.optimizer->param_groups().empty() &&
               ctx.optimizer->param_groups()[0].options().get_lr() == 0) {
      e = Finding(kName, "training.not_learning", "zero-learning-rate", 0.9,
                  "no parameter changed in one training step although the gradient norm is " +
                      Num(std::sqrt(grad_norm_sq)) + ": the optimizer's learning rate is 0",
                  "Set a positive learning rate (check the scheduler and the config value).");
    } else {
      e = Finding(kName, "training.not_learning", "missing-optimizer-step", 0.9,
                  "no parameter changed in one training step although the gradient norm is " +
                      Num(std::sqrt(grad_norm_sq)) + ": optimizer.step() is not called (or updates nothing)",
                  "Call optimizer.step() after loss.backward() in every step, on an optimizer built over model.parameters().");
    }
    e.facts = facts;
    e.layer_series = updates(still);
    out.push_back(e);
    return out;
  }
  if (!outside.empty()) {
    ProbeEvidence e = Finding(kName, "training.not_learning", "parameters-not-in-optimizer", 0.85,
                              "parameters get gradients but never change: the optimizer does not hold them: " + Join(outside),
                              "Pass every trainable parameter to the optimizer (model->parameters(), or add the missing "
                              "module's parameters as a param group).");
    e.facts = facts;
    e.layer_series = updates(outside);
    return {e};
  }
  // A frozen layer that still holds its random initialisation maps inputs through fixed random
  // weights: a frozen backbone that was never loaded. Frozen pretrained weights are a choice.
  if (!frozen_fresh.empty() && 2 * frozen_numel >= total_numel) {
    ProbeEvidence e = Finding(kName, "training.not_learning", "frozen-random-parameters", 0.75,
                              "frozen parameters (requires_grad false, " + std::to_string(frozen_numel) + " of " +
                                  std::to_string(total_numel) + " values) never change and still hold their random "
                                  "initialisation (uniform within +-1/sqrt(fan_in)): " + Join(frozen_fresh),
                              "Load the pretrained weights before freezing them, or leave these layers trainable "
                              "(requires_grad true, and in the optimizer).");
    e.facts = facts;
    e.layer_series = updates(frozen_fresh);
    return {e};
  }
  // Missing zero_grad: after the step the trainer's next step must leave the fresh gradient, not
  // the fresh gradient plus the one left over. Compare against a fresh gradient at the same weights
  // with the same RNG state (dropout masks).
  bool have_grads = std::any_of(g1.begin(), g1.end(), [](const torch::Tensor& g) { return g.defined() && Norm(g) > 0; });
  if (have_grads) {
    torch::Tensor rng;
    {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      rng = gen.get_state();
    }
    ClearGrads(ctx);
    ctx.Loss(ctx.Forward(ctx.inputs), ctx.targets).backward();
    std::vector<torch::Tensor> fresh;
    for (auto& [name, p] : params) fresh.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::Tensor());
    for (size_t i = 0; i < params.size(); ++i) params[i].second.mutable_grad() = g1[i].defined() ? g1[i].clone() : torch::Tensor();
    {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(rng);
    }
    // The trainer's own step, which may or may not zero the gradients first. Its optimizer step
    // changes the weights after backward, but the gradients stay the ones backward produced.
    ctx.train_step(ctx.inputs, ctx.targets);
    double err_zeroed = 0, err_accumulated = 0, norm2 = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      const torch::Tensor& g2 = params[i].second.grad();
      if (!g2.defined() || !fresh[i].defined()) continue;
      norm2 += std::pow(Norm(g2), 2);
      err_zeroed += std::pow(Norm(g2 - fresh[i]), 2);
      torch::Tensor acc = g1[i].defined() ? g1[i] + fresh[i] : fresh[i];
      err_accumulated += std::pow(Norm(g2 - acc), 2);
    }
    double n2 = std::sqrt(norm2);
    facts.emplace_back("grad_vs_fresh", Num(std::sqrt(err_zeroed) / std::max(n2, 1e-30)));
    facts.emplace_back("grad_vs_accumulated", Num(std::sqrt(err_accumulated) / std::max(n2, 1e-30)));
    if (n2 > 0 && std::sqrt(err_accumulated) < 1e-3 * n2 && std::sqrt(err_zeroed) > 0.1 * n2) {
      ProbeEvidence e = Finding(kName, "training.missing_zero_grad", "missing-zero-grad", 0.9,
                                "gradients accumulate across steps: after the trainer's second step each gradient equals "
                                "the fresh gradient plus the one left by the first step (zero_grad() is never called)",
                                "Call optimizer.zero_grad() (or model.zero_grad()) before loss.backward() in every step.");
      e.facts = facts;
      e.layer_series = updates({});
      out.push_back(e);
      return out;
    }
  }
  // Parameters that stayed for a reason this probe cannot judge (frozen pretrained weights, no
  // gradient: grad-health tells why) leave the question open.
  const std::string moved = std::to_string(params.size() - still.size()) + " of " + std::to_string(params.size()) +
                            " parameters moved in one training step";
  ProbeEvidence e = still.empty() ? Make(kName, Verdict::kRefuted, moved)
                                  : Make(kName, Verdict::kInconclusive, moved + "; unchanged: " + Join(still) +
                                                                    (frozen.empty() ? "" : " (frozen: " + Join(frozen) + ")"));
  e.facts = facts;
  e.layer_series = updates(still);
  out.push_back(e);
  return out;
}

// ---- overfit-one-batch ------------------------------------------------------------------------

Evidence OverfitOneBatch(ProbeContext& ctx) {
  const char* kName = "overfit-one-batch";
  constexpr int kSteps = 60;
  Deadline deadline(ctx.probe_budget_s);
  std::vector<double> losses;
  for (int i = 0; i < kSteps && !deadline.Passed(); ++i) {
    losses.push_back(ctx.train_step(ctx.inputs, ctx.targets).detach().item<double>());
    if (!std::isfinite(losses.back())) break;
  }
  if (losses.size() < 5) return {Make(kName, Verdict::kInconclusive, "fewer than 5 steps fitted in the time budget")};
  double first = losses.front(), last = losses.back();
  std::vector<std::pair<std::string, std::string>> facts = {
      {"steps", std::to_string(losses.size())}, {"loss_first", Num(first)}, {"loss_last", Num(last)}};
  ProbeEvidence e;
  if (!std::isfinite(last)) {
    e = Finding(kName, "numerics.nan_loss", "diverges", 0.7,
                "the loss became non-finite after " + std::to_string(losses.size()) + " steps on one batch",
                "Lower the learning rate; run nan-source.");
  } else if (last > 0.97 * first) {  // flat: a slow but real fall depends on the lr, not a fault
    e = Finding(kName, "training.not_learning", "cannot-overfit-one-batch", 0.6,
                "the loss on one repeated batch went only from " + Num(first) + " to " + Num(last) + " in " +
                    std::to_string(losses.size()) + " steps",
                "Check that the optimizer steps over the model's parameters with a sane learning rate.");
  } else if (last < 0.5 * first) {
    e = Make(kName, Verdict::kRefuted, "the loss on one repeated batch fell from " + Num(first) + " to " + Num(last));
  } else {
    e = Make(kName, Verdict::kInconclusive, "the loss on one repeated batch fell only from " + Num(first) + " to " + Num(last));
  }
  e.facts = facts;
  return {e};
}

// ---- init-loss --------------------------------------------------------------------------------

// A finding of outputs already squashed into [0, 1] (softmax, sigmoid) that reach a loss reading
// logits (cross_entropy, bce_with_logits) or log-probabilities (nll, kl_div) as they are.
std::optional<ProbeEvidence> SquashedOutputs(ProbeContext& ctx, const LossCall& call, const std::string& range,
                                             double loss) {
  const bool wants_logits = call.kind == "cross_entropy" || call.kind == "bce_with_logits";
  const bool wants_log_probabilities = call.kind == "nll" || call.kind == "kl_div";
  if ((range != "probabilities" && range != "bounded") || !call.takes_output || !(wants_logits || wants_log_probabilities)) {
    return std::nullopt;
  }
  const torch::Tensor& out = call.output;
  const std::string what = range == "probabilities" ? "probabilities (every row is >= 0 and sums to 1)"
                                                    : "values bounded in [0, 1]";
  const std::string from = call.activation.empty() ? "" : " (its last op is " + call.activation + ")";
  std::string summary = "the model outputs " + what + from + " and " + call.op + " reads them as " +
                        (wants_logits ? "logits" : "log-probabilities") + ": the loss is " + Num(loss);
  if (call.kind == "cross_entropy" && out.dim() == 2) {
    summary += " (ln " + std::to_string(out.size(1)) + " = " + Num(std::log(static_cast<double>(out.size(1)))) + ")";
  }
  const double floor = BoundedFloor(ctx, out);
  if (std::isfinite(floor)) summary += " and can never fall below " + Num(floor) + ", its value for perfect outputs in [0, 1]";
  const char* hypothesis;
  std::string fix;
  if (wants_log_probabilities) {
    hypothesis = "nll-on-probabilities";
    fix = "Apply log_softmax instead of softmax before " + call.kind + " (or return logits and use cross_entropy).";
  } else if (call.kind == "bce_with_logits") {
    hypothesis = "sigmoid-before-bce-with-logits";
    fix = "Return raw logits (drop the final sigmoid): binary_cross_entropy_with_logits applies the sigmoid itself.";
  } else if (range == "probabilities") {
    hypothesis = "softmax-before-cross-entropy";
    fix = "Return raw logits from the model (drop the final softmax) and keep CrossEntropyLoss; apply softmax only "
          "for reporting.";
  } else {
    hypothesis = "sigmoid-before-cross-entropy";
    fix = "Return raw logits (drop the final sigmoid) and keep cross_entropy for one class per sample; for several "
          "labels per sample use binary_cross_entropy_with_logits on the logits.";
  }
  ProbeEvidence e = Finding("init-loss", "training.softmax_before_loss", hypothesis, 0.9, summary, fix);
  if (std::isfinite(floor)) e.facts.emplace_back("loss_floor", Num(floor));
  return e;
}

Evidence InitLoss(ProbeContext& ctx) {
  const char* kName = "init-loss";
  LossCall call = TraceLoss(ctx);
  if (call.error) throw *call.error;
  torch::NoGradGuard no_grad;
  const torch::Tensor& out = call.output;
  const double loss = ctx.Loss(out, ctx.targets).item<double>();
  const std::string range = OutputRange(out);
  std::vector<std::pair<std::string, std::string>> facts = {
      {"loss", Num(loss)}, {"loss_op", call.op.empty() ? "(none recognised)" : call.op}, {"output", range}};
  if (!call.activation.empty()) facts.emplace_back("last_op", call.activation);
  if (std::optional<ProbeEvidence> squashed = SquashedOutputs(ctx, call, range, loss)) {
    squashed->facts.insert(squashed->facts.begin(), facts.begin(), facts.end());
    return {*squashed};
  }
  ProbeEvidence e;
  const bool log_classes = call.kind == "cross_entropy" || (call.kind == "nll" && range == "log-probabilities");
  if (out.dim() != 2 || !out.is_floating_point() || !log_classes) {
    e = Make(kName, Verdict::kInconclusive, "no ln(classes) reference: the loss is " + (call.kind.empty() ? "not one the probes know" : call.kind) +
                                        " on a " + ShapeText(out.sizes().vec()) + " output of " + range);
  } else {
    const int64_t classes = out.size(1);
    const double expected = std::log(static_cast<double>(classes));
    facts.emplace_back("ln_classes", Num(expected));
    if (std::isfinite(loss) && loss > 3 * expected) {
      e = Make(kName, Verdict::kInconclusive, "initial loss " + Num(loss) + " is far above ln(" + std::to_string(classes) + ") = " +
                                          Num(expected) + ": over-confident initial outputs (init scale, inputs not normalised)");
    } else {
      const std::string what = range == "scores"              ? "outputs are unnormalised scores"
                               : range == "log-probabilities" && call.kind == "nll" ? "outputs are log-probabilities, as nll_loss expects"
                               : range == "log-probabilities" ? "outputs are log-probabilities, which cross_entropy's log_softmax leaves as they are"
                                                              : "outputs are " + range + " but the loss transforms them before " + call.op;
      e = Make(kName, Verdict::kRefuted, what + "; loss " + Num(loss) + " vs ln(" + std::to_string(classes) + ") = " + Num(expected));
    }
  }
  e.facts = facts;
  return {e};
}

// ---- dead-activations -------------------------------------------------------------------------

// The share of a ReLU's units that output 0 for every sample above which dead-activations flags it.
constexpr double kDeadShare = 0.5;

Evidence DeadActivations(ProbeContext& ctx) {
  const char* kName = "dead-activations";
  torch::NoGradGuard no_grad;
  OpTracer::Options options;
  options.dead_units = true;
  OpTracer tracer(ctx.model, options);
  ctx.Forward(ctx.inputs);
  const auto& ops = tracer.ops();
  std::vector<std::string> dead;
  std::vector<std::pair<std::string, std::string>> facts;
  LayerSeries fractions;  // the reports' per-layer plot: one bar per ReLU, flagged above the threshold
  fractions.probe = kName;
  fractions.name = "dead_fraction";
  fractions.has_above = true;
  fractions.above = kDeadShare;
  int seen = 0;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (ops[i].out_zero_fraction < 0) continue;
    ++seen;
    std::string where = WhereOp(ops, i);
    facts.emplace_back("dead[relu " + where + "]", Num(ops[i].out_zero_fraction));
    const bool is_dead = ops[i].out_zero_fraction > kDeadShare;
    fractions.layers.push_back({"relu " + where, ops[i].out_zero_fraction, is_dead});
    if (is_dead) dead.push_back("relu " + where + " (" + Num(100 * ops[i].out_zero_fraction, 3) + "% dead)");
  }
  ProbeEvidence e;
  if (seen == 0) {
    e = Make(kName, Verdict::kInconclusive, "no ReLU op seen in forward");
  } else if (!dead.empty()) {
    e = Finding(kName, "training.dead_activations", "dead-relu", 0.7,
                "more than half of the units output 0 for every sample of the batch: " + Join(dead),
                "Lower the learning rate, use LeakyReLU/GELU, check the init and the bias, normalise inputs.");
  } else {
    e = Make(kName, Verdict::kRefuted, std::to_string(seen) + " ReLU layers, none with more than half of the units dead");
  }
  e.facts = facts;
  if (!fractions.layers.empty()) e.layer_series = {fractions};
  return {e};
}

// ---- label-range / index-range ----------------------------------------------------------------

bool ReadsClassIndices(const std::string& kind) { return kind == "cross_entropy" || kind == "nll"; }

// Targets a loss reading class indices rejects: not int64, or outside 0..classes-1 (-100 is the
// default ignore_index). The loss's kind and the number of classes come from a traced forward and
// loss; a forward that raises (the CPU re-run of a batch whose CUDA run hit a device-side assert
// may) leaves the last 2-D parameter's rows as the number of classes.
Evidence LabelRange(ProbeContext& ctx) {
  const char* kName = "label-range";
  if (!ctx.targets.defined() || ctx.targets.numel() == 0) return {Make(kName, Verdict::kInconclusive, "no targets in the probe context")};
  std::optional<LossCall> call;
  try {
    call = TraceLoss(ctx);
  } catch (const ModelError&) {
    // The forward raises: the labels are still read against the last layer's width below.
  }
  const std::string kind = call ? call->kind : ctx.loss_name;
  const std::string loss = kind.empty() ? std::string("the loss") : kind;
  torch::Tensor t = ctx.targets.detach().to(torch::kCPU);
  const std::string dtype(c10::toString(t.scalar_type()));
  int64_t classes = call && call->output.dim() >= 2 ? call->output.size(1) : -1;
  if (classes < 0) {
    for (const auto& [name, p] : ctx.model.Parameters()) {
      if (p.dim() == 2) classes = p.size(0);
    }
  }
  std::vector<std::pair<std::string, std::string>> facts = {
      {"target_dtype", dtype}, {"target_shape", ShapeText(t.sizes().vec())}, {"loss", kind.empty() ? "?" : kind}};
  if (classes >= 0) facts.emplace_back("classes", std::to_string(classes));
  auto with_facts = [&](ProbeEvidence e) {
    e.facts.insert(e.facts.begin(), facts.begin(), facts.end());
    return Evidence{e};
  };
  // The dtype is judged only against a loss op the trace saw (a loss written by hand may take anything).
  const bool class_index_op = call && !call->op.empty() && ReadsClassIndices(kind);
  if (t.is_floating_point()) {
    // Float targets with one value per sample (no class dimension) are class ids for these losses;
    // shaped like the output they are class probabilities, which cross_entropy accepts.
    if (!class_index_op || t.dim() != call->output.dim() - 1) {
      return with_facts(Make(kName, Verdict::kInconclusive, "the targets are " + dtype + " values, not class indices, for " + loss));
    }
    const bool whole = AllFinite(t) && (t == t.round()).all().item<bool>();
    std::string summary = "the targets are " + dtype + " but " + kind + " reads them as class indices, which must be int64 (Long)";
    if (whole) {
      summary += ": they hold whole numbers " + Num(t.min().item<double>(), 12) + " to " + Num(t.max().item<double>(), 12) +
                 ", class ids stored as floats";
    } else {
      summary += ", and they are not whole numbers either (regression values or probabilities with a class-index loss?)";
    }
    return with_facts(Finding(kName, "dtype.integer_expected", "labels-loaded-as-float", 0.9, summary,
                              whole ? "Cast the labels once where they are built: y.to(torch::kLong) (Python: y.long())."
                                    : "Class ids: cast with y.long(). Class probabilities: give them the output's shape. "
                                      "Regression values: use a regression loss such as mse_loss."));
  }
  if (!kind.empty() && !ReadsClassIndices(kind)) {
    return with_facts(Make(kName, Verdict::kInconclusive, "the loss (" + kind + ") does not read class indices"));
  }
  if (t.scalar_type() == torch::kBool) return with_facts(Make(kName, Verdict::kInconclusive, "the targets are booleans, not class indices"));
  if (class_index_op && t.scalar_type() != torch::kLong) {
    return with_facts(Finding(kName, "dtype.integer_expected", "labels-int32", 0.9,
                              "the targets are " + dtype + " but " + kind + " takes class indices as int64 (Long) only",
                              "Convert the labels with y.to(torch::kLong) (Python: y.long()) where they are built."));
  }
  if (classes < 0) return with_facts(Make(kName, Verdict::kInconclusive, "cannot tell the number of classes"));
  constexpr int64_t kIgnoreIndex = -100;  // cross_entropy's and nll_loss's default
  const int64_t lo = t.min().item<int64_t>(), hi = t.max().item<int64_t>();
  const int64_t ignored = (t == kIgnoreIndex).sum().item<int64_t>();
  const int64_t bad = (((t < 0) & (t != kIgnoreIndex)) | (t >= classes)).sum().item<int64_t>();
  facts.emplace_back("target_min", std::to_string(lo));
  facts.emplace_back("target_max", std::to_string(hi));
  if (ignored > 0) facts.emplace_back("ignore_index_-100", std::to_string(ignored));
  const std::string valid = "0.." + std::to_string(classes - 1);
  if (bad == 0) return with_facts(Make(kName, Verdict::kRefuted, "all targets lie in " + valid + (ignored ? " (or are -100, ignored)" : "")));
  const std::string counted = std::to_string(bad) + " of " + std::to_string(t.numel()) + " labels are out of range";
  // On the CPU a class-index loss raises on a label it does not ignore; one that ran on these
  // labels ignores them (an ignore_index other than -100).
  if (call && !call->error && ReadsClassIndices(kind) && call->output.device().is_cpu()) {
    return with_facts(Make(kName, Verdict::kInconclusive, counted + " for " + valid + " but " + kind +
                                                      " accepts them: they are its ignore_index"));
  }
  const std::string range = "targets range over [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "] but the classifier has " + std::to_string(classes) + " outputs (valid " + valid + "): " + counted;
  if (((t < 0) & (t != kIgnoreIndex)).any().item<bool>()) {
    return with_facts(Finding(kName, "loss.target_out_of_range", "negative-labels", 0.95, range,
                              "Map the labels into " + valid + "; mark samples to skip with the loss's ignore_index "
                              "(-100 unless set), not another negative value."));
  }
  return with_facts(Finding(kName, "loss.target_out_of_range", "labels-exceed-classes", 0.95, range,
                            hi >= classes && lo >= 1 && hi == classes
                                ? "Labels look 1-based: subtract 1, or size the last layer for " + std::to_string(hi + 1) + " classes."
                                : "Size the last layer for " + std::to_string(hi + 1) + " classes, or remap the labels into " +
                                      valid + "."));
}

Evidence IndexRange(ProbeContext& ctx) {
  const char* kName = "index-range";
  torch::NoGradGuard no_grad;
  OpTracer::Options options;
  options.embedding = true;
  OpTracer tracer(ctx.model, options);
  std::string error;
  std::exception_ptr raised;
  try {
    ctx.Forward(ctx.inputs);
  } catch (const ModelError& e) {
    error = e.what();
    raised = std::current_exception();
  }
  const auto& ops = tracer.ops();
  int seen = 0;
  for (const OpRecord& op : ops) {
    if (op.name != "aten::embedding" || op.in_shapes.empty()) continue;
    ++seen;
    int64_t rows = op.in_shapes[0].empty() ? 0 : op.in_shapes[0][0];
    std::string layer = op.in_params.empty() ? std::string("an embedding") : ModuleOf(op.in_params.front());
    if (op.in_max_index >= rows) {
      ProbeEvidence e = Finding(kName, "index.out_of_range", "index-exceeds-num-embeddings", 0.95,
                                layer + " has " + std::to_string(rows) + " rows (num_embeddings) but receives index " +
                                    Num(op.in_max_index, 12),
                                "Build the embedding with num_embeddings = vocabulary size (max index + 1), or fix the "
                                "tokenizer/vocabulary mapping.");
      e.facts = {{"num_embeddings", std::to_string(rows)}, {"max_index", Num(op.in_max_index, 12)}};
      if (!error.empty()) e.facts.emplace_back("cpu_error", error.substr(0, error.find('\n')));
      return {e};
    }
  }
  if (raised) std::rethrow_exception(raised);  // an error other than a bad index: evidence of its own
  if (seen == 0) return {Make(kName, Verdict::kInconclusive, "no embedding op seen in forward")};
  return {Make(kName, Verdict::kRefuted, std::to_string(seen) + " embedding lookups, all indices within range")};
}

// ---- device-audit / dtype-audit ---------------------------------------------------------------

Evidence DeviceAudit(ProbeContext& ctx) {
  const char* kName = "device-audit";
  std::map<std::string, std::vector<std::string>> by_device;
  for (const auto& [name, p] : ctx.model.Parameters()) by_device[p.device().str()].push_back(name);
  for (const auto& [name, b] : ctx.model.Buffers()) {
    if (b.defined()) by_device[b.device().str()].push_back(name + " (buffer)");
  }
  std::vector<std::pair<std::string, std::string>> facts;
  for (const auto& [device, names] : by_device) facts.emplace_back("on_" + device, std::to_string(names.size()));
  std::string input_device = ctx.inputs.defined() ? ctx.inputs.device().str() : "?";
  facts.emplace_back("inputs", input_device);
  if (ctx.targets.defined()) facts.emplace_back("targets", ctx.targets.device().str());
  ProbeEvidence e;
  if (by_device.size() > 1) {
    std::string parts;
    for (const auto& [device, names] : by_device) parts += (parts.empty() ? "" : "; ") + device + ": " + Join(names, 3);
    e = Finding(kName, "device.mixed_devices", "model-split-across-devices", 0.9,
                "the model's tensors are on several devices (" + parts + ")",
                "Call model->to(device) after building the whole model (layers added later stay on the CPU).");
  } else if (by_device.size() == 1 && ctx.inputs.defined() && by_device.begin()->first != input_device) {
    e = Finding(kName, "device.input_weight_mismatch", "input-on-other-device", 0.9,
                "the inputs are on " + input_device + " but the parameters are on " + by_device.begin()->first,
                "Move each batch to the model's device: x = x.to(device), y = y.to(device).");
  } else if (ctx.targets.defined() && ctx.inputs.defined() && ctx.targets.device() != ctx.inputs.device()) {
    e = Finding(kName, "device.mixed_devices", "targets-on-other-device", 0.85,
                "the targets are on " + ctx.targets.device().str() + " but the inputs on " + input_device,
                "Move the targets to the same device as the outputs.");
  } else {
    e = Make(kName, Verdict::kRefuted, "parameters, buffers, inputs and targets are all on " + input_device);
  }
  e.facts = facts;
  return {e};
}

Evidence DtypeAudit(ProbeContext& ctx) {
  const char* kName = "dtype-audit";
  std::map<std::string, std::vector<std::string>> by_dtype;
  for (const auto& [name, p] : ctx.model.Parameters()) {
    if (p.is_floating_point()) by_dtype[std::string(c10::toString(p.scalar_type()))].push_back(name);
  }
  std::vector<std::pair<std::string, std::string>> facts;
  for (const auto& [dtype, names] : by_dtype) facts.emplace_back("params_" + dtype, std::to_string(names.size()));
  std::string in = ctx.inputs.defined() ? std::string(c10::toString(ctx.inputs.scalar_type())) : "?";
  facts.emplace_back("inputs", in);
  if (ctx.targets.defined()) facts.emplace_back("targets", std::string(c10::toString(ctx.targets.scalar_type())));
  ProbeEvidence e;
  if (by_dtype.size() > 1) {
    std::string parts;
    for (const auto& [dtype, names] : by_dtype) parts += (parts.empty() ? "" : "; ") + dtype + ": " + Join(names, 3);
    e = Finding(kName, "dtype.mismatch", "mixed-parameter-dtypes", 0.85, "the parameters have several dtypes (" + parts + ")",
                "Convert the whole model once: model->to(torch::kFloat32).");
  } else if (by_dtype.size() == 1 && ctx.inputs.defined() && ctx.inputs.is_floating_point() && by_dtype.begin()->first != in) {
    e = Finding(kName, "dtype.mismatch", "input-dtype-differs", 0.9,
                "the inputs are " + in + " but the parameters are " + by_dtype.begin()->first + " (" +
                    Join(by_dtype.begin()->second, 3) + ")",
                "Convert the batch to the model's dtype (x.to(torch::kFloat32)); numpy float64 arrays are the usual source.");
  } else {
    e = Make(kName, Verdict::kRefuted, "inputs and parameters share one dtype (" + in + ")");
  }
  e.facts = facts;
  return {e};
}

// ---- shape-trace ------------------------------------------------------------------------------

Evidence ShapeTrace(ProbeContext& ctx) {
  const char* kName = "shape-trace";
  torch::NoGradGuard no_grad;
  OpTracer tracer(ctx.model, {});
  std::optional<ModelError> raised;
  try {
    ctx.Loss(ctx.Forward(ctx.inputs), ctx.targets);
  } catch (const ModelError& e) {
    raised = e;
  }
  const auto& ops = tracer.ops();
  std::map<std::string, std::vector<int64_t>> param_shapes;
  for (const auto& [name, p] : ctx.model.Parameters()) param_shapes[name] = p.sizes().vec();
  std::vector<std::pair<std::string, std::string>> facts;
  for (const OpRecord& op : ops) {
    if (op.depth != 0 || op.in_params.empty() || op.in_shapes.empty() || IsView(op.name)) continue;
    facts.emplace_back(ModuleOf(op.in_params.front()),
                       ShapeText(op.in_shapes.front()) + " -> " + (op.out_shapes.empty() ? "(failed)" : ShapeText(op.out_shapes.front())));
  }
  if (!raised) {
    ProbeEvidence e = Make(kName, Verdict::kRefuted, "forward and loss run on this batch without a shape error");
    e.facts = facts;
    return {e};
  }
  // What the rules make of the error; the layer analysis below adds where it happened.
  ProbeEvidence e = ErrorEvidence(kName, ctx, *raised);
  e.facts.insert(e.facts.end(), facts.begin(), facts.end());
  int failed = tracer.FailedOp();
  if (failed < 0) return {e};  // raised outside any op (an exception in the model's own code)
  const OpRecord& op = ops[failed];
  std::string weight;
  for (const std::string& p : op.in_params) {
    if (p.size() >= 6 && p.compare(p.size() - 6, 6, "weight") == 0) weight = p;
  }
  bool matmul_like = op.name == "aten::linear" || op.name == "aten::addmm" || op.name == "aten::matmul" || op.name == "aten::mm";
  // The data operand: the first input that is not a parameter (addmm's is the second: bias first).
  int data_slot = -1;
  for (size_t i = 0; i < op.in_names.size() && data_slot < 0; ++i) {
    if (op.in_names[i].empty()) data_slot = static_cast<int>(i);
  }
  if (matmul_like && !weight.empty() && data_slot >= 0 && param_shapes[weight].size() == 2) {
    const std::vector<int64_t>& input = op.in_shapes[data_slot];
    int64_t want = param_shapes[weight][1];
    int64_t got = input.empty() ? 0 : input.back();
    std::string layer = ModuleOf(weight);
    // Where the input came from: walk back over parameterless ops to the last layer, noting reshapes.
    std::vector<int64_t> shape = input;
    std::string via, source;
    bool flattened = false;
    for (int i = failed - 1; i >= 0; --i) {
      const OpRecord& prev = ops[i];
      if (prev.depth != 0 || prev.out_shapes.empty() || prev.out_shapes.front() != shape) continue;
      if (!prev.in_params.empty() && !IsView(prev.name)) {
        source = ModuleOf(prev.in_params.front()) + "'s " + ShapeText(shape) + " output";
        break;
      }
      std::string short_name = prev.name.substr(prev.name.find("::") == std::string::npos ? 0 : prev.name.find("::") + 2);
      via = via.empty() ? short_name : short_name + ", " + via;
      if (IsReshape(prev.name) && !prev.in_shapes.empty() && prev.in_shapes.front().size() > shape.size()) flattened = true;
      if (!prev.in_shapes.empty()) shape = prev.in_shapes.front();
    }
    e.verdict = Verdict::kConfirmed;
    e.summary = layer + " expects " + std::to_string(want) + " features, receives " + std::to_string(got);
    e.title.clear();
    e.text.clear();
    e.strength = 0.9;
    if (!source.empty()) e.summary += " from " + source;
    if (!via.empty()) e.summary += " (via " + via + ")";
    e.category = "shape.matmul_mismatch";
    e.hypothesis = flattened ? "flattened-feature-map" : "config-in-features";
    e.fix = "Build " + layer + " with in_features = " + std::to_string(got) + ", or pool/reshape its input to " +
            std::to_string(want) + " features.";
    e.facts.emplace_back("failed_op", op.name);
  } else {
    std::string where = weight.empty() ? WhereOp(ops, failed) : "in " + ModuleOf(weight);
    std::string in_shapes;
    for (const auto& s : op.in_shapes) in_shapes += (in_shapes.empty() ? "" : ", ") + ShapeText(s);
    e.summary = op.name + " " + where + " failed on inputs " + in_shapes + ": " + ErrorHeadline(raised->what()) +
                (e.category.empty() ? "" : " (" + e.category + ")");
    if (e.category.empty() && op.name.find("conv") != std::string::npos) {
      e.verdict = Verdict::kConfirmed;
      e.category = "shape.channel_mismatch";
      e.strength = 0.9;
    }
  }
  return {e};
}

// ---- mode-audit -------------------------------------------------------------------------------

bool IsBatchNorm(const std::string& type) {
  return type.find("BatchNorm") != std::string::npos || type.find("batchnorm") != std::string::npos;
}

bool ModeDependent(const std::string& type) {
  return IsBatchNorm(type) || type.find("Dropout") != std::string::npos || type.find("dropout") != std::string::npos;
}

Evidence ModeAudit(ProbeContext& ctx) {
  const char* kName = "mode-audit";
  std::vector<Submodule> modes;
  std::string when;
  if (ctx.train_step && ctx.expect_training) {
    // The modes that matter are those in force when the trainer's step runs (it may switch modes
    // itself); a step leaves them set, so they are read right after it.
    ctx.train_step(ctx.inputs, ctx.targets);
    modes = ctx.model.Modules();
    when = "during the training step";
  } else {
    modes = ctx.model.Modules();
    when = "now";
  }
  std::vector<std::string> wrong, dependent;
  for (const Submodule& m : modes) {
    if (!ModeDependent(m.type)) continue;
    std::string name = m.name.empty() ? "(root)" : m.name;
    dependent.push_back(name);
    if (m.training != ctx.expect_training) wrong.push_back(name);
  }
  std::vector<std::pair<std::string, std::string>> facts = {
      {"root_training", modes.empty() ? "?" : (modes.front().training ? "true" : "false")},
      {"mode_dependent_modules", std::to_string(dependent.size())}};
  if (dependent.empty()) {
    ProbeEvidence e = Make(kName, Verdict::kRefuted, "no Dropout/BatchNorm modules: train/eval mode does not change the computation");
    e.facts = facts;
    return {e};
  }
  if (!wrong.empty()) {
    ProbeEvidence e = Finding(kName, "training.eval_mode", ctx.expect_training ? "eval-during-training" : "train-during-eval", 0.85,
                              Join(wrong) + (ctx.expect_training ? " run in eval mode " : " run in training mode ") + when +
                                  (ctx.expect_training ? " (model->eval() left on; dropout off and BatchNorm statistics frozen)"
                                                       : " (model->train() left on during evaluation)"),
                              ctx.expect_training ? "Call model->train() at the start of every training epoch (after evaluation)."
                                                  : "Call model->eval() before evaluating, and model->train() after.");
    e.facts = facts;
    return {e};
  }
  ProbeEvidence e = Make(kName, Verdict::kRefuted, std::to_string(dependent.size()) + " Dropout/BatchNorm modules, all in " +
                                               (ctx.expect_training ? "training" : "eval") + " mode " + when);
  e.facts = facts;
  return {e};
}

// ---- memory-growth ----------------------------------------------------------------------------

double HostBytes() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

double DeviceBytes() {
#ifdef TRIAGE_WITH_CUDA
  if (torch::cuda::is_available()) {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    return static_cast<double>(stats.allocated_bytes[0].current);
  }
#endif
  return 0;
}

Evidence MemoryGrowth(ProbeContext& ctx) {
  const char* kName = "memory-growth";
  constexpr int kWarmup = 3;
  constexpr int kSteps = 16;
  constexpr double kMinGrowthPerStep = 16 * 1024;  // bytes: below this, allocator noise
  Deadline deadline(ctx.probe_budget_s);
  std::vector<double> host, device;
  for (int i = 0; i < kWarmup + kSteps && !deadline.Passed(); ++i) {
    ctx.train_step(ctx.inputs, ctx.targets);
    if (i >= kWarmup - 1) {
      host.push_back(HostBytes());
      device.push_back(DeviceBytes());
    }
  }
  if (host.size() < 6) return {Make(kName, Verdict::kInconclusive, "too few steps fitted in the time budget")};
  auto grows = [&](const std::vector<double>& series, double* per_step) {
    int rises = 0;
    for (size_t i = 1; i < series.size(); ++i) rises += series[i] > series[i - 1];
    *per_step = (series.back() - series.front()) / static_cast<double>(series.size() - 1);
    return *per_step > kMinGrowthPerStep && rises >= static_cast<int>(0.8 * (series.size() - 1));
  };
  double host_rate = 0, device_rate = 0;
  bool host_grows = grows(host, &host_rate);
  bool device_grows = grows(device, &device_rate);
  std::vector<std::pair<std::string, std::string>> facts = {
      {"steps", std::to_string(host.size() - 1)}, {"host_bytes_per_step", Num(host_rate, 6)}};
#ifdef TRIAGE_WITH_CUDA
  facts.emplace_back("cuda_bytes_per_step", Num(device_rate, 6));
#endif
  ProbeEvidence e;
  if (host_grows || device_grows) {
    e = Finding(kName, "memory.growth", "tensors-kept-across-steps", 0.8,
                std::string(host_grows ? "host" : "CUDA") + " memory grows by about " +
                    Num((host_grows ? host_rate : device_rate) / 1024, 4) + " KiB every training step over " +
                    std::to_string(host.size() - 1) + " steps: each step keeps tensors alive (a loss accumulated "
                    "with its graph, outputs appended to a list)",
                "Accumulate loss.item<double>() (or loss.detach()) instead of the loss tensor; store detached copies.");
  } else {
    e = Make(kName, Verdict::kRefuted, "memory is flat across " + std::to_string(host.size() - 1) + " training steps");
  }
  e.facts = facts;
  return {e};
}

// ---- determinism ------------------------------------------------------------------------------

Evidence Determinism(ProbeContext& ctx) {
  const char* kName = "determinism";
  torch::NoGradGuard no_grad;
  auto gen = at::detail::getDefaultCPUGenerator();
  torch::Tensor state;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    state = gen.get_state();
  }
  torch::Tensor a = ctx.Forward(ctx.inputs).detach().clone();
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(state);
  }
  torch::Tensor b = ctx.Forward(ctx.inputs).detach();
  double diff = (a - b).abs().max().item<double>();
  ProbeEvidence e = diff == 0 ? Make(kName, Verdict::kRefuted, "two forward passes with the same RNG state give identical outputs")
                              : Make(kName, Verdict::kConfirmed, "two forward passes with the same RNG state differ by up to " + Num(diff) +
                                                             " (non-deterministic kernels or state kept between calls)");
  e.facts = {{"max_abs_diff", Num(diff)}};
  return {e};
}

// ---- autograd-anomaly -------------------------------------------------------------------------

Evidence AutogradAnomaly(ProbeContext& ctx) {
  const char* kName = "autograd-anomaly";
  ClearGrads(ctx);
  OpTracer tracer(ctx.model, {});
  std::string error;
  try {
    torch::autograd::DetectAnomalyGuard anomaly;
    torch::Tensor loss = ctx.Loss(ctx.Forward(ctx.inputs), ctx.targets);
    loss.backward();
  } catch (const ModelError&) {
    throw;  // forward or loss: evidence of its own, not the backward's
  } catch (const std::exception& e) {
    error = ErrorText(e);
  }
  if (error.empty()) return {Make(kName, Verdict::kRefuted, "forward and backward run under anomaly mode without an error")};
  std::string first_line = error.substr(0, error.find('\n'));
  if (error.find("inplace operation") != std::string::npos) {
    const auto& ops = tracer.ops();
    std::vector<std::string> inplace;
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
      const std::string& n = ops[i].name;
      if (ops[i].depth == 0 && n.size() > 1 && n.back() == '_' && n[n.size() - 2] != '_') inplace.push_back(n + " " + WhereOp(ops, i));
    }
    ProbeEvidence e = Finding(kName, "autograd.inplace_modified", "inplace-op-on-saved-tensor", 0.9,
                              (inplace.empty() ? std::string("an in-place op") : Join(inplace)) +
                                  " modified a tensor that backward needs: " + first_line,
                              "Use the out-of-place form (torch::relu(x), ReLU without inplace, x = x + y), or clone() "
                              "before modifying.");
    e.facts.emplace_back("inplace_ops", std::to_string(inplace.size()));
    return {e};
  }
  if (error.find("does not require grad") != std::string::npos) {
    return {Finding(kName, "autograd.no_grad_fn", "graph-cut", 0.85, "backward fails: " + first_line,
                    "Remove the detach()/no_grad between the parameters and the loss.")};
  }
  return {Make(kName, Verdict::kInconclusive, "backward fails under anomaly mode: " + first_line)};
}

// ---- loss-broadcast ---------------------------------------------------------------------------

Evidence LossBroadcast(ProbeContext& ctx) {
  const char* kName = "loss-broadcast";
  LossCall call = TraceLoss(ctx);
  if (call.error) throw *call.error;
  const std::string out_shape = ShapeText(call.output.sizes().vec());
  const std::string target_shape = ctx.targets.defined() ? ShapeText(ctx.targets.sizes().vec()) : "(none)";
  std::vector<std::pair<std::string, std::string>> facts = {
      {"output", out_shape}, {"target", target_shape}, {"loss_op", call.op.empty() ? "(none recognised)" : call.op}};
  if (call.broadcast_op.empty()) {
    ProbeEvidence e = Make(kName, Verdict::kRefuted, "the loss meets the prediction " + out_shape + " and the target " + target_shape +
                                                 " without broadcasting one against the other");
    e.facts = facts;
    return {e};
  }
  const std::string joint = ShapeText(call.broadcast_to);
  facts.emplace_back("broadcast_to", joint);
  facts.emplace_back("broadcast_op", call.broadcast_op);
  ProbeEvidence e = Finding(
      kName, "shape.loss_input_target", "prediction-target-broadcast", 0.9,
      call.broadcast_op + " in the loss broadcasts the prediction " + out_shape + " against the target " + target_shape +
          " to " + joint + ": the loss compares every prediction with targets of other samples (PyTorch only warns)",
      "Give the prediction the target's shape before the loss (out.squeeze(-1) for a [N, 1] head, or "
      "y.view_as(out)), so each prediction meets its own target.");
  e.facts = facts;
  return {e};
}

// ---- norm-batch -------------------------------------------------------------------------------

// The BatchNorm modules in training mode, in pre-order; empty when there is none.
std::vector<std::string> TrainingBatchNorms(const Model& model) {
  std::vector<std::string> out;
  for (const Submodule& m : model.Modules()) {
    if (IsBatchNorm(m.type) && m.training) out.push_back(m.name.empty() ? "(root)" : m.name);
  }
  return out;
}

// The forward on `inputs` under the tracer: the BatchNorm layers that ran (by their weight) and
// the values per channel each got; the forward's error, when it raised, as the rules read it.
struct NormRun {
  std::map<std::string, int64_t> per_channel;  // layer -> values per channel (batch x spatial)
  std::optional<ModelError> error;
  std::string error_category;
};

NormRun RunNorms(ProbeContext& ctx, const torch::Tensor& inputs) {
  NormRun run;
  torch::NoGradGuard no_grad;
  OpTracer tracer(ctx.model, {});
  try {
    ctx.Forward(inputs);
  } catch (const ModelError& e) {
    run.error = e;
    run.error_category = ErrorEvidence("norm-batch", ctx, e).category;
  }
  for (const OpRecord& op : tracer.ops()) {
    if (op.depth != 0 || op.name != "aten::batch_norm" || op.in_params.empty() || op.in_shapes.empty()) continue;
    const std::vector<int64_t>& shape = op.in_shapes.front();
    int64_t values = 1;
    for (size_t d = 0; d < shape.size(); ++d) values *= d == 1 ? 1 : shape[d];
    run.per_channel.emplace(ModuleOf(op.in_params.front()), values);
  }
  return run;
}

// BatchNorm in training mode needs more than one value per channel: a batch of one sample fails
// after a Linear layer or a global pool. The batch given is tried first, then one of its samples:
// a model that fails on one sample fails on the last batch of an epoch that leaves one over.
Evidence NormBatch(ProbeContext& ctx) {
  const char* kName = "norm-batch";
  const std::vector<std::string> norms = TrainingBatchNorms(ctx.model);
  if (norms.empty()) return {Make(kName, Verdict::kRefuted, "no BatchNorm layer in training mode")};
  const int64_t batch = ctx.inputs.dim() > 0 ? ctx.inputs.size(0) : 0;
  std::vector<std::pair<std::string, std::string>> facts = {{"batch", std::to_string(batch)},
                                                            {"batchnorm_training", Join(norms)}};
  // The layer that failed is the first BatchNorm in training mode that did not get to run.
  auto failing_layer = [&](const NormRun& run) {
    for (const std::string& n : norms) {
      if (!run.per_channel.count(n)) return n;
    }
    return norms.front();
  };
  NormRun run = RunNorms(ctx, ctx.inputs);
  if (run.error && run.error_category != "shape.batchnorm_single_sample") throw *run.error;  // evidence of its own
  if (run.error) {
    const std::string layer = failing_layer(run);
    ProbeEvidence e = Finding(kName, "shape.batchnorm_single_sample", "batch-of-one", 0.9,
                              layer + " runs in training mode on a batch of " + std::to_string(batch) +
                                  " and gets one value per channel, from which it cannot compute a variance: " +
                                  ErrorHeadline(run.error->what()),
                              "Drop the last incomplete batch (DataLoader drop_last=True) or use batches larger than one; "
                              "for single-sample prediction call model.eval() first; GroupNorm/LayerNorm work on one sample.");
    e.facts = facts;
    e.facts.emplace_back("layer", layer);
    return {e};
  }
  for (const auto& [layer, values] : run.per_channel) facts.emplace_back("values_per_channel[" + layer + "]", std::to_string(values));
  if (batch <= 1) {
    ProbeEvidence e = Make(kName, Verdict::kInconclusive, "a batch of one runs, but its BatchNorm statistics come from a single sample");
    e.facts = facts;
    return {e};
  }
  NormRun one = RunNorms(ctx, ctx.inputs.narrow(0, 0, 1));
  ProbeEvidence e;
  if (one.error && one.error_category == "shape.batchnorm_single_sample") {
    e = Make(kName, Verdict::kInconclusive, "this batch of " + std::to_string(batch) + " passes, but a batch of one sample fails at " +
                                        failing_layer(one) + " (one value per channel in training mode)");
  } else if (one.error) {
    e = Make(kName, Verdict::kInconclusive, "this batch of " + std::to_string(batch) + " passes; a batch of one sample could not be tried: " +
                                        ErrorHeadline(one.error->what()));
  } else {
    e = Make(kName, Verdict::kRefuted, "BatchNorm layers get more than one value per channel on this batch and on a batch of one sample");
  }
  e.facts = facts;
  return {e};
}

// ---- registry ---------------------------------------------------------------------------------

using ProbeFn = Evidence (*)(ProbeContext&);
struct Entry {
  ProbeInfo info;
  ProbeFn fn;
};

// Explicit list (no static self-registration): the order is the checkup order, cheapest first.
const std::vector<Entry>& Registry() {
  static const std::vector<Entry> kEntries = {
      {{"device-audit", "devices of parameters, buffers, inputs and targets", 0, false}, DeviceAudit},
      {{"dtype-audit", "dtypes of parameters vs inputs", 0, false}, DtypeAudit},
      {{"label-range", "targets vs the loss: class-index dtype, range vs classifier width (CPU re-run of a device-side assert)", 1, false}, LabelRange},
      {{"index-range", "embedding indices vs num_embeddings", 1, false}, IndexRange},
      {{"shape-trace", "shapes into/out of each layer; the layer whose expected size disagrees", 1, false}, ShapeTrace},
      {{"init-loss", "loss vs ln(classes); softmax/sigmoid outputs fed to a loss that reads logits or log-probabilities", 1, false}, InitLoss},
      {{"loss-broadcast", "prediction and target shapes where the loss meets them (silent broadcasting)", 1, false}, LossBroadcast},
      {{"norm-batch", "BatchNorm in training mode vs the batch (one value per channel)", 2, false}, NormBatch},
      {{"dead-activations", "ReLU units zero for the whole batch", 1, false}, DeadActivations},
      {{"determinism", "two forward passes with one RNG state agree", 2, false}, Determinism},
      {{"mode-audit", "Dropout/BatchNorm train/eval flags during the step", 2, false}, ModeAudit},
      {{"nan-source", "first op producing NaN/Inf; anomaly-mode backward", 3, false}, NanSource},
      {{"grad-health", "None/zero/NaN/huge/tiny gradients per parameter; flow per layer", 3, false}, GradHealth},
      {{"autograd-anomaly", "backward under anomaly mode; in-place ops on saved tensors", 3, false}, AutogradAnomaly},
      {{"weight-update", "parameters move in one step; update/weight ratio; gradient accumulation", 6, true}, WeightUpdate},
      {{"memory-growth", "host (and CUDA) allocator growth across steps", 20, true}, MemoryGrowth},
      {{"overfit-one-batch", "loss falls when fitting one batch", 60, true}, OverfitOneBatch},
  };
  return kEntries;
}

}  // namespace

ProbeEvidence ErrorEvidence(const char* probe, const ProbeContext& ctx, const ModelError& error) {
  const std::string headline = ErrorHeadline(error.what());
  const std::string raised = "the " + error.stage() + " raises " + headline;
  ProbeEvidence e = Make(probe, Verdict::kInconclusive, raised + " (no rule recognises it)");
  e.facts = {{"raised_in", error.stage()}, {"error", headline}};
  DiagnoseOptions options;
  options.audience = ctx.audience;
  Report report = Engine(ctx.rules ? ctx.rules : BundledRules()).DiagnoseText(error.type() + ": " + error.what() + "\n", options);
  if (report.diagnoses.empty()) return e;
  const Diagnosis& d = report.diagnoses.front();
  e.verdict = Verdict::kConfirmed;
  e.category = d.category;
  e.summary = raised + " (" + d.category + ", rule " + d.rule + ")";
  e.title = d.title;
  e.text = d.explanation;
  if (!d.hypotheses.empty()) e.fix = d.hypotheses.front().fix;
  e.strength = d.confidence;
  e.facts.emplace_back("rule", d.rule);
  return e;
}

bool IsErrorEvidence(const ProbeEvidence& e) { return !e.facts.empty() && e.facts.front().first == "raised_in"; }

const std::vector<ProbeInfo>& ProbeList() {
  static const std::vector<ProbeInfo> kList = [] {
    std::vector<ProbeInfo> out;
    for (const Entry& e : Registry()) out.push_back(e.info);
    return out;
  }();
  return kList;
}

const ProbeInfo* FindProbe(std::string_view name) {
  for (const ProbeInfo& info : ProbeList()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

namespace {

// Keeps the warnings LibTorch raises while a probe runs (anomaly mode announces itself; its
// backward prints the forward trace) off the trainer's stderr: they are the probe's business.
class QuietWarnings : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}
#else
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
#endif
};

#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

}  // namespace

std::vector<ProbeEvidence> RunProbe(std::string_view name, ProbeContext& ctx) {
  std::string probe(name);
  auto fail = [&](const std::string& why) {
    ProbeEvidence e;
    e.probe = probe;
    e.verdict = Verdict::kInconclusive;
    e.summary = why;
    return std::vector<ProbeEvidence>{e};
  };
  const Entry* entry = nullptr;
  for (const Entry& e : Registry()) {
    if (name == e.info.name) entry = &e;
  }
  if (entry == nullptr) return fail("no probe named '" + probe + "'");
  if (!ctx.model.valid() || !ctx.inputs.defined()) return fail("no model or no sample batch in the probe context");
  if (entry->info.needs_train_step && !ctx.train_step) return fail("needs the trainer's step function (none given)");
  auto start = std::chrono::steady_clock::now();
  std::optional<StateSnapshot> snapshot;
  std::vector<ProbeEvidence> out;
  QuietWarnings quiet;
  std::optional<WarningHandlerGuard> warnings;
  if (!ctx.show_torch_warnings) warnings.emplace(&quiet);
  try {
    snapshot.emplace(ctx);
    ProbeContext run = Marking(ctx);
    out = entry->fn(run);
  } catch (const ModelError& e) {
    out = {ErrorEvidence(entry->info.name, ctx, e)};
  } catch (const std::exception& e) {
    out = fail("probe failed: " + ErrorText(e).substr(0, 400));
  } catch (...) {
    out = fail("probe failed with a non-standard exception");
  }
  try {
    if (snapshot) snapshot->Restore();
  } catch (const std::exception& e) {
    out.push_back(fail("could not restore the model state: " + ErrorText(e)).front());
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (ProbeEvidence& e : out) {
    e.probe = probe;
    e.seconds = seconds;
  }
  return out;
}

}  // namespace triage::probes
