// Embedding triage in a LibTorch trainer: a guard around each step that diagnoses exceptions, and a
// cheap per-step monitor for failures that raise nothing (NaN loss, exploding or vanishing
// gradients, weights that stop moving).
//
// Usage:
//
//   triage::probes::ProbeContext ctx = ...;           // model, a sample batch, forward, train_step
//   triage::probes::Guard guard(ctx);                 // loads the bundled rules once
//   triage::probes::Monitor monitor(ctx.model);
//   for (auto& batch : loader) {
//     triage::probes::StepResult r = guard.Step([&] {
//       optimizer.zero_grad();
//       torch::Tensor loss = loss_fn(model->forward(batch.x), batch.y);
//       loss.backward();
//       if (monitor.Observe(loss)) {                  // after backward(), before the update lands
//         std::cerr << triage::ToText(guard.Investigate(monitor, TRIAGE_SOURCE_LOCATION), {});
//         return;                                     // skip the bad update
//       }
//       optimizer.step();
//     }, TRIAGE_SOURCE_LOCATION);                     // reports point at this line of the trainer
//     if (!r.ok) { std::cerr << triage::ToText(r.report, {}); std::rethrow_exception(r.error); }
//     if (monitor.alarmed()) break;
//   }
//
// Nothing here throws into the caller, and nothing is printed: reports are returned, LibTorch's
// warnings during probes are dropped (ProbeContext::show_torch_warnings). Guard::Step costs one
// try/catch while no exception occurs; the original exception is handed back (StepResult::error)
// so the caller decides what to do. Reports name the trainer's own code when the caller passes
// TRIAGE_SOURCE_LOCATION (the incident's culprit frame; without it they name no line, as the error
// was not read from a log). Reports are written for a C++ reader (GuardOptions::diagnose.audience):
// the rules' C++ checks and fixes (torch::nn::utils::clip_grad_norm_, TORCH_CHECK, tensor.sizes()),
// advice a rule wrote only for Python marked "(written for Python)", Python commands left out; the
// findings the probes and the monitor add speak LibTorch C++ too.
#ifndef TRIAGE_GUARD_H_
#define TRIAGE_GUARD_H_

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "triage/probes.h"
#include "triage/triage.h"

namespace triage::probes {

// A place in the trainer's source, given to the guard so a diagnosis points at the trainer's code
// (the incident gets it as its culprit frame). TRIAGE_SOURCE_LOCATION names the line it is on.
struct SourceLocation {
  const char* file = nullptr;      // null: unknown
  int line = 0;
  const char* function = nullptr;
};
#define TRIAGE_SOURCE_LOCATION (::triage::probes::SourceLocation{__FILE__, __LINE__, __func__})

// What Monitor::Observe watches, with the defaults: the loss every step (one scalar read), the
// gradients and the weights on a sample of steps. The defaults target <= 3% of a small MLP step's
// CPU time; tests/probes/monitor_bench.cc measures it (figures in probes/README.md).
struct MonitorOptions {
  int grad_every = 10;           // gradient norms every N steps (0: never)
  int weight_every = 50;         // weight-change check every N steps (0: never)
  double explode_norm = 1e3;     // total grad norm above this: exploding
  double explode_ratio = 100.0;  // or this many times the first norm seen
  double vanish_norm = 1e-7;     // total grad norm below this while gradients exist: vanishing
};

// One silent failure seen by the monitor.
struct Alarm {
  std::string kind;     // "" none | non-finite-loss | non-finite-grad | exploding-grad | vanishing-grad | weights-frozen
  int64_t step = -1;    // the Observe call that saw it (0-based)
  std::string message;  // a log line, e.g. "Loss is nan at step 12"
};

// Watches a training run once per step. Not thread-safe; one per training loop.
class Monitor {
 public:
  explicit Monitor(Model model, MonitorOptions options = {});
  // Observes one step: call after backward() (gradients present) and before optimizer.step(), so
  // an investigation sees the weights that produced the alarm, not the update it caused. Returns
  // true when a new alarm was raised; the first alarm is kept (alarm()). Never throws.
  bool Observe(const torch::Tensor& loss);
  const Alarm& alarm() const { return alarm_; }
  bool alarmed() const { return !alarm_.kind.empty(); }
  // Total gradient norms seen on sampled steps, oldest first (at most the last 64).
  const std::vector<double>& grad_norms() const { return grad_norms_; }
  int64_t steps() const { return step_; }

 private:
  void Raise(const std::string& kind, const std::string& message);
  Model model_;
  MonitorOptions options_;
  NamedTensors params_;
  std::vector<torch::Tensor> weight_sample_;
  std::vector<double> grad_norms_;
  double first_norm_ = -1;
  int64_t step_ = 0;
  Alarm alarm_;
};

// Outcome of one guarded step.
struct StepResult {
  bool ok = true;
  std::exception_ptr error;  // the original exception, to rethrow or log; null when ok
  std::string message;       // its text (c10::Error::msg(), or what())
  Report report;             // the diagnosis, with probe evidence; empty when ok
};

struct GuardOptions {
  TestOptions test;              // probe budget for an investigation
  // How reports are made; their checks and fixes speak C++ (Audience::kCxx: the rules' `cpp:` advice,
  // LibTorch calls) unless the caller asks for another audience.
  DiagnoseOptions diagnose = [] {
    DiagnoseOptions o;
    o.audience = Audience::kCxx;
    return o;
  }();
  std::vector<std::string> rule_dirs;  // extra rule directories (bundled rules always load)
};

// Runs training steps and turns their failures into diagnoses.
class Guard {
 public:
  explicit Guard(ProbeContext ctx, GuardOptions options = {});
  // Runs one step; on an exception builds the incident from its message, diagnoses it with the
  // rules, tests the top hypotheses with probes and returns everything. `where` (usually
  // TRIAGE_SOURCE_LOCATION) becomes the incident's culprit. Never throws.
  StepResult Step(const std::function<void()>& step, SourceLocation where = {});
  // Diagnoses an error message caught elsewhere (same pipeline as Step).
  Report Diagnose(const std::string& message, SourceLocation where = {});
  // Diagnoses a monitor alarm: its log line through the rules, then the probes its kind calls for;
  // the monitor's own measurement becomes a finding with a C++ fix.
  Report Investigate(const Monitor& monitor, SourceLocation where = {});
  // Runs the full probe battery (for silent failures the monitor cannot see) and returns a report.
  Report Checkup(double budget_s = 30.0);
  ProbeContext& context() { return ctx_; }
  // Rule-loading problems, if any (the guard still works with the rules that loaded).
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  Report DiagnoseLine(const std::string& line, const std::string& source, SourceLocation where) const;
  ProbeContext ctx_;
  GuardOptions options_;
  std::shared_ptr<const RuleSet> rules_;
  std::vector<Problem> problems_;
};

}  // namespace triage::probes

#endif  // TRIAGE_GUARD_H_
