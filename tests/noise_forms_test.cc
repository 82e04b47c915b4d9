// Noise around a failure (issue 12): a real log seldom holds the failure alone. Warnings printed before it
// (deprecations, the scheduler-order warning, a launcher's banner, NCCL INFO lines, progress bars), more
// after it, a harmless error caught and logged long before: a rule that fires on such an incidental line
// and outranks the real cause gives a wrong answer on logs nobody here has seen. Every corpus log with a
// diagnosis (ours and the wild tuning split, never corpus/heldout) gets a block of REAL noise, taken
// line for line from a negative case or a healthy run of the corpus (each block names its source file
// and lines below), and the diagnosis of the noisy log is compared with the plain log's first one:
// "kept" its category, "lost" every diagnosis, or got an "other" category first. Noise adds no evidence
// for another cause, so every answer but "kept" is the engine's fault; the counts are a ratchet (floors
// and ceilings at the figures measured after the fixes of batch kb-rank, 2026-11-30), as in
// cut_paste_test.cc.
//
// Where a block goes:
//   before  just above the first line of the plain diagnosis' incident group (the root of a chained
//           exception and its wrappers), as warnings a run prints right before it fails
//   after   at the end of the log (warnings and summaries printed after the failure)
//   top     at the start of the log (what a run printed long before it failed)
// A log whose diagnosis has no line in the input (a signal read from no particular line) gets its
// "before" block at the top.
//
// Figures (1635 diagnosed logs, 2026-11-30; kept / lost / other of the logs a form changed; before: main at
// 604cd97f, where the "after" forms also changed the 5 logs that end in a cut traceback, all 5 lost; after:
// with Note: [Incidental warnings] (ranker.cc), the scheduler warning's falling negative loss and the memory
// staircase beside an OOM (their Lua); the floors below are the after figures):
//   deprecations_before, hf_new_weights_before, nccl_info_before, torchrun_banner_top, lightning_banner_top,
//   grad_strides_before   all kept, before and after
//   deprecations_after, nccl_info_after, tokenizers_fork_after   1626 / 9 / 0 of 1635  ->  1626 / 4 / 0 of 1630
//   lr_scheduler_before    1630 /  2 / 3  ->  1631 /  2 / 2   (the scheduler-order warning above a killed run
//                          no longer outranks the kill; left: a level loss beside a memory leak, a loss below 0)
//   tqdm_before            1623 / 12 / 0  ->  1623 / 12 / 0   (lost: loss series of two runs read as one)
//   deepspeed_overflow_before 1622 / 11 / 2 -> 1622 / 11 / 2  (other: DeepSpeed runs whose loss logged as 0
//                          read as the overflow the added lines show)
//   typedstorage_before    1633 /  2 / 0  ->  1633 /  2 / 0
//   metric_lines_before    1616 / 17 / 2  ->  1617 / 17 / 1   (a level memory series above an OOM no longer
//                          reads as a leak)
//   handled_traceback_top  1624 / 11 / 0  ->  1624 / 11 / 0
//   all_of_it              1614 / 16 / 5 of 1635  ->  1616 / 11 / 3 of 1630
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "diagnose/ranker.h"
#include "paste_forms.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;
using triage_test::Join;
using triage_test::Lines;

// A block of noise: lines first..last (1-based, inclusive) of a corpus log of a run that did not fail
// (a negative case or a healthy signal run), and a text the block must hold (so an edit of the source
// shows here rather than silently changing the noise).
struct NoiseBlock {
  const char* name;
  const char* source;  // relative to corpus/
  int first;
  int last;
  const char* holds;
};

const NoiseBlock kBlocks[] = {
    // torch 1.13's deprecation of nn.init.xavier_uniform, the tensor copy-construct warning and the
    // DataLoader's worker-count advice, each with its source line.
    {"deprecations", "negative/harmless-userwarnings/log.txt", 1, 6, "UserWarning: This DataLoader will create"},
    // The scheduler-order warning (torch/optim/lr_scheduler.py) a run prints at its first step.
    {"lr_scheduler_order", "wild/negative/lr-scheduler-order-warning-semseg-amp-first-step/log.txt", 1, 2,
     "Detected call of `lr_scheduler.step()` before `optimizer.step()`"},
    // transformers' notice of a classifier head initialised fresh (twice: two processes).
    {"hf_new_weights", "wild/negative/accelerate-mlu-nlp-example-newly-initialized-classifier/log.txt", 1, 4,
     "newly initialized"},
    // NCCL_DEBUG=INFO start-up lines of two ranks (no InfiniBand, socket transport).
    {"nccl_info", "wild/negative/nccl-tests-socket-lo-no-ib-device-info-works/log.txt", 7, 16, "NCCL INFO NET/IB : No device found."},
    // A Lightning run's tqdm bars with the loss in their postfix.
    {"tqdm_bars", "wild/negative/lightning-progress-bar-repeated-lines-loss-falling/log.txt", 6, 18, "Epoch 0:  17%"},
    // torchrun's OMP_NUM_THREADS banner and a script's per-rank start-up warnings.
    {"torchrun_banner", "wild/negative/transformers-mlu-run-glue-torchrun-startup-warnings/log.txt", 1, 6,
     "Setting OMP_NUM_THREADS environment variable"},
    // Lightning's accelerator banner with the Tensor Cores / float32 matmul precision notice.
    {"lightning_banner", "negative/lightning-tf32-notice/log.txt", 1, 6, "set_float32_matmul_precision"},
    // DDP's grad-strides warning (reducer.cpp), which says itself that it is not an error.
    {"grad_strides", "wild/negative/ddp-grad-strides-warning-wtconv/log.txt", 1, 4, "Grad strides do not match bucket view strides"},
    // The tokenizers library's fork warning, twice (two DataLoader workers).
    {"tokenizers_fork", "wild/negative/silnlp-tokenizers-fork-warning-during-training/log.txt", 1, 8,
     "The current process just got forked"},
    // DeepSpeed's fp16 loss-scale overflow skips at warm-up and the Trainer's lr=0 warning.
    {"deepspeed_overflow", "wild/negative/transformers-10362-deepspeed-fp16-warmup-lr-warning/log.txt", 1, 6,
     "OVERFLOW! Rank 0 Skipping step"},
    // TypedStorage deprecation warnings while a checkpoint loads.
    {"typedstorage", "wild/negative/easydiffusion-typedstorage-warnings-model-load/log.txt", 1, 4, "TypedStorage is deprecated"},
    // A healthy run's metric lines (mmcv's text logger: lr, memory, losses falling).
    {"metric_lines", "signals/healthy-mmcv-text-logger/log.txt", 1, 12, "loss_cls"},
    // A KeyError on a config dict, caught by nothing (the whole of a negative case's traceback) ...
    {"config_keyerror", "negative/config-keyerror/log.txt", 1, 6, "KeyError: 'optimizer'"},
    // ... followed by a healthy run's epoch lines: with them the traceback above reads as handled.
    {"epoch_lines", "negative/harmless-userwarnings/log.txt", 7, 8, "epoch 1 loss"},
};

enum class Where { kBefore, kAfter, kTop };

struct Placed {
  const char* block;
  Where where;
};

struct Floor {
  int kept;
  int other;
  int changed;
};

struct NoiseForm {
  const char* name;
  std::vector<Placed> blocks;
  Floor floor;
};

void PrintTo(const NoiseForm& f, std::ostream* os) { *os << f.name; }

const std::vector<NoiseForm>& Forms() {
  static const std::vector<NoiseForm> forms = {
      {"deprecations_before", {{"deprecations", Where::kBefore}}, {1635, 0, 1635}},
      {"deprecations_after", {{"deprecations", Where::kAfter}}, {1626, 0, 1630}},
      {"lr_scheduler_before", {{"lr_scheduler_order", Where::kBefore}}, {1631, 2, 1635}},
      {"hf_new_weights_before", {{"hf_new_weights", Where::kBefore}}, {1635, 0, 1635}},
      {"nccl_info_before", {{"nccl_info", Where::kBefore}}, {1635, 0, 1635}},
      {"nccl_info_after", {{"nccl_info", Where::kAfter}}, {1626, 0, 1630}},
      {"tqdm_before", {{"tqdm_bars", Where::kBefore}}, {1623, 0, 1635}},
      {"torchrun_banner_top", {{"torchrun_banner", Where::kTop}}, {1635, 0, 1635}},
      {"lightning_banner_top", {{"lightning_banner", Where::kTop}}, {1635, 0, 1635}},
      {"grad_strides_before", {{"grad_strides", Where::kBefore}}, {1635, 0, 1635}},
      {"tokenizers_fork_after", {{"tokenizers_fork", Where::kAfter}}, {1626, 0, 1630}},
      {"deepspeed_overflow_before", {{"deepspeed_overflow", Where::kBefore}}, {1622, 2, 1635}},
      {"typedstorage_before", {{"typedstorage", Where::kBefore}}, {1633, 0, 1635}},
      {"metric_lines_before", {{"metric_lines", Where::kBefore}}, {1617, 1, 1635}},
      {"handled_traceback_top", {{"config_keyerror", Where::kTop}, {"epoch_lines", Where::kTop}}, {1624, 0, 1635}},
      {"all_of_it",
       {{"config_keyerror", Where::kTop},
        {"epoch_lines", Where::kTop},
        {"torchrun_banner", Where::kTop},
        {"deprecations", Where::kBefore},
        {"lr_scheduler_order", Where::kBefore},
        {"nccl_info", Where::kBefore},
        {"tokenizers_fork", Where::kAfter}},
       {1616, 3, 1630}},
  };
  return forms;
}

std::vector<std::string> BlockLines(const NoiseBlock& b) {
  const std::vector<std::string> all = Lines(triage_test::ReadFile(triage_test::kSrc + "/corpus/" + b.source));
  if (b.first < 1 || b.last > static_cast<int>(all.size()) || b.first > b.last) return {};
  return std::vector<std::string>(all.begin() + (b.first - 1), all.begin() + b.last);
}

const NoiseBlock* FindBlock(const std::string& name) {
  for (const NoiseBlock& b : kBlocks) {
    if (name == b.name) return &b;
  }
  return nullptr;
}

// The 0-based line above which a "before" block goes: the first line of the plain first diagnosis'
// incident group, or 0 when it has none.
int GroupStart(const Report& plain) {
  const int d = plain.diagnoses[0].incident;
  if (d < 0 || d >= static_cast<int>(plain.incidents.size())) return 0;
  const int root = RootOf(plain.incidents, d);
  int first = 0;
  for (int i = 0; i < static_cast<int>(plain.incidents.size()); ++i) {
    const int start = plain.incidents[i].line_start;
    if (start <= 0 || RootOf(plain.incidents, i) != root) continue;
    if (first == 0 || start < first) first = start;
  }
  return first > 0 ? first - 1 : 0;
}

// A log whose diagnosis is a traceback cut before its exception line ends where its paste was cut: nothing
// is printed after it. Such a log gets no "after" block (the form leaves it as it is, and it is not counted).
bool EndsInACut(const Report& plain) {
  const int d = plain.diagnoses[0].incident;
  return d >= 0 && d < static_cast<int>(plain.incidents.size()) && plain.incidents[d].CutBeforeExceptionLine();
}

std::string WithNoise(const std::vector<std::string>& lines, const Report& plain, const NoiseForm& form) {
  std::vector<std::string> top, before, after;
  for (const Placed& p : form.blocks) {
    if (p.where == Where::kAfter && EndsInACut(plain)) return Join(lines);
  }
  for (const Placed& p : form.blocks) {
    const std::vector<std::string> b = BlockLines(*FindBlock(p.block));
    std::vector<std::string>& to = p.where == Where::kTop ? top : p.where == Where::kBefore ? before : after;
    to.insert(to.end(), b.begin(), b.end());
  }
  const int at = std::min(GroupStart(plain), static_cast<int>(lines.size()));
  std::vector<std::string> out = top;
  out.insert(out.end(), lines.begin(), lines.begin() + at);
  out.insert(out.end(), before.begin(), before.end());
  out.insert(out.end(), lines.begin() + at, lines.end());
  out.insert(out.end(), after.begin(), after.end());
  return Join(out);
}

// The plain diagnoses of every diagnosed corpus log, computed once for all forms.
struct Plain {
  fs::path log;
  std::vector<std::string> lines;
  Report report;
};

const std::vector<Plain>& PlainReports(const Engine& engine) {
  static const std::vector<Plain> plain = [&] {
    std::vector<Plain> out;
    for (const fs::path& log : triage_test::CorpusLogs()) {
      const std::string text = triage_test::ReadFile(log.string());
      Report r = engine.DiagnoseText(text, triage_test::LeaveOut(log));
      if (r.diagnoses.empty()) continue;
      out.push_back({log, Lines(text), std::move(r)});
    }
    return out;
  }();
  return plain;
}

TEST(NoiseForms, EveryBlockIsRealTextOfARunThatDidNotFail) {
  const LoadResult loaded = triage_test::Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  for (const NoiseBlock& b : kBlocks) {
    const std::vector<std::string> lines = BlockLines(b);
    ASSERT_FALSE(lines.empty()) << b.name << ": lines " << b.first << "-" << b.last << " of " << b.source;
    EXPECT_NE(Join(lines).find(b.holds), std::string::npos) << b.name << ": " << b.source << " changed";
    const std::string label = triage_test::ReadFile(triage_test::kSrc + "/corpus/" +
                                                    fs::path(b.source).parent_path().string() + "/label.yaml");
    EXPECT_NE(label.find("category: none"), std::string::npos) << b.name << ": " << b.source << " is not a run that did not fail";
  }
  for (const NoiseForm& f : Forms()) {
    for (const Placed& p : f.blocks) EXPECT_NE(FindBlock(p.block), nullptr) << f.name << ": " << p.block;
  }
}

class NoiseForms : public ::testing::TestWithParam<NoiseForm> {};

TEST_P(NoiseForms, KeepTheDiagnosis) {
  const NoiseForm& form = GetParam();
  const LoadResult loaded = triage_test::Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const bool verbose = std::getenv("TRIAGE_NOISE_VERBOSE") != nullptr;
  int changed = 0, kept = 0, lost = 0, other = 0;
  const std::vector<Plain>& plain = PlainReports(engine);
  for (const Plain& p : plain) {
    const std::string noisy = WithNoise(p.lines, p.report, form);
    if (noisy == Join(p.lines)) continue;
    ++changed;
    const Report r = engine.DiagnoseText(noisy, triage_test::LeaveOut(p.log));
    const Diagnosis& want = p.report.diagnoses[0];
    const char* verdict = "kept";
    if (r.diagnoses.empty()) {
      ++lost;
      verdict = "lost";
    } else if (r.diagnoses[0].category == want.category) {
      ++kept;
    } else {
      ++other;
      verdict = "other";
    }
    if (verbose && std::string(verdict) != "kept") {
      std::printf("%s %s %s %s/%s -> %s\n", form.name, verdict, p.log.parent_path().string().c_str(), want.category.c_str(),
                  want.rule.c_str(), r.diagnoses.empty() ? "-" : (r.diagnoses[0].category + "/" + r.diagnoses[0].rule).c_str());
    }
  }
  std::printf("%-26s %4d diagnosed logs: kept %4d, lost %3d, other %3d\n", form.name, changed, kept, lost, other);
  EXPECT_GE(kept, form.floor.kept) << form.name << ": fewer noisy logs keep their category than the floor";
  EXPECT_LE(other, form.floor.other + std::max(0, changed - form.floor.changed))
      << form.name << ": more noisy logs change their category than the ceiling";
}

// Note: [Incidental warnings] (ranker.cc): the scheduler-order warning pasted above a run the shell killed,
// whose printed loss is level (so the warning's rule reads a level loss and claims 0.8), ranked above the
// kill before the note; the kill is the failure, and the warning's reading stays in the list below it.
TEST(NoiseForms, SchedulerWarningAboveAKillRanksBelowIt) {
  const LoadResult loaded = triage_test::Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const std::vector<std::string> lines =
      Lines(triage_test::ReadFile(triage_test::kSrc + "/corpus/formats/shell-killed-no-traceback/log.txt"));
  const Report plain = engine.DiagnoseText(Join(lines));
  ASSERT_FALSE(plain.diagnoses.empty());
  ASSERT_EQ(plain.diagnoses[0].category, "memory.host_oom");
  const Report r = engine.DiagnoseText(WithNoise(lines, plain, {"lr", {{"lr_scheduler_order", Where::kBefore}}, {0, 0, 0}}));
  ASSERT_GE(r.diagnoses.size(), 2u);
  EXPECT_EQ(r.diagnoses[0].category, "memory.host_oom");
  const auto warning = std::find_if(r.diagnoses.begin(), r.diagnoses.end(),
                                    [](const Diagnosis& d) { return d.rule == "scheduler-before-optimizer-step"; });
  ASSERT_NE(warning, r.diagnoses.end());
  EXPECT_NE(warning->ranking.find("this is a warning"), std::string::npos) << warning->ranking;
}

INSTANTIATE_TEST_SUITE_P(Noise, NoiseForms, ::testing::ValuesIn(Forms()),
                         [](const ::testing::TestParamInfo<NoiseForm>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace triage
