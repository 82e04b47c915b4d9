// Shared by the probe translation units: state snapshots and the op tracer.
#ifndef TRIAGE_PROBES_INTERNAL_H_
#define TRIAGE_PROBES_INTERNAL_H_

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "triage/probes.h"

namespace triage::probes {

// Everything a probe must restore. Taken before a probe runs; Restore() puts it back in place
// (parameters and buffers are copied into the same tensors, so optimizers keep their references).
class StateSnapshot {
 public:
  explicit StateSnapshot(const ProbeContext& ctx);
  void Restore();

 private:
  Model model_;
  torch::optim::Optimizer* optimizer_;
  NamedTensors params_, params_saved_, grads_saved_, buffers_, buffers_saved_;
  std::vector<bool> requires_grad_;
  std::vector<Submodule> modes_;
  bool grad_mode_;
  torch::Tensor cpu_rng_;
  std::vector<torch::Tensor> cuda_rng_;
  std::string optimizer_state_;
};

// Probes that test a category even when the matching rule names none (rules written before a
// probe existed, or findings from the monitor). Prefix match on the category; the first row
// whose prefix matches applies.
struct CategoryProbes {
  const char* category_prefix;
  std::vector<const char*> probes;
};
const std::vector<CategoryProbes>& CategoryTable();

// What the monitor measured, as a finding in the trainer's language (LibTorch C++), and the probes
// an alarm of its kind calls for. One row per Alarm::kind.
struct AlarmFinding {
  std::string kind;
  std::string category;
  std::string hypothesis;
  std::string title;
  std::string text;
  std::string fix;
  std::vector<std::string> probes;
};
const std::vector<AlarmFinding>& AlarmFindings();

// Serialises an optimizer's state (empty string when null or when it cannot be saved).
std::string SaveOptimizer(torch::optim::Optimizer* optimizer);
void LoadOptimizer(torch::optim::Optimizer* optimizer, const std::string& bytes);

// One op seen by the tracer (RecordFunction callbacks, FUNCTION scope, this thread only).
struct OpRecord {
  std::string name;                               // "aten::linear"
  int depth = 0;                                  // 0: called by the user's code, >0: inside another op
  std::vector<std::vector<int64_t>> in_shapes;    // tensor inputs only
  std::vector<std::string> in_params;             // parameter names among the inputs ("fc.weight")
  std::vector<std::string> in_names;              // per in_shapes entry: its parameter name, or ""
  std::vector<const void*> in_data;               // per in_shapes entry: its data pointer (views share it)
  std::vector<std::vector<int64_t>> out_shapes;
  std::vector<const void*> out_data;              // per out_shapes entry: its data pointer
  bool ended = false;
  bool failed = false;                            // ended by an exception
  bool in_nonfinite = false;                      // some floating input had NaN/Inf (when checked)
  bool out_nonfinite = false;                     // some floating output had NaN/Inf (when checked)
  bool in_has_zero = false;                       // some floating input holds an exact 0 (when checked)
  double out_zero_fraction = -1;                  // relu-like ops: share of units zero for every row
  double in_max_index = -1;                       // embedding: largest index seen; weight rows in in_shapes
};

// Installs thread-local RecordFunction callbacks for its lifetime. Only one tracer per thread.
// Checks run with recording disabled so the tracer does not observe itself.
class OpTracer {
 public:
  struct Options {
    bool check_finite = false;   // isfinite on inputs and outputs of every top-level op
    bool dead_units = false;     // zero fraction of relu outputs
    bool embedding = false;      // index range of embedding inputs
  };
  OpTracer(const Model& model, Options options);
  ~OpTracer();
  OpTracer(const OpTracer&) = delete;
  OpTracer& operator=(const OpTracer&) = delete;

  const std::vector<OpRecord>& ops() const { return ops_; }
  // Returns the index of the op that failed (deepest top-level op ended by an exception), or -1.
  int FailedOp() const;

  // Called by the callbacks.
  void Start(const at::RecordFunction& fn);
  void End(const at::RecordFunction& fn);

 private:
  Options options_;
  std::map<const void*, std::string> param_names_;  // data pointer -> parameter name
  std::vector<OpRecord> ops_;
  std::vector<int> open_;
  uint64_t handle_ = 0;
  bool installed_ = false;
};

// Returns "[4, 64, 30, 30]".
std::string ShapeText(const std::vector<int64_t>& shape);
// Returns "fc" for "fc.weight".
std::string ModuleOf(const std::string& param);
// Returns true when every floating element is finite (non-floating tensors are finite).
bool AllFinite(const torch::Tensor& t);

// A deadline for probe loops.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))) {}
  bool Passed() const { return std::chrono::steady_clock::now() > end_; }

 private:
  std::chrono::steady_clock::time_point end_;
};

// Returns e.what() without the C++ backtrace c10::Error appends (msg() for c10::Error).
std::string ErrorText(const std::exception& e);
// Returns the Python name a C++ exception surfaces as (RuntimeError, IndexError, ...), so rules
// written against Python logs match it.
std::string ExceptionType(const std::exception& e);
// Returns the line of an error message that says what went wrong: the exception line closing a
// TorchScript interpreter traceback ("builtins.ValueError: ..."), else the first line.
std::string ErrorHeadline(const std::string& message);

// An error raised by the trainer's code while a probe ran it (the model's forward, the loss, the
// training step), as opposed to a fault of the probe. RunProbe hands probes a context whose
// functions raise their errors as this type; such an error is evidence (ErrorEvidence).
class ModelError : public std::runtime_error {
 public:
  ModelError(std::string stage, std::string type, const std::string& message)
      : std::runtime_error(message), stage_(std::move(stage)), type_(std::move(type)) {}
  const std::string& stage() const { return stage_; }  // "forward", "loss", "training step"
  const std::string& type() const { return type_; }    // "RuntimeError", "IndexError", ...

 private:
  std::string stage_;
  std::string type_;
};

// The evidence an error raised by the model, the loss or the step gives: its message diagnosed by
// the rules as a log is (ctx.rules, else the bundled rules). Confirmed, with the category, title and
// fix of the diagnosis, when a rule recognises it; inconclusive, quoting it, when none does. Its
// facts start with raised_in (the stage) and error (the headline).
ProbeEvidence ErrorEvidence(const char* probe, const ProbeContext& ctx, const ModelError& error);
// True for evidence made by ErrorEvidence.
bool IsErrorEvidence(const ProbeEvidence& e);

}  // namespace triage::probes

#endif  // TRIAGE_PROBES_INTERNAL_H_
