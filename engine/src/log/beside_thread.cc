// Note: [Work beside the caller] (beside_thread.h).
#include "log/beside_thread.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <system_error>

namespace triage {

namespace {

// How long a side spins for the other before it sleeps. The thread waits for the next job through
// the caller's whole read of a piece (~0.2 ms for 256 KiB of a metric log: its own job takes a third of
// that): a thread that slept between pieces was woken ~0.1 ms late on this VM, and every piece cost
// more than on one thread. The caller waits for a job that should be ending.
constexpr auto kThreadSpin = std::chrono::microseconds(1000);
constexpr auto kCallerSpin = std::chrono::microseconds(300);

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

std::atomic<unsigned long long> g_jobs_run{0};

long long ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

long long SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

unsigned long long BesideThread::JobsRun() { return g_jobs_run.load(std::memory_order_relaxed); }

bool BesideThread::Worthwhile() {
  static const bool two = std::thread::hardware_concurrency() >= 2;
  return two;
}

BesideThread::~BesideThread() {
  if (!thread_.joinable()) return;
  if (static_cast<long>(getpid()) != owner_) {
    thread_.detach();  // a forked child: the thread is its parent's, not here to join
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    phase_.store(kStop, std::memory_order_release);
  }
  cv_.notify_all();
  thread_.join();
}

template <typename Ready>
void BesideThread::Await(std::chrono::microseconds spin, Ready ready) {
  if (ready()) return;
  const auto until = std::chrono::steady_clock::now() + spin;
  for (int spins = 1;; ++spins) {
    Relax();
    if (ready()) return;
    if (spins % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, ready);
}

void BesideThread::Run() noexcept {
  for (;;) {
    Await(kThreadSpin, [this] {
      const int p = phase_.load(std::memory_order_acquire);
      return p == kPosted || p == kStop;
    });
    if (phase_.load(std::memory_order_acquire) == kStop) return;
    g_jobs_run.fetch_add(1, std::memory_order_relaxed);
    const long long cpu = ThreadCpuNs();
    try {
      job_(arg_);
    } catch (...) {
      failure_ = std::current_exception();
    }
    job_cpu_ns_ = ThreadCpuNs() - cpu;
    {
      std::lock_guard<std::mutex> lock(mu_);
      phase_.store(kDone, std::memory_order_release);
    }
    cv_.notify_all();
  }
}

bool BesideThread::Start(void (*job)(void*), void* arg) noexcept {
  if (broken_) return false;
  if (!pay_.Take()) return false;
  if (thread_.joinable() && static_cast<long>(getpid()) != owner_) {
    broken_ = true;  // forked since the thread started
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = job;
    arg_ = arg;
    failure_ = nullptr;
    phase_.store(kPosted, std::memory_order_release);
  }
  if (!thread_.joinable()) {
    try {
      owner_ = static_cast<long>(getpid());
      thread_ = std::thread([this] { Run(); });
    } catch (...) {  // std::system_error: no thread to be had
      broken_ = true;
      phase_.store(kIdle, std::memory_order_release);
      return false;
    }
  }
  cv_.notify_all();
  return true;
}

void BesideThread::WaitQuietly() noexcept {
  const long long from = SteadyNs();
  Await(kCallerSpin, [this] { return phase_.load(std::memory_order_acquire) == kDone; });
  phase_.store(kIdle, std::memory_order_relaxed);
  pay_.Record(job_cpu_ns_, SteadyNs() - from);
}

void BesideThread::Wait() {
  WaitQuietly();
  if (failure_) {
    std::exception_ptr failure = failure_;
    failure_ = nullptr;
    std::rethrow_exception(failure);
  }
}

}  // namespace triage
