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

// Note: [Names in alphabetic scripts]: the names in Spanish, Portuguese, French, German and Russian, read
// as whole words only; the Chinese and Japanese word for accuracy (精度), which also makes a head translated.
TEST(PastedNames, ReadsNamesInAlphabeticScriptsAsWholeWords) {
  const std::string es = "\xc3\x89poca 1/10 - p\xc3\xa9rdida: 2.3026 - exactitud: 0.1000 - val_loss: 2.3026\n"   // Época, pérdida
                         "\xc3\x89poca 2/10 - p\xc3\xa9rdida: 2.3025 - exactitud: 0.1000 - val_loss: 2.3026\n";
  const PastedNames names = PastedNames::Detect(es);
  ASSERT_TRUE(names.translated());
  MetricCollector m;
  m.Feed(Renamed(names, es, 5));
  m.FinishInput();
  ASSERT_NE(m.Find(SeriesId::kLoss), nullptr);
  EXPECT_EQ(m.Find(SeriesId::kLoss)->Points().size(), 2u);
  ASSERT_NE(m.Find(SeriesId::kAcc), nullptr);
  EXPECT_DOUBLE_EQ(m.Find(SeriesId::kAcc)->Points()[0].value, 0.1);
  EXPECT_EQ(m.Find(SeriesId::kLoss)->Points()[1].epoch, 2);
  // Эпоха 1, потери: 0.6931, точность: 0.5000
  const std::string ru = "\xd0\xad\xd0\xbf\xd0\xbe\xd1\x85\xd0\xb0 1, \xd0\xbf\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd0\xb8: 0.6931, "
                         "\xd1\x82\xd0\xbe\xd1\x87\xd0\xbd\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c: 0.5000";
  EXPECT_EQ(Renamed(PastedNames::Detect(ru), ru + "\n", 3), " epoch  1,  loss : 0.6931,  acc : 0.5000\n");
  // Compounds first; a word inside a longer one is left alone (perdas, Verlustfunktion).
  const PastedNames de = PastedNames::Detect("Verlust");
  EXPECT_EQ(Renamed(de, "Epoche 1: Trainingsverlust 0.69, Validierungsverlust 0.70, Genauigkeit 0.50\n", 4),
            " epoch  1:  train_loss  0.69,  val_loss  0.70,  acc  0.50\n");
  EXPECT_EQ(Renamed(de, "Verlustfunktion: MSE, perdas 3\n", 4), "Verlustfunktion: MSE, perdas 3\n");
  // 训练精度: 0.10 验证精度: 0.10 (training and validation accuracy), with an English loss.
  const std::string zh = "epoch 1 \xe8\xae\xad\xe7\xbb\x83\xe7\xb2\xbe\xe5\xba\xa6: 0.10 \xe9\xaa\x8c\xe8\xaf\x81\xe7\xb2\xbe\xe5\xba\xa6: 0.10 loss: 2.30\n";
  const PastedNames zh_names = PastedNames::Detect(zh);
  ASSERT_TRUE(zh_names.translated());
  EXPECT_EQ(Renamed(zh_names, zh, 6), "epoch 1  acc : 0.10  val_acc : 0.10 loss: 2.30\n");
  // A head that holds the word only inside a longer one is translated, and the line passes unchanged.
  const std::string pt = "epoch 1 loss 0.5 perdas 3\n";
  EXPECT_EQ(Renamed(PastedNames::Detect(pt), pt, 4), pt);
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
