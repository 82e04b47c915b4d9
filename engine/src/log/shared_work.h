// Work shared out among threads by a counter (Note: [Shared work]).
#ifndef TRIAGE_ENGINE_SHARED_WORK_H_
#define TRIAGE_ENGINE_SHARED_WORK_H_

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace triage {

// Note: [Shared work]
// ShareOut(items, threads, make_worker) calls worker(i) for every i in [0, items) once, on the calling
// thread and up to threads - 1 helper threads: each thread first makes its own worker
// (make_worker(), on that thread: per-thread state such as a Lua check state), then takes the next
// item from a shared counter until none is left. Which thread does which item depends on timing, so
// a caller whose result must not depend on it writes item i's result to a place of its own (an index)
// and combines them in item order after ShareOut returns. A helper that gets no core takes no item;
// one that cannot be started leaves its share to the others. An exception thrown by a worker stops
// the handing out and is rethrown on the calling thread once every thread has stopped.
// Used by the rule loader's file reading (Note: [Parallel rule reading]) and by the prefilter plan's
// cover (Note: [Cover on the load's threads] in line_scanner.cc).
template <typename MakeWorker>
void ShareOut(size_t items, int threads, MakeWorker make_worker) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      auto worker = make_worker();
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < items;) worker(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
      next.store(items);
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads && static_cast<size_t>(t) < items; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the threads started so far and this one share the items
    }
  }
  work();
  for (std::thread& h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_SHARED_WORK_H_
