// triage probes: live checks on a LibTorch model that test the hypotheses of a diagnosis.
//
// Usage:
//
//   triage::probes::ProbeContext ctx;
//   ctx.model = triage::probes::Model(net);            // std::shared_ptr<torch::nn::Module> or torch::jit::Module
//   ctx.inputs = x; ctx.targets = y;                   // one sample batch
//   ctx.forward = [&](const torch::Tensor& in) { return net->forward(in); };   // jit models need none
//   ctx.train_step = [&](const torch::Tensor& in, const torch::Tensor& t) { ...; return loss; };
//   ctx.optimizer = &adam;                             // state that train_step changes, restored afterwards
//
//   std::vector<triage::ProbeEvidence> ev = triage::probes::RunProbe("grad-health", ctx);
//   triage::probes::TestHypotheses(report, ctx, {});  // runs what the report's hypotheses need
//
// Every probe leaves the model as it found it (parameters, buffers, gradients, train/eval flags,
// requires_grad, grad mode, CPU/CUDA RNG state, and the optimizer's state when one is given); state
// the trainer keeps elsewhere (its own counters or lists) is outside a probe's reach. No function
// here throws: a probe that fails reports an inconclusive verdict with the error text; an error
// the model, the loss or the trainer's step raises is evidence, diagnosed by the rules like a log.
// Nothing is printed: LibTorch's warnings during a probe are dropped
// (ProbeContext::show_torch_warnings); the warning handler is process-wide, so run probes while no
// other thread needs it. Probes run on the calling thread; one context is used by one thread at a
// time.
#ifndef TRIAGE_PROBES_H_
#define TRIAGE_PROBES_H_

#include <torch/script.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triage/evidence.h"
#include "triage/triage.h"

namespace triage::probes {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// One submodule: its dotted path ("" for the root), type name and train/eval flag.
struct Submodule {
  std::string name;
  std::string type;  // "torch::nn::DropoutImpl", "__torch__.torch.nn.modules.dropout.Dropout", ...
  bool training = true;
};

// A view over either model kind (C++ frontend module or TorchScript module) so probes need not
// care which they hold. Copies share the model.
class Model {
 public:
  Model() = default;
  explicit Model(std::shared_ptr<torch::nn::Module> module);
  explicit Model(torch::jit::Module module);

  bool valid() const { return module_ != nullptr || script_.has_value(); }
  bool is_script() const { return script_.has_value(); }
  // Returns the parameters / buffers with dotted names, recursively.
  NamedTensors Parameters() const;
  NamedTensors Buffers() const;
  // Returns every module in pre-order (parents first), the root first with name "".
  std::vector<Submodule> Modules() const;
  bool IsTraining() const;
  // Sets the train/eval flag of every module named in `modes` (pre-order), as Modules() returned them.
  void SetModes(const std::vector<Submodule>& modes);
  // Runs a TorchScript model's forward on one input. Precondition: is_script().
  torch::Tensor ScriptForward(const torch::Tensor& input);

 private:
  std::shared_ptr<torch::nn::Module> module_;
  std::optional<torch::jit::Module> script_;
};

// What a probe gets: the model, one batch, and the trainer's own functions.
struct ProbeContext {
  Model model;
  torch::Tensor inputs;
  torch::Tensor targets;
  // Returns the model output for `inputs`. May stay empty for a TorchScript model.
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  // Returns the loss of (output, targets). Empty: cross-entropy.
  std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> loss;
  // The loss's kind ("cross_entropy", "nll", "bce_with_logits", "mse", ...). The probes read the
  // kind from the op the loss runs (aten::cross_entropy_loss, ...); this name counts only for a
  // loss that runs none they know (one written out by hand).
  std::string loss_name = "cross_entropy";
  // The trainer's whole training step on one batch exactly as the trainer wrote it (forward, loss,
  // backward, optimizer step, with whatever bug it has); returns the loss. Empty: probes that
  // need it report inconclusive.
  std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> train_step;
  // The optimizer train_step uses, so its state is saved and restored around a probe. May be null.
  torch::optim::Optimizer* optimizer = nullptr;
  // True when the model is being trained (mode-audit then expects training mode).
  bool expect_training = true;
  // Wall-clock budget of one probe, seconds; a probe stops its loop when it runs out.
  double probe_budget_s = 5.0;
  // The rules an error is diagnosed with when the model, the loss or the step raises one during a
  // probe (its message is read as a log is; the error becomes the probe's evidence). Null: the
  // bundled rules, loaded on first need. A Guard sets its own.
  std::shared_ptr<const RuleSet> rules;
  // Whom such an error's fix is written for (triage::Audience): Python by default (triage.check,
  // triage-probe); a Guard sets its own audience, C++ unless told otherwise.
  Audience audience = Audience::kPython;
  // LibTorch warnings raised while a probe runs (anomaly mode's banner and forward traces, ...) are
  // dropped unless this is true; then they go to LibTorch's warning handler (glog on stderr).
  bool show_torch_warnings = false;

  // Helpers the probes share; never throw through (they may throw c10::Error / std::exception
  // to the probe, which RunProbe catches).
  torch::Tensor Forward(const torch::Tensor& in) const;
  torch::Tensor Loss(const torch::Tensor& out, const torch::Tensor& target) const;
};

// A probe in the registry: name (matching the rules' `test: { probe: NAME }`), what it checks,
// a relative cost (1 = one forward pass) used to run the cheapest first.
struct ProbeInfo {
  const char* name;
  const char* summary;
  int cost;
  bool needs_train_step;
};

// Returns every probe, in the order a full checkup runs them.
const std::vector<ProbeInfo>& ProbeList();
// Returns the probe named `name`, or null.
const ProbeInfo* FindProbe(std::string_view name);

// Runs one probe and restores the model's state afterwards. Returns its evidence (at least one
// item; verdict "inconclusive" with the reason when the probe cannot run or fails).
std::vector<ProbeEvidence> RunProbe(std::string_view name, ProbeContext& ctx);

struct TestOptions {
  double budget_s = 20.0;  // total for all probes; the remaining ones are skipped (untested)
  int top = 3;             // hypotheses of the first `top` diagnoses are tested
  bool checkup_if_empty = true;  // no diagnosis, or none naming a probe: run the full checkup
};

// Runs the probes the report's top hypotheses name (plus the probes the diagnoses' categories
// call for), cheapest first within the budget, then applies the evidence to the report (statuses,
// confidence, re-ranking; see triage::ApplyEvidence). Returns the evidence gathered.
std::vector<ProbeEvidence> TestHypotheses(Report& report, ProbeContext& ctx, const TestOptions& options);

// Runs every probe within the budget and returns a report built from what they found.
Report Checkup(ProbeContext& ctx, double budget_s = 30.0, std::vector<ProbeEvidence>* evidence = nullptr);

// Returns a hash of everything a probe must leave as found (for tests and for a cheap self-check):
// parameters, buffers, gradients, requires_grad flags, train/eval flags, grad mode, RNG state and
// the optimizer's serialised state.
std::string StateHash(const ProbeContext& ctx);

}  // namespace triage::probes

#endif  // TRIAGE_PROBES_H_
