// Monitor overhead on a 784-256-256-10 MLP step with Adam (LibTorch CPU, one thread). Prints
// figures; asserts nothing (timings belong in benchmarks, not unit tests).
//
//   triage_monitor_bench [steps]   monitored steps for the defaults (default 1000; the "every
//                                  step" row gets steps/2, the RecordFunction row steps/10)
//
// Two figures per configuration, both from the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), which other processes on a shared machine disturb far less than
// wall time:
//   - direct: the CPU time spent inside Monitor::Observe (a clock read on each side of the call)
//     as a share of the monitored steps' CPU time. It subtracts nothing, so it does not inherit
//     the step's noise; it misses indirect costs (caches, allocator), which the A/B figure sees.
//   - A/B: blocks of kBlock steps with the monitor off and on alternate on the same model and
//     optimizer (off-on, then on-off: linear drift cancels within two pairs); the figure is the
//     median over pairs of on/off - 1, with its quartiles as the spread.
// Each step draws a fresh random batch (outside the timed region), as a trainer would: on one fixed
// batch the MLP memorises it and the loss and gradients keep shrinking, a workload that changes
// over the run.
//
// One intra-op thread and one OpenBLAS thread: with the default pools on a 2-core machine this
// step is ~10x slower (thread wake-ups dominate ops this small), which would hide the overhead,
// and the thread clock would miss the pool threads' work.
#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "triage/guard.h"

namespace {

constexpr int kBlock = 20;  // steps per A/B block

struct MlpImpl : torch::nn::Module {
  MlpImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 256));
    fc2 = register_module("fc2", torch::nn::Linear(256, 256));
    fc3 = register_module("fc3", torch::nn::Linear(256, 10));
  }
  torch::Tensor forward(torch::Tensor x) { return fc3(torch::relu(fc2(torch::relu(fc1(x))))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
TORCH_MODULE(Mlp);

double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Records every op's outputs and checks them for NaN/Inf: the "check everything" baseline. The
// time inside the callback is attributed the same way as Observe's.
thread_local double g_callback_us = 0;
std::unique_ptr<at::ObserverContext> NoStart(const at::RecordFunction&) { return nullptr; }
void CheckOutputs(const at::RecordFunction& fn, at::ObserverContext*) {
  const double c0 = ThreadCpuMicros();
  {
    at::DisableRecordFunctionGuard off;
    for (const c10::IValue& v : fn.outputs()) {
      if (v.isTensor() && v.toTensor().defined() && v.toTensor().is_floating_point()) {
        if (!torch::isfinite(v.toTensor()).all().item<bool>()) std::fprintf(stderr, "non-finite output\n");
      }
    }
  }
  g_callback_us += ThreadCpuMicros() - c0;
}

enum class Mode { kMonitor, kAllOps };

struct Config {
  const char* name;
  Mode mode;
  triage::probes::MonitorOptions options;
  int steps;  // monitored steps (as many again unmonitored)
};

struct Figures {
  double off_us = 0, on_us = 0;  // mean thread CPU per step
  double off_wall_us = 0;        // mean wall time per step, monitor off
  double direct = 0;             // time inside Observe (or the callback) / monitored steps' time
  double observe_us = 0;         // mean time inside Observe per monitored step
  double ab_median = 0, ab_q1 = 0, ab_q3 = 0;  // on/off - 1 over pairs
  int pairs = 0;
  std::vector<double> call_us[3];  // Observe calls by the work they did: loss | +grads | +weights
};

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  return i + 1 < v.size() ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

Figures Measure(const Config& config) {
  torch::manual_seed(0);
  Mlp net;
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  triage::probes::Monitor monitor(triage::probes::Model(net.ptr()), config.options);
  Figures f;
  double inside_us = 0;  // Observe or callback time in the current block
  int64_t observed = 0;  // Observe calls so far (the monitor's step counter)

  // One step, timed; returns its thread CPU time. The batch is drawn before the clock starts.
  auto step = [&](bool on) {
    torch::Tensor x = torch::randn({64, 784});
    torch::Tensor y = torch::randint(0, 10, {64}, torch::kLong);
    const double c0 = ThreadCpuMicros();
    adam.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    if (on && config.mode == Mode::kMonitor) {
      const double o0 = ThreadCpuMicros();
      monitor.Observe(loss);
      const double spent = ThreadCpuMicros() - o0;
      inside_us += spent;
      const auto& o = config.options;
      const bool weights = o.weight_every > 0 && observed % o.weight_every == 0;
      const bool grads = o.grad_every > 0 && observed % o.grad_every == 0;
      f.call_us[weights ? 2 : grads ? 1 : 0].push_back(spent);
      ++observed;
    }
    adam.step();
    return ThreadCpuMicros() - c0;
  };
  // A block of kBlock steps; returns its CPU time, adds its wall time to *wall_us.
  auto block = [&](bool on, double* wall_us) {
    uint64_t handle = 0;
    if (on && config.mode == Mode::kAllOps) {
      handle = at::addThreadLocalCallback(at::RecordFunctionCallback(NoStart, CheckOutputs).needsOutputs(true));
    }
    const auto t0 = std::chrono::steady_clock::now();
    double cpu = 0;
    for (int i = 0; i < kBlock; ++i) cpu += step(on);
    *wall_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (handle != 0) at::removeCallback(handle);
    return cpu;
  };

  double unused = 0;
  for (int i = 0; i < 3; ++i) {  // warm-up: allocator, first-call costs, the monitor's first samples
    block(false, &unused);
    block(true, &unused);
  }
  f.call_us[0].clear();
  f.call_us[1].clear();
  f.call_us[2].clear();
  inside_us = 0;
  g_callback_us = 0;

  f.pairs = std::max(2, config.steps / kBlock);
  std::vector<double> ratios;
  double off_total = 0, on_total = 0, inside_total = 0, off_wall = 0, on_wall = 0;
  for (int p = 0; p < f.pairs; ++p) {
    double off = 0, on = 0;
    inside_us = 0;
    if (p % 2 == 0) {
      off = block(false, &off_wall);
      on = block(true, &on_wall);
    } else {
      on = block(true, &on_wall);
      off = block(false, &off_wall);
    }
    if (config.mode == Mode::kAllOps) {
      inside_us = g_callback_us;
      g_callback_us = 0;
    }
    ratios.push_back(on / off - 1);
    off_total += off;
    on_total += on;
    inside_total += inside_us;
    if ((p + 1) % std::max(1, f.pairs / 5) == 0 || p + 1 == f.pairs) {
      std::fprintf(stderr, "  %s: %d/%d pairs\n", config.name, p + 1, f.pairs);
    }
  }
  if (monitor.alarmed()) std::printf("unexpected alarm: %s\n", monitor.alarm().message.c_str());
  const double n = static_cast<double>(f.pairs) * kBlock;
  f.off_us = off_total / n;
  f.on_us = on_total / n;
  f.off_wall_us = off_wall / n;
  f.direct = inside_total / on_total;
  f.observe_us = inside_total / n;
  f.ab_median = Quantile(ratios, 0.5);
  f.ab_q1 = Quantile(ratios, 0.25);
  f.ab_q3 = Quantile(ratios, 0.75);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::max(2 * kBlock, std::atoi(argv[1])) : 1000;
  at::set_num_threads(1);
  // Debian's LibTorch calls the system BLAS (OpenBLAS), whose own pool ignores set_num_threads.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);

  const triage::probes::MonitorOptions defaults;
  triage::probes::MonitorOptions every;
  every.grad_every = 1;
  every.weight_every = 1;
  const std::string default_name = "Monitor defaults (loss; grads/" + std::to_string(defaults.grad_every) +
                                   "; weights/" + std::to_string(defaults.weight_every) + ")";
  const std::vector<Config> configs = {
      {default_name.c_str(), Mode::kMonitor, defaults, steps},
      {"Monitor every step (loss, grads, weights)", Mode::kMonitor, every, steps / 2},
      {"isfinite on every op output (RecordFunction)", Mode::kAllOps, defaults, steps / 10},
  };
  std::printf("784-256-256-10 MLP, batch 64, Adam, 1 thread; A/B blocks of %d steps, off/on alternating\n", kBlock);
  std::fflush(stdout);
  // What one clock read costs (a system call under some hypervisors): each Observe figure
  // includes about one, so the direct figures are upper bounds.
  std::vector<double> reads;
  for (int i = 0; i < 1001; ++i) {
    const double c0 = ThreadCpuMicros();
    reads.push_back(ThreadCpuMicros() - c0);
  }
  // The per-step path alone, hot (same scalar, no training in between): Observe with sampling off,
  // against the detach().item() it replaced.
  double observe_hot = 0, item_hot = 0;
  {
    Mlp net;
    triage::probes::MonitorOptions loss_only;
    loss_only.grad_every = 0;
    loss_only.weight_every = 0;
    triage::probes::Monitor monitor(triage::probes::Model(net.ptr()), loss_only);
    torch::Tensor loss = net->forward(torch::randn({1, 784})).sum();
    const int n = 100000;
    double c0 = ThreadCpuMicros();
    for (int i = 0; i < n; ++i) monitor.Observe(loss);
    observe_hot = (ThreadCpuMicros() - c0) / n;
    c0 = ThreadCpuMicros();
    for (int i = 0; i < n; ++i) (void)loss.detach().item<double>();
    item_hot = (ThreadCpuMicros() - c0) / n;
  }
  std::vector<Figures> figures;
  for (const Config& c : configs) figures.push_back(Measure(c));

  const Figures& base = figures.front();
  std::printf("\n%-46s %7s %9s %9s %11s %9s\n", "", "steps", "direct", "A/B med", "A/B q1..q3", "obs us");
  std::printf("%-46s %7s %9s %9s %11s %9s\n", "", "", "% of cpu", "", "", "per step");
  for (size_t i = 0; i < configs.size(); ++i) {
    const Figures& f = figures[i];
    char spread[32];
    std::snprintf(spread, sizeof spread, "%+.1f..%+.1f", 100 * f.ab_q1, 100 * f.ab_q3);
    std::printf("%-46s %7d %8.3f%% %+8.2f%% %11s %9.1f\n", configs[i].name, f.pairs * kBlock, 100 * f.direct,
                100 * f.ab_median, spread, f.observe_us);
  }
  std::printf("\nstep without monitor: %.0f us cpu, %.0f us wall (defaults run)\n", base.off_us, base.off_wall_us);
  std::printf("Observe calls in the defaults run, median us: loss only %.1f (n=%zu); + grad norm %.1f (n=%zu); "
              "+ weight sample %.1f (n=%zu)\n",
              Quantile(base.call_us[0], 0.5), base.call_us[0].size(), Quantile(base.call_us[1], 0.5),
              base.call_us[1].size(), Quantile(base.call_us[2], 0.5), base.call_us[2].size());
  const Figures& all = figures[1];
  std::printf("Observe calls every step, median us: %.1f (n=%zu)\n", Quantile(all.call_us[2], 0.5), all.call_us[2].size());
  std::printf("loss check alone, hot loop: Observe %.3f us per call; loss.detach().item<double>() %.3f us\n", observe_hot, item_hot);
  std::printf("one thread-clock read: %.2f us (median; inside each Observe figure once)\n", Quantile(reads, 0.5));
  return 0;
}
