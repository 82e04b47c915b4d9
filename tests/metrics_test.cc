// Metric extraction: formats, aliases, axes, units, non-finite values, bounded memory.
#include "log/metrics.h"

#include <cstdio>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace triage {
namespace {

std::vector<MetricPoint> PointsOf(const MetricCollector& m, SeriesId id) {
  const MetricSeries* s = m.Find(id);
  return s ? s->Points() : std::vector<MetricPoint>();
}

MetricCollector Collect(const std::string& text) {
  MetricCollector m;
  m.Feed(text);
  m.FinishInput();
  return m;
}

// The values of a series as read, in order (exact: each was printed with few enough digits to compare).
std::vector<double> ValuesOf(const MetricCollector& m, SeriesId id) {
  std::vector<double> values;
  for (const MetricPoint& p : PointsOf(m, id)) values.push_back(p.value);
  return values;
}

struct FormatCase {
  const char* name;
  const char* line;
  SeriesId series;
  double value;
  double step;   // NaN: no step expected
  double epoch;  // NaN: no epoch expected
};

TEST(MetricCollector, ReadsEveryCommonFormat) {
  const double kNone = std::nan("");
  // Lines copied from real logs: corpus/signals/*/log.txt and corpus/training/no-optimizer-step.
  const FormatCase kCases[] = {
      {"key=value", "step=140 loss=178.708633 grad_norm=156.5860 lr=0.21000", SeriesId::kGradNorm, 156.586, 140, kNone},
      {"key: value, two-word key", "epoch 1: train loss 2.3027 lr 0.0500", SeriesId::kLoss, 2.3027, kNone, 1},
      {"key value with pipes and units", "step   25 | loss 2.2648 | val 2.2818 | mem 296.2 MB", SeriesId::kMemory, 296.2, 25, kNone},
      {"HF dict line", "{'loss': 2.332, 'grad_norm': 0.4191, 'learning_rate': 2e-05, 'epoch': 0.1}", SeriesId::kLr, 2e-05, kNone, 0.1},
      {"HF eval dict line", "{'eval_loss': -0.6009, 'epoch': 10.71}", SeriesId::kValLoss, -0.6009, kNone, 10.71},
      {"JSON line", "{\"step\": 6, \"loss\": 4.4632, \"lr\": 0.3}", SeriesId::kLoss, 4.4632, 6, kNone},
      {"mmcv", "Epoch [2][50/200]\tlr: 2.000e-02, eta: 0:00:00, time: 0.003, data_time: 0.001, memory: 240, loss_cls: 0.1932, loss_bbox: 0.0085, loss: 0.2017",
       SeriesId::kLoss, 0.2017, 250, 2},
      {"detectron2", " eta: 0:00:13  iter: 31  total_loss: nan  loss_box_reg: nan  time: 0.0031  data_time: 0.0002  lr: 0.25  max_mem: 238M",
       SeriesId::kLoss, kNone, 31, kNone},
      {"detectron2 memory unit", " eta: 0:00:13  iter: 31  total_loss: nan  loss_box_reg: nan  time: 0.0031  data_time: 0.0002  lr: 0.25  max_mem: 238M",
       SeriesId::kMemory, 238, 31, kNone},
      {"tqdm postfix", "Epoch 3:  50%|\xe2\x96\x88\xe2\x96\x88     | 16/32 [00:00<00:00, 540.20it/s, loss=1.7279]", SeriesId::kLoss, 1.7279, 3 * 32 + 16, 3},
      {"abbreviated two-word name", "Epoch: 07 | Time: 0m 41s\tTrain Loss: 3.051 | Train PPL:  21.134\t Val. Loss: 3.626 |  Val. PPL:  37.576",
       SeriesId::kValLoss, 3.626, kNone, 7},
      {"Lightning postfix", "Epoch 29: 100%|\xe2\x96\x88\xe2\x96\x88| 4/4 [00:00<00:00, 168.75it/s, loss=0.002, v_num=0, train_loss=0.002, val_loss=0.516]",
       SeriesId::kValLoss, 0.516, 29 * 4 + 4, 29},
      {"inf value", "step=180 loss=3585892556447519516655616.000000 grad_norm=inf lr=0.27000", SeriesId::kGradNorm, INFINITY, 180, kNone},
      {"-inf value", "step=3 loss=-inf", SeriesId::kLoss, -INFINITY, 3, kNone},
      {"NaN value", "loss: NaN, step: 7", SeriesId::kLoss, kNone, 7, kNone},
      {"tensor repr", "step 4 loss tensor(0.6931, grad_fn=<NllLossBackward0>)", SeriesId::kLoss, 0.6931, 4, kNone},
      // A camel-case name as one word (MattRosenLab/AUTOMAP#4, a Keras-style print of the epoch's losses).
      {"camel-case name", "Epoch 81, Loss: 0.00012964176130481064, ValLoss: 0.00010864507203223184", SeriesId::kValLoss,
       0.00010864507203223184, kNone, 81},
      {"raw byte count", "iter 2 allocated: 1073741824", SeriesId::kMemory, 1024, 2, kNone},
      // Note: [Name then a word]: a series name followed by a word is the first half of a two-word name.
      {"memory used", "epoch 3 loss 0.41 memory used: 1.2 GB", SeriesId::kMemory, 1.2 * 1024, kNone, 3},
      {"memory usage", "step 40 | Memory usage 310 MiB", SeriesId::kMemory, 310, 40, kNone},
      // Note: [Host and GPU memory]: RAM and the resident set size are the host's series.
      {"RAM used", "Epoch 2 | loss 0.52 | RAM used: 5.5 GB", SeriesId::kHostMemory, 5.5 * 1024, kNone, 2},
      {"RAM alone", "iter 7, loss=0.77, RAM: 11.5GB", SeriesId::kHostMemory, 11.5 * 1024, 7, kNone},
      {"rss", "step 12 | loss 0.31 | rss: 2048 MB", SeriesId::kHostMemory, 2048, 12, kNone},
      {"cpu_mem", "epoch 4 loss 0.2 cpu_mem=3.5G", SeriesId::kHostMemory, 3.5 * 1024, kNone, 4},
      // ... but RAM said to be the GPU's is GPU memory ("GPU RAM: 5.2 GB", "gpu_ram=5.2G").
      {"GPU RAM", "step 3 | loss 0.5 | GPU RAM: 5.2 GB", SeriesId::kMemory, 5.2 * 1024, 3, kNone},
      {"VRAM", "epoch 2 loss 0.4 VRAM used: 7.5 GB", SeriesId::kMemory, 7.5 * 1024, kNone, 2},
      {"CPU memory", "step 8 | loss 0.3 | CPU memory: 3.1 GB", SeriesId::kHostMemory, 3.1 * 1024, 8, kNone},
      {"host memory", "iter 9 loss 0.2 Host memory 2.5 GB", SeriesId::kHostMemory, 2.5 * 1024, 9, kNone},
      // The full-width colon of a Chinese print (xiaotudui/pytorch-tutorial#1, its train.py's output).
      // Names in square brackets (a loguru line of LION's trainer, nv-tlabs/LION#9; CoupletAI's logger).
      {"bracketed name, no colon", "| E5 iter[ 14/ 15] | [Loss] 51566519.44 | [exp] ./exp/0125/car | [step]    89 |",
       SeriesId::kLoss, 51566519.44, 89, kNone},
      {"bracketed name with colon", "[epoch]: 199, [batch]: 23900, [loss]: 4.994150638580322", SeriesId::kLoss,
       4.994150638580322, kNone, 199},
      // Note: [Counted accuracy]: PyTorch's MNIST example prints its test accuracy as a count of the test set.
      {"accuracy as a count", "Test set: Average loss: 2.3026, Accuracy: 980/10000 (10%)", SeriesId::kValAcc, 0.098, kNone,
       kNone},
      // Top-1 accuracy as torchvision's reference scripts and timm print it; Acc@5 is not read as the accuracy.
      {"top-1 accuracy", "Epoch: [3][100/2402]  Loss 2.3026 (2.3026)  Acc@1  10.000 ( 10.000)  Acc@5  50.000 ( 50.000)",
       SeriesId::kAcc, 10.0, 2 * 2402 + 100, 3},
      {"full-width colon", "\xe8\xae\xad\xe7\xbb\x83\xe6\xac\xa1\xe6\x95\xb0\xef\xbc\x9a" "100, Loss\xef\xbc\x9a" "1.9817659854888916",
       SeriesId::kLoss, 1.9817659854888916, kNone, kNone},
  };
  for (const FormatCase& c : kCases) {
    MetricCollector m = Collect(std::string(c.line) + "\n");
    std::vector<MetricPoint> pts = PointsOf(m, c.series);
    ASSERT_EQ(pts.size(), 1u) << c.name << ": " << c.line;
    const MetricPoint& p = pts[0];
    if (std::isnan(c.value)) {
      EXPECT_TRUE(std::isnan(p.value)) << c.name << ": got " << p.value;
    } else if (std::isinf(c.value)) {
      EXPECT_EQ(p.value, c.value) << c.name;
    } else {
      EXPECT_NEAR(p.value, c.value, 1e-9 * std::fabs(c.value) + 1e-12) << c.name;
    }
    if (std::isnan(c.step)) EXPECT_TRUE(std::isnan(p.step)) << c.name << ": step " << p.step;
    else EXPECT_EQ(p.step, c.step) << c.name;
    if (std::isnan(c.epoch)) EXPECT_TRUE(std::isnan(p.epoch)) << c.name << ": epoch " << p.epoch;
    else EXPECT_EQ(p.epoch, c.epoch) << c.name;
    EXPECT_EQ(p.line, 1u) << c.name;
  }
}

// The end of a Hugging Face Trainer run reporting to Weights & Biases: its "Run history:" sparklines hold no
// number, and its "Run summary:" table holds the last value of each key, the split before a '/'.
TEST(MetricCollector, ReadsTheTrainersKeysInAWandbSummary) {
  MetricCollector m = Collect(
      "wandb: Run history:\n"
      "wandb:         train/epoch \xe2\x96\x81\xe2\x96\x83\xe2\x96\x85\xe2\x96\x88\n"
      "wandb:     train/grad_norm \xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\n"
      "wandb: \n"
      "wandb: Run summary:\n"
      "wandb:         train/epoch 3.0\n"
      "wandb:   train/global_step 1500\n"
      "wandb:     train/grad_norm nan\n"
      "wandb: train/learning_rate 0.0\n"
      "wandb:          train/loss 0.0\n"
      "wandb:           train/lr 2e-05\n");
  ASSERT_EQ(PointsOf(m, SeriesId::kGradNorm).size(), 1u);
  EXPECT_TRUE(std::isnan(PointsOf(m, SeriesId::kGradNorm)[0].value));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLr), (std::vector<double>{0.0, 2e-05}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{0.0}));
}

TEST(MetricCollector, ReadsNumbersInEveryNotationPrinted) {
  struct Case {
    const char* line;
    double want;
  };
  const Case kCases[] = {
      {"lr: 2.000e-02", 0.02},
      {"lr=2e-05", 2e-05},
      {"lr=.5", 0.5},
      {"lr=+3", 3},
      {"lr=1E+3", 1000},
      {"lr=123456789012345678901234", 1.2345678901234568e23},  // too long for the fast path
      {"lr=1.7014118346046923e+38", 1.7014118346046923e+38},
      {"lr=4.9e-324", 4.9e-324},
  };
  for (const Case& c : kCases) {
    MetricCollector m = Collect(std::string(c.line) + "\n");
    ASSERT_NE(m.Find(SeriesId::kLr), nullptr) << c.line;
    EXPECT_NEAR(m.Find(SeriesId::kLr)->last().value, c.want, std::fabs(c.want) * 1e-15) << c.line;
  }
}

TEST(MetricCollector, QualifiedNamesAreNotReadAsTheTrainingLoss) {
  MetricCollector m = Collect("epoch 1 | val loss 0.75 | test loss 0.9\n");
  EXPECT_EQ(m.Find(SeriesId::kLoss), nullptr) << "'val loss' and 'test loss' must not feed the training loss";
  ASSERT_NE(m.Find(SeriesId::kValLoss), nullptr);
  EXPECT_EQ(m.Find(SeriesId::kValLoss)->last().value, 0.75);
}

// A test loss is an evaluation's too: scripts that evaluate on a held-out "test" split every epoch print
// "train loss ... test loss ..." and nothing named val. On a line that prints both, the first one (the
// validation loss) is the line's value, as for any series.
TEST(MetricCollector, TestLossIsAnEvaluationLoss) {
  MetricCollector m = Collect("epoch 1 | train loss 0.61 | test loss 0.70\nepoch 2 | train loss 0.20 | test loss 0.93\n");
  std::vector<MetricPoint> val = PointsOf(m, SeriesId::kValLoss);
  ASSERT_EQ(val.size(), 2u);
  EXPECT_EQ(val[0].value, 0.70);
  EXPECT_EQ(val[1].value, 0.93);
  EXPECT_EQ(PointsOf(m, SeriesId::kLoss).size(), 2u);
}

// Note: [Evaluation lines]: bare names on a line that opens with an evaluation word, or that follow a
// qualified evaluation name, are the evaluation's.
TEST(MetricCollector, BareNamesOnAnEvaluationLineAreTheEvaluations) {
  // The torchvision fine-tuning tutorial's phase lines.
  MetricCollector m = Collect("train Loss: 0.6931 Acc: 0.5000\nval Loss: 0.6950 Acc: 0.4800\n");
  ASSERT_EQ(PointsOf(m, SeriesId::kLoss).size(), 1u);
  EXPECT_EQ(PointsOf(m, SeriesId::kLoss)[0].value, 0.6931);
  ASSERT_EQ(PointsOf(m, SeriesId::kValLoss).size(), 1u);
  EXPECT_EQ(PointsOf(m, SeriesId::kValLoss)[0].value, 0.6950);
  ASSERT_EQ(PointsOf(m, SeriesId::kAcc).size(), 1u);
  EXPECT_EQ(PointsOf(m, SeriesId::kAcc)[0].value, 0.5);
  ASSERT_EQ(PointsOf(m, SeriesId::kValAcc).size(), 1u);
  EXPECT_EQ(PointsOf(m, SeriesId::kValAcc)[0].value, 0.48);
  // PyTorch's MNIST example: the test set's average loss and its accuracy (Note: [Counted accuracy]).
  MetricCollector mnist = Collect("Train Epoch: 1 [640/60000 (1%)]\tLoss: 2.302585\n\nTest set: Average loss: 2.3026, Accuracy: 980/10000 (10%)\n");
  EXPECT_EQ(PointsOf(mnist, SeriesId::kLoss).size(), 1u);
  ASSERT_EQ(PointsOf(mnist, SeriesId::kValLoss).size(), 1u);
  ASSERT_EQ(PointsOf(mnist, SeriesId::kValAcc).size(), 1u);
  EXPECT_NEAR(PointsOf(mnist, SeriesId::kValAcc)[0].value, 0.098, 1e-12);
  EXPECT_EQ(mnist.Find(SeriesId::kAcc), nullptr);
  // Both phases on one line: after "val Loss" the bare Acc is the evaluation's, after "train Loss" not.
  MetricCollector both = Collect("Epoch 3 train Loss: 0.40 Acc: 0.81 val Loss: 0.52 Acc: 0.77\n");
  EXPECT_EQ(PointsOf(both, SeriesId::kAcc)[0].value, 0.81);
  EXPECT_EQ(PointsOf(both, SeriesId::kValAcc)[0].value, 0.77);
}

// A test accuracy is an evaluation's: the val_acc series (a test loss stays out of the training loss).
TEST(MetricCollector, TestAccuracyIsAnEvaluationAccuracy) {
  MetricCollector m = Collect("Test accuracy: 10.00%\nepoch 2 | test_acc 0.65 | test loss 0.9\n");
  std::vector<MetricPoint> val = PointsOf(m, SeriesId::kValAcc);
  ASSERT_EQ(val.size(), 2u);
  EXPECT_EQ(val[0].value, 10.0);
  EXPECT_EQ(val[1].value, 0.65);
  EXPECT_EQ(m.Find(SeriesId::kAcc), nullptr);
  EXPECT_EQ(m.Find(SeriesId::kLoss), nullptr);
}

TEST(MetricCollector, ReadsF1ScoresUnderTheirNames) {
  MetricCollector m = Collect("epoch 1 test_acc 0.65 f1: 0.2626\nepoch 2 Macro-F1 0.31\n{'eval_f1': 0.5}\nprecision recall f1-score support\n");
  std::vector<MetricPoint> f1 = PointsOf(m, SeriesId::kF1);
  ASSERT_EQ(f1.size(), 3u);
  EXPECT_EQ(f1[0].value, 0.2626);
  EXPECT_EQ(f1[1].value, 0.31);
  EXPECT_EQ(f1[2].value, 0.5);
  EXPECT_STREQ(SeriesName(SeriesId::kF1), "f1");
  EXPECT_EQ(SeriesFromName("f1"), SeriesId::kF1);
}

TEST(MetricCollector, IgnoresTextThatOnlyMentionsNames) {
  const char* kLines[] = {
      "Loss is nan, stopping training",                 // a message, no value after a separator
      "20.1it/s, lr_scheduler.step() before optimizer.step()",
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "step 1: non-finite gradients, step skipped, loss scale now 1.7014118346046923e+38",
      "best_loss=inf patience=5",
      "CUDA out of memory: Tried to allocate 2.00 GiB",  // a name, a separator, then words
      "params: 11.2M, RAM check passed",                 // "ram" inside a word is no name
  };
  for (const char* line : kLines) {
    MetricCollector m = Collect(std::string(line) + "\n");
    EXPECT_EQ(m.Find(SeriesId::kLoss), nullptr) << line;
    EXPECT_EQ(m.Find(SeriesId::kMemory), nullptr) << line;
    EXPECT_EQ(m.Find(SeriesId::kHostMemory), nullptr) << line;
  }
}

// Note: [Host and GPU memory]: a line that prints both keeps them apart, so host RAM rising before a kill
// is not mixed with the GPU's allocator figures (mmcv's `memory`, detectron2's `max_mem`).
TEST(MetricCollector, KeepsHostMemoryApartFromGpuMemory) {
  MetricCollector m = Collect(
      "iter 10 loss 0.9 max_mem: 2549M rss: 3100 MB\n"
      "iter 20 loss 0.8 max_mem: 2549M rss: 3900 MB\n"
      "Epoch [1][30/500]\tlr: 1.0e-02, memory: 2551, loss: 0.7, RAM used: 4.5 GB\n");
  const MetricSeries* gpu = m.Find(SeriesId::kMemory);
  const MetricSeries* host = m.Find(SeriesId::kHostMemory);
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(host, nullptr);
  std::vector<double> g, h;
  for (const MetricPoint& p : gpu->Points()) g.push_back(p.value);
  for (const MetricPoint& p : host->Points()) h.push_back(p.value);
  // The mmcv line names its figures differently from the two lines before it: each series keeps the
  // figure of its first name (Note: [One memory figure per series]); read alone, the line gives both.
  EXPECT_EQ(g, (std::vector<double>{2549, 2549}));
  EXPECT_EQ(h, (std::vector<double>{3100, 3900}));
  const MetricCollector mmcv = Collect("Epoch [1][30/500]\tlr: 1.0e-02, memory: 2551, loss: 0.7, RAM used: 4.5 GB\n");
  EXPECT_EQ(ValuesOf(mmcv, SeriesId::kMemory), (std::vector<double>{2551}));
  EXPECT_EQ(ValuesOf(mmcv, SeriesId::kHostMemory), (std::vector<double>{4.5 * 1024}));
  EXPECT_STREQ(SeriesName(SeriesId::kHostMemory), "host_memory");
  EXPECT_EQ(SeriesFromName("host_memory"), SeriesId::kHostMemory);
}

// Note: [Step field first]: a bare integer in a '|' field of its own before the named values is the
// line's step, in the full scan and in the shapes' replay alike.
TEST(MetricCollector, ReadsALeadingStepField) {
  // nwyin/modded-llama2#10, the owner's pretraining log (a later block of the same issue).
  const std::string text =
      "1220 | loss 3.2969 | lr 2.640000e-04 | 13880.16ms\n"
      "1230 | loss 3.1875 | lr 2.610000e-04 | 13848.93ms\n"
      "1240 | loss 3.3438 | lr 2.580000e-04 | 13871.84ms\n"
      "  990 | loss 3.5 | lr 1e-4\n";
  for (MetricCollector::Shapes shapes : {MetricCollector::Shapes::kAuto, MetricCollector::Shapes::kFullScan}) {
    MetricCollector m(shapes);
    m.Feed(text);
    std::vector<MetricPoint> pts = PointsOf(m, SeriesId::kLoss);
    std::vector<double> steps;
    for (const MetricPoint& p : pts) steps.push_back(p.step);
    EXPECT_EQ(steps, (std::vector<double>{1220, 1230, 1240, 990}));
    ASSERT_EQ(pts.size(), 4u);
    EXPECT_EQ(pts[1].value, 3.1875);
  }
  // Not a step field: no '|' after the number, a '|' glued to it, a number after other text, a decimal.
  const char* kNot[] = {
      "1220 loss 3.2969 | lr 2.6e-04",
      "1220| loss 3.2969",
      "step | 1220 | loss 3.2969",
      "12.5 | loss 3.2969",
  };
  for (const char* line : kNot) {
    std::vector<MetricPoint> pts = PointsOf(Collect(std::string(line) + "\n"), SeriesId::kLoss);
    ASSERT_EQ(pts.size(), 1u) << line;
    EXPECT_TRUE(std::isnan(pts[0].step)) << line;
  }
}

// Note: [Tutorial progress lines]: the layouts of PyTorch's char-RNN and seq2seq tutorials name no
// loss; the layout says which number it is.
TEST(MetricCollector, ReadsTheTutorialsUnnamedLossColumn) {
  struct Case {
    const char* line;
    double loss;
    double step;
  };
  const Case kCases[] = {
      // corpus/wild/training/char-rnn-optimizer-bound-to-first-rnn-instance (practical-pytorch's copy: no blank in the time)
      {"5000  5% (0m12s) 2.9460 Jigalev / Portuguese \xe2\x9c\x97 (Russian)", 2.9460, 5000},
      // '%d %d%% (%s) %.4f %s / %s %s' with asMinutes' '%dm %ds'
      {"25000 25% (1m 1s) 2.7749 Ki / Japanese \xe2\x9c\x93", 2.7749, 25000},
      // the generation tutorial's '%s (%d %d%%) %.4f'
      {"0m 9s (5000 5%) 2.9123", 2.9123, 5000},
      // the seq2seq tutorial's timeSince(start, percent): elapsed and '(- remaining)'
      {"1m 28s (- 20m 36s) (5000 6%) 2.8552", 2.8552, 5000},
      // char-rnn.pytorch: '[%s (%d %d%%) %.4f]'
      {"[0m 30s (100 5%) 2.1054]", 2.1054, 100},
      {"  3m 2s (- 0m 0s) (75000 100%) nan", std::nan(""), 75000},
  };
  for (const Case& c : kCases) {
    MetricCollector m = Collect(std::string(c.line) + "\n");
    std::vector<MetricPoint> pts = PointsOf(m, SeriesId::kLoss);
    ASSERT_EQ(pts.size(), 1u) << c.line;
    if (std::isnan(c.loss)) EXPECT_TRUE(std::isnan(pts[0].value)) << c.line;
    else EXPECT_EQ(pts[0].value, c.loss) << c.line;
    EXPECT_EQ(pts[0].step, c.step) << c.line;
  }
  const char* kNot[] = {
      "5000 5% (0m 12s)",                    // no value after the layout
      "5000 5% (0m 12s) done",               // a word, not a value
      "50000000000000000000 5% (0m 12s) 2.9", // a counter of 20 digits is no iteration
      "5000 5% (12s) 2.9",                   // not asMinutes' time
      "0m 9s (5000 5%) 2.9x",                // a value running into a word
      "100 50% done in 0m 3s 0.5",           // the numbers, not the layout
      "2024-01-01 10% (0m 1s) 0.5",          // a date is not an iteration
      "(5000 5%) 2.9",                       // no time before the counter
  };
  for (const char* line : kNot) {
    EXPECT_EQ(Collect(std::string(line) + "\n").Find(SeriesId::kLoss), nullptr) << line;
  }
  // Shapes and the full scan agree on them, also next to lines of a similar look that the reader
  // refuses and the names scan reads (whether a line is one depends on where its digits are, not on
  // their values, so a shape recorded from a refused line never takes a tutorial line).
  const std::string text =
      "5000 5% (0m 12s) 2.9460 a / b\n10000 10% (0m 24s) 2.9493 c / d\n0m 9s (5000 5%) 2.9123\n"
      "5000 5% (0m 12s) acc 3\n5000 105% (0m 12s) 2.9 acc 3\n5000 5% (0m 12s) acc 4\n";
  for (MetricCollector::Shapes shapes : {MetricCollector::Shapes::kAuto, MetricCollector::Shapes::kFullScan}) {
    MetricCollector m(shapes);
    m.Feed(text);
    m.FinishInput();
    EXPECT_EQ(PointsOf(m, SeriesId::kLoss).size(), 4u);
    EXPECT_EQ(PointsOf(m, SeriesId::kAcc).size(), 2u) << "the lines without a loss after the time are read by name";
  }
}

// Whether the table read into `m` has three validation losses, the one at `i` being `value` of epoch `epoch`,
// and three training losses beside them.
void ExpectThreeEpochRows(const MetricCollector& m, size_t i, double value, double epoch) {
  std::vector<MetricPoint> val = PointsOf(m, SeriesId::kValLoss);
  ASSERT_EQ(val.size(), 3u);
  EXPECT_DOUBLE_EQ(val[i].value, value);
  EXPECT_DOUBLE_EQ(val[i].epoch, epoch);
  EXPECT_EQ(PointsOf(m, SeriesId::kLoss).size(), 3u);
}

// Note: [Epoch tables]: fastai's fit table, a header of names then blank-aligned rows of numbers.
TEST(MetricCollector, ReadsEpochTables) {
  MetricCollector m = Collect(
      "epoch     train_loss  valid_loss  accuracy  time    \n"
      "0         1.400000    1.900000    0.500000  00:10     \n"
      "1         0.980000    #na#        00:09     \n"
      "/usr/lib/python3/site-packages/fastai/learner.py:55: UserWarning: a warning between rows\n"
      "1         0.980000    1.700000    0.610000  00:09     \n"
      "2         0.686000    1.600000    0.640000  00:10     \n");
  ExpectThreeEpochRows(m, 2, 1.6, 2);
  // fastai computes its metrics on the validation set: the accuracy beside a valid_loss is that one's
  EXPECT_EQ(PointsOf(m, SeriesId::kValAcc).size(), 3u);
  EXPECT_TRUE(PointsOf(m, SeriesId::kAcc).empty());
  // a line that starts with "epoch" and a number is no header
  MetricCollector k = Collect("epoch 1: train loss 2.3027 lr 0.0500\n3 1.2 1.1 0.5 00:10\n");
  EXPECT_EQ(PointsOf(k, SeriesId::kLoss).size(), 1u);
  EXPECT_TRUE(PointsOf(k, SeriesId::kValLoss).empty());
}

// Note: [Two-word names in a blank-separated header]: fastai 1.0's table, whose header names hold a blank
// ("train loss", "valid loss"), as printed (two blanks between names) and as pasted outside a code block (one
// blank everywhere: corpus/wild/numerics/fastai-941-fp16-multilabel-table-nan-lr-too-high).
TEST(MetricCollector, ReadsTwoWordNamesInBlankSeparatedHeaders) {
  MetricCollector printed = Collect("epoch  train loss  valid loss  accuracy\n0  1.400000  1.900000  0.500000\n1  0.980000  1.700000  0.610000\n");
  EXPECT_EQ(ValuesOf(printed, SeriesId::kLoss), (std::vector<double>{1.4, 0.98}));
  EXPECT_EQ(ValuesOf(printed, SeriesId::kValLoss), (std::vector<double>{1.9, 1.7}));
  MetricCollector pasted = Collect("epoch train loss valid loss accuracy_thresh f2_opt\n0 nan nan 0.997788 0.000000\n");
  const std::vector<MetricPoint> loss = PointsOf(pasted, SeriesId::kLoss), val = PointsOf(pasted, SeriesId::kValLoss);
  ASSERT_EQ(loss.size(), 1u);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_TRUE(std::isnan(loss[0].value));
  EXPECT_TRUE(std::isnan(val[0].value));
  EXPECT_EQ(loss[0].epoch, 0);
  // a first word that names a series itself is not joined to the next: "lr" and "loss" stay two columns
  MetricCollector lr = Collect("epoch lr loss\n1 0.1 2.3\n2 0.1 2.2\n");
  EXPECT_EQ(ValuesOf(lr, SeriesId::kLoss), (std::vector<double>{2.3, 2.2}));
  EXPECT_EQ(ValuesOf(lr, SeriesId::kLr), (std::vector<double>{0.1, 0.1}));
  // two blanks inside the pair are a separator, not a name's blank: no row of this header has two fields less
  MetricCollector wide = Collect("epoch  train  loss\n1  0.5  2.3\n");
  EXPECT_EQ(ValuesOf(wide, SeriesId::kLoss), (std::vector<double>{2.3}));
}

// Note: [Loss terms under a heading]: "loss: x ..., total ..." and "[Losses: x ..., total ...]" read "total" as the
// loss (lines of corpus/wild/numerics/pytorch-yolo2-87-region-loss-total-nan-lr-lowered and
// corpus/wild/numerics/pytorch-yolov3-13-xywh-cls-losses-nan-fixed-upstream); "total" without the heading stays unread.
TEST(MetricCollector, ReadsTheTotalOfLossTermsUnderAHeading) {
  MetricCollector yolo2 = Collect(
      "9856: nGT 39, recall 0, proposals 0, loss: x 1692.913574, y 1690.920166, w nan, h nan, conf nan, cls nan, total nan\n"
      "9872: nGT 42, recall 0, proposals 0, loss: x 1690.989502, y 1692.306641, w nan, h nan, conf nan, cls nan, total nan\n");
  const std::vector<MetricPoint> total = PointsOf(yolo2, SeriesId::kLoss);
  ASSERT_EQ(total.size(), 2u);
  EXPECT_TRUE(std::isnan(total[0].value));
  EXPECT_TRUE(std::isnan(total[1].value));
  MetricCollector finite = Collect(
      "7731: nGT 46, recall 26, proposals 0, loss: x 2.349184, y 2.490905, w 4.355775, h 3.614321, conf 39.847290, cls 65.046005, total 117.703484\n"
      "7747: nGT 44, recall 25, proposals 0, loss: x 2.036328, y 2.825909, w 5.378100, h 3.541537, conf 31.159536, cls 77.241898, total 122.183304\n");
  EXPECT_EQ(ValuesOf(finite, SeriesId::kLoss), (std::vector<double>{117.703484, 122.183304}));
  MetricCollector bracketed = Collect(
      "[Epoch 0/30, Batch 323/1313] [Losses: x 0.051, y 0.042, w 0.213, h 0.118, conf 0.755184, cls 0.31, total 1.489]\n"
      "[Epoch 0/30, Batch 324/1313] [Losses: x nan, y nan, w nan, h nan, conf 0.760500, cls nan, total nan]\n");
  const std::vector<MetricPoint> b = PointsOf(bracketed, SeriesId::kLoss);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].value, 1.489);
  EXPECT_TRUE(std::isnan(b[1].value));
  // no heading: "total" is a count or a time, not the loss
  EXPECT_TRUE(PointsOf(Collect("epoch 3 total 1200 images\nepoch 4 total 1300 images\n"), SeriesId::kLoss).empty());
  // a loss with its own value is no heading: the later "total" stays unread
  EXPECT_EQ(ValuesOf(Collect("loss: 0.52 total 1200\nloss: 0.48 total 1300\n"), SeriesId::kLoss), (std::vector<double>{0.52, 0.48}));
}

// Note: [One-element loss tensors]: "Loss:  tensor([4152.4517], ...)" reads the number inside the list (lines of
// nlesc-dirac/pytorch#4's optimizer loop, its vector prints between them); a list of several numbers stays unread.
TEST(MetricCollector, ReadsALossTensorOfOneElement) {
  MetricCollector lbfgs = Collect(
      "Parametri:  tensor([1.0000, 1.0000, 1.0000, 2.0000, 0.4000], device='cuda:0',\n"
      "       requires_grad=True)\n"
      "Gradiente:  tensor([ 2954.1091,   917.6224,  -725.3356, -1112.6702,   542.8693],\n"
      "       device='cuda:0')\n"
      "Loss:  tensor([4152.4517], device='cuda:0', grad_fn=<NegBackward0>)\n"
      "Parametri:  tensor([1.0014e-05, 1.0014e-05, 7.2634e+02, 1.1147e+03, 1.0014e-05],\n"
      "       device='cuda:0', requires_grad=True)\n"
      "Gradiente:  tensor([-1.1364e+08,  0.0000e+00,         nan,         nan,  0.0000e+00],\n"
      "       device='cuda:0')\n"
      "Loss:  tensor([13100.3057], device='cuda:0', grad_fn=<NegBackward0>)\n");
  EXPECT_EQ(ValuesOf(lbfgs, SeriesId::kLoss), (std::vector<double>{4152.4517, 13100.3057}));
  const std::vector<MetricPoint> turned = PointsOf(
      Collect("loss: tensor([0.6931], device='cuda:0', grad_fn=<MeanBackward1>)\n"
              "loss: tensor([nan], device='cuda:0', grad_fn=<MeanBackward1>)\n"),
      SeriesId::kLoss);
  ASSERT_EQ(turned.size(), 2u);
  EXPECT_EQ(turned[0].value, 0.6931);
  EXPECT_TRUE(std::isnan(turned[1].value));
  // DataParallel's gathered losses, one per device: not one loss
  EXPECT_TRUE(PointsOf(Collect("loss: tensor([0.5123, 0.4987], device='cuda:0', grad_fn=<GatherBackward>)\n"
                               "loss: tensor([0.5011, 0.4876], device='cuda:0', grad_fn=<GatherBackward>)\n"),
                       SeriesId::kLoss)
                  .empty());
}

// Ultralytics' and YOLOv5's epoch rows (Note: [Epoch tables]): "E/N" epochs, the GPU memory with its unit, and
// the progress bar after the last column's ':'. Rows of a real Ultralytics 8 run (Colab, without bar characters)
// and of YOLOv5 (corpus/wild/numerics/adan-yolov5-kps-nan-epoch5-smaller-lr).
TEST(MetricCollector, ReadsUltralyticsEpochRows) {
  MetricCollector v8 = Collect(
      "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"
      "       1/20      1.19G      1.018      3.009      1.465          2        640: 100% 4/4 [00:01<00:00,  2.66it/s]\n"
      "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100% 1/1 [00:00<00:00,  5.55it/s]\n"
      "                   all          7         14    0.00667          1      0.307      0.197\n"
      "\n"
      "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"
      "       2/20      1.16G     0.8308      2.856      1.328          2        640: 100% 4/4 [00:00<00:00,  5.02it/s]\n");
  EXPECT_EQ(ValuesOf(v8, SeriesId::kMemory), (std::vector<double>{1.19 * 1024, 1.16 * 1024}));
  std::vector<double> epochs;
  for (const MetricPoint& p : PointsOf(v8, SeriesId::kMemory)) epochs.push_back(p.epoch);
  EXPECT_EQ(epochs, (std::vector<double>{1, 2}));  // "1/20", "2/20"
  MetricCollector v5 = Collect(
      "Epoch   gpu_mem       box       obj       cls       kps    labels  img_size\n"
      "     4/399     3.19G   0.05632    0.0556   0.01426    0.1152       129       416: 100%|\u2588\u2588| 367/367 [06:20<00:00,  1.04s/it]\n"
      "     Epoch   gpu_mem       box       obj       cls       kps    labels  img_size\n"
      "     5/399     3.19G       nan       nan       nan       nan       107       416: 100%|\u2588\u2588| 367/367 [06:16<00:00,  1.03s/it]\n");
  EXPECT_EQ(ValuesOf(v5, SeriesId::kMemory), (std::vector<double>{3.19 * 1024, 3.19 * 1024}));
  // Note: [Loss terms in a table]: the loss of a row is the sum of its terms, and NaN when a term is.
  const std::vector<double> v8_loss = ValuesOf(v8, SeriesId::kLoss);
  ASSERT_EQ(v8_loss.size(), 2u);
  EXPECT_DOUBLE_EQ(v8_loss[0], 1.018 + 3.009 + 1.465);
  EXPECT_DOUBLE_EQ(v8_loss[1], 0.8308 + 2.856 + 1.328);
  const std::vector<MetricPoint> v5_loss = PointsOf(v5, SeriesId::kLoss);
  ASSERT_EQ(v5_loss.size(), 2u);
  EXPECT_DOUBLE_EQ(v5_loss[0].value, 0.05632 + 0.0556 + 0.01426 + 0.1152);
  EXPECT_TRUE(std::isnan(v5_loss[1].value));
  EXPECT_EQ(v5_loss[1].epoch, 5);
  // a total printed beside its terms (YOLOv5 before 6.0) is the loss; the terms are not added to it
  MetricCollector total = Collect(
      "     Epoch   gpu_mem       box       obj       cls     total    labels  img_size\n"
      "     0/299     4.11G   0.05746   0.02817   0.01813    0.1038        31       640\n");
  EXPECT_EQ(ValuesOf(total, SeriesId::kLoss), (std::vector<double>{0.1038}));
  // two losses side by side in another table (a GAN's) are not one loss's terms
  MetricCollector gan = Collect("epoch  g_loss  d_loss\n1  0.7  0.6\n2  0.8  0.5\n");
  EXPECT_TRUE(PointsOf(gan, SeriesId::kLoss).empty());
  // a row cut before its last column, or a ':' elsewhere, stays unread
  MetricCollector cut = Collect(
      "Epoch   gpu_mem       box       obj       cls     total    labels  img_size\n"
      "     0/299     4.11G   0.05746      3.93      65.8\n"
      "     1/299     4.11G:  0.05746      3.93      65.8     0.1     10     640\n");
  EXPECT_TRUE(PointsOf(cut, SeriesId::kMemory).empty());
}

// The same table as a Markdown table pasted in an issue, and as a pandas DataFrame of the run's history.
TEST(MetricCollector, ReadsEpochTablesInMarkdownAndPandas) {
  MetricCollector md = Collect(
      "| Epoch | Train Loss | Val Loss | Val Acc |\n"
      "|---|:---:|---|---|\n"
      "| 1 | 0.9 | 0.8 | 0.61 |\n"
      "| 2 | 0.6 | 0.7 | 0.66 |\n"
      "| 3 | 0.4 | 0.75 | 0.65 |\n");
  ExpectThreeEpochRows(md, 1, 0.7, 2);
  EXPECT_EQ(PointsOf(md, SeriesId::kValAcc).size(), 3u);
  // an OpenAI-logger table of names and values opens no epoch table: a row of numbers after it is not read
  MetricCollector kv = Collect("| loss   | 0.5   |\n|---|---|\n| 1 | 0.9 | 0.8 |\n");
  EXPECT_TRUE(PointsOf(kv, SeriesId::kValLoss).empty());
  MetricCollector pd = Collect(
      "   epoch  train_loss  val_loss\n"
      "0      1      0.9000    0.8000\n"
      "1      2      0.6000    0.7000\n"
      "2      3      0.4000    0.7500\n");
  ExpectThreeEpochRows(pd, 2, 0.75, 3);
}

// The whole loss under a word joined to "loss" that says how it was summed or when it was printed, as
// hand-written loops print it; a component's loss ("cls_loss") stays unread.
TEST(MetricCollector, ReadsTheWholeLossUnderSummingWords) {
  const char* kLines[] = {"epoch_loss: 0.5", "batch_loss=0.5", "running_loss: 0.5", "iteration : 3, losses : 0.5",
                          "loss_avg=0.5", "Epoch Loss: 0.5", "mean_loss 0.5"};
  for (const char* line : kLines) {
    std::vector<MetricPoint> loss = PointsOf(Collect(std::string(line) + "\n"), SeriesId::kLoss);
    ASSERT_EQ(loss.size(), 1u) << line;
    EXPECT_DOUBLE_EQ(loss[0].value, 0.5) << line;
  }
  EXPECT_EQ(PointsOf(Collect("avg_val_loss: 0.33\n"), SeriesId::kValLoss).size(), 1u);
  EXPECT_TRUE(PointsOf(Collect("box_loss 0.05 cls_loss 0.01\n"), SeriesId::kLoss).empty());
  // the total after a component's: the component's own name does not take the line's loss
  std::vector<MetricPoint> total = PointsOf(Collect("epoch 3 cls_loss: 0.3, epoch_loss: 0.5\n"), SeriesId::kLoss);
  ASSERT_EQ(total.size(), 1u);
  EXPECT_DOUBLE_EQ(total[0].value, 0.5);
}

// Note: [Indices before a value] and Note: [What a value was averaged over] in metrics.cc: a name labelled
// with bracketed indices, or with what its mean was taken over, is followed by its value.
TEST(MetricCollector, ReadsTheValueAfterIndicesAndWhatItWasAveragedOver) {
  // Before, the first index (the epoch) was read as the loss: 1, 1, 2.
  EXPECT_EQ(ValuesOf(Collect("Loss [1, 100](epoch, minibatch):  9.65963740825653\n"
                              "Loss [1, 200](epoch, minibatch):  5.152797379493713\n"
                              "Loss [2, 100](epoch, minibatch):  4.46427243232727\n"),
                      SeriesId::kLoss),
            (std::vector<double>{9.65963740825653, 5.152797379493713, 4.46427243232727}));
  EXPECT_EQ(ValuesOf(Collect("loss (3, 40) = 0.25\n"), SeriesId::kLoss), (std::vector<double>{0.25}));
  // Lists of fractions (one learning rate per parameter group) and one-element lists are values.
  EXPECT_EQ(ValuesOf(Collect("lr: [0.001, 0.0001] loss: 0.5\nlr: [0.002]\n"), SeriesId::kLr),
            (std::vector<double>{0.001, 0.002}));
  // A list of indices with no value after it gives no value.
  EXPECT_TRUE(PointsOf(Collect("loss [1, 2] pending\n"), SeriesId::kLoss).empty());
  // ST-GCN's evaluation line and its kind; before, the test loss was not read.
  const MetricCollector m = Collect(
      "[ Mon Mar  2 10:03:40 2026 ] \tMean training loss: 2.9000.  Mean training acc: 27.50%.\n"
      "[ Mon Mar  2 10:03:58 2026 ] \tMean test loss of 132 batches: 1.9200123456789000.\n"
      "Average loss over 100 steps = 2.31\n");
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{1.9200123456789}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{2.9, 2.31}));
  // Not a count phrase: "of" without a count, or without a separator after the word.
  EXPECT_TRUE(PointsOf(Collect("loss of the model 0.5\n"), SeriesId::kLoss).empty());
  EXPECT_TRUE(PointsOf(Collect("loss of 3 batches 0.5\n"), SeriesId::kLoss).empty());
}

// Note: [Qualified names] and Note: [Step named before the value] in metrics.cc: a name followed by what
// its value was taken over in parentheses, or by the step it belongs to, is followed by its value; before,
// neither line gave a point.
TEST(MetricCollector, ReadsTheValueAfterAQualifierOrANamedStep) {
  // Pytorch-UNet's tqdm postfix (corpus/wild/loss/pytorch-unet-84-png-masks-negative-loss-dice-above-one).
  EXPECT_EQ(ValuesOf(Collect("Epoch 1/5: 100%|##########| 79/79 [00:12<00:00,  6.33img/s, loss (batch)=-9.27e+5]\n"
                              "Epoch 2/5: 100%|##########| 79/79 [00:11<00:00,  7.11img/s, loss (batch)=-4.68e+6]\n"),
                      SeriesId::kLoss),
            (std::vector<double>{-9.27e5, -4.68e6}));
  EXPECT_EQ(ValuesOf(Collect("loss (avg): 0.31\n"), SeriesId::kLoss), (std::vector<double>{0.31}));
  // A split's name in parentheses is no qualifier of a training value: it says the value is the
  // evaluation's. ViTPose's epoch summaries (corpus/wild/training/vitpose-layer-decay-lr-to-zero, lines 2-3);
  // before, the validation line gave no point.
  EXPECT_TRUE(PointsOf(Collect("loss (val): 0.31\n"), SeriesId::kLoss).empty());
  EXPECT_EQ(ValuesOf(Collect("loss (val): 0.31\nAccuracy (test): 0.9\n"), SeriesId::kValLoss), (std::vector<double>{0.31}));
  EXPECT_EQ(ValuesOf(Collect("loss (val): 0.31\nAccuracy (test): 0.9\n"), SeriesId::kValAcc), (std::vector<double>{0.9}));
  const MetricCollector vitpose = Collect(
      "2023-04-24 21:32:07,523 - utils - INFO - [Summary-train] Epoch [000/210] | Average Loss (train) 0.0047 --- 218.09494 sec. elapsed\n"
      "2023-04-24 21:32:40,968 - utils - INFO - [Summary-valid] Epoch [000/210] | Average Loss (valid) 0.0032 --- 32.84739 sec. elapsed\n");
  EXPECT_EQ(ValuesOf(vitpose, SeriesId::kLoss), (std::vector<double>{0.0047}));
  EXPECT_EQ(ValuesOf(vitpose, SeriesId::kValLoss), (std::vector<double>{0.0032}));
  // brain-segmentation-pytorch's print of a one-element list, and the plain "at step" form.
  EXPECT_EQ(ValuesOf(Collect("loss for step: 622 = [-0.9068]\nLoss at step 100: 0.53\nloss at epoch 3 = 0.41\n"),
                     SeriesId::kLoss),
            (std::vector<double>{-0.9068, 0.53, 0.41}));
  // Not a step phrase: no number, or no separator after it.
  EXPECT_TRUE(PointsOf(Collect("loss for step: pending\n"), SeriesId::kLoss).empty());
  EXPECT_TRUE(PointsOf(Collect("loss at step 3 was high\n"), SeriesId::kLoss).empty());
}

// Note: [Best so far] in metrics.cc: a value after "best" is the run's best so far, not the line's point;
// before, it took the line's place and the series read as a constant.
TEST(MetricCollector, PassesOverTheBestSoFar) {
  const MetricCollector m = Collect(
      "epoch 247 best test acc: 0.9120, train loss: 1.0728; train acc: 0.5000 val acc: 0.5000 test acc: 0.5000\n"
      "epoch 248 best test acc: 0.9120, train loss: 1.3343; train acc: 0.5000 val acc: 0.4000 test acc: 0.5000\n"
      "Epoch 3/100, train loss: 0.4, Best Val Loss: 0.40, val loss: 0.47\n");
  EXPECT_EQ(ValuesOf(m, SeriesId::kValAcc), (std::vector<double>{0.5, 0.4}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{0.47}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{1.0728, 1.3343, 0.4}));
  // Only the words right after "best" name its value; an epoch after it is the best one's.
  EXPECT_EQ(ValuesOf(Collect("best: 0.9 loss 0.5\nbest epoch 12 acc 0.8\n"), SeriesId::kLoss), (std::vector<double>{0.5}));
  std::vector<MetricPoint> acc = PointsOf(Collect("epoch 3 best epoch 12 acc 0.8\n"), SeriesId::kAcc);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_DOUBLE_EQ(acc[0].epoch, 3);
  // "Valid Accuracy" (two words) is the validation accuracy.
  EXPECT_EQ(ValuesOf(Collect("Epoch=2,Loss:0.2457,Accuracy:0.9021,Valid Loss:0.3564,Valid Accuracy:0.8554\n"), SeriesId::kValAcc),
            (std::vector<double>{0.8554}));
}

// Note: [Evaluation fields] in metrics.cc: an evaluation split named in a '|' field of its own makes the rest of
// the line the evaluation's (fairseq's layouts); before, its loss was read as the training loss.
TEST(MetricCollector, ReadsAnEvaluationNamedInAField) {
  const MetricCollector m = Collect(
      "| epoch 001 | loss 9.342 | nll_loss 8.902 | ppl 478.26 | lr 0.0005 | gnorm 1.234\n"
      "| epoch 001 | valid on 'valid' subset | loss 7.102 | nll_loss 6.51 | ppl 91.14\n"
      "2021-03-01 10:05:00 | INFO | train | epoch 002 | loss 6.801 | nll_loss 6.2 | lr 0.0005\n"
      "2021-03-01 10:06:00 | INFO | valid | epoch 002 | valid on 'valid' subset | loss 6.402 | nll_loss 5.81\n");
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{9.342, 6.801}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{7.102, 6.402}));
  // A bare split with a number after it is a value, not a field naming the split: the line stays a training one.
  EXPECT_EQ(ValuesOf(Collect("step 25 | loss 2.26 | val 2.28 | acc 0.5\n"), SeriesId::kAcc), (std::vector<double>{0.5}));
}

// Note: [Summing words on an evaluation line] in metrics.cc: "Avg loss" on an evaluation's line is the evaluation's;
// only a training word ends the evaluation context. And torchvision's training logger's "acc1" is the accuracy.
TEST(MetricCollector, ReadsSummedValuesOnAnEvaluationLine) {
  const MetricCollector m = Collect(
      "Epoch[1] Iteration[100/469] Loss: 0.53\n"
      "Training Results - Epoch: 1  Avg accuracy: 0.93 Avg loss: 0.22\n"
      "Validation Results - Epoch: 1  Avg accuracy: 0.95 Avg loss: 0.15\n"
      "val Loss: 0.69 train loss: 0.5 Acc: 0.5\n");
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{0.53, 0.22, 0.5}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{0.15, 0.69}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kAcc), (std::vector<double>{0.93, 0.5}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValAcc), (std::vector<double>{0.95}));
  // Megatron's evaluation line: "lm loss value" after "validation"; before, not read at all.
  const MetricCollector megatron = Collect(
      " iteration      200/  500000 | learning rate: 3.000E-05 | lm loss: 6.912345E+00 | loss scale: 65536.0 |\n"
      " validation loss at iteration 200 | lm loss value: 6.801234E+00 | lm loss PPL: 8.990271E+02 | \n");
  EXPECT_EQ(ValuesOf(megatron, SeriesId::kLoss), (std::vector<double>{6.912345}));
  EXPECT_EQ(ValuesOf(megatron, SeriesId::kValLoss), (std::vector<double>{6.801234}));
  EXPECT_EQ(ValuesOf(Collect("Epoch: [0]  [  10/5005]  lr: 0.1  loss: 6.9321 (6.9240)  acc1: 0.7812 (0.1420)  acc5: 1.5625 (0.6392)\n"),
                     SeriesId::kAcc),
            (std::vector<double>{0.7812}));
}

// Note: [Split-prefixed top-1] in metrics.cc. DeiT-style JSON epoch lines (as yuhuan-wu/P2T#13's author posted his
// ImageNet log, corpus/wild/negative/p2t-13-author-imagenet-log-train-loss-3.7-mid-run) print the evaluation's top-1
// as test_acc1; timm's summary.csv as eval_top1. Both are the evaluation's accuracy; the top-5 beside them is not.
TEST(MetricCollector, ReadsSplitPrefixedTopOne) {
  const MetricCollector deit = Collect(
      "{\"train_lr\": 0.0007614233696396924, \"train_loss\": 3.748048622735875, \"epoch\": 99, \"n_parameters\": 11590840}\n"
      "{\"train_lr\": 0.000756975500796447, \"train_loss\": 3.762699702232004, \"test_loss\": 1.2603078159212155, "
      "\"test_acc1\": 71.27800225585938, \"test_acc5\": 90.97800259765626, \"epoch\": 100, \"n_parameters\": 11590840}\n");
  EXPECT_EQ(ValuesOf(deit, SeriesId::kValAcc), (std::vector<double>{71.27800225585938}));
  EXPECT_EQ(ValuesOf(deit, SeriesId::kValLoss), (std::vector<double>{1.2603078159212155}));
  EXPECT_EQ(ValuesOf(deit, SeriesId::kLoss), (std::vector<double>{3.748048622735875, 3.762699702232004}));
  EXPECT_TRUE(ValuesOf(deit, SeriesId::kAcc).empty());
  const MetricCollector timm = Collect("epoch,train_loss,eval_loss,eval_top1,eval_top5\n0,6.71,5.93,4.11,12.87\n1,6.02,5.12,9.35,24.40\n");
  EXPECT_EQ(ValuesOf(timm, SeriesId::kValAcc), (std::vector<double>{4.11, 9.35}));
}

// NeMo's Megatron models log "reduced_train_loss" (the loss averaged over data-parallel ranks); Lightning 1.x put its
// own running "loss=" in front (NVIDIA-NeMo/Speech#5928), Lightning 2.x prints only the logged names, so before
// the alias such a bar gave no loss series at all.
TEST(MetricCollector, ReadsNemoReducedTrainLoss) {
  const MetricCollector m = Collect(
      "Epoch 0:   0%|          | 2/351750 [00:04<204:24:55,  2.09s/it, v_num=9-02, reduced_train_loss=11.00, global_step=1.000, consumed_samples=192.0]\n"
      "Epoch 0:   0%|          | 3/351750 [00:04<148:28:47,  1.52s/it, v_num=9-02, reduced_train_loss=nan.0, global_step=2.000, consumed_samples=384.0]\n");
  const std::vector<double> loss = ValuesOf(m, SeriesId::kLoss);
  ASSERT_EQ(loss.size(), 2u);
  EXPECT_DOUBLE_EQ(loss[0], 11.0);
  EXPECT_TRUE(std::isnan(loss[1]));
  // With Lightning 1.x's "loss=" first on the line, that value stays the one read (the first of a series wins).
  EXPECT_EQ(ValuesOf(Collect("Epoch 0:   0%|          | 1/351750 [00:03<372:08:48,  3.81s/it, loss=11, v_num=9-02, "
                             "reduced_train_loss=10.50, global_step=0.000, consumed_samples=0.000]\n"),
                     SeriesId::kLoss),
            (std::vector<double>{11.0}));
}

// Note: [Marked evaluation lines] in metrics.cc: MMEngine's "Epoch(val)" behind its logger header, and the
// ImageNet example's and DeiT's "* Acc@1" summary, are evaluations' lines; "Epoch(train)" is not.
TEST(MetricCollector, ReadsMarkedEvaluationLines) {
  const MetricCollector mm = Collect(
      "2023/05/01 10:00:00 - mmengine - INFO - Epoch(train)   [1][100/391]  lr: 1.0000e-01  loss: 2.2031\n"
      "2023/05/01 10:01:00 - mmengine - INFO - Epoch(val) [1][10/10]    accuracy/top1: 32.1000  accuracy/top5: 72.0000\n");
  EXPECT_EQ(ValuesOf(mm, SeriesId::kLoss), (std::vector<double>{2.2031}));
  EXPECT_EQ(ValuesOf(mm, SeriesId::kValAcc), (std::vector<double>{32.1}));
  EXPECT_TRUE(ValuesOf(mm, SeriesId::kAcc).empty());
  const MetricCollector deit = Collect(
      "Epoch: [0]  [1000/1251]  lr: 0.000500  loss: 3.7164 (3.9120)\n"
      "* Acc@1 61.200 Acc@5 83.300 loss 1.652\n"
      " * Acc@1 0.520 Acc@5 2.410\n");
  EXPECT_EQ(ValuesOf(deit, SeriesId::kLoss), (std::vector<double>{3.7164}));
  EXPECT_EQ(ValuesOf(deit, SeriesId::kValLoss), (std::vector<double>{1.652}));
  EXPECT_EQ(ValuesOf(deit, SeriesId::kValAcc), (std::vector<double>{61.2, 0.52}));
  // A '*' elsewhere on the line is no summary bullet.
  EXPECT_EQ(ValuesOf(Collect("step 3 * Acc@1 12.5 loss 2.1\n"), SeriesId::kLoss), (std::vector<double>{2.1}));
}

// Note: [Marked evaluation lines] behind a logger's header: Swin's and its followers' main.py logs the summary
// through its logger. Lines as posted in LeapLabTHU/DAT's README (the evaluation of its pretrained models).
TEST(MetricCollector, ReadsASummaryBulletBehindALoggerHeader) {
  const MetricCollector dat = Collect(
      "[2022-06-07 04:08:50 dat_tiny] (main.py 288): INFO  * Acc@1 82.034 Acc@5 95.850\n"
      "[2022-06-07 04:08:50 dat_tiny] (main.py 150): INFO Accuracy of the network on the 50000 test images: 82.0%\n");
  EXPECT_EQ(ValuesOf(dat, SeriesId::kValAcc), (std::vector<double>{82.034}));
  EXPECT_TRUE(ValuesOf(dat, SeriesId::kAcc).empty());
  // other headers: a level in capitals, a ' - ' separator
  EXPECT_EQ(ValuesOf(Collect("2023-01-01 10:00:00 - INFO - * Acc@1 61.2 Acc@5 83.3 loss 1.6\n"), SeriesId::kValLoss),
            (std::vector<double>{1.6}));
  EXPECT_EQ(ValuesOf(Collect("INFO * Acc@1 61.2 Acc@5 83.3\n"), SeriesId::kValAcc), (std::vector<double>{61.2}));
  // a number or a word in small letters before the '*' is no header: the line stays a training one
  EXPECT_EQ(ValuesOf(Collect("step 3 * Acc@1 12.5 loss 2.1\n"), SeriesId::kLoss), (std::vector<double>{2.1}));
  EXPECT_EQ(ValuesOf(Collect("epoch info * Acc@1 12.5 loss 2.1\n"), SeriesId::kLoss), (std::vector<double>{2.1}));
}

// Note: [Summary lines]: ST-GCN's "\tTop1: 1.26%" after its mean test loss. The lines as posted in
// https://github.com/zhujiagang/st-gcn-data-len/issues/1 (a run at chance level on NTU RGB+D's 60 classes).
TEST(MetricCollector, ReadsATopOneSummaryAsTheEvaluationsAccuracy) {
  const std::string stgcn =
      "[ Sat Dec 22 19:17:22 2018 ] \tBatch(500/589) done. Loss: 4.1611  lr:0.001000\n"
      "[ Sat Dec 22 19:20:24 2018 ] \tMean training loss: 4.1409.\n"
      "[ Sat Dec 22 19:20:24 2018 ] \tTime consumption: [Data]01%, [Network]99%\n"
      "[ Sat Dec 22 19:20:24 2018 ] Eval epoch: 80\n"
      "[ Sat Dec 22 19:24:07 2018 ] \tMean test loss of 296 batches: 4.106204550008516.\n"
      "[ Sat Dec 22 19:24:08 2018 ] \tTop1: 1.26%\n"
      "[ Sat Dec 22 19:24:08 2018 ] \tTop5: 9.44%\n";
  const MetricCollector m = Collect(stgcn);
  EXPECT_EQ(ValuesOf(m, SeriesId::kValAcc), (std::vector<double>{1.26}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{4.106204550008516}));
  EXPECT_TRUE(ValuesOf(m, SeriesId::kAcc).empty());
  // Two evaluations, as posted in https://github.com/liujf69/TD-GCN-Gesture/issues/3: the second one's Top1 line
  // has the shape of the first one's Top5 line, which must not replay it (Note: [Line shapes] leaves the digit of
  // "Top5" out).
  const MetricCollector td = Collect(
      "[ Tue Nov 14 11:14:11 2023 ] \tMean test loss of 258 batches: 0.39488882152724636.\n"
      "[ Tue Nov 14 11:14:11 2023 ] \tTop1: 88.71%\n"
      "[ Tue Nov 14 11:14:11 2023 ] \tTop5: 97.99%\n"
      "[ Tue Nov 14 11:14:11 2023 ] Training epoch: 52\n"
      "[ Tue Nov 14 11:27:30 2023 ] \tMean training loss: 0.1171.  Mean training acc: 96.59%.\n"
      "[ Tue Nov 14 11:27:30 2023 ] \tTime consumption: [Data]01%, [Network]99%\n"
      "[ Tue Nov 14 11:27:30 2023 ] \tCurrent lr: 0.010.\n"
      "[ Tue Nov 14 11:27:30 2023 ] Eval epoch: 52\n"
      "[ Tue Nov 14 11:31:04 2023 ] \tMean test loss of 258 batches: 0.4200219921334538.\n"
      "[ Tue Nov 14 11:31:04 2023 ] \tTop1: 87.96%\n"
      "[ Tue Nov 14 11:31:04 2023 ] \tTop5: 97.91%\n");
  EXPECT_EQ(ValuesOf(td, SeriesId::kValAcc), (std::vector<double>{88.71, 87.96}));
  EXPECT_EQ(ValuesOf(td, SeriesId::kAcc), (std::vector<double>{96.59}));
  for (MetricCollector::Shapes shapes : {MetricCollector::Shapes::kFullScan, MetricCollector::Shapes::kAuto}) {
    MetricCollector top(shapes);
    top.AddLine("\tTop5: 9.44%", 1);
    top.AddLine("\tTop1: 1.26%", 2);
    top.AddLine("\tTop5: 9.50%", 3);
    top.AddLine("\tTop1: 1.30%", 4);
    EXPECT_EQ(ValuesOf(top, SeriesId::kValAcc), (std::vector<double>{1.26, 1.30}));
  }
  // with other values on its line, top1 is that line's accuracy
  EXPECT_EQ(ValuesOf(Collect("epoch 3 loss 2.1 top1 45.2 top5 70.1\n"), SeriesId::kAcc), (std::vector<double>{45.2}));
  EXPECT_TRUE(ValuesOf(Collect("Top1: 45.2% then more text\n"), SeriesId::kValAcc).empty());
}

// Note: [Line shapes] leaves a line's digit values out, and some names hold a digit: "Acc@1" and "Acc@5",
// "acc1" and "acc5", "f1". A line naming one must never be replayed as a line of the same shape naming another.
TEST(MetricCollector, NamesWithADigitAreNeverReplayedAsEachOther) {
  for (MetricCollector::Shapes shapes : {MetricCollector::Shapes::kFullScan, MetricCollector::Shapes::kAuto}) {
    MetricCollector acc(shapes);
    MetricCollector f1(shapes);
    for (int e = 1; e <= 6; ++e) {
      char line[64];
      std::snprintf(line, sizeof line, "Epoch %3d Acc@1: %.2f", e, 10.0 + e);
      acc.AddLine(line, 2 * e - 1);
      std::snprintf(line, sizeof line, "Epoch %3d Acc@5: %.2f", e, 90.0 + e);
      acc.AddLine(line, 2 * e);
      std::snprintf(line, sizeof line, "step %3d acc1 %.2f", e, 20.0 + e);
      f1.AddLine(line, 2 * e - 1);
      std::snprintf(line, sizeof line, "step %3d acc5 %.2f", e, 80.0 + e);
      f1.AddLine(line, 2 * e);
    }
    EXPECT_EQ(ValuesOf(acc, SeriesId::kAcc), (std::vector<double>{11, 12, 13, 14, 15, 16}));
    EXPECT_EQ(ValuesOf(f1, SeriesId::kAcc), (std::vector<double>{21, 22, 23, 24, 25, 26}));
    MetricCollector f(shapes);
    f.AddLine("eval f1: 0.50", 1);
    f.AddLine("eval f2: 0.90", 2);
    f.AddLine("eval f1: 0.55", 3);
    f.AddLine("eval f2: 0.95", 4);
    EXPECT_EQ(ValuesOf(f, SeriesId::kF1), (std::vector<double>{0.50, 0.55}));
  }
}

// Note: [MMEngine's axis]: "Epoch(train) [1][10/90]" carries the epoch and the step, as mmcv's "Epoch [1][10/90]".
// Lines as posted in https://github.com/open-mmlab/mmengine/pull/155 (MMEngine's logger hook).
TEST(MetricCollector, ReadsTheAxisOfMMEnginesTrainingLines) {
  const MetricCollector m = Collect(
      "04/21 21:03:53 - mmengine - INFO - Epoch(train) [1][10/90]  lr: 1.000e-02  eta: 0:00:25  time: 0.010  data_time: 0.000  memory: 0  loss: 11.4723\n"
      "04/21 21:03:53 - mmengine - INFO - Epoch(train) [1][20/90]  lr: 1.000e-02  eta: 0:00:13  time: 0.005  data_time: 0.000  memory: 0  loss: 1.5616\n");
  std::vector<MetricPoint> loss = PointsOf(m, SeriesId::kLoss);
  ASSERT_EQ(loss.size(), 2u);
  EXPECT_DOUBLE_EQ(loss[1].value, 1.5616);
  EXPECT_DOUBLE_EQ(loss[1].epoch, 1);
  EXPECT_DOUBLE_EQ(loss[1].step, 20);
  // the iteration right-aligned to its total's width, a later epoch, and the loop by iterations
  std::vector<MetricPoint> padded = PointsOf(Collect("Epoch(train)  [2][ 5/90]  lr: 1.0e-02  loss: 0.9\n"), SeriesId::kLoss);
  ASSERT_EQ(padded.size(), 1u);
  EXPECT_DOUBLE_EQ(padded[0].epoch, 2);
  EXPECT_DOUBLE_EQ(padded[0].step, 95);
  std::vector<MetricPoint> iters = PointsOf(Collect("Iter(train) [  50/1000]  lr: 1.0e-02  loss: 0.9\n"), SeriesId::kLoss);
  ASSERT_EQ(iters.size(), 1u);
  EXPECT_DOUBLE_EQ(iters[0].step, 50);
  // an evaluation's batches are no training steps: its values keep no step
  std::vector<MetricPoint> val = PointsOf(Collect("Epoch(val) [1][10/10]    accuracy/top1: 32.1000\n"), SeriesId::kValAcc);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_TRUE(std::isnan(val[0].step));
}

// Note: [Value before the name]: nanoGPT's memmap report, as posted in https://github.com/karpathy/nanoGPT/pull/428
// (corpus/wild/memory/nanogpt-memmap-rss-grows-per-batch).
TEST(MetricCollector, ReadsMemoryPrintedBeforeItsName) {
  const MetricCollector m = Collect(
      "using 0.2GB of RSS RAM after 1 batches and 0s\n"
      "using 0.2GB of RSS RAM after 2 batches and 0s\n");
  std::vector<MetricPoint> rss = PointsOf(m, SeriesId::kHostMemory);
  ASSERT_EQ(rss.size(), 2u);
  EXPECT_NEAR(rss[0].value, 0.2 * 1024, 1e-9);
  EXPECT_TRUE(PointsOf(m, SeriesId::kMemory).empty());
  EXPECT_EQ(ValuesOf(Collect("epoch 3: 1.5 GB RSS\nepoch 4: 3.2 GiB of VRAM\n"), SeriesId::kHostMemory), (std::vector<double>{1.5 * 1024}));
  EXPECT_EQ(ValuesOf(Collect("epoch 4: 3.2 GiB of VRAM\n"), SeriesId::kMemory), (std::vector<double>{3.2 * 1024}));
  // a count or a word before the name is no memory; a value after the name still wins
  EXPECT_TRUE(PointsOf(Collect("read 8 RSS pages\nspent 5 m of memory budget\n"), SeriesId::kHostMemory).empty());
  EXPECT_TRUE(PointsOf(Collect("spent 5 m of memory budget\n"), SeriesId::kMemory).empty());
  EXPECT_EQ(ValuesOf(Collect("2 GB of RAM: 3.5 GB\n"), SeriesId::kHostMemory), (std::vector<double>{3.5 * 1024}));
}

// Note: [System tool tables]: `free` run in a loop, in its three unit forms, and nvidia-smi's device table.
TEST(MetricCollector, ReadsMemoryAsSystemToolsPrintIt) {
  const std::string free_loop =
      "              total        used        free      shared  buff/cache   available\n"
      "Mem:       32768000     4000000    27000000       10000     1768000    28000000\n"
      "Swap:       2097148           0     2097148\n"
      "Mem:       32768000     6000000    25000000       10000     1768000    26000000\n";
  const MetricCollector kib = Collect(free_loop);
  EXPECT_EQ(ValuesOf(kib, SeriesId::kHostMemory), (std::vector<double>{4000000.0 / 1024, 6000000.0 / 1024}));
  EXPECT_TRUE(PointsOf(kib, SeriesId::kMemory).empty());  // the total was read as the GPU's memory before
  EXPECT_EQ(ValuesOf(Collect("Mem:          64000       12000       50000\n"), SeriesId::kHostMemory),
            (std::vector<double>{12000}));  // free -m
  EXPECT_EQ(ValuesOf(Collect("Mem:             62          11          49\n"), SeriesId::kHostMemory),
            (std::vector<double>{11 * 1024.0}));  // free -g
  EXPECT_EQ(ValuesOf(Collect("Mem:            15Gi       9.5Gi       1.2Gi       300Mi\n"), SeriesId::kHostMemory),
            (std::vector<double>{9.5 * 1024}));  // free -h
  EXPECT_TRUE(PointsOf(Collect("Mem: 4 GB free\n"), SeriesId::kHostMemory).empty());
  const MetricCollector top = Collect(
      "MiB Mem :  64000.0 total,  20000.5 free,  41000.5 used,   2999.0 buff/cache\n"
      "MiB Swap:   4096.0 total,   4096.0 free,      0.0 used.  22000.0 avail Mem\n"
      "KiB Mem : 16777216 total,  1048576 free, 15728640 used,        0 buff/cache\n");
  EXPECT_EQ(ValuesOf(top, SeriesId::kHostMemory), (std::vector<double>{41000.5, 15360}));
  EXPECT_TRUE(PointsOf(top, SeriesId::kMemory).empty());
  const MetricCollector smi = Collect(
      "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |\n"
      "| N/A   41C    P0    60W / 300W |   3100MiB / 16160MiB |     97%      Default |\n"
      "|   1  Tesla V100-SXM2...  On   | 00000000:00:1F.0 Off |                    0 |\n"
      "| N/A   40C    P0    58W / 300W |   2900MiB / 16160MiB |     95%      Default |\n"
      "|    0   N/A  N/A     41234      C   python                           3097MiB |\n"
      "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |\n"
      "| N/A   42C    P0    61W / 300W |   3300MiB / 16160MiB |     98%      Default |\n");
  EXPECT_EQ(ValuesOf(smi, SeriesId::kMemory), (std::vector<double>{3100, 3300}));  // the first GPU's rows
  // the same rows under a logger's record header, once the header's shape is learned from a record
  std::string logged = "2024-01-02 10:11:12,345 INFO epoch 1 loss 0.5\n";
  for (size_t at = 0, nl; (nl = free_loop.find('\n', at)) != std::string::npos; at = nl + 1) {
    logged += "2024-01-02 10:12:12,345 INFO " + free_loop.substr(at, nl + 1 - at);
  }
  EXPECT_EQ(ValuesOf(Collect(logged), SeriesId::kHostMemory), (std::vector<double>{4000000.0 / 1024, 6000000.0 / 1024}));
}

// Note: [GPU query rows]: nvidia-smi --query-gpu's CSV, with and without units, per GPU by its index column.
TEST(MetricCollector, ReadsNvidiaSmiQueryRows) {
  const MetricCollector one = Collect(
      "timestamp, name, memory.used [MiB], memory.total [MiB]\n"
      "2024/05/01 12:00:00.123, NVIDIA A100-SXM4-40GB, 8000 MiB, 40960 MiB\n"
      "2024/05/01 12:00:01.124, NVIDIA A100-SXM4-40GB, 9500 MiB, 40960 MiB\n"
      "epoch 1 loss 0.5\n"
      "2024/05/01 12:00:02.125, NVIDIA A100-SXM4-40GB, 11000 MiB, 40960 MiB\n");
  EXPECT_EQ(ValuesOf(one, SeriesId::kMemory), (std::vector<double>{8000, 9500, 11000}));
  EXPECT_EQ(ValuesOf(one, SeriesId::kLoss), (std::vector<double>{0.5}));
  // `nounits`, two GPUs by their index: GPU 1 rises, GPU 0 does not (Note: [One series per GPU])
  const MetricCollector two = Collect(
      "index, memory.used [MiB], utilization.gpu [%]\n"
      "0, 500, 0\n1, 10240, 97\n0, 502, 0\n1, 15872, 98\n0, 500, 0\n1, 21504, 97\n");
  EXPECT_EQ(ValuesOf(two, SeriesId::kMemory), (std::vector<double>{10240, 15872, 21504}));
  // no memory.used in the header, rows of another field count, a value in another unit: nothing read
  // the first field with its unit (the query's fields in another order)
  EXPECT_EQ(ValuesOf(Collect("utilization.gpu [%], memory.used [MiB], memory.total [MiB], name\n"
                             "0 %, 806 MiB, 49140 MiB, NVIDIA GeForce RTX 4090\n"),
                     SeriesId::kMemory),
            (std::vector<double>{806}));
  EXPECT_TRUE(PointsOf(Collect("index, utilization.gpu [%]\n0, 97 %\n"), SeriesId::kMemory).empty());
  EXPECT_TRUE(PointsOf(Collect("index, memory.used [MiB]\n0, 500, 1\n0, 5 GiB\n"), SeriesId::kMemory).empty());
}

// Note: [One series per GPU]: each GPU's nvidia-smi rows are a series of their own, and `memory` is the one
// that rose most; a single table is one point per GPU, so no series.
TEST(MetricCollector, ReadsEachGpuOfAnNvidiaSmiTableApart) {
  // Three snapshots of a two-GPU machine, 550's layout: GPU 0 idle, the run on GPU 1 climbing.
  auto snapshot = [](int gpu0, int gpu1) {
    return "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:4E:00.0 Off |                  Off |\n"
           "| 30%   29C    P8             22W /  450W |" + std::string(gpu0 < 1000 ? "     " : "    ") +
           std::to_string(gpu0) + "MiB /  24564MiB |      0%      Default |\n"
           "|                                         |                        |                  N/A |\n"
           "+-----------------------------------------+------------------------+----------------------+\n"
           "|   1  NVIDIA GeForce RTX 4090        Off |   00000000:4F:00.0 Off |                  Off |\n"
           "| 30%   61C    P2            301W /  450W |   " + std::to_string(gpu1) +
           "MiB /  24564MiB |     97%      Default |\n"
           "|                                         |                        |                  N/A |\n";
  };
  const MetricCollector rising = Collect(snapshot(507, 10240) + snapshot(509, 15872) + snapshot(507, 21504));
  EXPECT_EQ(ValuesOf(rising, SeriesId::kMemory), (std::vector<double>{10240, 15872, 21504}));
  // the same GPU 1 flat and GPU 0 rising a little: GPU 0's rows, as before
  EXPECT_EQ(ValuesOf(Collect(snapshot(507, 20480) + snapshot(600, 20480)), SeriesId::kMemory),
            (std::vector<double>{507, 600}));
  // a tie keeps the lower index
  EXPECT_EQ(ValuesOf(Collect(snapshot(507, 20480) + snapshot(507, 20480)), SeriesId::kMemory),
            (std::vector<double>{507, 507}));
  // Blanks squeezed to one (a paste through a form that collapses them): the bus id's cell still
  // marks the header rows, so the two GPUs do not alternate in one series.
  const std::string squeezed =
      "| 0 GeForce GTX 1080 Off | 00000000:01:00.0 On | N/A |\n"
      "| 58% 70C P2 67W / 200W | 1906MiB / 8111MiB | 19% Default |\n"
      "| 1 GeForce GTX 1080 Off | 00000000:02:00.0 Off | N/A |\n"
      "| 23% 31C P8 9W / 200W | 2MiB / 8111MiB | 0% Default |\n"
      "| 0 GeForce GTX 1080 Off | 00000000:01:00.0 On | N/A |\n"
      "| 58% 70C P2 67W / 200W | 5202MiB / 8111MiB | 41% Default |\n"
      "| 1 GeForce GTX 1080 Off | 00000000:02:00.0 Off | N/A |\n"
      "| 23% 31C P8 9W / 200W | 2MiB / 8111MiB | 0% Default |\n";
  EXPECT_EQ(ValuesOf(Collect(squeezed), SeriesId::kMemory), (std::vector<double>{1906, 5202}));
  // One table of four GPUs, their figures rising with the index (DataParallel's first GPU holds the most,
  // here the last): one point per GPU, so `memory` has one point.
  std::string table;
  for (int g = 0; g < 4; ++g) {
    table += "|   " + std::to_string(g) + "  GeForce RTX 208...  Off  | 00000000:4" + std::to_string(g) +
             ":00.0 Off |                  N/A |\n"
             "| 29%   34C    P2    64W / 250W |   " + std::to_string(4000 + 1000 * g) +
             "MiB / 10989MiB |      0%      Default |\n"
             "+-------------------------------+----------------------+----------------------+\n";
  }
  EXPECT_EQ(ValuesOf(Collect(table), SeriesId::kMemory), (std::vector<double>{4000}));
  // The process table and a row without a performance state (a MIG device's, its BAR1 row) are not read.
  EXPECT_TRUE(PointsOf(Collect("|    0   N/A  N/A     41234      C   python                           3097MiB |\n"
                               "|  0    1   0   0  |   1234MiB / 40192MiB | 42      0 |  3   0    2    0    0 |\n"
                               "|                  |      0MiB / 65535MiB |            |                       |\n"),
                       SeriesId::kMemory)
                  .empty());
}

// Note: [Memory API names] and [One memory figure per series].
TEST(MetricCollector, ReadsMemoryLabelledWithTheCallThatMeasuredIt) {
  EXPECT_EQ(ValuesOf(Collect("torch.cuda.memory_allocated(0) 20971520\ntorch.cuda.memory_allocated(0) 31457280\n"),
                     SeriesId::kMemory),
            (std::vector<double>{20, 30}));  // bytes; "(0)" was read as the value 0 before
  EXPECT_EQ(ValuesOf(Collect("torch.cuda.memory_allocated: 1.5GB\n"), SeriesId::kMemory), (std::vector<double>{1536}));
  EXPECT_EQ(ValuesOf(Collect("torch.cuda.max_memory_allocated()/1024**2: 812.5\n"), SeriesId::kMemory),
            (std::vector<double>{812.5}));
  EXPECT_EQ(ValuesOf(Collect("memory_reserved('cuda:0') / 1024 ** 2 = 96\n"), SeriesId::kMemory), (std::vector<double>{96}));
  EXPECT_EQ(ValuesOf(Collect("process.rss: 2.5 GB\n"), SeriesId::kHostMemory), (std::vector<double>{2.5 * 1024}));
  // only a memory name is taken from a dotted word: a split's loss keeps its split
  EXPECT_TRUE(PointsOf(Collect("val.loss 0.5\n"), SeriesId::kLoss).empty());
}

TEST(MetricCollector, KeepsOneMemoryFigurePerSeries) {
  std::string text;
  for (int i = 0; i < 6; ++i) {
    text += "iter " + std::to_string(i) + "\n";
    text += "torch.cuda.max_memory_allocated(0) " + std::to_string(900 + i) + "\n";
    text += "torch.cuda.memory_allocated(0) " + std::to_string(300 + 10 * i) + "\n";
    text += "torch.cuda.memory_reserved(0) 1200\n";
  }
  EXPECT_EQ(ValuesOf(Collect(text), SeriesId::kMemory), (std::vector<double>{900, 901, 902, 903, 904, 905}));
  // a two-word name is a name of its own; its first word alone, followed by a word, takes nothing
  EXPECT_EQ(ValuesOf(Collect("Memory usage: 45.5\nmemory: 3000\nMemory usage: 46.5\n"), SeriesId::kMemory),
            (std::vector<double>{45.5, 46.5}));
  // host RAM keeps its own name apart from the GPU's
  const MetricCollector both = Collect("rss: 1000 MB\nallocated: 30 MB\nrss: 1100 MB\nallocated: 31 MB\n");
  EXPECT_EQ(ValuesOf(both, SeriesId::kHostMemory), (std::vector<double>{1000, 1100}));
  EXPECT_EQ(ValuesOf(both, SeriesId::kMemory), (std::vector<double>{30, 31}));
}

// Note: [One device per series]: the call's argument names the GPU; two GPUs' figures never share a series
// (nvdiffrast#23's loop printed each counter for GPU 1, then GPU 0, every iteration).
TEST(MetricCollector, KeepsOneDevicePerMemorySeries) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    text += "torch.cuda.memory_reserved(1) 608174080\n";
    text += "torch.cuda.memory_reserved(0) " + std::to_string(759169024 + 2097152 * i) + "\n";
  }
  EXPECT_EQ(ValuesOf(Collect(text), SeriesId::kMemory), (std::vector<double>{580, 580, 580, 580}));
  // the same call without an argument and with one are two names: the first one printed is kept
  EXPECT_EQ(ValuesOf(Collect("torch.cuda.memory_allocated() 20971520\ntorch.cuda.memory_allocated(0) 94371840\n"
                             "torch.cuda.memory_allocated() 31457280\n"),
                     SeriesId::kMemory),
            (std::vector<double>{20, 30}));
}

// The Trainer's table as a notebook shows it, copied out with its cells between tabs and "No log" where the
// training loss was not logged yet; and the same table by steps.
TEST(MetricCollector, ReadsTabSeparatedEpochTables) {
  MetricCollector m = Collect(
      "Epoch\tTraining Loss\tValidation Loss\tAccuracy\tF1\n"
      "1\tNo log\t0.347739\t0.867000\t0.901845\n"
      "2\tNo log\t0.198645\t0.937000\t0.954578\n"
      "3\t0.159100\t0.003826\t0.998000\t0.998534\n");
  std::vector<MetricPoint> val = PointsOf(m, SeriesId::kValLoss);
  ASSERT_EQ(val.size(), 3u);
  EXPECT_DOUBLE_EQ(val[1].value, 0.198645);
  EXPECT_DOUBLE_EQ(val[1].epoch, 2);
  std::vector<MetricPoint> loss = PointsOf(m, SeriesId::kLoss);
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_DOUBLE_EQ(loss[0].value, 0.1591);
  EXPECT_EQ(PointsOf(m, SeriesId::kValAcc).size(), 3u);  // the Trainer's metrics are the evaluation's
  EXPECT_EQ(PointsOf(m, SeriesId::kF1).size(), 3u);
  MetricCollector steps = Collect(
      "Step\tTraining Loss\tValidation Loss\n"
      "500\t0.693100\t0.693000\n"
      "1000\t0.693200\t0.693100\n");
  std::vector<MetricPoint> by_step = PointsOf(steps, SeriesId::kLoss);
  ASSERT_EQ(by_step.size(), 2u);
  EXPECT_DOUBLE_EQ(by_step[1].step, 1000);
  EXPECT_TRUE(std::isnan(by_step[1].epoch));
  // the same table pasted into a GitHub comment: a Markdown table without its outer bars
  MetricCollector gh = Collect(
      "Step | Training Loss | Validation Loss | Accuracy | F1\n"
      "-- | -- | -- | -- | --\n"
      "150 | No log | 0.695841 | 0.503277 | 0.410575\n"
      "300 | No log | 0.696622 | 0.488860 | 0.298561\n");
  std::vector<MetricPoint> gh_val = PointsOf(gh, SeriesId::kValLoss);
  ASSERT_EQ(gh_val.size(), 2u);
  EXPECT_DOUBLE_EQ(gh_val[1].value, 0.696622);
  EXPECT_DOUBLE_EQ(gh_val[1].step, 300);
  EXPECT_EQ(PointsOf(gh, SeriesId::kValAcc).size(), 2u);
  // a line that starts with "step" and a value is no header
  MetricCollector kv = Collect("step\t25\tloss\t2.26\n26\t2.1\t2.0\n");
  EXPECT_EQ(PointsOf(kv, SeriesId::kLoss).size(), 1u);
  // an accuracy column that says whose it is stays the training accuracy beside a validation loss
  MetricCollector own = Collect("epoch\ttrain_loss\tval_loss\ttrain_acc\tval_acc\n1\t0.9\t0.8\t0.6\t0.55\n");
  ASSERT_EQ(PointsOf(own, SeriesId::kAcc).size(), 1u);
  EXPECT_DOUBLE_EQ(PointsOf(own, SeriesId::kAcc)[0].value, 0.6);
  ASSERT_EQ(PointsOf(own, SeriesId::kValAcc).size(), 1u);
  EXPECT_DOUBLE_EQ(PointsOf(own, SeriesId::kValAcc)[0].value, 0.55);
}

// Note: [Bare split names]: PyTorch Geometric's layouts name each split's accuracy by the split alone.
TEST(MetricCollector, ReadsBareSplitAccuracies) {
  MetricCollector node = Collect(
      "Epoch: 001, Loss: 1.9463, Train: 0.2143, Val: 0.2040, Test: 0.2180\n"
      "Epoch: 002, Loss: 1.8582, Train: 0.7286, Val: 0.4860, Test: 0.5030\n");
  std::vector<MetricPoint> acc = PointsOf(node, SeriesId::kAcc);
  ASSERT_EQ(acc.size(), 2u);
  EXPECT_DOUBLE_EQ(acc[1].value, 0.7286);
  EXPECT_DOUBLE_EQ(acc[1].epoch, 2);
  std::vector<MetricPoint> val = PointsOf(node, SeriesId::kValAcc);
  ASSERT_EQ(val.size(), 2u);
  EXPECT_DOUBLE_EQ(val[1].value, 0.486);  // Val's, not Test's
  EXPECT_EQ(PointsOf(node, SeriesId::kLoss).size(), 2u);
  // the splits alone, with no loss on the line (no name fragment): read as well
  MetricCollector alone = Collect("Epoch: 001, Train: 0.9100, Val: 0.8500, Test: 0.8400\nTrain: 0.92, Val: 0.84, Test: 0.83\n");
  ASSERT_EQ(PointsOf(alone, SeriesId::kAcc).size(), 2u);
  EXPECT_DOUBLE_EQ(PointsOf(alone, SeriesId::kAcc)[1].value, 0.92);
  EXPECT_EQ(PointsOf(alone, SeriesId::kValAcc).size(), 2u);
  EXPECT_TRUE(PointsOf(Collect("Requests: Train: 0.9, Val: 0.8, Test: 0.8\n"), SeriesId::kAcc).empty());
  MetricCollector graph = Collect("Epoch: 010, Loss: 0.5123, Train: 0.7000, Test: 0.6500\n");
  ASSERT_EQ(PointsOf(graph, SeriesId::kValAcc).size(), 1u);
  EXPECT_DOUBLE_EQ(PointsOf(graph, SeriesId::kValAcc)[0].value, 0.65);
  // a bare "val" after a loss may be a validation loss: not read alone, nor past 1
  EXPECT_TRUE(PointsOf(Collect("Epoch: 3, Loss: 0.45, Val: 0.52\n"), SeriesId::kValAcc).empty());
  EXPECT_TRUE(PointsOf(Collect("step   25 | loss 2.2648 | val 2.2818\n"), SeriesId::kValAcc).empty());
  EXPECT_TRUE(PointsOf(Collect("Epoch: 3, Loss: 0.4, Train: 1.52, Val: 1.60, Test: 1.61\n"), SeriesId::kAcc).empty());
  // the named forms are read as before
  MetricCollector named = Collect("Epoch 3 Train Loss: 0.41 Train Acc: 0.80 Val Loss: 0.52 Val Acc: 0.71\n");
  EXPECT_DOUBLE_EQ(PointsOf(named, SeriesId::kAcc)[0].value, 0.8);
  EXPECT_DOUBLE_EQ(PointsOf(named, SeriesId::kValLoss)[0].value, 0.52);
}

// Note: [Bar before a line]: a tqdm bar left in front of the next printed line, with and without the '\r'
// of its redraws.
TEST(MetricCollector, ReadsTheLineAfterAGluedProgressBar) {
  const std::string bar = "  3%|\xe2\x96\x8e         | 3/100 [00:01<00:30,  3.20it/s]";
  for (const std::string& before : {bar, "\r  0%|          | 0/100 [00:00<?, ?it/s]\r" + bar}) {
    MetricCollector tutorial = Collect(before + "5000  5% (0m12s) 2.9460 Jigalev / Portuguese\n"
                                                "10000  10% (0m24s) 2.9493 Gil / Portuguese\n");
    std::vector<MetricPoint> loss = PointsOf(tutorial, SeriesId::kLoss);
    ASSERT_EQ(loss.size(), 2u) << before;
    EXPECT_DOUBLE_EQ(loss[0].value, 2.946);
    EXPECT_DOUBLE_EQ(loss[0].step, 5000);
    EXPECT_EQ(loss[0].line, 1u);
    MetricCollector table = Collect(before + "epoch     train_loss  valid_loss  time\n"
                                             "0         1.400000    1.900000    00:10\n");
    EXPECT_EQ(PointsOf(table, SeriesId::kValLoss).size(), 1u) << before;
  }
  // a named value after the bar is the printed line's, without the bar's counter as its step
  MetricCollector named = Collect(bar + "Epoch: 001, Loss: 1.9463\n");
  ASSERT_EQ(PointsOf(named, SeriesId::kLoss).size(), 1u);
  EXPECT_TRUE(std::isnan(PointsOf(named, SeriesId::kLoss)[0].step));
  // the bar's own postfix is still read, with its counter
  MetricCollector postfix = Collect("  3%|| 3/100 [00:01<00:30,  3.20it/s, loss=0.51]\n");
  ASSERT_EQ(PointsOf(postfix, SeriesId::kLoss).size(), 1u);
  EXPECT_DOUBLE_EQ(PointsOf(postfix, SeriesId::kLoss)[0].step, 3);
}

TEST(MetricCollector, ReadsCsvLoggerFiles) {
  // corpus/signals/healthy-csv-val-noise/log.txt, first rows.
  MetricCollector m = Collect(
      "epoch,step,train_loss,val_loss,val_acc\n"
      "0,8,0.6627,,\n"
      "0,16,0.6384,,\n"
      "0,16,,0.6311,0.6875\n");
  std::vector<MetricPoint> loss = PointsOf(m, SeriesId::kLoss);
  ASSERT_EQ(loss.size(), 2u);
  EXPECT_EQ(loss[1].value, 0.6384);
  EXPECT_EQ(loss[1].step, 16);
  EXPECT_EQ(loss[1].epoch, 0);
  std::vector<MetricPoint> val = PointsOf(m, SeriesId::kValLoss);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(val[0].line, 4u);
  EXPECT_EQ(PointsOf(m, SeriesId::kValAcc).size(), 1u);
}

TEST(MetricCollector, SplitsProgressBarUpdatesAndKeepsLineNumbers) {
  MetricCollector m;
  m.Feed("header\nEpoch 0:  50%|| 1/2 [00:00<00:00, loss=2.30]\rEpoch 0: 100%|| 2/2 [00:00<00:00, lo");
  m.Feed("ss=2.10]\nstep=9 loss=1.5\n");
  m.FinishInput();
  std::vector<MetricPoint> pts = PointsOf(m, SeriesId::kLoss);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[0].value, 2.30);
  EXPECT_EQ(pts[0].step, 1);
  EXPECT_EQ(pts[1].value, 2.10);
  EXPECT_EQ(pts[1].line, 2u);
  EXPECT_EQ(pts[2].line, 3u);
  EXPECT_EQ(pts[2].seq, 2);
}

TEST(MetricCollector, RepeatedValidationValueIsOneEvaluation) {
  MetricCollector m = Collect("loss=0.5, val_loss=0.7\nloss=0.4, val_loss=0.7\nloss=0.3, val_loss=0.8\n");
  EXPECT_EQ(m.Find(SeriesId::kLoss)->count(), 3);
  EXPECT_EQ(m.Find(SeriesId::kValLoss)->count(), 2);
}

TEST(MetricSeries, StaysBoundedAndKeepsTheNonFiniteOnsetAndExtrema) {
  MetricSeries s;
  const int n = 1000000;
  for (int i = 0; i < n; ++i) {
    MetricPoint p;
    p.value = i == 777777 ? std::nan("") : (i == 123457 ? 99.0 : 1.0 + (i % 7) * 0.01);
    p.line = static_cast<std::uint64_t>(i) + 1;
    s.Add(p);
  }
  std::vector<MetricPoint> pts = s.Points();
  EXPECT_LE(pts.size(), static_cast<size_t>(MetricSeries::kHead + MetricSeries::kTail + MetricSeries::kSample +
                                            MetricSeries::kMaxNonFinite + 3));
  EXPECT_EQ(s.count(), n);
  ASSERT_NE(s.first_nonfinite(), nullptr);
  EXPECT_EQ(s.first_nonfinite()->seq, 777777);
  EXPECT_TRUE(std::any_of(pts.begin(), pts.end(), [](const MetricPoint& p) { return p.seq == 777777; }));
  EXPECT_TRUE(std::any_of(pts.begin(), pts.end(), [](const MetricPoint& p) { return p.value == 99.0; }))
      << "the maximum must survive downsampling";
  EXPECT_EQ(pts.front().seq, 0);
  EXPECT_EQ(pts.back().seq, n - 1);
  for (size_t i = 1; i < pts.size(); ++i) ASSERT_LT(pts[i - 1].seq, pts[i].seq) << "points must be in order, once";
}

TEST(MetricSeries, PlaceholderBeforeTheFirstValueIsNotAnOnset) {
  MetricSeries s;
  for (double v : {std::nan(""), 0.7, 0.6}) {
    MetricPoint p;
    p.value = v;
    s.Add(p);
  }
  EXPECT_EQ(s.first_nonfinite(), nullptr);
  EXPECT_EQ(s.nonfinite_count(), 1);
}

TEST(MetricSeries, CountsReturnsToFiniteValuesAfterTheOnset) {
  // nan (placeholder), 1, nan, nan, 2, inf, 3: the series came back twice after its onset.
  MetricSeries s;
  for (double v : {std::nan(""), 1.0, std::nan(""), std::nan(""), 2.0, HUGE_VAL, 3.0}) {
    MetricPoint p;
    p.value = v;
    s.Add(p);
  }
  EXPECT_EQ(s.nonfinite_count(), 4);
  EXPECT_EQ(s.recoveries(), 2);
  MetricSeries stayed;
  for (double v : {1.0, std::nan(""), std::nan("")}) {
    MetricPoint p;
    p.value = v;
    stayed.Add(p);
  }
  EXPECT_EQ(stayed.recoveries(), 0);
}

// Past the head, most points take the inline Add; a recovery there is a finite point after a non-finite
// one, and has_negative() is read from the least value. Both against a count over every point.
TEST(MetricSeries, RecoveriesAndSignsPastTheHeadAsCountedOverEveryPoint) {
  std::mt19937 rng(15);
  for (int round = 0; round < 40; ++round) {
    MetricSeries s;
    const int n = 20000;
    bool seen_finite = false, onset = false, negative = false, prev_finite = true;
    std::int64_t recoveries = 0, nonfinite = 0;
    const int negative_at = round % 4 == 0 ? -1 : static_cast<int>(rng() % n);
    for (int i = 0; i < n; ++i) {
      const unsigned r = rng() % 1000;
      double v = 1.0 + (rng() % 100) * 0.01;
      if (r < (round % 3 == 0 ? 2u : 30u)) v = r % 3 == 0 ? HUGE_VAL : (r % 3 == 1 ? -HUGE_VAL : std::nan(""));
      if (i == negative_at) v = -0.5;
      if (round % 5 == 1 && i == n / 2) v = -0.0;  // not below 0
      s.Add(v, static_cast<double>(i), std::nan(""), static_cast<std::uint64_t>(i) + 1);
      const bool finite = std::isfinite(v);
      if (!finite) {
        ++nonfinite;
        if (seen_finite) onset = true;
      } else {
        if (onset && !prev_finite) ++recoveries;
        if (v < 0) negative = true;
        seen_finite = true;
      }
      prev_finite = finite;
    }
    EXPECT_EQ(s.recoveries(), recoveries) << "round " << round;
    EXPECT_EQ(s.nonfinite_count(), nonfinite) << "round " << round;
    EXPECT_EQ(s.has_negative(), negative) << "round " << round;
    EXPECT_EQ(s.first_nonfinite() != nullptr, onset) << "round " << round;
  }
}

TEST(MetricCollector, SurvivesHostileInput) {
  std::string junk = "loss=";
  junk += std::string(100000, '9');
  junk += "\nloss=1e999999 step=-\n\xff\xfe loss: \x80\n,,,,\nloss,step\n1,2,3\n=:=: loss\n";
  junk += std::string(200000, 'x');  // an unterminated over-long line
  MetricCollector m = Collect(junk);
  const MetricSeries* s = m.Find(SeriesId::kLoss);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(std::isinf(s->last().value)) << "an overflowing literal reads as inf";
}

// The series do not depend on how the input is cut into Feed calls: lines across calls, lines longer
// than a Feed window or than kMaxLine (only their first bytes count), '\r' updates, CRLF.
TEST(MetricCollector, SameSeriesHoweverTheInputIsCut) {
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 40000; ++i) {
    switch (rng() % 6) {
      case 0: text += "step " + std::to_string(i) + " loss " + std::to_string(rng() % 1000) + ".5\n"; break;
      case 1: text += "\r 40%|####  | " + std::to_string(i) + "/500 [00:01<00:02, loss=0." + std::to_string(rng() % 99); break;
      case 2: text += "{'loss': " + std::to_string(rng() % 7) + ", 'grad_norm': 1.5}\r\n"; break;
      case 3: text += std::string(rng() % 3000, 'x') + " loss=3.25\n"; break;
      case 4: text += "\n"; break;
      default: text += "val_loss: " + std::to_string(rng() % 50) + "\n"; break;
    }
    if (i % 9000 == 0) text += "loss=" + std::string(150000, '7') + " grad_norm 2.5 " + std::string(1500000, 'y') + "\n";
    if (i % 7000 == 0) text += std::string(100000, 'z') + " loss=9.5\n";  // past kMaxLine, inside a window
  }
  auto series = [](const MetricCollector& m) {
    std::string out;
    for (SeriesId id : {SeriesId::kLoss, SeriesId::kValLoss, SeriesId::kGradNorm}) {
      const MetricSeries* s = m.Find(id);
      out += std::string(SeriesName(id)) + ":" + std::to_string(s ? s->count() : -1) + ";";
      if (!s) continue;
      for (const MetricPoint& p : s->Points()) {
        out += std::to_string(p.value) + "@" + std::to_string(p.line) + "/" + std::to_string(p.step) + " ";
      }
    }
    return out;
  };
  const std::string whole = series(Collect(text));
  for (size_t piece : {size_t{1} << 20, size_t{65536}, size_t{4093}, size_t{97}}) {
    MetricCollector m;
    for (size_t at = 0; at < text.size(); at += piece) m.Feed(std::string_view(text).substr(at, piece));
    m.FinishInput();
    EXPECT_EQ(series(m), whole) << "pieces of " << piece;
  }
}

// Note: [Metric scan]: the AVX2 and the portable candidate bits agree on random text of every length
// (blocks of 64 bytes and the zero-padded tail), with word bytes, '|', '-', '/', '.', NUL and high bytes.
TEST(MetricCollector, CandidateBitsAgreeAcrossImplementations) {
  const std::string alphabet = "aZ_9 0|-/.:=\t\r\n\xff\x80";
  std::mt19937 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng() % 300, ' ');
    for (char& c : text) {
      c = rng() % 4 == 0 ? alphabet[rng() % alphabet.size()] : static_cast<char>("lossepochstep"[rng() % 13]);
    }
    if (rng() % 5 == 0 && !text.empty()) text[rng() % text.size()] = '\0';
    const std::vector<std::uint64_t> whole = MetricCandidates(text, true);
    ASSERT_EQ(MetricCandidates(text, false), whole) << "round " << round << ": " << text;
    // Marked a few words at a time, as a segment's words are (each range from the byte before it).
    const size_t piece = 1 + round % 3;
    ASSERT_EQ(MetricCandidates(text, false, piece), whole) << "round " << round << ", " << piece << " words at a time";
    ASSERT_EQ(MetricCandidates(text, true, piece), whole) << "round " << round << ", " << piece << " words at a time";
  }
  // Word starts and bars: "a1 _b|c-d\rx\ny" -> a(0), _b(3), |(5), c(6), d(8), x(10), y(12); ends at 9, 11.
  std::vector<std::uint64_t> bits = MetricCandidates("a1 _b|c-d\rx\ny", true);
  ASSERT_EQ(bits.size(), 2u);
  EXPECT_EQ(bits[0], (1u << 0) | (1u << 3) | (1u << 5) | (1u << 6) | (1u << 8) | (1u << 10) | (1u << 12));
  EXPECT_EQ(bits[1], (1u << 9) | (1u << 11));
  EXPECT_EQ(MetricCandidates("a1 _b|c-d\rx\ny", false), bits);
}

// Note: [Name marks]: the AVX2 nibble tables mark at least every place where one of the exact triples
// begins (so every fragment MayHoldNamePortable finds in a line marks a byte of that line), blanks and
// tabs exactly, and the same bits whichever words are marked first. Random text of fragment letters in
// both cases, separators, line ends, '_', NUL and high bytes, of every length around the 64-byte words.
TEST(MetricCollector, NameMarksCoverEveryFragment) {
  const std::string alphabet = "lossmsaccrnif1LOSSMEACRNIF1gntpe_ -/.:=\t\r\n\xff\xcc\x11@[0";
  std::mt19937 rng(7);
  if (MetricNameMarks("x").empty()) GTEST_SKIP() << "no AVX2 on this CPU: the marks are not used";
  int lines_with_name = 0, lines_without = 0, lines_rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text(rng() % 260, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    if (rng() % 5 == 0 && !text.empty()) text[rng() % text.size()] = '\0';
    const std::vector<std::uint64_t> exact = MetricNameMarks(text, 1 << 20, /*triples=*/true);
    const std::vector<std::uint64_t> marks = MetricNameMarks(text, 1 + round % 3);
    ASSERT_EQ(marks.size(), exact.size());
    const size_t words = exact.size() / 2;
    for (size_t w = 0; w < words; ++w) {
      ASSERT_EQ(exact[w] & ~marks[w], 0u) << "round " << round << ", word " << w << ": a triple left unmarked in "
                                            << text;
      ASSERT_EQ(marks[words + w], exact[words + w]) << "round " << round << ", word " << w << ": blanks";
    }
    ASSERT_EQ(MetricNameMarks(text), marks) << "round " << round << ": marked in pieces";
    // Per line (segments end at '\n' and '\r'): a fragment found means a mark inside the line.
    size_t from = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] != '\n' && text[i] != '\r') continue;
      bool marked = false;
      for (size_t k = from; k < i; ++k) marked = marked || ((marks[k / 64] >> (k % 64)) & 1);
      const bool name = MetricLineMayHoldName(std::string_view(text).substr(from, i - from));
      if (name) {
        ++lines_with_name;
        ASSERT_TRUE(marked) << "round " << round << ": fragment unmarked in line '" << text.substr(from, i - from)
                            << "'";
      } else {
        ++lines_without;
        if (!marked) ++lines_rejected;
      }
      from = i + 1;
    }
  }
  // The text exercises both sides: lines with fragments, and lines the marks reject.
  EXPECT_GT(lines_with_name, 1000);
  EXPECT_GT(lines_rejected, 1000);
  EXPECT_LE(lines_rejected, lines_without);
}

// Everything a collector kept, exactly (values by bit pattern, NaN included): for comparing readers.
std::string Dump(const MetricCollector& m) {
  auto bits = [](double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return std::to_string(u);
  };
  std::string out;
  for (int i = 0; i < kSeriesCount; ++i) {
    const MetricSeries* s = m.Find(static_cast<SeriesId>(i));
    out += std::string(SeriesName(static_cast<SeriesId>(i))) + ":";
    if (!s) {
      out += "none\n";
      continue;
    }
    out += std::to_string(s->count()) + "," + std::to_string(s->nonfinite_count()) + "," +
           std::to_string(s->recoveries()) + "," + std::to_string(s->has_negative()) + ",onset " +
           (s->first_nonfinite() ? std::to_string(s->first_nonfinite()->seq) : "-") + "\n";
    for (const MetricPoint& p : s->Points()) {
      out += " " + bits(p.value) + "/" + bits(p.step) + "/" + bits(p.epoch) + "/" + std::to_string(p.seq) + "@" +
             std::to_string(p.line) + "\n";
    }
  }
  return out;
}

MetricCollector CollectWith(const std::string& text, MetricCollector::Shapes shapes) {
  MetricCollector m(shapes);
  m.Feed(text);
  m.FinishInput();
  return m;
}

// Note: [Line shapes]: the replay of recent shapes, with AVX2 or without, keeps exactly what the full
// scan of every line keeps.
void ExpectShapesAgree(const std::string& text) {
  const std::string full = Dump(CollectWith(text, MetricCollector::Shapes::kFullScan));
  EXPECT_EQ(Dump(CollectWith(text, MetricCollector::Shapes::kAuto)), full);
  EXPECT_EQ(Dump(CollectWith(text, MetricCollector::Shapes::kPortable)), full);
}

// The text fed in pieces of each size reads what the full scan of it whole reads.
void ExpectPiecesAgree(const std::string& text, std::initializer_list<size_t> pieces) {
  const std::string full = Dump(CollectWith(text, MetricCollector::Shapes::kFullScan));
  for (size_t piece : pieces) {
    MetricCollector m;
    for (size_t at = 0; at < text.size(); at += piece) m.Feed(std::string_view(text).substr(at, piece));
    m.FinishInput();
    EXPECT_EQ(Dump(m), full) << "pieces of " << piece;
  }
}

// Note: [Evaluations across epochs]: a validation value printed again unchanged after a new epoch began
// is a new evaluation (Keras' epoch header on a line of its own, the epoch on the value's line, an HF eval
// dict); within one epoch, on lines with no epoch, and in a tqdm bar's postfix it stays one point. The
// replay of repeated shapes reads what the full scan reads.
TEST(MetricCollector, RepeatedValidationValueAtANewEpochIsANewEvaluation) {
  std::string keras;
  for (int e = 1; e <= 12; ++e) {
    keras += "Epoch " + std::to_string(e) + "/12\n";
    keras += "100/100 [==============================] - 1s 10ms/step - loss: 0.69" + std::to_string(10 + e % 3) +
             " - accuracy: 0.5000 - val_loss: 0.6931 - val_accuracy: 0.5000\n";
  }
  EXPECT_EQ(ValuesOf(Collect(keras), SeriesId::kValLoss), std::vector<double>(12, 0.6931));
  EXPECT_EQ(ValuesOf(Collect(keras), SeriesId::kValAcc).size(), 12u);
  ExpectShapesAgree(keras);
  ExpectPiecesAgree(keras, {size_t{97}, size_t{13}});

  auto inline_epoch_text = [] {
    std::string text;
    for (int e = 1; e <= 30; ++e) text += "Epoch " + std::to_string(e % 9 + 1) + " | loss 0.7" + std::to_string(e % 10) + " | val_loss 0.69\n";
    return text;
  };
  MetricCollector inline_epoch = Collect("Epoch 1 | loss 0.90 | val_loss 0.69\nEpoch 2 | loss 0.80 | val_loss 0.69\n"
                                         "Epoch 3 | loss 0.70 | val_loss 0.69\n");
  EXPECT_EQ(ValuesOf(inline_epoch, SeriesId::kValLoss), (std::vector<double>{0.69, 0.69, 0.69}));
  MetricCollector hf = Collect("{'eval_loss': 0.6931, 'eval_runtime': 1.2, 'epoch': 1.0}\n"
                               "{'loss': 0.6932, 'learning_rate': 1e-05, 'epoch': 1.5}\n"
                               "{'eval_loss': 0.6931, 'eval_runtime': 1.2, 'epoch': 2.0}\n");
  EXPECT_EQ(ValuesOf(hf, SeriesId::kValLoss), (std::vector<double>{0.6931, 0.6931}));

  // An epoch announced after another word ("Eval epoch: 2"), the evaluation's line without one; a best
  // epoch announces none.
  MetricCollector eval_epoch = Collect("Eval epoch: 1\nMean test loss of 10 batches: 0.69.\nEval epoch: 2\n"
                                       "Mean test loss of 10 batches: 0.69.\nBest epoch: 1\n"
                                       "Mean test loss of 10 batches: 0.69.\n");
  EXPECT_EQ(ValuesOf(eval_epoch, SeriesId::kValLoss), (std::vector<double>{0.69, 0.69}));
  ExpectShapesAgree(inline_epoch_text());
  // One epoch's batches repeat the last evaluation: one point, as lines with no epoch.
  MetricCollector batches = Collect("Epoch 1 step 10 loss 0.5 val_loss 0.7\nEpoch 1 step 20 loss 0.4 val_loss 0.7\n"
                                    "Epoch 2 step 10 loss 0.3 val_loss 0.6\nEpoch 2 step 20 loss 0.3 val_loss 0.6\n");
  EXPECT_EQ(ValuesOf(batches, SeriesId::kValLoss), (std::vector<double>{0.7, 0.6}));
  // A bar's postfix keeps the value on screen into the next epoch's bar.
  MetricCollector bar = Collect(
      "Epoch 0: 100%|\xe2\x96\x88\xe2\x96\x88| 4/4 [00:00<00:00, 10.00it/s, loss=0.5, val_loss=0.7]\n"
      "Epoch 1:  50%|\xe2\x96\x88 | 2/4 [00:00<00:00, 10.00it/s, loss=0.4, val_loss=0.7]\n"
      "Epoch 1: 100%|\xe2\x96\x88\xe2\x96\x88| 4/4 [00:00<00:00, 10.00it/s, loss=0.3, val_loss=0.7]\n");
  EXPECT_EQ(ValuesOf(bar, SeriesId::kValLoss), (std::vector<double>{0.7}));
  // A bar wrapped at 80 columns: its postfix on a line of its own, after the rate or ending with the ']'.
  MetricCollector wrapped = Collect(
      "Epoch 0: 100%|\xe2\x96\x88\xe2\x96\x88| 4/4 [00:00<00:00,\n158.44it/s, loss=0.679, val_loss=0.685]\n"
      "Epoch 1:   0%|  | 0/4 [00:00<?, ?it/s, loss=0.540,\nv_num=0, train_loss=0.540, val_loss=0.685]\n");
  EXPECT_EQ(ValuesOf(wrapped, SeriesId::kValLoss), (std::vector<double>{0.685}));
  // A bar glued before an evaluation's line is no postfix: the line after it is read on its own.
  MetricCollector glued = Collect(
      "100%|\xe2\x96\x88\xe2\x96\x88| 63/63 [00:05<00:00, 11.20it/s]{'eval_loss': 0.6931, 'epoch': 1.0}\n"
      "100%|\xe2\x96\x88\xe2\x96\x88| 63/63 [00:05<00:00, 11.20it/s]{'eval_loss': 0.6931, 'epoch': 2.0}\n");
  EXPECT_EQ(ValuesOf(glued, SeriesId::kValLoss), (std::vector<double>{0.6931, 0.6931}));
}

// Note: [One column per series]: a table's or a CSV file's second column of one series (a test loss beside
// the validation loss) is not read; each row adds one point, the first column's.
TEST(MetricCollector, ReadsOneColumnPerSeries) {
  const std::string table =
      "Epoch \t Time \t Train Loss \t Train ACC \t Val Loss \t Val ACC \t Test Loss \t Test ACC \t LR\n"
      "1\t 197.8234 \t 0.0053 \t 0.8645 \t 0.0412 \t 0.1443 \t 0.0512 \t 0.1543 \t 0.0100\n"
      "2\t 108.6638 \t 0.0084 \t 0.7311 \t 0.0272 \t 0.1443 \t 0.0372 \t 0.1543 \t 0.0100\n";
  MetricCollector m = Collect(table);
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), (std::vector<double>{0.0412, 0.0272}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValAcc), (std::vector<double>{0.1443, 0.1443}));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), (std::vector<double>{0.0053, 0.0084}));
  MetricCollector csv = Collect("epoch,train_loss,val_loss,test_loss\n0,0.9,0.8,0.7\n1,0.6,0.5,0.4\n");
  EXPECT_EQ(ValuesOf(csv, SeriesId::kValLoss), (std::vector<double>{0.8, 0.5}));
}

// Note: [Evaluations between training lines]: with no epoch on the lines, a validation value printed
// again unchanged after a line of training values alone is a new evaluation (the tutorial's phase lines
// behind a logger's time); a per-batch line that carries it with the training loss repeats one.
TEST(MetricCollector, RepeatedValidationValueAfterTrainingLinesIsANewEvaluation) {
  std::string phases;
  for (int e = 0; e < 12; ++e) {
    phases += "2021-01-01 10:" + std::to_string(10 + e) + ":00 train Loss: 0.6" + std::to_string(e % 10) +
              "00 Acc: 0.5000\n";
    phases += "2021-01-01 10:" + std::to_string(10 + e) + ":05 val Loss: 0.6931 Acc: 0.5000\n";
  }
  EXPECT_EQ(ValuesOf(Collect(phases), SeriesId::kValLoss), std::vector<double>(12, 0.6931));
  EXPECT_EQ(ValuesOf(Collect(phases), SeriesId::kValAcc), std::vector<double>(12, 0.5));
  EXPECT_EQ(ValuesOf(Collect(phases), SeriesId::kLoss).size(), 12u);
  ExpectShapesAgree(phases);
  ExpectPiecesAgree(phases, {size_t{61}, size_t{7}});
  // Per-batch lines carry the last evaluation beside the training loss: still one point each.
  std::string batches;
  for (int i = 0; i < 10; ++i) batches += "step " + std::to_string(i) + " loss 0.5" + std::to_string(i) + " val_loss 0.70\n";
  EXPECT_EQ(ValuesOf(Collect(batches), SeriesId::kValLoss), (std::vector<double>{0.70}));
  ExpectShapesAgree(batches);
  // Two evaluations printed one after the other with nothing between are still one.
  EXPECT_EQ(ValuesOf(Collect("loss 0.5\nval_loss 0.7\nval_loss 0.7\nloss 0.4\nval_loss 0.7\n"), SeriesId::kValLoss),
            (std::vector<double>{0.7, 0.7}));
}

// Note: [Time before the first word]: layumi/Person_reID_baseline_pytorch's train.py prints its time glued
// to the phase's word ("00:44:04val Loss: 0.0100 Acc: 0.0000"): the line is the evaluation's, as when a
// blank or a bracket separates them; a number alone before the word, or a time glued to another word,
// changes nothing.
TEST(MetricCollector, ReadsAnEvaluationGluedToATime) {
  std::string log;
  for (int e = 0; e < 10; ++e) {
    const std::string t = "0" + std::to_string(e) + ":4" + std::to_string(e) + ":0";
    log += t + "4Epoch " + std::to_string(19 + e) + "/59\n" + t + "4----------\n";
    log += t + "8train Loss: 0.01" + std::to_string(30 - e) + " Acc: 0.0000\n";
    log += t + "9val Loss: 0.0100 Acc: 0.0000\n" + t + "9\n";
  }
  MetricCollector m = Collect(log);
  EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), std::vector<double>(10, 0.01));
  EXPECT_EQ(ValuesOf(m, SeriesId::kValAcc), std::vector<double>(10, 0.0));
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss).size(), 10u);
  EXPECT_EQ(ValuesOf(m, SeriesId::kLoss).front(), 0.0130);
  ExpectShapesAgree(log);
  ExpectPiecesAgree(log, {size_t{53}, size_t{5}});
  MetricCollector bracket = Collect("[10:00:00]train Loss: 0.70 Acc: 0.50\n[10:00:05]val Loss: 0.69 Acc: 0.50\n");
  EXPECT_EQ(ValuesOf(bracket, SeriesId::kValLoss), (std::vector<double>{0.69}));
  // Not a time: a count before the word ("5val" has no separator), a time before a training word.
  MetricCollector count = Collect("5val Loss: 0.69 Acc: 0.50\n10:00:00train Loss: 0.70 Acc: 0.50\n");
  EXPECT_EQ(ValuesOf(count, SeriesId::kLoss), (std::vector<double>{0.69, 0.70}));
  EXPECT_EQ(count.Find(SeriesId::kValLoss), nullptr);
}

// Note: [Bracketed split after a record header]: pytorch/pytorch#2293's printed run (its first lines,
// as posted: corpus/wild/training/pytorch-2293-...) reads its "[TEST]" lines as the evaluation's with or
// without a logging formatter's header on every line, the header's shapes those of
// tests/line_prefix_test.cc and tests/paste_forms_test.cc's timed_logging and loguru forms; a bracketed
// split word inside the message, or a bracketed training word, changes nothing.
TEST(MetricCollector, ReadsABracketedSplitAfterARecordHeader) {
  const std::string run =
      "[TEST] Loss: 2.3440, Error: 8999/10000 (90%)\n"
      "\n"
      "[TRAIN Epoch 1] Loss: 2.33110598225, Error: 44996/50000\n"
      "[TEST] Loss: 2.3364, Error: 9027/10000 (90%)\n"
      "\n"
      "[TRAIN Epoch 2] Loss: 2.33058553279, Error: 45001/50000\n"
      "[TEST] Loss: 2.3342, Error: 9025/10000 (90%)\n"
      "\n"
      "[TRAIN Epoch 3] Loss: 2.33120793699, Error: 44981/50000\n"
      "[TEST] Loss: 2.3358, Error: 9030/10000 (90%)\n";
  const std::vector<double> test = {2.3440, 2.3364, 2.3342, 2.3358};
  const std::vector<double> train = {2.33110598225, 2.33058553279, 2.33120793699};
  for (const std::string& prefix : {std::string(), std::string("2024-01-02 10:11:12,345 INFO "),
                                   std::string("[2024-01-02 10:11:12] [ERROR] "),
                                   std::string("I1128 10:11:12.345678 12345 file.py:42] "),
                                   std::string("2024-05-01 12:00:01.137 | ERROR    | __main__:train:41 - ")}) {
    std::string log;
    size_t at = 0;
    while (at < run.size()) {
      const size_t nl = run.find('\n', at);
      log += prefix + run.substr(at, nl + 1 - at);
      at = nl + 1;
    }
    MetricCollector m = Collect(log);
    EXPECT_EQ(ValuesOf(m, SeriesId::kValLoss), test) << "prefix \"" << prefix << "\"";
    EXPECT_EQ(ValuesOf(m, SeriesId::kLoss), train) << "prefix \"" << prefix << "\"";
    ExpectShapesAgree(log);
  }
  // Inside the message, or a training word in brackets: the line stays the training's.
  MetricCollector inside = Collect("2024-01-02 10:11:12,345 INFO epoch 1 [test] loss: 0.50\n"
                                   "2024-01-02 10:11:13,345 INFO [train] loss: 0.40\n");
  EXPECT_EQ(ValuesOf(inside, SeriesId::kLoss), (std::vector<double>{0.50, 0.40}));
  EXPECT_EQ(inside.Find(SeriesId::kValLoss), nullptr);
}

// Note: [Name marks]: lines the marks drop at once (a blank, no fragment), CSV rows among them (no
// blank, no fragment: still read), fragments at a line's last bytes, split by a line end or '\r',
// in upper case, and at the ends of Feed's windows: what the full scan of every line keeps.
TEST(MetricCollector, NameMarksKeepWhatTheFullScanKeeps) {
  std::string text;
  const char* web[] = {"10.4.158.25 - - [21/Nov/2026:09:00:01 +0000] \"GET /api/v1/users/59090 HTTP/1.1\" 200 3290",
                       "2026-11-21T09:00:04.004Z WARN app.db worker 2502 picked up job 3904 from queue default",
                       "Mozilla/5.0 (X11; Linux x86_64) python-requests/2.31.0 Accept: */*"};
  for (int i = 0; i < 3000; ++i) {
    text += std::string(web[i % 3]) + "\n";
    switch (i % 97) {
      case 0: text += "step,loss,lr\n"; break;                          // a CSV header: a fragment, no blank
      case 1: text += std::to_string(i) + ",0." + std::to_string(i % 89) + ",0.001\n"; break;  // a row: no mark at all
      case 2: text += std::to_string(i) + ", 0.5, 0.001\n"; break;      // a blank: no row
      case 3: text += "x 1 loss 0." + std::to_string(i % 7) + "\n"; break;
      case 4: text += "x 1 lo\nss 0.5 LR\rlr 0.25\n"; break;            // split fragments; "lr" at the end
      case 5: text += "step 3 VAL_ACC 0.5 ALLOCATED 12MiB\tRSS 9\n"; break;
      case 6: text += "grad_norm\t2.5\n"; break;                       // a tab, no blank
      case 7: text += "learning_rate=0.1\n"; break;                     // no blank: CSV refuses, a name
      case 8: text += "epoch 2 macro-F1 0." + std::to_string(i % 9) + "\n"; break;  // "f1": a two-byte fragment
      case 9: text += std::to_string(i) + " 5% (0m 12s) 2.9460 Jigalev / Portuguese\n"; break;  // a tutorial line: no name
      default: break;
    }
  }
  text += "epoch 4 loss 0.75 lr";  // a last line without '\n', a fragment at its end
  ExpectShapesAgree(text);
  for (size_t piece : {size_t{4093}, size_t{64}, size_t{65}}) {
    MetricCollector m;
    for (size_t at = 0; at < text.size(); at += piece) m.Feed(std::string_view(text).substr(at, piece));
    m.FinishInput();
    EXPECT_EQ(Dump(m), Dump(CollectWith(text, MetricCollector::Shapes::kFullScan))) << "pieces of " << piece;
  }
  MetricCollector m = CollectWith(text, MetricCollector::Shapes::kAuto);
  EXPECT_GT(PointsOf(m, SeriesId::kLoss).size(), 30u);   // CSV rows and the split lines
  EXPECT_GT(PointsOf(m, SeriesId::kLr).size(), 30u);
  EXPECT_GT(PointsOf(m, SeriesId::kGradNorm).size(), 0u);
  EXPECT_GT(PointsOf(m, SeriesId::kF1).size(), 20u);
}

// The fallbacks of the shape replay: each pair of lines has one layout (same length, digits at the
// same places) but a value that changes what the full scan reads, so a replay that trusted the layout
// alone would keep something else.
TEST(MetricCollector, LineShapesFallBackWhereValuesChangeTheReading) {
  // mmcv's total of 0 is no step; a tqdm counter past 2^63 is none; a step total that overflows.
  const std::string text =
      "Epoch [1][50/1000] lr: 1.000e-02, loss: 1.2\n"
      "Epoch [2][50/0000] lr: 1.000e-02, loss: 1.3\n"
      "Epoch [3][70/1000] lr: 1.000e-02, loss: 1.4\n"
      "train:  10%| | 00000000000000000005/50 [00:01<00:09, loss=0.50]\n"
      "train:  10%| | 99999999999999999999/50 [00:01<00:09, loss=0.40]\n"
      "train:  10%| | 00000000000000000007/50 [00:01<00:09, loss=0.30]\n"
      // A name where the shape has digits: the same length and bytes but for one token.
      "x 12 9.5\nx 34 9.5\nx lr 9.5\n";
  ExpectShapesAgree(text);
  ASSERT_NE(PointsOf(CollectWith(text, MetricCollector::Shapes::kAuto), SeriesId::kLr).size(), 0u);
  MetricCollector m = CollectWith(text, MetricCollector::Shapes::kAuto);
  std::vector<MetricPoint> loss = PointsOf(m, SeriesId::kLoss);
  ASSERT_EQ(loss.size(), 6u);
  EXPECT_EQ(loss[0].step, 50);
  EXPECT_TRUE(std::isnan(loss[1].step)) << "[50/0000] has no total";
  EXPECT_EQ(loss[2].step, 2 * 1000 + 70);
  EXPECT_EQ(loss[3].step, 5);
  EXPECT_TRUE(std::isnan(loss[4].step)) << "a counter past 2^63 is not read";
  EXPECT_EQ(loss[5].step, 7);
}

// A shape that changes mid-run, lines that match a shape but for one token (a sign, an exponent's
// sign, nan for digits, a letter for a digit), numbers in every notation, units, repeated validation
// values, lines longer than a shape may be, more layouts than shapes kept.
TEST(MetricCollector, LineShapesKeepWhatTheFullScanKeeps) {
  std::string text;
  for (int i = 0; i < 40; ++i) {
    text += "step " + std::to_string(1000 + i) + " loss=0." + std::to_string(100 + i) + " lr=1.0e-0" +
            std::to_string(i % 9 + 1) + "\n";
  }
  text += "step 1040 loss=-0.140 lr=1.0e-01\n";  // '-' where the shape has a digit
  text += "step 1041 loss=0.141 lr=1.0e+01\n";   // '+' for '-' in the exponent
  text += "step 1042 loss=nan.1 lr=1.0e-01\n";
  text += "step 1043 loss=0.1x3 lr=1.0e-01\n";    // a letter inside the value: no value
  text += "step 1044 loss=inf.0 lr=1.0e-01\n";
  text += "step 1045 loss=0.145 lr=1.0e-01\n";
  for (int i = 0; i < 30; ++i) {
    // Values that change sign, exponent and finiteness within one layout.
    text += "{'loss': " + std::string(i % 3 ? "0.25" : "-1.5") + ", 'val_loss': " + (i % 7 ? "1.00" : " nan") +
            ", 'grad_norm': 1.5e+0" + std::to_string(i % 10) + ", 'memory': " + std::to_string(100 + i) + " MiB}\n";
    text += "iter: " + std::to_string(10 + i) + "  total_loss: " + (i % 5 ? "0.5" : "nan") +
            "  max_mem: 2549M  val_acc 0." + std::to_string(i % 4) + "\n";
    text += "Epoch " + std::to_string(i % 10) + "/10 | step " + std::to_string(i % 10) + " | loss " +
            std::to_string(i % 10) + ".000 | acc tensor(0." + std::to_string(i % 10) + ", device='cuda:0')\n";
  }
  // A long line (no shape) and more layouts than shapes are kept, repeated.
  const std::string pad(300, '.');
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 24; ++k) {
      text += std::string(static_cast<size_t>(k + 1), ' ') + "loss " + std::to_string(round) + "." +
              std::to_string(k) + " gnorm 3\n";
    }
    text += "loss=" + std::to_string(round) + " " + pad + " grad_norm=" + std::to_string(round + 1) + "\n";
  }
  // The same bytes through '\r' updates of one line and through a last line without '\n'.
  for (int i = 0; i < 20; ++i) {
    text += "\rEpoch 1:  50%|#####     | " + std::to_string(10 + i) + "/40 [00:01<00:01, loss=0.4" +
            std::to_string(i % 10) + "]";
  }
  // Names in every case and spelling among lines that hold none (Note: [Name fragments]).
  for (const char* line : {"GET /index.html 200 3412 worker 7", "LOSS 3.5", "Train/Loss: 2.5", "Learning Rate 0.1",
                           "GRAD NORM 5", "MaxRSS 1000", "Memory-Used: 12 GiB", "gNorm=4", "Val Accuracy 0.5",
                           "MSE=0.25 ", "grad_scale 65536", "Allocated 30M", "10.1.2.3 - - \"GET /a\" 404"}) {
    text += std::string(line) + "\n";
  }
  // Full-width colons, one layout repeated (the values change width).
  for (int i = 1; i <= 12; ++i) {
    text += "\xe8\xae\xad\xe7\xbb\x83\xe6\xac\xa1\xe6\x95\xb0\xef\xbc\x9a" + std::to_string(i * 100) +
            ", Loss\xef\xbc\x9a" + (i % 4 ? "1." + std::to_string(900 - i * 37) : std::string("nan")) + "\n";
  }
  text += "\nloss: 2.5 step: 77";
  ExpectShapesAgree(text);
  const std::string named = "LOSS 3.5\nLearning Rate 0.1\nGRAD NORM 5\nMaxRSS 1000\nAllocated 30M\nMSE=0.25 x\n";
  EXPECT_EQ(Dump(CollectWith(named, MetricCollector::Shapes::kAuto)),
            Dump(CollectWith(named, MetricCollector::Shapes::kFullScan)));
  EXPECT_NE(Dump(CollectWith(named, MetricCollector::Shapes::kAuto)), Dump(MetricCollector()));
}

// Note: [Fixed layouts]: numbers a replay reads in place, at the limits of that reading. Each group of
// lines shares one shape, so from its second line on the numbers are read from their recorded layout.
TEST(MetricCollector, FixedLayoutsReadWhatReadNumberReads) {
  std::string text;
  // Exponents that leave the range of ReadNumber's fast path (|exp10| > 22) within one layout, and
  // come back.
  for (const char* e : {"e-05", "e-25", "e+22", "e+23", "e-99", "e+99", "e+00", "e-22"}) {
    text += std::string("step 7 loss=1.5") + e + " lr=2.50" + e + "\n";
  }
  // 2-7 significant digits (digits and '.' in one 8-byte word), 8, 9, 16, 17 and 18 (the fast path's
  // limit), then 19 (from_chars) in one layout.
  for (int digits : {2, 3, 7, 8, 9, 16, 17, 18, 19}) {
    for (const char* d : {"1", "7", "9"}) {
      std::string whole(static_cast<size_t>(digits - 1), d[0]);
      text += "loss " + whole + "." + d + " grad_norm 0." + whole + d + "\n";
    }
  }
  // Signs, a bare '.', a trailing '.', negative zero, and the same layouts again.
  for (int round = 0; round < 3; ++round) {
    text += "loss=-0.000 lr=+1.5 acc=.5" + std::to_string(round) + " gnorm=" + std::to_string(round + 1) + ". x\n";
    text += "loss=-1.25" + std::to_string(round) + " lr=+0.5 acc=.0" + std::to_string(round) + " gnorm=9. x\n";
  }
  // A step's total of 18 digits (read) and of 19 (past a long long: no total), and an epoch's.
  for (const char* total : {"123456789012345678", "999999999999999999", "9999999999999999999", "1234567890123456789"}) {
    text += std::string("Epoch 3/") + total + " step 12/" + total + " loss 0.5\n";
  }
  // tqdm counters of 18 digits (read) and 19 digits (past a long long for some values: no counter).
  for (const char* n : {"000000000000000005", "999999999999999999", "0000000000000000007", "9999999999999999999",
                        "0000000000000000008"}) {
    text += std::string("\r 40%|####  | ") + n + "/" + n + " [00:01<00:02, loss=0.25]";
  }
  text += "\n";
  // A line of a known length whose '.' moved (another shape), and one whose digit became a letter.
  text += "loss=1.25 lr=0.5\nloss=12.5 lr=0.5\nloss=1.2x lr=0.5\nloss=1.25 lr=0.5\n";
  // The last line, without '\n', ends with a number of fewer than 8 bytes before the buffer's end.
  text += "loss=1.25 lr=0.5\nloss=3.75 lr=0.7";
  ExpectShapesAgree(text);
  // And fed one line at a time (each line its own buffer: the 8-byte reads must stay inside it).
  MetricCollector by_line;
  MetricCollector by_line_full(MetricCollector::Shapes::kFullScan);
  size_t start = 0;
  std::uint64_t n = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    by_line.AddLine(line, ++n);
    by_line_full.AddLine(line, n);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  EXPECT_EQ(Dump(by_line), Dump(by_line_full));
  // A few values by hand: the exponents out of range were read, and the digits at the limits.
  MetricCollector m = CollectWith(text, MetricCollector::Shapes::kAuto);
  std::vector<double> lr;
  for (const MetricPoint& p : PointsOf(m, SeriesId::kLr)) lr.push_back(p.value);
  ASSERT_GE(lr.size(), 8u);
  EXPECT_EQ(lr[1], 2.50e-25);
  EXPECT_EQ(lr[3], 2.50e+23);
  EXPECT_EQ(lr[4], 2.50e-99);
  EXPECT_EQ(lr[5], 2.50e+99);
  std::vector<MetricPoint> norm = PointsOf(m, SeriesId::kGradNorm);
  ASSERT_GE(norm.size(), 24u);
  EXPECT_EQ(norm[1].value, 0.77);
  EXPECT_EQ(norm[8].value, 0.9999999);
  EXPECT_EQ(norm[10].value, 0.77777777);
  EXPECT_EQ(norm[11].value, 0.99999999);
  EXPECT_EQ(norm[14].value, 0.999999999);
  std::vector<MetricPoint> loss = PointsOf(m, SeriesId::kLoss);
  ASSERT_GE(loss.size(), 16u);
  EXPECT_EQ(loss[9].value, 7.7);  // after the 8 lines of exponents
  EXPECT_EQ(loss[12].value, 77.7);
  EXPECT_EQ(loss[14].value, 111111.1);
  EXPECT_EQ(loss[15].value, 777777.7);
}

// Note: [Number lanes]: each lane's value is the division's to the bit. Each text has one layout (HF dict
// lines with numbers of seven digits, 1 to 6 of them after the '.', a learning rate whose exponent moves
// every 25 lines, signs), so from its second line on the four numbers of a line are read in lanes; the
// digits are random (a product by the power's rounded inverse instead of the division would round about
// half of them to the double next to the quotient). A text has fewer lines than a series keeps points
// (kHead + kTail), so every value is compared.
TEST(MetricCollector, LaneQuotientsAreTheDivisions) {
  static_assert(MetricSeries::kHead + MetricSeries::kTail >= 100, "every point of a text kept");
  std::mt19937 rng(15);
  auto digits = [&rng](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
    return s;
  };
  auto number = [&digits](int frac) { return digits(7 - frac) + "." + digits(frac); };
  for (int frac = 1; frac <= 6; ++frac) {
    for (const char* sign : {"", "-"}) {
      for (int part = 0; part < 4; ++part) {
        std::string text;
        for (int i = 0; i < 100; ++i) {
          const int exp = 1 + (part * 4 + i / 25) % 16;
          text += std::string("{'loss': ") + sign + number(frac) + ", 'grad_norm': " + number(7 - frac) +
                  ", 'learning_rate': " + number(frac) + "e-" + (exp < 10 ? "0" : "") + std::to_string(exp) +
                  ", 'epoch': " + number(frac % 3 + 1) + "}\n";
        }
        ExpectShapesAgree(text);
        const MetricCollector m = CollectWith(text, MetricCollector::Shapes::kAuto);
        EXPECT_EQ(PointsOf(m, SeriesId::kLoss).size(), 100u);
        EXPECT_EQ(PointsOf(m, SeriesId::kLr).size(), 100u);
      }
    }
  }
}

// Note: [Line shapes]: a byte that is not a digit where the shape has one refuses the shape, however
// close to a digit it is ('/' and ':' around '0'-'9', the same bytes with the high bit set, a letter,
// NUL), at every place of a line and in lines of one to four blocks of 32 bytes, whole or not; so
// does a digit where the shape has another byte. Each such line must read what the full scan reads.
TEST(MetricCollector, ShapesRefuseBytesBesideDigits) {
  std::string text;
  // Lines of 30 to 100 bytes, among them 31, 32, 33, 64, 65 and 96 (the compare's blocks).
  for (size_t pad : {0u, 1u, 2u, 3u, 20u, 34u, 35u, 40u, 66u, 70u}) {
    const std::string base = std::string(pad, ' ') + "step 12 loss=0.25 lr=1.5e-03 x";
    for (size_t at = 0; at < base.size(); ++at) {
      for (char b : {'/', ':', '\xb0', '\xb9', 'a', '\0', '5'}) {
        std::string line = base;
        if (line[at] == b) continue;
        line[at] = b;
        text += base + "\n" + line + "\n";
      }
    }
  }
  ExpectShapesAgree(text);
}

// n random ASCII digits.
std::string RandomDigits(std::mt19937* rng, int n) {
  std::string d;
  for (int i = 0; i < n; ++i) d += static_cast<char>('0' + (*rng)() % 10);
  return d;
}

// Note: [Fixed layouts]: a number of at most 7 digits around its '.', or an integer of at most 7
// digits, is read from one word (ReplayWord). Every place of the '.' in 1 to 7 digits and none, with a
// sign, exponents in and out of the
// fast path's range, at the end of the buffer (fewer than 8 readable bytes: the word is not read
// there) and in the middle of a line; groups of at most 60 lines, so that every point is kept and
// compared bit for bit with the full scan's; and repeated digits, whose last value is reused.
TEST(MetricCollector, WordReadsAgreeWithTheFullScan) {
  std::mt19937 rng(29);
  auto digits = [&rng](int n) { return RandomDigits(&rng, n); };
  const char* exponents[] = {"", "e-05", "e+01", "E-9", "e-022", "e+22", "e-23", "e+099", "e-099", "e+0"};
  int groups = 0;
  for (int n = 1; n <= 7; ++n) {
    for (int whole = 0; whole <= n; ++whole) {
      for (const char* e : exponents) {
        for (const char* sign : {"", "-", "+", "int"}) {
          // "int": an integer (no '.'), of n digits, unsigned.
          const bool integer = std::string(sign) == "int";
          if (integer && whole != n) continue;
          std::string text;
          for (int i = 0; i < 12; ++i) {
            const std::string number = integer ? digits(n) + e
                                               : std::string(sign) + digits(whole) + "." + digits(n - whole) + e;
            // The number mid-line, then as the very last bytes of the input.
            text += "step " + digits(3) + " loss=" + number + " lr " + digits(1) + ".5\n";
            text += "grad_norm: " + number + (i + 1 < 12 ? "\n" : "");
          }
          ExpectShapesAgree(text);
          ++groups;
        }
      }
    }
  }
  EXPECT_EQ(groups, 35 * 10 * 3 + 7 * 10);
  // Values by hand, each on the second line of its shape (the first is scanned in full).
  MetricCollector m = Collect("loss=1.250000 x\nloss=3.141592 x\nloss=-.0000001 x\nloss=-.0000009 x\n"
                              "loss=12.5e-03 x\nloss=99.9e-03 x\nloss=0.5e-25 x\nloss=7.5e+22 x\n"
                              "loss=1234567 x\nloss=7654321 x\nloss=9e-3 x\nloss=8e-3 x\n");
  std::vector<double> loss;
  for (const MetricPoint& p : PointsOf(m, SeriesId::kLoss)) loss.push_back(p.value);
  EXPECT_EQ(loss, (std::vector<double>{1.25, 3.141592, -0.0000001, -0.0000009, 12.5e-03, 99.9e-03, 0.5e-25, 7.5e+22,
                                       1234567, 7654321, 9e-3, 8e-3}));
  // The last reading of a number is reused when its digits repeat (a constant learning rate): values
  // that repeat, change and come back, zeros first, in two shapes taking turns and in two fields.
  std::string repeats;
  for (const char* v : {"0.000", "0.000", "0.500", "0.500", "0.250", "0.500", "0.000", "9.999", "9.999", "0.500"}) {
    repeats += std::string("step 1 loss=") + v + " lr=" + v + "\nstep 12 loss=" + v + " lr=0.001\n";
  }
  ExpectShapesAgree(repeats);
  std::vector<double> lr;
  for (const MetricPoint& p : PointsOf(Collect(repeats), SeriesId::kLr)) lr.push_back(p.value);
  EXPECT_EQ(lr, (std::vector<double>{0, 0.001, 0, 0.001, 0.5, 0.001, 0.5, 0.001, 0.25, 0.001, 0.5, 0.001, 0, 0.001,
                                     9.999, 0.001, 9.999, 0.001, 0.5, 0.001}));
}

// Note: [Printed loss tensors]: print(loss) shows no name, but its autograd node names the loss function.
TEST(MetricCollector, ReadsALossPrintedAsItsTensor) {
  struct Case {
    const char* line;
    double loss;
  };
  const Case kCases[] = {
      {"tensor(2.3026, device='cuda:0', grad_fn=<NllLossBackward0>)", 2.3026},  // 2.x, CrossEntropyLoss
      {"tensor(0.6931, grad_fn=<BinaryCrossEntropyBackward>)", 0.6931},         // 1.x on the CPU
      {"  tensor(0.0412, device='cuda:0', grad_fn=<MseLossBackward0>)\r", 0.0412},
      {"tensor(1.25e-02, device='cuda:1', grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)", 0.0125},
      {"tensor(0.8811, device='cuda:0', dtype=torch.float16, grad_fn=<NllLoss2DBackward0>)", 0.8811},
      {"tensor(nan, device='cuda:0', grad_fn=<SmoothL1LossBackward0>)", std::nan("")},
  };
  // Read together, one point per line in order.
  std::string printed;
  for (const Case& c : kCases) printed += std::string(c.line) + "\n";
  const std::vector<double> got = ValuesOf(Collect(printed), SeriesId::kLoss);
  ASSERT_EQ(got.size(), std::size(kCases));
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = kCases[i].loss;
    EXPECT_TRUE(std::isnan(want) ? std::isnan(got[i]) : std::fabs(got[i] - want) < 1e-12) << kCases[i].line << " read as " << got[i];
  }
  const char* kNot[] = {
      "tensor(2.3026, device='cuda:0', grad_fn=<AddBackward0>)",    // a sum of terms names no loss
      "tensor(0.5012, device='cuda:0', grad_fn=<MeanBackward0>)",   // nor does a mean
      "tensor(2.3026, device='cuda:0')",                            // no node: any scalar
      "tensor(2.3026, requires_grad=True)",                         // a leaf
      "tensor([2.3026, 1.2], grad_fn=<NllLossBackward0>)",          // not one number
      "tensor(2.3026, grad_fn=<NllLossBackward0>) tensor(0.1000)",  // more on the line
      "tensor(2.3026, grad_fn=<NllLossForward0>)",                  // no Backward node
  };
  for (const char* line : kNot) {
    EXPECT_EQ(Collect(std::string(line) + "\n").Find(SeriesId::kLoss), nullptr) << line;
  }
  // A line that names the value keeps its own reading, one point per line.
  EXPECT_EQ(ValuesOf(Collect("loss: tensor(0.7000, grad_fn=<NllLossBackward0>)\n"), SeriesId::kLoss),
            std::vector<double>{0.7});
  // The shapes and the full scan agree, beside named lines of the same numbers.
  std::string text;
  for (int i = 0; i < 50; ++i) {
    const std::string d = std::to_string(10 + i);
    text += "tensor(2.30" + d + ", device='cuda:0', grad_fn=<NllLossBackward0>)\n";
    text += "step " + std::to_string(i) + " loss 2.30" + d + "\n";
  }
  ExpectShapesAgree(text);
  EXPECT_EQ(PointsOf(Collect(text), SeriesId::kLoss).size(), 100u);
}

// Random lines of a few layouts with random digits (widths included): the shapes change often.
TEST(MetricCollector, LineShapesAgreeOnRandomLines) {
  std::mt19937 rng(11);
  auto digits = [&rng](int n) { return RandomDigits(&rng, n); };
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    switch (rng() % 5) {
      case 0:
        text += "2024-03-01 12:00:" + digits(2) + " INFO [" + digits(1 + rng() % 3) + "/5000] loss=" + digits(1) + "." +
                digits(1 + rng() % 2) + " grad_norm=" + digits(1) + "e" + (rng() % 2 ? "-" : "+") + digits(2) + "\n";
        break;
      case 1:
        text += "{'loss': " + digits(1) + "." + digits(4) + ", 'epoch': " + digits(1) + "." + digits(2) + "}\n";
        break;
      case 2: text += "\r 40%|####  | " + digits(1 + rng() % 2) + "/" + digits(1 + rng() % 2) + " [00:01<00:02, loss=" +
                      (rng() % 9 ? digits(1) : "nan") + "]"; break;
      case 3: text += "Epoch [" + digits(1) + "][" + digits(2) + "/" + digits(2) + "] lr: " + digits(1) + ".000e-0" +
                      digits(1) + ", loss: " + digits(1) + "." + digits(1) + ", memory: " + digits(4) + "\n"; break;
      default: text += "val_loss " + digits(1) + " val_acc " + digits(1) + "\n"; break;
    }
    // Now and then a tutorial line (Note: [Tutorial progress lines]), or one of its look that is none
    // (no loss after the time, a name there instead), with counters of any width, up to 20 digits.
    if (rng() % 7 == 0) {
      const std::string head = digits(1 + rng() % 20) + " " + digits(1 + rng() % 3) + "% (" + digits(1) + "m " +
                               digits(1 + rng() % 2) + "s) ";
      text += head + (rng() % 3 ? digits(1) + "." + digits(4) + " Name / Guess" : std::string("acc ") + digits(1)) + "\n";
    }
  }
  ExpectShapesAgree(text);
}

// Note: [Replay in the loop]: a segment is taken for one of the shape matched last when the shape's
// bytes are followed by a line end or the end of the buffer, so a line that holds the shape's bytes
// and goes on, one cut by kMaxLine, and empty segments between lines of a shape are read as the full
// scan reads them; the words are read up to the shape's reach, at the end of a buffer too; a line
// longer than the ends' marking step (kEndWords words) lies between replayed ones. Fed whole, in
// pieces and one line at a time.
TEST(MetricCollector, ReplayInTheLoopKeepsWhatTheFullScanKeeps) {
  std::string text;
  for (int i = 0; i < 200; ++i) {
    const std::string d = std::to_string(10 + i % 90);
    text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-04, 'epoch': 0." + d + "}\n";
    switch (i % 11) {
      // The shape's bytes, then more (a blank, a digit, a name with its value, a '\r' update).
      case 0: text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-04, 'epoch': 0." + d + "} \n"; break;
      case 1: text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-04, 'epoch': 0." + d + "}5\n"; break;
      case 2: text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-04, 'epoch': 0." + d + "} loss=9.5\n"; break;
      case 3: text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-04, 'epoch': 0." + d + "}\r{'loss': 0.5}\n"; break;
      // Empty segments: CRLF, a blank line, a lone '\r'.
      case 4: text += "\r\n\n\r"; break;
      // A line longer than the ends' marking step, with a value at its end.
      case 5: text += std::string(5000 + i, 'x') + " loss=7.25\n"; break;
      // An exponent out of the fast path's range in the same shape.
      case 6: text += "{'loss': 0." + d + ", 'lr': 1." + d + "e-44, 'epoch': 0." + d + "}\n"; break;
      // A tqdm bar of one shape, redrawn with '\r' and a counter (the step).
      case 7:
        for (int k = 10; k < 40; ++k) text += "\rtrain:  50%|#####     | " + std::to_string(k) + "/99 [00:01<00:01, loss=0." + d + "]";
        text += "\n";
        break;
      default: break;
    }
  }
  // A line past kMaxLine made of '\r' updates of one shape: the update the cut falls in is read up to
  // the cut, and none after it.
  for (int k = 0; k < 7000; ++k) text += "\rstep " + std::to_string(1000 + k % 9000) + " loss=0." + std::to_string(10 + k % 90);
  text += "\n";
  // The last line, without '\n', of the shape before it: its words reach past the buffer's end.
  text += "loss=0.25 lr=1.5e-05\nloss=0.75 lr=2.5e-05";
  ExpectShapesAgree(text);
  ExpectPiecesAgree(text, {size_t{4093}, size_t{64}, size_t{7}});
  MetricCollector by_line;
  MetricCollector by_line_full(MetricCollector::Shapes::kFullScan);
  std::uint64_t n = 0;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    by_line.AddLine(std::string_view(text).substr(start, nl - start), ++n);
    by_line_full.AddLine(std::string_view(text).substr(start, nl - start), n);
    start = nl + 1;
  }
  EXPECT_EQ(Dump(by_line), Dump(by_line_full));
  // By hand: a learning rate on every dict line, on those that go on after one (i % 11 of 0 to 3:
  // 19, 19, 18 and 18 lines), on those whose exponent is out of range (18) and on the last two.
  MetricCollector m = CollectWith(text, MetricCollector::Shapes::kAuto);
  const MetricSeries* lr = m.Find(SeriesId::kLr);
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(lr->count(), 200 + 19 + 19 + 18 + 18 + 18 + 2);
}

// FindEnd: ScanLines' loop looks for a segment's end in the words marked already and calls FindEnd
// past them. Runs of replayed lines (whose ends are never marked) of 1 to 5000 lines, so that the
// marked words end anywhere, then lines of other shapes of every length from 1 to 300 bytes (ends in
// `from`'s word, in the next, many words on) and now and then one longer than the marking step
// (kEndWords words), each with a value at its end, '\r' updates and CRLF among them: what the full
// scan reads, fed whole and in pieces.
TEST(MetricCollector, SegmentEndsAfterReplayedRunsAreTheFullScans) {
  std::mt19937 rng(31);
  std::string text;
  for (int run = 0; run < 60; ++run) {
    const int replayed = 1 + static_cast<int>(rng() % (run % 7 == 0 ? 5000 : 40));
    for (int i = 0; i < replayed; ++i) {
      text += "{'loss': 0." + RandomDigits(&rng, 4) + ", 'grad_norm': 1." + RandomDigits(&rng, 2) + "}\n";
    }
    for (int i = 0; i < 1 + static_cast<int>(rng() % 6); ++i) {
      const size_t len = run % 9 == 4 && i == 0 ? 64 * 64 + 100 + rng() % 300 : 1 + rng() % 300;
      std::string line(len, 'x');
      line += " acc=0." + RandomDigits(&rng, 2);
      switch (rng() % 4) {
        case 0: line += "\r\n"; break;
        case 1: line += "\rval_loss=" + RandomDigits(&rng, 1) + "\n"; break;
        default: line += "\n"; break;
      }
      text += line;
    }
  }
  ExpectShapesAgree(text);
  ExpectPiecesAgree(text, {size_t{65536}, size_t{4093}, size_t{100}});
  // By hand: every line of another shape holds one accuracy.
  size_t acc_lines = 0;
  for (size_t at = text.find(" acc=0."); at != std::string::npos; at = text.find(" acc=0.", at + 1)) ++acc_lines;
  const MetricCollector collected = CollectWith(text, MetricCollector::Shapes::kAuto);  // alive while acc is read
  const MetricSeries* acc = collected.Find(SeriesId::kAcc);
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(static_cast<size_t>(acc->count()), acc_lines);
}

// Note: [Number lanes]: a shape's first four numbers without an exponent are read side by side, the
// others one by one. Lines of six such numbers (1 to 7 digits, the '.' anywhere or nowhere, signed or
// not, nines and zeros at every place) beside an exponent, each layout on a run of lines so that
// the loop replays them: every value the full scan's, to the bit, with AVX2 and without.
TEST(MetricCollector, LanesReadWhatTheFullScanReads) {
  std::mt19937 rng(5);
  const char* names[] = {"loss", "val_loss", "acc", "grad_norm", "val_acc", "f1"};
  std::string text;
  for (int layout = 0; layout < 300; ++layout) {
    int digits[6], dot[6];
    std::string sign[6];
    for (int k = 0; k < 6; ++k) {
      digits[k] = 1 + static_cast<int>(rng() % 7);
      dot[k] = static_cast<int>(rng() % (digits[k] + 2)) - 1;  // -1: no '.'; else digits before it
      sign[k] = rng() % 4 ? "" : (rng() % 2 ? "-" : "+");
    }
    for (int line = 0; line < 6; ++line) {
      text += "step " + RandomDigits(&rng, 3) + " lr=1.5e-0" + RandomDigits(&rng, 1);
      for (int k = 0; k < 6; ++k) {
        std::string d = line == 0 ? std::string(static_cast<size_t>(digits[k]), '9')
                        : line == 1 ? std::string(static_cast<size_t>(digits[k]), '0')
                                    : RandomDigits(&rng, digits[k]);
        if (dot[k] >= 0) d.insert(static_cast<size_t>(dot[k]), ".");
        text += std::string(" ") + names[k] + "=" + sign[k] + d;
      }
      text += "\n";
    }
  }
  ExpectShapesAgree(text);
  // By hand, each on the second line of its shape.
  MetricCollector m = Collect("x loss=1.5 acc=99.25 f1=.0625 grad_norm=7 val_loss=-3.5 val_acc=12.\n"
                              "x loss=9.9 acc=12.75 f1=.9999 grad_norm=8 val_loss=-0.5 val_acc=99.\n");
  auto last = [&m](SeriesId id) { return m.Find(id) ? m.Find(id)->last().value : -1.0; };
  EXPECT_EQ(last(SeriesId::kLoss), 9.9);
  EXPECT_EQ(last(SeriesId::kAcc), 12.75);
  EXPECT_EQ(last(SeriesId::kF1), .9999);
  EXPECT_EQ(last(SeriesId::kGradNorm), 8);
  EXPECT_EQ(last(SeriesId::kValLoss), -0.5);
  EXPECT_EQ(last(SeriesId::kValAcc), 99);
}

// Note: [Replay in the loop]: an exponent of 1, 2 or 3 digits (the most a layout takes), either sign
// or none, 'e' or 'E', is read by the loop's replay as the full scan reads it, to the bit: each layout
// on a run of lines (the loop replays all but the first), exponents on both sides of the fast path's
// range (|power of ten| <= 22) so that some lines of a shape go to ScanSegment; with AVX2 and without.
TEST(MetricCollector, ExponentsReplayAsTheFullScanReadsThem) {
  std::mt19937 rng(23);
  std::string text;
  for (int layout = 0; layout < 400; ++layout) {
    const int exp_digits = 1 + static_cast<int>(rng() % 3);
    const int frac = static_cast<int>(rng() % 5);
    const std::string sign[] = {"-", "+", ""};
    const std::string& s = sign[rng() % 3];
    const char e = rng() % 4 ? 'e' : 'E';
    for (int line = 0; line < 5; ++line) {
      // Exponents up to 29 (out of range past 22 less the fraction's digits), leading zeros kept.
      std::string exp = std::to_string(rng() % (exp_digits == 1 ? 10 : 30));
      while (exp.size() < static_cast<size_t>(exp_digits)) exp.insert(0, "0");
      exp = exp.substr(exp.size() - static_cast<size_t>(exp_digits));
      text += "{'loss': 0." + RandomDigits(&rng, 4) + ", 'learning_rate': " + RandomDigits(&rng, 1) +
              (frac ? "." + RandomDigits(&rng, frac) : std::string()) + e + s + exp +
              ", 'epoch': 0." + RandomDigits(&rng, 2) + "}\n";
    }
  }
  ExpectShapesAgree(text);
  // By hand, each on the second line of its shape: 3, 2 and 1 exponent digits.
  auto lr_of = [](const std::string& lines) {
    MetricCollector m = Collect(lines);
    return m.Find(SeriesId::kLr) ? m.Find(SeriesId::kLr)->last().value : -1.0;
  };
  EXPECT_EQ(lr_of("{'loss': 0.5, 'learning_rate': 1.25e-004}\n{'loss': 0.5, 'learning_rate': 7.75e-012}\n"), 7.75e-12);
  EXPECT_EQ(lr_of("{'loss': 0.5, 'learning_rate': 1.25e+04}\n{'loss': 0.5, 'learning_rate': 3.5e+21}\n"), 3.5e21);
  EXPECT_EQ(lr_of("{'loss': 0.5, 'learning_rate': 1.25E4}\n{'loss': 0.5, 'learning_rate': 9.75E7}\n"), 9.75e7);
}

// Note: [Replay plan]: tqdm counters of 1 to 8 digits (in two lanes where two are left and each has
// at most 7 digits, else read one by one) with or without an epoch or a printed step (then the
// counter is no step); numbers with an exponent in a lane, signed or not, whose exponent moves
// within a division's range (10^-22 to 10^0), past it and back, so that some lines of a shape make a
// new divisor and some go to ScanSegment; up to five numbers, so the lanes run out here and there.
// Each layout on a run of lines (the loop replays all but the first), against the full scan, to the
// bit, with AVX2 and without, whole and in pieces.
TEST(MetricCollector, ReplayPlanReadsWhatTheFullScanReads) {
  std::mt19937 rng(47);
  const char* names[] = {"loss", "acc", "grad_norm", "val_acc", "f1"};
  std::string text;
  for (int layout = 0; layout < 300; ++layout) {
    const int numbers = static_cast<int>(rng() % 6);
    const int counter_digits = 1 + static_cast<int>(rng() % 8), total_digits = 1 + static_cast<int>(rng() % 8);
    const bool epoch = rng() % 2, step = rng() % 4 == 0, counter = rng() % 4 != 0;
    int frac[5], exp_digits[5];
    std::string sign[5], exp_sign[5];
    for (int k = 0; k < 5; ++k) {
      frac[k] = static_cast<int>(rng() % 4);
      exp_digits[k] = rng() % 2 ? 0 : 1 + static_cast<int>(rng() % 3);
      sign[k] = rng() % 3 ? "" : "-";
      exp_sign[k] = rng() % 4 ? "-" : (rng() % 2 ? "+" : "");
    }
    for (int line = 0; line < 8; ++line) {
      std::string t = epoch ? "Epoch " + RandomDigits(&rng, 1) + ": " : std::string("train: ");
      if (counter) {
        t += " 40%|####  | " + RandomDigits(&rng, counter_digits) + "/" + RandomDigits(&rng, total_digits) +
             " [00:01<00:02";
      }
      if (step) t += " step=" + RandomDigits(&rng, 3);
      for (int k = 0; k < numbers; ++k) {
        t += std::string(", ") + names[k] + "=" + sign[k] + RandomDigits(&rng, 1);
        if (frac[k]) t += "." + RandomDigits(&rng, frac[k]);
        if (exp_digits[k]) {
          // Mostly one exponent, now and then another one, 0, or one past 22.
          const unsigned r = rng() % 8;
          std::string e = std::to_string(r < 5 ? 4 : (r == 5 ? rng() % 30 : (r == 6 ? 0 : 25 + rng() % 5)));
          while (e.size() < static_cast<size_t>(exp_digits[k])) e.insert(0, "0");
          t += "e" + exp_sign[k] + e.substr(e.size() - static_cast<size_t>(exp_digits[k]));
        }
      }
      text += t + (counter ? "]\r" : "\n");
    }
    text += "\n";
  }
  ExpectShapesAgree(text);
  ExpectPiecesAgree(text, {size_t{4093}, size_t{100}});
  // By hand, each on the second line of its shape: a counter's step with an epoch, and without one;
  // a negative number with an exponent; a counter of 8 digits.
  auto last = [](const std::string& lines, SeriesId id) {
    MetricCollector m = Collect(lines);
    const MetricSeries* s = m.Find(id);
    return s ? std::pair<double, double>(s->last().value, s->last().step) : std::pair<double, double>(-1, -1);
  };
  EXPECT_EQ(last("Epoch 1: | 3/50 [00:01, loss=0.5]\rEpoch 2: | 7/50 [00:01, loss=0.25]\n", SeriesId::kLoss),
            std::make_pair(0.25, 2.0 * 50 + 7));
  EXPECT_EQ(last("train: | 3/50 [00:01, loss=0.5]\rtrain: | 7/50 [00:01, loss=0.25]\n", SeriesId::kLoss),
            std::make_pair(0.25, 7.0));
  EXPECT_EQ(last("x loss=-1.5e-03 acc=1\nx loss=-2.5e-04 acc=2\n", SeriesId::kLoss).first, -2.5e-4);
  EXPECT_EQ(last("train: | 12345678/99999999 [00:01, loss=0.5]\rtrain: | 22345678/99999999 [00:01, loss=0.25]\n",
                 SeriesId::kLoss),
            std::make_pair(0.25, 22345678.0));
}

// The memo of names as printed must not leak a one-word reading into a two-word name, nor one
// spelling into another.
TEST(MetricCollector, NameMemoKeepsTwoWordNamesApart) {
  MetricCollector m = Collect("loss 1.0\nval loss 2.0\nloss 3.0\nLoss 4.0\nval loss 5.0\nloss_scale 8.0\nloss 6.0\n");
  std::vector<double> loss, val, scale;
  for (const MetricPoint& p : PointsOf(m, SeriesId::kLoss)) loss.push_back(p.value);
  for (const MetricPoint& p : PointsOf(m, SeriesId::kValLoss)) val.push_back(p.value);
  for (const MetricPoint& p : PointsOf(m, SeriesId::kLossScale)) scale.push_back(p.value);
  EXPECT_EQ(loss, (std::vector<double>{1.0, 3.0, 4.0, 6.0}));
  EXPECT_EQ(val, (std::vector<double>{2.0, 5.0}));
  EXPECT_EQ(scale, (std::vector<double>{8.0}));
}

// Note: [Key-value tables] in metrics.cc: OpenAI's logger's block, as guided-diffusion printed it
// (corpus/wild/numerics/guided-diffusion-imagenet128-nan-divergence-loss-scale, lines 1-20): its "loss" row is
// the loss, "mse" beside it is not read as the loss again; before, no row gave a point. In every shape mode.
TEST(MetricCollector, ReadsKeyValueTableRows) {
  const std::string block =
      "-----------------------------\n"
      "| lg_loss_scale | -1.62e+04 |\n"
      "| loss          | nan       |\n"
      "| loss_q0       | nan       |\n"
      "| loss_q1       | nan       |\n"
      "| loss_q2       | nan       |\n"
      "| loss_q3       | nan       |\n"
      "| mse           | nan       |\n"
      "| mse_q0        | nan       |\n"
      "| mse_q1        | nan       |\n"
      "| mse_q2        | nan       |\n"
      "| mse_q3        | nan       |\n"
      "| samples       | 3.92e+07  |\n"
      "| step          | 1.53e+05  |\n"
      "| vb            | nan       |\n"
      "| vb_q0         | nan       |\n"
      "| vb_q1         | nan       |\n"
      "| vb_q2         | nan       |\n"
      "| vb_q3         | nan       |\n"
      "-----------------------------\n";
  for (MetricCollector::Shapes shapes :
       {MetricCollector::Shapes::kAuto, MetricCollector::Shapes::kPortable, MetricCollector::Shapes::kFullScan}) {
    const std::vector<MetricPoint> loss = PointsOf(CollectWith(block, shapes), SeriesId::kLoss);
    ASSERT_EQ(loss.size(), 1u);
    EXPECT_TRUE(std::isnan(loss[0].value));
    EXPECT_EQ(loss[0].line, 3u);
    // The same block's layout with finite values (the logger's '%-8.3g'), twice: one point per block.
    const MetricCollector finite = CollectWith(
        "------------------------\n| grad_norm | 0.412    |\n| loss      | 0.0512   |\n| mse       | 0.0498   |\n"
        "| step      | 1.2e+03  |\n------------------------\n"
        "------------------------\n| grad_norm | 0.398    |\n| loss      | 0.0507   |\n| mse       | 0.0493   |\n"
        "| step      | 1.3e+03  |\n------------------------\n",
        shapes);
    EXPECT_EQ(ValuesOf(finite, SeriesId::kLoss), (std::vector<double>{0.0512, 0.0507}));
    EXPECT_EQ(ValuesOf(finite, SeriesId::kGradNorm), (std::vector<double>{0.412, 0.398}));
  }
  // Rows of more cells (an epoch table, nvidia-smi) or with no value are not key-value rows.
  EXPECT_TRUE(PointsOf(Collect("| loss | acc |\n| epoch | loss |\n| loss |  |\n"), SeriesId::kLoss).empty());
}

// Megatron's iteration line (megatron/training.py training_log, and its copies in Megatron-DeepSpeed and
// Megatron-LLM): the loss, the loss scale and the grad norm are columns of one line ("| lm loss: 2.382640E+00 |
// loss scale: 1.0 | grad norm: 0.227 |"). Read from real pastes: epfLLM/Megatron-LLM#11 (bf16, loss scale 1.0),
// NVIDIA/Megatron-LM#602 (fp16, every step of the interval skipped: no loss column, the scale at 16384),
// bigscience-workshop/Megatron-DeepSpeed#396 (grad norm: nan, no loss column).
TEST(MetricCollector, ReadsMegatronIterationColumns) {
  const MetricCollector bf16 = Collect(
      " iteration      182/  250000 | consumed samples:       186368 | elapsed time per iteration (ms): 126995.3 | "
      "learning rate: 1.365E-05 | global batch size:  1024 | lm loss: 2.382640E+00 | loss scale: 1.0 | grad norm: "
      "0.227 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
      " iteration      183/  250000 | consumed samples:       187392 | elapsed time per iteration (ms): 125553.7 | "
      "learning rate: 1.372E-05 | global batch size:  1024 | lm loss: 2.471678E+00 | loss scale: 1.0 | grad norm: "
      "0.134 | number of skipped iterations:   0 | number of nan iterations:   0 |\n");
  EXPECT_EQ(ValuesOf(bf16, SeriesId::kLoss), (std::vector<double>{2.38264, 2.471678}));
  EXPECT_EQ(ValuesOf(bf16, SeriesId::kLossScale), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(ValuesOf(bf16, SeriesId::kGradNorm), (std::vector<double>{0.227, 0.134}));
  EXPECT_EQ(ValuesOf(bf16, SeriesId::kLr), (std::vector<double>{1.365e-05, 1.372e-05}));
  const MetricCollector skipped = Collect(
      " iteration        2/ 2753818 | consumed samples:           16 | elapsed time per iteration (ms): 1152.3 | "
      "learning rate: 1.000E-07 | global batch size:     8 | loss scale: 16384.0 | number of skipped iterations:   1 | "
      "number of nan iterations:   0 |\n"
      " iteration        3/ 2753818 | consumed samples:           24 | elapsed time per iteration (ms): 1118.1 | "
      "learning rate: 1.000E-07 | global batch size:     8 | loss scale: 16384.0 | number of skipped iterations:   1 | "
      "number of nan iterations:   0 |\n");
  EXPECT_EQ(ValuesOf(skipped, SeriesId::kLoss), (std::vector<double>{}));
  EXPECT_EQ(ValuesOf(skipped, SeriesId::kLossScale), (std::vector<double>{16384.0, 16384.0}));
  const MetricCollector nan_norm = Collect(
      " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     88899584 | elapsed time per "
      "iteration (ms): 4247.9 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 | grad norm: nan | "
      "actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: "
      "1.883 | TFLOPs: 78.36 |\n");
  EXPECT_EQ(ValuesOf(nan_norm, SeriesId::kLoss), (std::vector<double>{}));
  ASSERT_EQ(ValuesOf(nan_norm, SeriesId::kGradNorm).size(), 1u);
  EXPECT_TRUE(std::isnan(ValuesOf(nan_norm, SeriesId::kGradNorm)[0]));
}

}  // namespace
}  // namespace triage
