// Note: [Pasted series names] (log/pasted_names.h): metric extraction reads series names escaped by a
// Markdown converter or printed in Chinese, Japanese or Korean as the English names of the same
// series, when the input's head shows them; other inputs are read as they are.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "log/metrics.h"
#include "log/pasted_names.h"
#include "triage/triage.h"

namespace triage {
namespace {

std::string Renamed(const PastedNames& detected, std::string_view text, size_t chunk) {
  PastedNames names = detected;
  std::string out;
  for (size_t at = 0; at < text.size(); at += chunk) names.Feed(text.substr(at, chunk), &out);
  names.Finish(&out);
  return out;
}

TEST(PastedNames, DetectedFromTheHead) {
  EXPECT_FALSE(PastedNames::Detect("epoch 1 loss 0.5\nepoch 2 loss 0.4\n").active());
  EXPECT_FALSE(PastedNames::Detect("C:\\Users\\me\\train.py\n100%|\xe2\x96\x88\xe2\x96\x88| 10/10\n").active());
  EXPECT_TRUE(PastedNames::Detect("{'val\\_loss': 0.5}\n").escapes());
  EXPECT_TRUE(PastedNames::Detect("\xe7\xac\xac" "1\xe8\xbd\xae \xe6\x8d\x9f\xe5\xa4\xb1: 0.5\n").translated());  // 第1轮 损失
  EXPECT_TRUE(PastedNames::Detect("epoch 1 \xe6\x90\x8d\xe5\xa4\xb1 0.5\n").translated());                   // 損失
  EXPECT_TRUE(PastedNames::Detect("epoch 1 \xec\x86\x90\xec\x8b\xa4 0.5\n").translated());                   // 손실
  // 整体测试集上的Loss: 262.6 (the whole test set's Loss): the data set's name with an English name
  EXPECT_TRUE(PastedNames::Detect("\xe6\x95\xb4\xe4\xbd\x93\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86\xe4\xb8\x8a\xe7\x9a\x84Loss: 262.6\n")
                  .translated());
  EXPECT_FALSE(PastedNames::Detect("\xe8\xae\xad\xe7\xbb\x83\xe6\xac\xa1\xe6\x95\xb0\xef\xbc\x9a" "100, Loss\xef\xbc\x9a" "1.98\n").active());  // 训练次数：100
}

// A Chinese course's loop prints the training loss in English and the test set's summed loss and accuracy
// after the set's name ("整体测试集上的Loss", "整体测试集上的正确率"): those are the evaluation's, not a
// training loss 100 times larger (read so before, a healthy run was diagnosed as an unstable loss).
TEST(PastedNames, DataSetNamesMakeALineAnEvaluations) {
  const std::string log =
      "\xe8\xae\xad\xe7\xbb\x83\xe6\xac\xa1\xe6\x95\xb0\xef\xbc\x9a" "100, Loss\xef\xbc\x9a" "1.98\n"   // 训练次数：100, Loss：1.98
      "\xe6\x95\xb4\xe4\xbd\x93\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86\xe4\xb8\x8a\xe7\x9a\x84Loss: 262.6\n"  // 整体测试集上的Loss
      "\xe6\x95\xb4\xe4\xbd\x93\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86\xe4\xb8\x8a\xe7\x9a\x84\xe6\xad\xa3\xe7\xa1\xae\xe7\x8e\x87: 0.389\n"  // 整体测试集上的正确率
      "\xe9\xaa\x8c\xe8\xaf\x81\xe9\x9b\x86 acc: 0.41\n";  // 验证集 acc
  MetricCollector m;
  m.Feed(Renamed(PastedNames::Detect(log), log, 7));
  m.FinishInput();
  const MetricSeries* loss = m.Find(SeriesId::kLoss);
  const MetricSeries* val_loss = m.Find(SeriesId::kValLoss);
  const MetricSeries* val_acc = m.Find(SeriesId::kValAcc);
  ASSERT_TRUE(loss && val_loss && val_acc);
  EXPECT_EQ(loss->Points().size(), 1u);
  ASSERT_EQ(val_loss->Points().size(), 1u);
  EXPECT_DOUBLE_EQ(val_loss->Points()[0].value, 262.6);
  ASSERT_EQ(val_acc->Points().size(), 2u);
  EXPECT_DOUBLE_EQ(val_acc->Points()[0].value, 0.389);
  EXPECT_DOUBLE_EQ(val_acc->Points()[1].value, 0.41);
  EXPECT_EQ(m.Find(SeriesId::kAcc), nullptr);
}

TEST(PastedNames, RewritesNamesForMetricExtraction) {
  const PastedNames escaped = PastedNames::Detect("val\\_loss");
  EXPECT_EQ(Renamed(escaped, "{'train\\_loss': 2.3, 'val\\_loss': 2.4}\nC:\\data\\_cache\\x.py\n", 3),
            "{'train_loss': 2.3, 'val_loss': 2.4}\nC:\\data\\_cache\\x.py\n");
  const PastedNames zh = PastedNames::Detect("\xe6\x8d\x9f\xe5\xa4\xb1");
  // 第1轮训练损失:0.69，验证损失:0.71
  const std::string line = "\xe7\xac\xac" "1\xe8\xbd\xae\xe8\xae\xad\xe7\xbb\x83\xe6\x8d\x9f\xe5\xa4\xb1:0.69\xef\xbc\x8c"
                           "\xe9\xaa\x8c\xe8\xaf\x81\xe6\x8d\x9f\xe5\xa4\xb1:0.71";
  const std::string want = "\xe7\xac\xac" "1\xe8\xbd\xae train_loss :0.69\xef\xbc\x8c val_loss :0.71";
  for (size_t chunk : {size_t{1}, size_t{4}, line.size()}) {
    EXPECT_EQ(Renamed(zh, line + "\n" + line, chunk), want + "\n" + want) << chunk;
  }
  // 测试准确率: 0.61, 正确率: 0.58 (test accuracy, accuracy)
  EXPECT_EQ(Renamed(zh, "\xe6\xb5\x8b\xe8\xaf\x95\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87: 0.61, \xe6\xad\xa3\xe7\xa1\xae\xe7\x8e\x87: 0.58\n", 5),
            " test_acc : 0.61,  acc : 0.58\n");
  // Nothing to do: the text passes unchanged.
  EXPECT_EQ(Renamed(zh, "epoch 1 loss 0.5\n", 2), "epoch 1 loss 0.5\n");
}

// A run whose loss stays at ln 10 is diagnosed alike whichever way its names were pasted.
TEST(PastedNames, SeriesReadAsTheEnglishNames) {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  LoadResult loaded = LoadRules(o);
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  auto log = [](const std::string& loss, const std::string& val) {
    std::string text;
    for (int e = 1; e <= 20; ++e) {
      text += "Epoch " + std::to_string(e) + ", " + loss + ": 2.302" + std::to_string(5 + e % 2) + ", " + val +
              ": 2.3" + std::to_string(10 + e % 3) + "\n";
    }
    return text;
  };
  const Report plain = engine.DiagnoseText(log("train_loss", "val_loss"));
  ASSERT_FALSE(plain.diagnoses.empty());
  ASSERT_FALSE(plain.diagnoses[0].series.empty());
  const std::vector<std::pair<std::string, std::string>> pasted = {
      {"train\\_loss", "val\\_loss"},
      {"\xe8\xae\xad\xe7\xbb\x83\xe6\x8d\x9f\xe5\xa4\xb1", "\xe9\xaa\x8c\xe8\xaf\x81\xe6\x8d\x9f\xe5\xa4\xb1"},  // zh
      {"\xe5\xad\xa6\xe7\xbf\x92\xe6\x90\x8d\xe5\xa4\xb1", "\xe6\xa4\x9c\xe8\xa8\xbc\xe6\x90\x8d\xe5\xa4\xb1"},  // ja
      {"\xed\x9b\x88\xeb\xa0\xa8 \xec\x86\x90\xec\x8b\xa4", "\xea\xb2\x80\xec\xa6\x9d \xec\x86\x90\xec\x8b\xa4"},  // ko
  };
  for (const auto& [loss, val] : pasted) {
    const Report r = engine.DiagnoseText(log(loss, val));
    ASSERT_FALSE(r.diagnoses.empty()) << loss;
    EXPECT_EQ(r.diagnoses[0].rule, plain.diagnoses[0].rule) << loss;
    ASSERT_EQ(r.diagnoses[0].series.size(), plain.diagnoses[0].series.size()) << loss;
    for (size_t i = 0; i < r.diagnoses[0].series.size(); ++i) {
      EXPECT_EQ(r.diagnoses[0].series[i].name, plain.diagnoses[0].series[i].name) << loss;
      EXPECT_EQ(r.diagnoses[0].series[i].points, plain.diagnoses[0].series[i].points) << loss;
    }
  }
}

}  // namespace
}  // namespace triage
