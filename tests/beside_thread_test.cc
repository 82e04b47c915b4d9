// Note: [Work beside the caller] (log/beside_thread.h) and Note: [Metrics beside the scan]
// (diagnose/engine.cc): a job run on the second thread, its exception carried back, a forked child
// that never waits for a thread it does not have, the rest after a window of jobs that did not pay,
// and a Session's report the same with the metric series read beside the scan as with one thread.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli_support.h"
#include "log/beside_thread.h"
#include "triage/triage.h"

namespace triage {
namespace {

struct Counter {
  std::atomic<int> runs{0};
  std::thread::id ran_on;
};

void Count(void* arg) {
  auto* c = static_cast<Counter*>(arg);
  c->ran_on = std::this_thread::get_id();
  c->runs.fetch_add(1);
}

void Throw(void*) { throw std::runtime_error("job failed"); }

TEST(BesideThread, RunsEachJobOnItsOwnThreadAndWaits) {
  BesideThread beside;
  Counter c;
  int beside_runs = 0;
  for (int i = 0; i < 1000; ++i) {
    // Jobs this small do not pay (BesidePay): some are left to the caller.
    if (!beside.Start(&Count, &c)) {
      Count(&c);
      ASSERT_EQ(c.ran_on, std::this_thread::get_id());
    } else {
      beside.Wait();
      ASSERT_NE(c.ran_on, std::this_thread::get_id());
      ++beside_runs;
    }
    ASSERT_EQ(c.runs.load(), i + 1);  // the job ended before Wait returned
  }
  EXPECT_GE(beside_runs, BesidePay::kWindow);  // the first window always runs beside
}

TEST(BesidePay, RestsAfterAWindowOfLongerWaits) {
  BesidePay pay;
  // Jobs that took longer than the caller waited for them: always beside.
  for (int i = 0; i < 5 * BesidePay::kWindow; ++i) {
    ASSERT_TRUE(pay.Take());
    pay.Record(200000, 100000);
  }
  // A window whose waits were longer in all (one job saved time, the others did not): a rest.
  for (int i = 0; i < BesidePay::kWindow; ++i) {
    ASSERT_TRUE(pay.Take());
    pay.Record(i == 0 ? 500000 : 100000, i == 0 ? 0 : 200000);
  }
  for (int i = 0; i < BesidePay::kRest; ++i) ASSERT_FALSE(pay.Take()) << i;
  // Then it tries again, a fresh window.
  for (int i = 0; i < BesidePay::kWindow - 1; ++i) {
    ASSERT_TRUE(pay.Take());
    pay.Record(100000, 200000);
  }
  ASSERT_TRUE(pay.Take());
  pay.Record(1000000, 0);  // the window saved time in all: no rest
  EXPECT_TRUE(pay.Take());
}

TEST(BesideThread, AJobsExceptionComesBackThroughWait) {
  BesideThread beside;
  ASSERT_TRUE(beside.Start(&Throw, nullptr));
  EXPECT_THROW(beside.Wait(), std::runtime_error);
  // Carried once: the next job starts clean, and WaitQuietly swallows a failure.
  Counter c;
  ASSERT_TRUE(beside.Start(&Count, &c));
  EXPECT_NO_THROW(beside.Wait());
  ASSERT_TRUE(beside.Start(&Throw, nullptr));
  beside.WaitQuietly();
  ASSERT_TRUE(beside.Start(&Count, &c));
  EXPECT_NO_THROW(beside.Wait());
  EXPECT_EQ(c.runs.load(), 2);
}

TEST(BesideThread, AForkedChildRunsTheJobItself) {
  BesideThread beside;
  Counter c;
  ASSERT_TRUE(beside.Start(&Count, &c));
  beside.Wait();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a child waiting for its parent's thread would hang: fail instead
    const bool started = beside.Start(&Count, &c);
    _exit(started ? 1 : 0);  // (the child's copy is left undestroyed: _exit)
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a forked child's Start answered true";
  // The parent's thread still works.
  ASSERT_TRUE(beside.Start(&Count, &c));
  beside.Wait();
  EXPECT_EQ(c.runs.load(), 2);
}

// A metric-heavy log of ~4 MB: tqdm-like and key=value training lines whose loss turns to NaN
// late, with a traceback in the middle, so that both the metric series and the incidents matter.
std::string MetricLog() {
  std::string log;
  for (int i = 0; i < 60000; ++i) {
    const std::string loss = i < 55000 ? "0." + std::to_string(9000 - i / 10) : "nan";
    log += "epoch " + std::to_string(i / 1000) + " step " + std::to_string(i) + "/60000  loss " + loss +
           "  grad_norm 1.25  lr 1.00e-03\n";
    if (i == 30000) {
      log += "Traceback (most recent call last):\n"
             "  File \"train.py\", line 7, in <module>\n"
             "    picked = scores.gather(1, index)\n"
             "RuntimeError: index 7 is out of bounds for dimension 1 with size 5\n";
    }
  }
  return log;
}

std::string DiagnoseInPieces(const std::string& log, int threads, size_t piece) {
  DiagnoseOptions options;
  options.threads = threads;
  Session session(triage_test::DefaultRulesOnce(), options, "metrics");
  for (size_t at = 0; at < log.size(); at += piece) session.Feed(std::string_view(log).substr(at, piece));
  return ToJson(session.Finish());
}

TEST(MetricsBesideTheScan, TheReportIsTheSameAsOneThreads) {
  const std::string log = MetricLog();
  ASSERT_GT(log.size(), size_t{3} << 20);  // a dozen 256 KiB pieces and more
  const std::string alone = DiagnoseInPieces(log, 1, size_t{256} << 10);
  ASSERT_NE(alone.find("numerics.nan_loss"), std::string::npos) << alone.substr(0, 400);
  ASSERT_NE(alone.find("index.out_of_range"), std::string::npos) << alone.substr(0, 400);
  const unsigned long long before = BesideThread::JobsRun();
  for (size_t piece : {size_t{64} << 10, size_t{256} << 10, size_t{1} << 20, log.size()}) {
    EXPECT_EQ(DiagnoseInPieces(log, 0, piece), alone) << "pieces of " << piece << " bytes";
  }
  // The pieces were read beside the scan where the machine has a second core (else on this thread).
  if (BesideThread::Worthwhile()) {
    EXPECT_GT(BesideThread::JobsRun(), before);
  } else {
    EXPECT_EQ(BesideThread::JobsRun(), before);
  }
  // Pieces under 64 KiB never are.
  const unsigned long long small_before = BesideThread::JobsRun();
  EXPECT_EQ(DiagnoseInPieces(log.substr(0, 1 << 20), 0, 4096), DiagnoseInPieces(log.substr(0, 1 << 20), 1, 4096));
  EXPECT_EQ(BesideThread::JobsRun(), small_before);
}

}  // namespace
}  // namespace triage
