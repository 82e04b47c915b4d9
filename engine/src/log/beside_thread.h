// One job at a time on a second thread, beside the caller's own work (Note: [Work beside the caller]).
#ifndef TRIAGE_ENGINE_BESIDE_THREAD_H_
#define TRIAGE_ENGINE_BESIDE_THREAD_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace triage {

// Note: [Work beside the caller]
// A Session reads each large piece of input twice, independently: metric extraction over every byte,
// and the keyword scan with the segmenter (Note: [Metrics beside the scan] in diagnose/engine.cc).
// BesideThread runs the first on a thread of its own while the caller does the second, then waits, so
// the piece is still alive and both results are complete when the caller's read of it returns: the
// results are the same as one thread's, byte for byte, and only the wall time changes.
// - The thread is started at the first Start and lives until the object dies; a machine with one core,
//   a thread that cannot be started, or a process forked since it started (the thread is not in the
//   child) make Start answer false, and the caller does the job itself.
// - Each side waits for the other by spinning a while (the thread up to 1 ms, through the caller's read
//   of a piece, ~0.2 ms; waking a sleeping thread cost ~0.1 ms on a virtual machine), then sleeps on a
//   condition variable: an idle session holds no core.
// - It pays only while a core is free for it: on a busy machine the second thread waits for a core,
//   and the caller waits for it longer than doing the job itself would take. Each job's CPU time (on
//   its thread) is set against the caller's wait for it; when over a window of kWindow jobs the waits
//   were the larger, Start answers false for the next kRest jobs (the caller does them), then tries
//   again.
// - A job's exception is kept and rethrown by Wait on the caller's thread.
// One caller thread at a time (a Session's own rule).

// Whether the second thread pays (the Note's window and rest), fed each job's CPU time and the caller's
// wait for it.
class BesidePay {
 public:
  static constexpr int kWindow = 8;
  static constexpr int kRest = 128;
  // Whether the next job goes to the thread (false: the caller does it, one job of a rest).
  bool Take() {
    if (resting_ == 0) return true;
    --resting_;
    return false;
  }
  void Record(long long job_cpu_ns, long long wait_ns) {
    saved_ns_ += job_cpu_ns - wait_ns;
    if (++window_jobs_ < kWindow) return;
    if (saved_ns_ < 0) resting_ = kRest;  // waited longer than the jobs took: no free core
    saved_ns_ = 0;
    window_jobs_ = 0;
  }

 private:
  long long saved_ns_ = 0;  // the window's CPU time less the waits
  int window_jobs_ = 0;
  int resting_ = 0;
};

class BesideThread {
 public:
  BesideThread() = default;
  BesideThread(const BesideThread&) = delete;
  BesideThread& operator=(const BesideThread&) = delete;
  ~BesideThread();

  // Whether this machine has a second core for it (asked once a process).
  static bool Worthwhile();
  // The jobs run on such threads in this process so far (for tests and benchmarks).
  static unsigned long long JobsRun();

  // Starts job(arg) on the thread; false (nothing started) when there is no thread to run it on.
  // A job started must be waited for before the next Start.
  bool Start(void (*job)(void*), void* arg) noexcept;
  // Waits for the job started last to end; rethrows its exception.
  void Wait();
  // Waits for it without rethrowing (on the way out of an exception of the caller's own).
  void WaitQuietly() noexcept;

 private:
  enum Phase : int { kIdle, kPosted, kDone, kStop };
  void Run() noexcept;
  template <typename Ready>
  void Await(std::chrono::microseconds spin, Ready ready);

  std::thread thread_;
  bool broken_ = false;     // no thread can be had here: every Start answers false
  long owner_ = 0;          // the process that started the thread
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int> phase_{kIdle};
  void (*job_)(void*) = nullptr;
  void* arg_ = nullptr;
  std::exception_ptr failure_;
  long long job_cpu_ns_ = 0;  // the last job's CPU time (written by the thread before kDone)
  BesidePay pay_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_BESIDE_THREAD_H_
