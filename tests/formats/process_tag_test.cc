// ProcessTagReader::Tag and NoteStart (Note: [Process tags] in engine/src/log/formats/process_tag.h): the
// tags Ray and vLLM put before a worker's lines, and lines that only look like one. The first five tags, with the
// text after them, and the deduplication notes are as read in public pastes (Ray, Ray Train, vLLM's v0 and v1
// workers); the other lines are made up to hold one edge of the format each (a comment says which).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "log/formats/process_tag.h"

namespace triage {
namespace {

TEST(ProcessTag, ReadsRayAndVllmTags) {
  struct Case {
    const char* line;
    const char* rest;     // the line after the tag
    const char* process;  // the rank the line gets: the tag's rank, else "pid N" (a report never calls a pid a rank)
  } cases[] = {
      {"(pid=909597) RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled cuda error",
       "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled cuda error", "pid 909597"},
      {"(RayTrainWorker pid=1193, ip=10.244.4.193) Setting up process group for: env:// [rank=0, world_size=2]",
       "Setting up process group for: env:// [rank=0, world_size=2]", "pid 1193"},
      {"(VllmWorkerProcess pid=2421) ERROR 10-14 12:32:47 multiproc_worker_utils.py:233] Traceback (most recent call last):",
       "ERROR 10-14 12:32:47 multiproc_worker_utils.py:233] Traceback (most recent call last):", "pid 2421"},
      // vLLM v1 names the worker's rank: the rank, not the pid, tells its lines apart
      {"(VllmWorker rank=0 pid=18959)   File \"loader.py\", line 364, in load_model", "  File \"loader.py\", line 364, in load_model", "0"},
      {"(EngineCore_DP0 pid=469) ERROR 03-11 17:57:10 [multiproc_executor.py:783] WorkerProc failed to start.",
       "ERROR 03-11 17:57:10 [multiproc_executor.py:783] WorkerProc failed to start.", "pid 469"},
      // a name of two words, an IPv6 address, an empty line of a worker
      {"(_RayTrainWorker__execute train_func pid=7, ip=fe80::1) x", "x", "pid 7"},
      {"(RayTrainWorker pid=43515)", "", "pid 43515"},
      // torch's own rank prefix inside the tag stays for the rank prefix reader
      {"(RayTrainWorker pid=43515) [rank1]: Traceback (most recent call last):", "[rank1]: Traceback (most recent call last):", "pid 43515"},
      // Ray's daemon, on this node and another
      {"(raylet) x", "x", "raylet"},
      {"(raylet, ip=10.0.0.5) x", "x", "raylet"},
  };
  for (const Case& c : cases) {
    std::string process;
    const std::string_view line = c.line;
    const size_t n = ProcessTagReader::Tag(line, &process);
    ASSERT_GT(n, 0u) << c.line;
    EXPECT_EQ(std::string(line.substr(n)), c.rest) << c.line;
    EXPECT_EQ(process, c.process) << c.line;
  }
}

TEST(ProcessTag, LeavesOtherParenthesesAlone) {
  const char* lines[] = {
      "(venv) user@host:~$ python train.py",                         // a shell prompt
      "(pid=) x",                                                    // no pid
      "(pid=12a) x",                                                 // not digits
      "(a b c pid=1) x",                                             // three name words
      "(RayTrainWorker pid=1, host=x) x",                            // not an address
      "(RayTrainWorker pid=1, ip=10.0.0.1 ) x",                      // text after the address
      "(rank=0 rank=1 pid=2) x",                                     // two ranks
      "(Worker pid=1",                                               // never closed
      "(1, 2, 3) tensor sizes",                                      // a tuple
      "(raylet2) x",                                                 // not the daemon's name
      " (pid=1) x",                                                  // not at the start
  };
  for (const char* line : lines) {
    std::string process;
    EXPECT_EQ(ProcessTagReader::Tag(line, &process), 0u) << line;
  }
  // A tag is read in the line's first kMaxTag bytes only.
  const std::string long_name = "(" + std::string(ProcessTagReader::kMaxTag, 'a') + " pid=1) x";
  std::string process;
  EXPECT_EQ(ProcessTagReader::Tag(long_name, &process), 0u);
}

TEST(ProcessTag, FindsRaysDeduplicationNote) {
  struct Case {
    const char* line;
    size_t kept;  // the bytes before the note
  } cases[] = {
      {"after load model cls [repeated 3x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to "
       "disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/"
       "configure-logging.html#log-deduplication for more options.)",
       20},
      {"AssertionError: 19114 is not divisible by 8 [repeated 2x across cluster]", 43},
      // not the note: no count, other text after it, the words alone
      {"x [repeated x across cluster]", 29},
      {"x [repeated 2x across cluster] and more", 39},
      {"repeated 2x across cluster", 26},
      {"", 0},
  };
  for (const Case& c : cases) EXPECT_EQ(ProcessTagReader::NoteStart(c.line), c.kept) << c.line;
  // Only the line's last kMaxNote bytes are read.
  const std::string far = "x [repeated 2x across cluster] (Ray deduplicates logs" + std::string(ProcessTagReader::kMaxNote, ' ') + ")";
  EXPECT_EQ(ProcessTagReader::NoteStart(far), far.size());
}

}  // namespace
}  // namespace triage
