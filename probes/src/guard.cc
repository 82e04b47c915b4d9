// Hypothesis testing (which probes to run for a report), the step guard and the monitor.
#include "triage/guard.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "internal.h"

namespace triage::probes {

const std::vector<CategoryProbes>& CategoryTable() {
  static const std::vector<CategoryProbes> kTable = {
      {"numerics.", {"nan-source", "grad-health"}},
      {"autograd.anomaly_nan", {"nan-source"}},
      {"autograd.", {"autograd-anomaly", "grad-health"}},
      {"training.not_learning", {"weight-update", "grad-health", "init-loss", "overfit-one-batch"}},
      {"training.missing_zero_grad", {"weight-update"}},
      {"training.eval_mode", {"mode-audit"}},
      {"training.softmax_before_loss", {"init-loss"}},
      {"training.unused_parameters", {"grad-health"}},
      {"distributed.unused_parameters", {"grad-health"}},
      {"training.dead_activations", {"dead-activations"}},
      {"training.unstable_loss", {"grad-health", "init-loss"}},
      {"shape.batchnorm_single_sample", {"norm-batch", "shape-trace", "mode-audit"}},
      {"shape.loss_input_target", {"loss-broadcast", "shape-trace"}},
      {"shape.", {"shape-trace"}},
      {"dtype.integer_expected", {"label-range", "dtype-audit"}},
      {"dtype.", {"dtype-audit"}},
      {"device.", {"device-audit"}},
      {"loss.target_out_of_range", {"label-range"}},
      {"cuda.device_side_assert", {"label-range", "index-range"}},
      {"index.", {"index-range", "label-range"}},
      {"memory.", {"memory-growth"}},
      {"cuda.oom", {"memory-growth"}},
  };
  return kTable;
}

namespace {

// An error the model raises stops every probe that runs the model; it is reported once, by the
// probe that says most about it (shape-trace, which names the failing op and layer, else the first
// that met it). The others say they could not run, and why.
void ReportEachErrorOnce(std::vector<ProbeEvidence>& evidence) {
  std::map<std::string, size_t> keeper;  // error headline -> index of the evidence that reports it
  auto key = [](const ProbeEvidence& e) { return e.facts[1].second; };
  for (size_t i = 0; i < evidence.size(); ++i) {
    if (!IsErrorEvidence(evidence[i])) continue;
    auto [it, first] = keeper.emplace(key(evidence[i]), i);
    if (!first && evidence[i].probe == "shape-trace") it->second = i;
  }
  for (size_t i = 0; i < evidence.size(); ++i) {
    ProbeEvidence& e = evidence[i];
    if (!IsErrorEvidence(e)) continue;
    const ProbeEvidence& kept = evidence[keeper[key(e)]];
    if (&kept == &e) continue;
    e.verdict = Verdict::kInconclusive;
    e.category.clear();
    e.hypothesis.clear();
    e.summary = "could not run: the " + e.facts[0].second + " raises " + e.facts[1].second + " (reported by " + kept.probe + ")";
  }
}

std::vector<ProbeEvidence> RunAll(const std::vector<std::string>& names, ProbeContext& ctx, double budget_s) {
  std::vector<std::string> order = names;
  std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    const ProbeInfo* pa = FindProbe(a);
    const ProbeInfo* pb = FindProbe(b);
    return (pa ? pa->cost : 1000) < (pb ? pb->cost : 1000);
  });
  std::vector<ProbeEvidence> evidence;
  Deadline deadline(budget_s);
  auto start = std::chrono::steady_clock::now();
  double per_probe = ctx.probe_budget_s;
  for (const std::string& name : order) {
    if (deadline.Passed()) {
      ProbeEvidence e;
      e.probe = name;
      e.summary = "not run: the probe budget of " + std::to_string(budget_s) + " s was spent";
      evidence.push_back(e);
      continue;
    }
    double left = budget_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ctx.probe_budget_s = std::max(0.1, std::min(per_probe, left));
    auto got = RunProbe(name, ctx);
    evidence.insert(evidence.end(), got.begin(), got.end());
  }
  ctx.probe_budget_s = per_probe;
  ReportEachErrorOnce(evidence);
  return evidence;
}

std::vector<std::string> AllProbeNames() {
  std::vector<std::string> out;
  for (const ProbeInfo& info : ProbeList()) out.emplace_back(info.name);
  return out;
}

// The value of a one-element tensor. A dense CPU tensor of a floating type is read in place: no
// op dispatch, no allocation (a detach() or item() costs both). Anything else goes through item(),
// which on an accelerator is the one synchronisation a scalar check needs.
double ScalarValue(const torch::Tensor& t) {
  if (t.device().is_cpu() && t.layout() == torch::kStrided && t.has_storage() && !t.is_neg()) {
    if (const void* p = t.data_ptr()) {
      switch (t.scalar_type()) {
        case torch::kFloat: return *static_cast<const float*>(p);
        case torch::kDouble: return *static_cast<const double*>(p);
        case torch::kHalf: return static_cast<float>(*static_cast<const at::Half*>(p));
        case torch::kBFloat16: return static_cast<float>(*static_cast<const at::BFloat16*>(p));
        default: break;
      }
    }
  }
  return t.item<double>();
}

// The L2 norm of all the gradients together, from their per-tensor norms (one _foreach_norm: fused
// on CUDA). CPU norms are combined on the host in double; others in one reduction and one read.
double TotalNorm(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> norms = at::_foreach_norm(grads);
  const bool on_cpu = std::all_of(norms.begin(), norms.end(), [](const torch::Tensor& n) { return n.device().is_cpu(); });
  if (on_cpu) {
    double squares = 0;
    for (const torch::Tensor& n : norms) {
      const double v = ScalarValue(n);
      squares += v * v;
    }
    return std::sqrt(squares);
  }
  // On an accelerator (possibly several, or mixed dtypes): one stack where the first norm is.
  const torch::Device device = norms.front().device();
  for (torch::Tensor& n : norms) n = n.to(device, torch::kFloat);
  return at::stack(norms).norm().item<double>();
}

}  // namespace

std::vector<ProbeEvidence> TestHypotheses(Report& report, ProbeContext& ctx, const TestOptions& options) {
  std::vector<std::string> names;
  std::vector<ProbeEvidence> unknown;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  int n = 0;
  bool named_by_rule = false;
  for (const Diagnosis& d : report.diagnoses) {
    if (options.top > 0 && n++ >= options.top) break;
    for (const Hypothesis& h : d.hypotheses) {
      if (h.probe.empty()) continue;
      if (FindProbe(h.probe) == nullptr) {
        ProbeEvidence e;
        e.probe = h.probe;
        e.summary = "no probe named '" + h.probe + "' in this build";
        unknown.push_back(e);
        continue;
      }
      named_by_rule = true;
      add(h.probe);
    }
    for (const CategoryProbes& row : CategoryTable()) {
      if (d.category.rfind(row.category_prefix, 0) == 0) {
        for (const char* p : row.probes) add(p);
        break;
      }
    }
  }
  if (options.checkup_if_empty && (report.diagnoses.empty() || (!named_by_rule && names.empty()))) names = AllProbeNames();
  std::vector<ProbeEvidence> evidence = RunAll(names, ctx, options.budget_s);
  evidence.insert(evidence.end(), unknown.begin(), unknown.end());
  ApplyEvidence(report, evidence);
  return evidence;
}

Report Checkup(ProbeContext& ctx, double budget_s, std::vector<ProbeEvidence>* evidence) {
  Report report;
  report.source = "checkup";
  std::vector<ProbeEvidence> ev = RunAll(AllProbeNames(), ctx, budget_s);
  ApplyEvidence(report, ev);
  if (evidence != nullptr) *evidence = std::move(ev);
  return report;
}

// ---- Monitor --------------------------------------------------------------------------------

Monitor::Monitor(Model model, MonitorOptions options) : model_(std::move(model)), options_(options) {
  params_ = model_.Parameters();
}

void Monitor::Raise(const std::string& kind, const std::string& message) {
  if (!alarm_.kind.empty()) return;
  alarm_.kind = kind;
  alarm_.step = step_;
  alarm_.message = message;
}

bool Monitor::Observe(const torch::Tensor& loss) {
  const bool had_alarm = alarmed();
  const int64_t step = step_;
  try {
    // Every step: one scalar read of the loss, which the trainer usually does anyway (logging).
    if (loss.defined() && loss.numel() == 1) {
      const double value = ScalarValue(loss);
      if (!std::isfinite(value)) {
        Raise("non-finite-loss", std::string("Loss is ") + (std::isnan(value) ? "nan" : "inf") + " at step " + std::to_string(step));
      }
    }
    // Sampled steps only below this line.
    if (options_.grad_every > 0 && step % options_.grad_every == 0) {
      std::vector<torch::Tensor> grads;
      grads.reserve(params_.size());
      for (const auto& [name, p] : params_) {
        if (p.grad().defined()) grads.push_back(p.grad());
      }
      if (!grads.empty()) {
        const double total = TotalNorm(grads);
        if (grad_norms_.size() == 64) grad_norms_.erase(grad_norms_.begin());
        grad_norms_.push_back(total);
        if (!std::isfinite(total)) {
          Raise("non-finite-grad", "Gradient norm is " + std::string(std::isnan(total) ? "nan" : "inf") + " at step " + std::to_string(step));
        } else if (total > options_.explode_norm || (first_norm_ > 0 && total > options_.explode_ratio * first_norm_)) {
          Raise("exploding-grad", "gradient norm " + std::to_string(total) + " at step " + std::to_string(step) +
                                      " (first seen " + std::to_string(first_norm_) + ")");
        } else if (total < options_.vanish_norm) {
          Raise("vanishing-grad", "gradient norm " + std::to_string(total) + " at step " + std::to_string(step));
        }
        if (first_norm_ < 0 && total > 0 && std::isfinite(total)) first_norm_ = total;
      }
    }
    if (options_.weight_every > 0 && step % options_.weight_every == 0) {
      // A few leading elements of every parameter: enough to see an optimizer that never steps.
      std::vector<torch::Tensor> sample;
      for (const auto& [name, p] : params_) {
        if (p.numel() > 0) sample.push_back(p.detach().reshape({-1}).narrow(0, 0, std::min<int64_t>(p.numel(), 32)).clone());
      }
      if (!weight_sample_.empty() && weight_sample_.size() == sample.size()) {
        bool any_moved = false;
        for (size_t i = 0; i < sample.size() && !any_moved; ++i) any_moved = !torch::equal(sample[i], weight_sample_[i]);
        if (!any_moved) {
          Raise("weights-frozen", "weights did not change between step " + std::to_string(step - options_.weight_every) +
                                      " and step " + std::to_string(step));
        }
      }
      weight_sample_ = std::move(sample);
    }
  } catch (const std::exception&) {
    // The monitor must never break training; a step it cannot read is skipped.
  }
  ++step_;
  return !had_alarm && alarmed();
}

// ---- Guard ----------------------------------------------------------------------------------

const std::vector<AlarmFinding>& AlarmFindings() {
  const std::string clip =
      "torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0) between loss.backward() and optimizer.step()";
  const std::string non_finite_text =
      "Values grew until they overflowed (a learning rate too high for this model and data), or an operation left "
      "its domain (log of 0, division by 0, sqrt of a negative)";
  const std::string non_finite_fix = "Lower the learning rate (10x at a time until the loss stays finite), clip "
                                     "gradients with " + clip + ", and restart from the last finite checkpoint.";
  static const std::vector<AlarmFinding> kFindings = {
      {"non-finite-loss", "numerics.nan_loss", "monitor-non-finite", "The loss became non-finite during training",
       non_finite_text, non_finite_fix,
       {"nan-source", "grad-health"}},
      {"non-finite-grad", "numerics.nan_loss", "monitor-non-finite", "The gradients became non-finite during training",
       non_finite_text, non_finite_fix,
       {"nan-source", "grad-health"}},
      // Gradients that grow step after step are also what a missing zero_grad() looks like.
      {"exploding-grad", "numerics.exploding_gradients", "monitor-exploding", "The gradient norm exploded",
       "The total gradient norm grew far past its first value: a learning rate too high, no gradient clipping, or "
       "gradients accumulating because optimizer.zero_grad() is not called each step",
       "Clip gradients with " + clip + ", lower the learning rate, and call optimizer.zero_grad() at the start of every step.",
       {"grad-health", "nan-source", "weight-update"}},
      {"vanishing-grad", "numerics.vanishing_gradients", "monitor-vanishing", "The gradients vanished",
       "The total gradient norm fell to almost nothing: saturated activations, a poor initialisation, or a detach() / "
       "torch::NoGradGuard cutting the graph",
       "Initialise layers for their activation (torch::nn::init::kaiming_normal_ for ReLU), add normalisation "
       "(torch::nn::LayerNorm / BatchNorm1d) or residual connections, and check no detach() or torch::NoGradGuard "
       "sits between the loss and the parameters.",
       {"grad-health"}},
      {"weights-frozen", "training.not_learning", "monitor-frozen", "The weights stopped changing",
       "The parameters were identical at two checks: optimizer.step() is not reached, the optimizer holds other "
       "tensors than the model's, or the learning rate is 0",
       "Call optimizer.step() after loss.backward() in every step, build the optimizer from model->parameters() "
       "after moving the model to its device, and check the learning rate and requires_grad of the parameters.",
       {"weight-update", "grad-health"}},
  };
  return kFindings;
}

namespace {

// Fills the monitor's finding for an alarm of `kind` and returns the probes to run (none for a
// kind without a row).
std::vector<std::string> DescribeAlarm(const std::string& kind, ProbeEvidence* seen) {
  for (const AlarmFinding& row : AlarmFindings()) {
    if (kind != row.kind) continue;
    seen->category = row.category;
    seen->hypothesis = row.hypothesis;
    seen->title = row.title;
    seen->text = row.text;
    seen->fix = row.fix;
    return row.probes;
  }
  return {};
}

// Makes `where` the culprit of an incident that has no user frame of its own.
void Locate(Incident& incident, SourceLocation where) {
  if (where.file == nullptr || incident.culprit >= 0) return;
  Frame frame;
  frame.file = where.file;
  frame.line = where.line;
  frame.function = where.function != nullptr ? where.function : "";
  frame.user = true;
  incident.frames.push_back(std::move(frame));
  incident.culprit = static_cast<int>(incident.frames.size()) - 1;
}

// The monitor's finding, once the evidence is applied: every diagnosis points at the alarm (an
// incident of its own when no rule read the alarm's line), and the finding says how to check a fix
// with the monitor, which is no probe a trainer runs again (triage::probes::RunProbe).
void FinishAlarmReport(Report& report, const Alarm& alarm, SourceLocation where) {
  if (report.incidents.empty()) {
    Incident incident;
    incident.kind = Incident::Kind::kLogLine;
    incident.message = alarm.message;
    Locate(incident, where);
    report.incidents.push_back(std::move(incident));
  }
  for (Diagnosis& d : report.diagnoses) {
    if (d.incident < 0) d.incident = 0;
    for (Hypothesis& h : d.hypotheses) {
      if (h.probe == "monitor") h.test = "the Monitor's own measurement (Monitor::alarm(), Monitor::grad_norms())";
    }
    if (d.rule == "probe:monitor") {
      d.verify = "Train again with the Monitor watching: it raises no " + alarm.kind + " alarm over as many steps.";
    }
  }
}

}  // namespace

// Diagnoses one error line as its own input named `source`, with `where` as the culprit of
// incidents that have no user frame of their own. The line was handed over, not read from a log:
// its incidents have no line number (0), so the report does not name "line 1 of <source>".
Report Guard::DiagnoseLine(const std::string& line, const std::string& source, SourceLocation where) const {
  Session session(rules_, options_.diagnose, source);
  session.Feed(line + "\n");
  Report report = session.Finish();
  for (Incident& incident : report.incidents) {
    incident.line_start = incident.line_end = 0;
    Locate(incident, where);
  }
  return report;
}

Guard::Guard(ProbeContext ctx, GuardOptions options) : ctx_(std::move(ctx)), options_(std::move(options)) {
  LoadOptions load;
  load.dirs = options_.rule_dirs;
  LoadResult loaded = LoadRules(load);
  rules_ = loaded.rules;
  problems_ = std::move(loaded.problems);
  if (!ctx_.rules) ctx_.rules = rules_;  // errors the model raises during probes read with the same rules
  ctx_.audience = options_.diagnose.audience;  // ... and told to the same reader
}

StepResult Guard::Step(const std::function<void()>& step, SourceLocation where) {
  StepResult result;
  try {
    step();
    return result;
  } catch (const std::exception& e) {
    result.ok = false;
    result.error = std::current_exception();
    result.message = ErrorText(e);
    try {
      result.report = DiagnoseLine(ExceptionType(e) + ": " + result.message, "Guard::Step", where);
      TestHypotheses(result.report, ctx_, options_.test);
    } catch (const std::exception& inner) {
      result.report.warnings.push_back({Problem::Severity::kWarning, "probe-failed", "", 0, 0, "", inner.what()});
    }
  } catch (...) {
    result.ok = false;
    result.error = std::current_exception();
    result.message = "non-standard exception";
  }
  return result;
}

Report Guard::Diagnose(const std::string& message, SourceLocation where) {
  Report report;
  try {
    report = DiagnoseLine(message, "Guard::Diagnose", where);
    TestHypotheses(report, ctx_, options_.test);
  } catch (const std::exception& e) {
    report.warnings.push_back({Problem::Severity::kWarning, "probe-failed", "", 0, 0, "", e.what()});
  }
  return report;
}

Report Guard::Investigate(const Monitor& monitor, SourceLocation where) {
  Report report;
  const Alarm& alarm = monitor.alarm();
  if (alarm.kind.empty()) return report;
  try {
    report = DiagnoseLine(alarm.message, "Monitor", where);
    // The monitor's own measurement is evidence too.
    ProbeEvidence seen;
    seen.probe = "monitor";
    seen.verdict = Verdict::kConfirmed;
    seen.summary = alarm.message;
    seen.strength = 0.6;
    const auto& norms = monitor.grad_norms();
    if (!norms.empty()) {
      seen.facts.emplace_back("grad_norm_first", std::to_string(norms.front()));
      seen.facts.emplace_back("grad_norm_last", std::to_string(norms.back()));
    }
    std::vector<ProbeEvidence> evidence = RunAll(DescribeAlarm(alarm.kind, &seen), ctx_, options_.test.budget_s);
    evidence.push_back(seen);
    ApplyEvidence(report, evidence);
    FinishAlarmReport(report, alarm, where);
  } catch (const std::exception& e) {
    report.warnings.push_back({Problem::Severity::kWarning, "probe-failed", "", 0, 0, "", e.what()});
  }
  return report;
}

Report Guard::Checkup(double budget_s) {
  try {
    return probes::Checkup(ctx_, budget_s);
  } catch (const std::exception& e) {
    Report report;
    report.warnings.push_back({Problem::Severity::kWarning, "probe-failed", "", 0, 0, "", e.what()});
    return report;
  }
}

}  // namespace triage::probes
