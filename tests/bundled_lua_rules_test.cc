// The bundled rules that use Lua for what YAML cannot say, end to end through the engine: the
// arithmetic or reasoning shows up in the diagnosis (rules/LUA_API.md). Inputs are real PyTorch 1.13
// output or corpus cases.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

class BundledLua : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    LoadOptions o;
    o.system = o.user = o.project = o.env_path = false;
    LoadResult r = LoadRules(o);
    rules_ = new std::shared_ptr<const RuleSet>(r.rules);
  }
  static void TearDownTestSuite() {
    delete rules_;
    rules_ = nullptr;
  }
  static Report Diagnose(const std::string& text) {
    DiagnoseOptions all;
    all.min_confidence = 0;
    return Engine(*rules_).DiagnoseText(text, all);
  }
  static const Diagnosis* Find(const Report& r, const std::string& id) {
    for (const Diagnosis& d : r.diagnoses) {
      if (d.rule == id) return &d;
    }
    return nullptr;
  }
  // A pointer into a temporary Report would dangle at the end of the statement.
  static const Diagnosis* Find(const Report&& r, const std::string& id) = delete;

  static std::string Ids(const Diagnosis& d) {
    std::string out;
    for (const Hypothesis& h : d.hypotheses) out += (out.empty() ? "" : ",") + h.id;
    return out;
  }
  static const Hypothesis* Hyp(const Diagnosis& d, const std::string& id) {
    for (const Hypothesis& h : d.hypotheses) {
      if (h.id == id) return &h;
    }
    return nullptr;
  }
  static std::string Warnings(const Report& r) {
    std::string out;
    for (const Problem& p : r.warnings) out += p.ToString() + "\n";
    return out;
  }
  static std::shared_ptr<const RuleSet>* rules_;
};
std::shared_ptr<const RuleSet>* BundledLua::rules_ = nullptr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// seeds/001: Conv2d(3, 64, 3) on 32x32 images flattened into Linear(64, 128).
TEST_F(BundledLua, MatmulFactorisation) {
  Report r = Diagnose("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
  const Diagnosis* d = Find(r, "linear-in-features");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_EQ(d->captures.at("split"), "64 x 30 x 30");
  EXPECT_NE(d->explanation.find("57600 = 64 x 30 x 30 exactly"), std::string::npos) << d->explanation;
  const Hypothesis* h = Hyp(*d, "flattened-feature-map");
  ASSERT_NE(h, nullptr) << Ids(*d);
  EXPECT_NE(h->evidence.find("built for the 64 channels"), std::string::npos) << h->evidence;
  EXPECT_TRUE(r.warnings.empty()) << Warnings(r);
}

TEST_F(BundledLua, OomArithmeticSeparatesFragmentation) {
  // 14.33 GiB reserved - 13.92 GiB allocated = 419.84 MiB cached, more than the 392 MiB requested.
  Report r = Diagnose(
      "RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 15.78 GiB total capacity; 13.92 GiB "
      "already allocated; 265.75 MiB free; 14.33 GiB reserved in total by PyTorch) If reserved memory is >> "
      "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
      "Management and PYTORCH_CUDA_ALLOC_CONF");
  const Diagnosis* d = Find(r, "cuda-oom-reserved-1x");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_EQ(d->captures.at("cached"), "419.84 MiB");
  const Hypothesis* frag = Hyp(*d, "fragmentation");
  ASSERT_NE(frag, nullptr) << Ids(*d);
  EXPECT_NE(frag->evidence.find("419.84 MiB cached but unused"), std::string::npos) << frag->evidence;
  // 21.02 - 19.87 = 1.15 GiB cached cannot serve 2.00 GiB: not fragmentation.
  r = Diagnose(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; "
      "19.87 GiB already allocated; 1.51 GiB free; 21.02 GiB reserved in total by PyTorch) If reserved memory is >> "
      "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
      "Management and PYTORCH_CUDA_ALLOC_CONF");
  d = Find(r, "cuda-oom-reserved-1x");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Hyp(*d, "fragmentation"), nullptr) << Ids(*d);
  EXPECT_NE(Hyp(*d, "step-too-large"), nullptr) << Ids(*d);
}

TEST_F(BundledLua, LabelRangeReasoning) {
  // Real 1.13 output: tags numbered 1..10 fed to a 10-class loss through logits.view(-1, 10).
  const std::string tagger = R"(Traceback (most recent call last):
  File "/tmp/gen/seq_tagger.py", line 7, in <module>
    loss = F.cross_entropy(logits.view(-1, 10), labels.view(-1))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3/dist-packages/torch/nn/functional.py", line 3026, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
IndexError: Target 10 is out of bounds.
)";
  Report r = Diagnose(tagger);
  const Diagnosis* d = Find(r, "target-out-of-bounds");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_EQ(Ids(*d), "one-based-labels");
  EXPECT_NE(d->hypotheses[0].evidence.find("label 10 with 10 classes"), std::string::npos) << d->hypotheses[0].evidence;
  r = Diagnose("IndexError: Target -1 is out of bounds.");
  d = Find(r, "target-out-of-bounds");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Ids(*d), "ignore-label-not-declared");
}

TEST_F(BundledLua, MemorySeriesPredicate) {
  // Real 1.13 run under `ulimit -v 1600000`: tensors kept every step until a 16 MiB request fails.
  const std::string leak = R"(step    5 | loss -3780.0 | max_rss_mb 326.9
step   10 | loss -1227.3 | max_rss_mb 407.0
step   15 | loss -4016.0 | max_rss_mb 487.0
step   20 | loss 2133.2 | max_rss_mb 567.0
step   25 | loss -1818.3 | max_rss_mb 663.0
step   30 | loss -123.0 | max_rss_mb 823.0
step   35 | loss 1464.1 | max_rss_mb 983.0
step   40 | loss -1638.2 | max_rss_mb 1143.0
Traceback (most recent call last):
  File "/tmp/gen/leak.py", line 7, in <module>
    loss = (x * 2).sum()
            ~~^~~
RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 16777216 bytes. Error code 12 (Cannot allocate memory)
)";
  Report r = Diagnose(leak);
  const Diagnosis* d = Find(r, "host-allocation-failed");
  ASSERT_NE(d, nullptr) << Warnings(r);
  const Hypothesis* grew = Hyp(*d, "memory-already-used");
  ASSERT_NE(grew, nullptr) << Ids(*d);
  EXPECT_NE(grew->evidence.find("rose from 327 MB"), std::string::npos) << grew->evidence;
  EXPECT_EQ(Hyp(*d, "quadratic-or-oversized-tensor"), nullptr) << Ids(*d);
  // The same message with no series before it: both stay.
  r = Diagnose(leak.substr(leak.find("Traceback")));
  d = Find(r, "host-allocation-failed");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(Hyp(*d, "quadratic-or-oversized-tensor"), nullptr) << Ids(*d);
  EXPECT_NE(Hyp(*d, "memory-already-used"), nullptr) << Ids(*d);
}

TEST_F(BundledLua, CrossIncidentTimeoutAfterOom) {
  const std::string log =
      ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/distributed/nccl-timeout-after-rank-oom-formatted/log.txt");
  ASSERT_FALSE(log.empty());
  Report r = Diagnose(log);
  const Diagnosis* d = Find(r, "nccl-watchdog-timeout");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_NE(d->explanation.find("earlier failure at line 3 (torch.cuda.OutOfMemoryError"), std::string::npos)
      << d->explanation;
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].category, "cuda.oom");
  // Alone, the timeout keeps its confidence and gets no note.
  Report alone = Diagnose(
      "[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=45031, "
      "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800415 milliseconds before timing out.");
  const Diagnosis* a = Find(alone, "nccl-watchdog-timeout");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->explanation.find("earlier failure"), std::string::npos);
  EXPECT_GT(a->confidence, d->confidence);
}

// Note: [Scheduler warning evidence]: the lr_scheduler-order warning means "not learning" only when the
// printed loss stays level; alone (corpus/wild/negative/lr-scheduler-order-warning-*) or before a
// falling loss it is demoted under the abstention threshold, and the explanation says why.
TEST_F(BundledLua, SchedulerWarningNeedsALevelLoss) {
  const std::string warning =
      "/usr/lib/python3/dist-packages/torch/optim/lr_scheduler.py:138: UserWarning: Detected call of "
      "`lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in "
      "the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
      "PyTorch skipping the first value of the learning rate schedule. See more details at "
      "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate\n";
  const std::string level = "epoch=0 loss=0.8212\nepoch=1 loss=0.8212\nepoch=2 loss=0.8212\nepoch=3 loss=0.8212\n";
  const std::string falling = "epoch=0 loss=0.4512\nepoch=1 loss=0.2230\nepoch=2 loss=0.0711\nepoch=3 loss=0.0205\n";

  Report flat = Diagnose(warning + level);
  const Diagnosis* d = Find(flat, "scheduler-before-optimizer-step");
  ASSERT_NE(d, nullptr) << Warnings(flat);
  EXPECT_GE(d->confidence, 0.8);
  EXPECT_NE(d->explanation.find("stays at 0.8212"), std::string::npos) << d->explanation;

  Report down = Diagnose(warning + falling);
  d = Find(down, "scheduler-before-optimizer-step");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("falls from 0.4512 to 0.0205"), std::string::npos) << d->explanation;

  Report alone = Diagnose(warning);
  d = Find(alone, "scheduler-before-optimizer-step");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("prints no loss"), std::string::npos) << d->explanation;

  // At the default threshold neither the falling run nor the bare warning gets a diagnosis.
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(warning + falling).diagnoses.empty());
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/negative/lr-scheduler-order-warning-transformers-classification/log.txt")).diagnoses.empty());
}

// Note: [Plateau without its start]: a loss level near ln C read from a paste that opens far into the run
// and still moves is demoted; the same values printed from step 0 keep the prior.
TEST_F(BundledLua, LogClassesPlateauNeedsTheRunsStart) {
  const std::string late = ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/negative/modded-llama2-pretrain-step-1220-loss-near-3.3-lookalike-ln27/log.txt");
  Report r = Diagnose(late);
  const Diagnosis* d = Find(r, "loss-flat-at-log-classes");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("starts at step 1220, 122 print intervals"), std::string::npos) << d->explanation;
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(late).diagnoses.empty());

  // The same loss values with steps from the run's first print: the reading keeps its prior.
  std::string early;
  size_t pos = 0;
  for (int step = 0; pos < late.size(); step += 10) {
    size_t eol = late.find('\n', pos);
    if (eol == std::string::npos) eol = late.size();
    const std::string line = late.substr(pos, eol - pos);
    pos = eol + 1;
    const size_t bar = line.find(" | ");
    if (bar == std::string::npos) continue;
    early += std::to_string(step) + line.substr(bar) + "\n";
  }
  r = Diagnose(early);
  d = Find(r, "loss-flat-at-log-classes");
  ASSERT_NE(d, nullptr) << early;
  EXPECT_GE(d->confidence, 0.8);
  EXPECT_EQ(d->explanation.find("Demoted"), std::string::npos) << d->explanation;
}

// Note: [tcmalloc large allocations]: the allocator's report is host-RAM evidence only beside a failure.
TEST_F(BundledLua, TcmallocReportNeedsAFailure) {
  // googlecolab/colabtools#1718: Colab's runtime log, newest first; the kernel restarted after 12 GiB.
  const std::string restarted =
      "Nov 16, 2020, 10:20:09 PM | INFO | KernelRestarter: restarting kernel (1/5), keep random ports\n"
      "-- | -- | --\n"
      "Nov 16, 2020, 10:20:04 PM | WARNING | tcmalloc: large alloc 12884901888 bytes == 0x7f8880000000 @ "
      "0x7f94b4551001 0x7f94aba49765 0x7f94abaadbb0\n";
  Report r = Diagnose(restarted);
  ASSERT_FALSE(r.diagnoses.empty()) << Warnings(r);
  EXPECT_EQ(r.diagnoses.front().rule, "tcmalloc-large-alloc");
  EXPECT_GE(r.diagnoses.front().confidence, 0.35);
  EXPECT_NE(r.diagnoses.front().explanation.find("12.00 GiB"), std::string::npos) << r.diagnoses.front().explanation;

  // The report alone: the allocation succeeded and the run went on.
  const std::string alone =
      "  0% 0/248 [00:00<?, ?it/s]tcmalloc: large alloc 2198593536 bytes == 0x557a97f8c000 @  0x7f47af7371e7\n"
      " 10% 25/248 [00:31<04:40,  1.26s/it]\n";
  const Report alone_report = Diagnose(alone);
  const Diagnosis* d = Find(alone_report, "tcmalloc-large-alloc");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("nothing in the input failed"), std::string::npos) << d->explanation;
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(alone).diagnoses.empty());

  // googlecolab/colabtools#2773: 127 TiB refused, then std::bad_alloc; a garbage size, not a RAM shortage.
  const std::string huge =
      "tcmalloc: large alloc 139766055411712 bytes == (nil) @  0x7f1dd35bb887 0x7f1dd1eb1c29\n"
      "terminate called after throwing an instance of 'std::bad_alloc'\n"
      "  what():  std::bad_alloc\n";
  const Report huge_report = Diagnose(huge);
  d = Find(huge_report, "tcmalloc-large-alloc");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("garbage"), std::string::npos) << d->explanation;
}

// Note: [Host memory rising to a kill]: host RAM climbing to the shell's Killed is the leak that killed the
// process (memory.growth first, the kill's memory.host_oom after it); GPU memory climbing beside the same kill
// says nothing about the host, so the kill's reading stays first.
TEST_F(BundledLua, HostMemoryRisingToAKillRanksTheLeak) {
  std::string host, gpu;
  for (int i = 1; i <= 12; ++i) {
    host += "step " + std::to_string(100 * i) + " | loss 1." + std::to_string(90 - i) + " | rss: " +
            std::to_string(2000 + 800 * i) + " MB\n";
    gpu += "Epoch [1][" + std::to_string(10 * i) + "/500]\tlr: 1.000e-02, time: 0.300, data_time: 0.010, memory: " +
           std::to_string(2000 + 300 * i) + ", loss: 0." + std::to_string(90 - i) + "\n";
  }
  Report h = Diagnose(host + "Killed\n");
  ASSERT_GE(h.diagnoses.size(), 2u) << Warnings(h);
  EXPECT_EQ(h.diagnoses[0].rule, "host-memory-keeps-growing");
  EXPECT_EQ(h.diagnoses[0].category, "memory.growth");
  EXPECT_EQ(h.diagnoses[1].category, "memory.host_oom");
  EXPECT_NE(h.diagnoses[0].explanation.find("killed"), std::string::npos) << h.diagnoses[0].explanation;

  // Without the kill the signature keeps its prior and says nothing of one.
  const Report host_report = Diagnose(host);
  const Diagnosis* alone = Find(host_report, "host-memory-keeps-growing");
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->explanation.find("killed"), std::string::npos) << alone->explanation;
  EXPECT_LT(alone->confidence, h.diagnoses[0].confidence);

  Report g = Diagnose(gpu + "Killed\n");
  ASSERT_GE(g.diagnoses.size(), 2u);
  EXPECT_EQ(g.diagnoses[0].category, "memory.host_oom");
  EXPECT_NE(Find(g, "memory-keeps-growing"), nullptr);
  EXPECT_EQ(Find(g, "host-memory-keeps-growing"), nullptr);
}

// Note: [Memory rising to an out-of-memory error]: a few prints of memory rising at every print, then the
// failure that growth leads to, rank the leak over the failure's own reading; the same prints without the
// failure, or a running peak that rose only now and then, are not read at all.
TEST_F(BundledLua, ShortMemoryRiseToAnOomRanksTheLeak) {
  std::string gpu, host, peak;
  for (int i = 1; i <= 5; ++i) {
    gpu += "Epoch [1][" + std::to_string(50 * i) + "/500]\tlr: 2.000e-02, time: 0.500, data_time: 0.010, memory: " +
           std::to_string(4120 + 1000 * i) + ", loss: 1." + std::to_string(9 - i) + "\n";
    host += "Epoch: " + std::to_string(i) + ", step: 0, RAM used: " + std::to_string(10 + 3 * i) + ".45 GB\n";
    peak += "Epoch [1][" + std::to_string(50 * i) + "/500]\tlr: 2.000e-02, time: 0.500, data_time: 0.010, memory: " +
            std::to_string(i < 5 ? 5120 : 9120) + ", loss: 1." + std::to_string(9 - i) + "\n";
  }
  const std::string oom =
      "Traceback (most recent call last):\n"
      "  File \"tools/train.py\", line 10, in <module>\n"
      "    main()\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 9.21 GiB "
      "already allocated; 3.75 MiB free; 9.55 GiB reserved in total by PyTorch)\n";

  Report g = Diagnose(gpu + oom);
  ASSERT_GE(g.diagnoses.size(), 2u) << Warnings(g);
  EXPECT_EQ(g.diagnoses[0].rule, "memory-keeps-growing");
  EXPECT_EQ(g.diagnoses[0].category, "memory.growth");
  EXPECT_EQ(g.diagnoses[1].category, "cuda.oom");
  EXPECT_NE(g.diagnoses[0].explanation.find("out-of-memory error"), std::string::npos) << g.diagnoses[0].explanation;

  // The five prints alone are too few to read; a running peak that jumped once is one large batch.
  const Report gpu_alone = Diagnose(gpu);
  EXPECT_EQ(Find(gpu_alone, "memory-keeps-growing"), nullptr);
  const Report peak_report = Diagnose(peak + oom);
  EXPECT_EQ(Find(peak_report, "memory-keeps-growing"), nullptr);
  ASSERT_FALSE(peak_report.diagnoses.empty());
  EXPECT_EQ(peak_report.diagnoses[0].category, "cuda.oom");

  // Host RAM: the same with the shell's Killed.
  Report h = Diagnose(host + "Killed\n");
  ASSERT_GE(h.diagnoses.size(), 2u) << Warnings(h);
  EXPECT_EQ(h.diagnoses[0].rule, "host-memory-keeps-growing");
  EXPECT_EQ(h.diagnoses[1].category, "memory.host_oom");
  const Report host_alone = Diagnose(host);
  EXPECT_EQ(Find(host_alone, "host-memory-keeps-growing"), nullptr);
}

// Note: [One series per GPU] in metrics.cc: nvidia-smi snapshots of a two-GPU machine whose run (on GPU 1) climbs
// to an out-of-memory error read as the leak; GPU 0's flat rows alone, as read before, showed nothing. A healthy
// log with one table of four GPUs is one point per GPU: no diagnosis.
TEST_F(BundledLua, NvidiaSmiSnapshotsOfTheGpuThatRanOut) {
  std::string smi;
  for (int i = 0; i < 5; ++i) {
    smi += "|   0  GeForce GTX 1080    Off  | 00000000:01:00.0  On |                  N/A |\n"
           "| 27%   38C    P8     9W / 200W |    312MiB /  8111MiB |      0%      Default |\n"
           "+-------------------------------+----------------------+----------------------+\n"
           "|   1  GeForce GTX 1080    Off  | 00000000:02:00.0 Off |                  N/A |\n"
           "| 58%   70C    P2   120W / 200W |   " + std::to_string(3100 + 1200 * i) +
           "MiB /  8111MiB |     97%      Default |\n"
           "+-------------------------------+----------------------+----------------------+\n";
  }
  const std::string oom =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 10, in <module>\n"
      "    main()\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 7.92 GiB total capacity; 7.41 GiB "
      "already allocated; 3.75 MiB free; 7.55 GiB reserved in total by PyTorch)\n";
  Report r = Diagnose(smi + oom);
  ASSERT_GE(r.diagnoses.size(), 2u) << Warnings(r);
  EXPECT_EQ(r.diagnoses[0].rule, "memory-keeps-growing");
  EXPECT_EQ(r.diagnoses[1].category, "cuda.oom");

  std::string healthy = "Epoch 1/10  loss 0.912  acc 0.611\n";
  for (int g = 0; g < 4; ++g) {
    healthy += "|   " + std::to_string(g) + "  GeForce RTX 208...  Off  | 00000000:4" + std::to_string(g) +
               ":00.0 Off |                  N/A |\n"
               "| 29%   34C    P2    64W / 250W |   " + std::to_string(4200 + 900 * g) +
               "MiB / 10989MiB |     99%      Default |\n"
               "+-------------------------------+----------------------+----------------------+\n";
  }
  healthy += "Epoch 2/10  loss 0.731  acc 0.702\n";
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(healthy).diagnoses.empty());
}

// Note: [Exit 137 after a stop]: Compose's exit code 137 is a memory kill only when the log shows no stop.
TEST_F(BundledLua, ContainerExit137NeedsNoStop) {
  const std::string killed = "trainer_1  | Epoch 3:  41%|####      | 410/1000 [05:12<07:30, 1.31it/s]\n"
                             "trainer_1 exited with code 137\n";
  Report r = Diagnose(killed);
  ASSERT_FALSE(r.diagnoses.empty()) << Warnings(r);
  EXPECT_EQ(r.diagnoses.front().rule, "container-oom-killed");
  EXPECT_GE(r.diagnoses.front().confidence, 0.35);

  const std::string stopped = "trainer_1  | Epoch 3:  41%|####      | 410/1000 [05:12<07:30, 1.31it/s]\n"
                              "^CGracefully stopping... (press Ctrl+C again to force)\n"
                              "Stopping project_trainer_1 ... \n"
                              "trainer_1 exited with code 137\n";
  const Report stopped_report = Diagnose(stopped);
  const Diagnosis* d = Find(stopped_report, "container-oom-killed");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("grace period"), std::string::npos) << d->explanation;
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(stopped).diagnoses.empty());
}

// Note: [torchrun's own SIGKILL]: a worker's -9 is read as host memory unless the agent says it killed that pid.
TEST_F(BundledLua, TorchrunSigkillOfItsOwn) {
  auto summary = [](const std::string& pid) {
    return "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
           "============================================================\n"
           "train.py FAILED\n"
           "------------------------------------------------------------\n"
           "Failures:\n"
           "[1]:\n"
           "  time      : 2024-08-10_15:47:06\n"
           "  host      : node1\n"
           "  rank      : 1 (local_rank: 1)\n"
           "  exitcode  : -9 (pid: " + pid + ")\n"
           "  error_file: <N/A>\n"
           "  traceback : Signal 9 (SIGKILL) received by PID " + pid + "\n"
           "------------------------------------------------------------\n";
  };
  const std::string forced =
      "W0810 15:46:36.551000 140 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 188 closing signal SIGTERM\n"
      "W0810 15:47:06.552000 140 torch/distributed/elastic/multiprocessing/api.py:916] Unable to shutdown process 188 via "
      "Signals.SIGTERM, forcefully exiting via Signals.SIGKILL\n";
  const Report own_report = Diagnose(forced + summary("188"));
  const Diagnosis* own = Find(own_report, "torchrun-worker-sigkill");
  ASSERT_NE(own, nullptr);
  EXPECT_LT(own->confidence, 0.35);
  EXPECT_NE(own->explanation.find("torchrun itself sent SIGKILL to pid 188"), std::string::npos) << own->explanation;

  Report other = Diagnose(forced + summary("187"));
  ASSERT_FALSE(other.diagnoses.empty()) << Warnings(other);
  EXPECT_EQ(other.diagnoses.front().rule, "torchrun-worker-sigkill");
  EXPECT_GE(other.diagnoses.front().confidence, 0.35);
}

// Note: [Harmless target-size broadcast]: the warning keeps its prior for shapes whose broadcast repeats
// elements ((N,) against (N, 1), and its batch-of-one view [1] against [1, 1]) and for BCE's error; a
// scalar against a one-element tensor is demoted with why.
TEST_F(BundledLua, TargetSizeWarningNeedsAMultiplyingBroadcast) {
  auto warning = [](const std::string& target, const std::string& input) {
    return "/usr/lib/python3/dist-packages/torch/nn/modules/loss.py:536: UserWarning: Using a target size (torch.Size([" +
           target + "])) that is different to the input size (torch.Size([" + input +
           "])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.\n";
  };
  Report column = Diagnose(warning("64", "64, 1"));
  const Diagnosis* d = Find(column, "loss-target-size");
  ASSERT_NE(d, nullptr) << Warnings(column);
  EXPECT_GE(d->confidence, 0.8);

  Report batch_of_one = Diagnose(warning("1", "1, 1"));
  d = Find(batch_of_one, "loss-target-size");
  ASSERT_NE(d, nullptr);
  EXPECT_GE(d->confidence, 0.8);

  Report scalar = Diagnose(warning("1", ""));
  d = Find(scalar, "loss-target-size");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("a scalar against a one-element tensor"), std::string::npos) << d->explanation;

  Report bce = Diagnose("ValueError: Target size (torch.Size([1])) must be the same as input size (torch.Size([]))\n");
  d = Find(bce, "loss-target-size");
  ASSERT_NE(d, nullptr);
  EXPECT_GE(d->confidence, 0.8);

  EXPECT_TRUE(Engine(*rules_).DiagnoseText(warning("1", "")).diagnoses.empty());
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/negative/mt-dnn-target-size-1-vs-scalar-warning-seems-fine/log.txt")).diagnoses.empty());
}

// Note: [Non-leaf .grad evidence]: the warning keeps its prior from the user's own code or before a crash
// on a None gradient, and is demoted when library code raised it with nothing else in the log, or when
// the printed loss falls.
TEST_F(BundledLua, NonLeafGradWarningNeedsAMissingGradient) {
  const std::string user = ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/training/nonleaf-grad-manual-sgd/log.txt");
  Report crash = Diagnose(user);
  const Diagnosis* d = Find(crash, "nonleaf-grad-access");
  ASSERT_NE(d, nullptr) << Warnings(crash);
  EXPECT_GE(d->confidence, 0.5);

  const std::string library = ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/negative/yolov7-predict-nonleaf-grad-warning-from-torch-tensor/log.txt");
  Report alone = Diagnose(library);
  d = Find(alone, "nonleaf-grad-access");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("installed package"), std::string::npos) << d->explanation;
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(library).diagnoses.empty());

  // The same warning from the user's file, then a loss that falls: the weights are updated.
  const std::string warning = user.substr(user.find('\n') + 1, user.find("Traceback") - user.find('\n') - 1);
  Report down = Diagnose(warning + "epoch=0 loss=0.4512\nepoch=1 loss=0.2230\nepoch=2 loss=0.0711\n");
  d = Find(down, "nonleaf-grad-access");
  ASSERT_NE(d, nullptr);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("falls from 0.4512 to 0.0711"), std::string::npos) << d->explanation;
}

// Note: [Writer warning with a finite loss]: TensorBoard's warning beside a loss that stays finite is
// demoted; beside a loss that turned nan it keeps its diagnosis.
TEST_F(BundledLua, WriterNanWarningNeedsANonFiniteLoss) {
  const std::string healthy = ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/negative/dope-tensorboardx-nan-warning-loss-falls/log.txt");
  Report r = Diagnose(healthy);
  const Diagnosis* d = Find(r, "loss-is-nan");
  ASSERT_NE(d, nullptr) << Warnings(r);
  EXPECT_LT(d->confidence, 0.35);
  EXPECT_NE(d->explanation.find("stays finite (8 values"), std::string::npos) << d->explanation;
  EXPECT_TRUE(Engine(*rules_).DiagnoseText(healthy).diagnoses.empty());

  Report diverged = Engine(*rules_).DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/numerics/centerface-focal-loss-unclamped-sigmoid-nan/log.txt"));
  ASSERT_FALSE(diverged.diagnoses.empty());
  EXPECT_EQ(diverged.diagnoses[0].category, "numerics.nan_loss");
}

// Note: [NaN loss in an fp16 run]: a NaN loss is the fp16 overflow when the log shows the run in float16, and
// stays the generic NaN loss without that evidence or when the log shows bf16; a healthy fp16 run gets nothing.
TEST_F(BundledLua, NanLossRanksFp16OverflowOnlyWithFp16Evidence) {
  const std::string banner = "Using 16bit native Automatic Mixed Precision (AMP)\nGPU available: True, used: True\n";
  const std::string nan_run =
      "Epoch 0:  10%|#         | 100/1000 [00:31<03:48, loss=2.31, v_num=3]\n"
      "Epoch 0:  20%|##        | 200/1000 [00:51<03:28, loss=1.95, v_num=3]\n"
      "Epoch 0:  30%|###       | 300/1000 [01:11<03:08, loss=nan, v_num=3]\n"
      "Epoch 0:  40%|####      | 400/1000 [01:31<02:48, loss=nan, v_num=3]\n"
      "Epoch 0:  50%|#####     | 500/1000 [01:51<02:28, loss=nan, v_num=3]\n";
  const std::string finite_run =
      "Epoch 0:  10%|#         | 100/1000 [00:31<03:48, loss=2.31, v_num=3]\n"
      "Epoch 0:  20%|##        | 200/1000 [00:51<03:28, loss=1.95, v_num=3]\n"
      "Epoch 0:  30%|###       | 300/1000 [01:11<03:08, loss=1.62, v_num=3]\n";

  Report fp16 = Engine(*rules_).DiagnoseText(banner + nan_run);
  ASSERT_FALSE(fp16.diagnoses.empty()) << Warnings(fp16);
  EXPECT_EQ(fp16.diagnoses[0].category, "amp.fp16_overflow");
  EXPECT_EQ(fp16.diagnoses[0].rule, "nan-loss-in-fp16-run");
  EXPECT_NE(fp16.diagnoses[0].explanation.find("the printed loss has 3 non-finite values (the last finite one 1.95)"),
            std::string::npos) << fp16.diagnoses[0].explanation;
  // the generic reading stays in the list as the alternative
  EXPECT_NE(Find(fp16, "loss-is-nan"), nullptr);

  // the same NaN without a precision line, and in a bf16 run: the generic NaN loss first, no fp16 reading
  for (const std::string& log : {nan_run, "Using bfloat16 Automatic Mixed Precision (AMP)\n" + nan_run}) {
    Report r = Diagnose(log);
    ASSERT_FALSE(r.diagnoses.empty());
    EXPECT_EQ(r.diagnoses[0].category, "numerics.nan_loss") << log;
    EXPECT_EQ(Find(r, "nan-loss-in-fp16-run"), nullptr) << log;
  }
  // a healthy fp16 run: nothing at all
  EXPECT_TRUE(Diagnose(banner + finite_run).diagnoses.empty());
  // an fp16 argument dump beside a script's own NaN check
  Report hf = Engine(*rules_).DiagnoseText(
      "fp16=True,\nfp16_backend=auto,\n{'loss': 2.1, 'learning_rate': 4.9e-05, 'epoch': 0.02}\n"
      "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    trainer.train()\n"
      "ValueError: Loss is nan, stopping training\n");
  ASSERT_FALSE(hf.diagnoses.empty());
  EXPECT_EQ(hf.diagnoses[0].category, "amp.fp16_overflow");
  EXPECT_NE(hf.diagnoses[0].explanation.find("Loss is nan, stopping training"), std::string::npos)
      << hf.diagnoses[0].explanation;
  // a wild case whose maintainer read the NaN as divergence, with fp16 loss-scale lines but no precision
  // line: loss-scale lines are not taken as fp16 evidence, so it keeps the generic reading
  Report gd = Engine(*rules_).DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/numerics/guided-diffusion-imagenet128-nan-divergence-loss-scale/log.txt"));
  ASSERT_FALSE(gd.diagnoses.empty());
  EXPECT_EQ(gd.diagnoses[0].category, "numerics.nan_loss");
}

// A NaN loss in Lightning's forked name (2.x logs `train_loss_step`, printed `nan.0`) is the fp16 overflow in a run the
// log shows in float16: nan-loss-onset names amp.fp16_overflow in evidence_for and folds into nan-loss-in-fp16-run;
// before, the signature ranked first. Without a precision line, or in bf16, the generic NaN reading answers: since
// loss-is-nan reads the forked name (rules/README.md "Wordings across releases"), its message diagnosis, with the
// signature folded into it; before, the signature alone, and a bar with one NaN value (under its 3-value minimum) got
// no diagnosis at all.
TEST_F(BundledLua, NanLossOnlyInTheSeriesFoldsIntoTheFp16Reading) {
  std::string bar;
  const char* values[] = {"2.310", "2.100", "nan.0", "nan.0", "nan.0", "nan.0"};
  for (int i = 0; i < 6; ++i) {
    bar += "Epoch 0:  " + std::to_string(10 * (i + 1)) + "%| | " + std::to_string(100 * (i + 1)) +
           "/1000 [00:10<01:30, 10.00it/s, v_num=0, learning_rate_step=0.0005, train_loss_step=" + values[i] + "]\n";
  }
  Report fp16 = Engine(*rules_).DiagnoseText("Using 16bit Automatic Mixed Precision (AMP)\n" + bar);
  ASSERT_FALSE(fp16.diagnoses.empty()) << Warnings(fp16);
  EXPECT_EQ(fp16.diagnoses[0].rule, "nan-loss-in-fp16-run");
  EXPECT_EQ(Find(fp16, "nan-loss-onset"), nullptr);  // folded, not a rival answer
  // no precision line, or bf16: the generic reading, the signature folded into it
  const std::string last = bar.substr(bar.rfind("Epoch 0:  60%"));
  for (const std::string& log : {bar, "Using bfloat16 Automatic Mixed Precision (AMP)\n" + bar,
                                 "Using bfloat16 Automatic Mixed Precision (AMP)\n" + last}) {
    Report r = Diagnose(log);
    ASSERT_FALSE(r.diagnoses.empty()) << log;
    EXPECT_EQ(r.diagnoses[0].rule, "loss-is-nan") << log;
    EXPECT_EQ(r.diagnoses[0].category, "numerics.nan_loss") << log;
    EXPECT_EQ(Find(r, "nan-loss-onset"), nullptr) << log;  // folded, not a rival answer
    EXPECT_EQ(Find(r, "nan-loss-in-fp16-run"), nullptr) << log;
  }
}

// Note: [Device-side assert by its frames]: without a kernel assertion line, the traceback's deepest op frame
// says which check fired: the loss (labels) or an embedding/index op (indices); nothing says -> the generic one.
TEST_F(BundledLua, BareDeviceSideAssertReadByItsFrames) {
  const std::string tail =
      "RuntimeError: CUDA error: device-side assert triggered\n"
      "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
      "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n";
  const std::string loss =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 52, in <module>\n    loss = criterion(outputs, labels)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1527, in _call_impl\n"
      "    return forward_call(*args, **kwargs)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/loss.py\", line 1179, in forward\n"
      "    return F.cross_entropy(input, target, weight=self.weight,\n" + tail;
  const std::string embedding =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 52, in <module>\n    loss = criterion(model(tokens), labels)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/sparse.py\", line 162, in forward\n"
      "    return F.embedding(\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2233, in embedding\n"
      "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n" + tail;
  const std::string elsewhere =
      "Traceback (most recent call last):\n"
      "  File \"eval.py\", line 52, in <module>\n    correct += (pred == y).sum().item()\n" + tail;

  Report l = Engine(*rules_).DiagnoseText(loss);
  ASSERT_FALSE(l.diagnoses.empty());
  EXPECT_EQ(l.diagnoses[0].category, "loss.target_out_of_range");
  EXPECT_NE(l.diagnoses[0].explanation.find("loss.py:1179 in forward"), std::string::npos) << l.diagnoses[0].explanation;
  EXPECT_EQ(Find(l, "device-side-assert-in-index-op"), nullptr);

  Report e = Engine(*rules_).DiagnoseText(embedding);
  ASSERT_FALSE(e.diagnoses.empty());
  EXPECT_EQ(e.diagnoses[0].category, "index.out_of_range");
  EXPECT_EQ(Find(e, "device-side-assert-in-loss"), nullptr);  // the loss line called the model: vetoed

  Report n = Engine(*rules_).DiagnoseText(elsewhere);
  ASSERT_FALSE(n.diagnoses.empty());
  EXPECT_EQ(n.diagnoses[0].category, "cuda.device_side_assert");

  // a kernel assertion line still decides over the frames
  Report k = Engine(*rules_).DiagnoseText(
      "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [164,0,0], thread: [96,0,0] "
      "Assertion `srcIndex < srcSelectDimSize` failed.\n" + loss);
  ASSERT_FALSE(k.diagnoses.empty());
  EXPECT_EQ(k.diagnoses[0].rule, "device-side-assert-index");

  // 1.x: the message names the NLL kernel's file (wild detectron2 case)
  Report d = Engine(*rules_).DiagnoseText(ReadFile(std::string(TRIAGE_SOURCE_DIR) +
      "/corpus/wild/loss/detectron2-category-id-333-invalid-class-device-assert/log.txt"));
  ASSERT_FALSE(d.diagnoses.empty());
  EXPECT_EQ(d.diagnoses[0].category, "loss.target_out_of_range");
}

// Note: [Host memory figures beside a failure]: free's rows with RAM or swap used up, beside a dead DataLoader
// worker, make the host running out of memory the answer; rows with memory to spare change nothing.
TEST_F(BundledLua, DeadWorkerBesideUsedUpMemoryIsHostOom) {
  const std::string dead =
      "Traceback (most recent call last):\n"
      "  File \"/opt/conda/lib/python3.8/site-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in handler\n"
      "    _error_if_any_worker_fails()\n"
      "RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed.\n";
  const std::string header = "              total        used        free      shared  buff/cache   available\n";
  const std::string full = header +
      "Mem:           31Gi        30Gi       215Mi       1.2Gi       812Mi       150Mi\n"
      "Swap:         2.0Gi       2.0Gi          0B\n";
  const std::string room = header +
      "Mem:           31Gi        12Gi        10Gi       1.2Gi       9.0Gi        18Gi\n"
      "Swap:         2.0Gi          0B       2.0Gi\n";

  Report f = Engine(*rules_).DiagnoseText(full + dead);
  ASSERT_FALSE(f.diagnoses.empty());
  EXPECT_EQ(f.diagnoses[0].category, "memory.host_oom");
  EXPECT_NE(f.diagnoses[0].explanation.find("0.5% of RAM was available and 100% of swap was used"), std::string::npos)
      << f.diagnoses[0].explanation;

  Report r = Engine(*rules_).DiagnoseText(room + dead);
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].category, "data.worker_died");
  EXPECT_EQ(Find(r, "ram-figures-exhausted"), nullptr);
  // the rows alone, with nothing that failed: no diagnosis
  EXPECT_TRUE(Diagnose(full).diagnoses.empty());
}

TEST_F(BundledLua, AtLeastFiveBundledRulesUseLuaAndTheirChecksPass) {
  int with_lua = 0;
  for (const RuleInfo& info : ListRules(**rules_)) with_lua += !info.lua.empty();
  EXPECT_GE(with_lua, 5);
  RuleTestReport t = RunRuleExamples(**rules_);
  int lua_checks = 0;
  for (const ExampleResult& e : t.results) {
    if (e.kind != ExampleKind::kLuaTest) continue;
    ++lua_checks;
    EXPECT_TRUE(e.passed) << e.file << ":" << e.line << ": " << e.detail;
  }
  EXPECT_GE(lua_checks, 10);
}

}  // namespace
}  // namespace triage
