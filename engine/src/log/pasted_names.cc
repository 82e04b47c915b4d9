// Note: [Pasted series names] (pasted_names.h): undoing Markdown's escapes and translating series
// names for metric extraction, in inputs whose head shows them.
#include "log/pasted_names.h"

#include <cstring>

#include "log/formats/markdown_escape.h"
#include "log/formats/text.h"

namespace triage {
namespace {

struct Translation {
  const char* word;
  const char* name;
};

// Longest first where one word holds another (训练损失 before 损失).
constexpr Translation kTranslations[] = {
    // Chinese (simplified)
    {"\xe8\xae\xad\xe7\xbb\x83\xe9\x9b\x86\xe6\x8d\x9f\xe5\xa4\xb1", "train_loss"},  // 训练集损失
    {"\xe9\xaa\x8c\xe8\xaf\x81\xe9\x9b\x86\xe6\x8d\x9f\xe5\xa4\xb1", "val_loss"},    // 验证集损失
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86\xe6\x8d\x9f\xe5\xa4\xb1", "test_loss"},   // 测试集损失
    {"\xe8\xae\xad\xe7\xbb\x83\xe6\x8d\x9f\xe5\xa4\xb1", "train_loss"},              // 训练损失
    {"\xe9\xaa\x8c\xe8\xaf\x81\xe6\x8d\x9f\xe5\xa4\xb1", "val_loss"},                // 验证损失
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe6\x8d\x9f\xe5\xa4\xb1", "test_loss"},               // 测试损失
    {"\xe6\x8d\x9f\xe5\xa4\xb1\xe5\x80\xbc", "loss"},                                // 损失值
    {"\xe6\x8d\x9f\xe5\xa4\xb1", "loss"},                                            // 损失
    {"\xe9\xaa\x8c\xe8\xaf\x81\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87", "val_acc"},     // 验证准确率
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87", "test_acc"},  // 测试集准确率
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87", "test_acc"},  // 测试准确率
    {"\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87", "acc"},                                 // 准确率
    {"\xe6\xad\xa3\xe7\xa1\xae\xe7\x8e\x87", "acc"},                                 // 正确率
    {"\xe8\xae\xad\xe7\xbb\x83\xe7\xb2\xbe\xe5\xba\xa6", "acc"},  // 训练精度
    {"\xe9\xaa\x8c\xe8\xaf\x81\xe7\xb2\xbe\xe5\xba\xa6", "val_acc"},  // 验证精度
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe7\xb2\xbe\xe5\xba\xa6", "test_acc"},  // 测试精度
    {"\xe5\x87\x86\xe7\xa1\xae\xe5\xba\xa6", "acc"},  // 准确度
    {"\xe5\xad\xa6\xe4\xb9\xa0\xe7\x8e\x87", "lr"},                                  // 学习率
    // Chinese (traditional) and Japanese
    {"\xe8\xa8\x93\xe7\xb7\xb4\xe6\x90\x8d\xe5\xa4\xb1", "train_loss"},              // 訓練損失
    {"\xe5\xad\xa6\xe7\xbf\x92\xe6\x90\x8d\xe5\xa4\xb1", "train_loss"},              // 学習損失 (ja)
    {"\xe9\xa9\x97\xe8\xad\x89\xe6\x90\x8d\xe5\xa4\xb1", "val_loss"},                // 驗證損失
    {"\xe6\xa4\x9c\xe8\xa8\xbc\xe6\x90\x8d\xe5\xa4\xb1", "val_loss"},                // 検証損失 (ja)
    {"\xe6\x90\x8d\xe5\xa4\xb1", "loss"},                                            // 損失
    {"\xe6\xba\x96\xe7\xa2\xba\xe7\x8e\x87", "acc"},                                 // 準確率
    {"\xe6\xad\xa3\xe8\xa7\xa3\xe7\x8e\x87", "acc"},                                 // 正解率 (ja)
    {"\xe5\xad\xb8\xe7\xbf\x92\xe7\x8e\x87", "lr"},                                  // 學習率
    {"\xe5\xad\xa6\xe7\xbf\x92\xe7\x8e\x87", "lr"},                                  // 学習率 (ja)
    {"\xe6\xa4\x9c\xe8\xa8\xbc\xe7\xb2\xbe\xe5\xba\xa6", "val_acc"},  // 検証精度
    {"\xe5\xad\xa6\xe7\xbf\x92\xe7\xb2\xbe\xe5\xba\xa6", "acc"},  // 学習精度
    {"\xe7\xb2\xbe\xe5\xba\xa6", "acc"},  // 精度
    // Korean
    {"\xed\x9b\x88\xeb\xa0\xa8 \xec\x86\x90\xec\x8b\xa4", "train_loss"},              // 훈련 손실
    {"\xed\x95\x99\xec\x8a\xb5 \xec\x86\x90\xec\x8b\xa4", "train_loss"},              // 학습 손실
    {"\xea\xb2\x80\xec\xa6\x9d \xec\x86\x90\xec\x8b\xa4", "val_loss"},                // 검증 손실
    {"\xea\xb2\x80\xec\xa6\x9d \xec\xa0\x95\xed\x99\x95\xeb\x8f\x84", "val_acc"},  // 검증 정확도
    {"\xed\x85\x8c\xec\x8a\xa4\xed\x8a\xb8 \xec\xa0\x95\xed\x99\x95\xeb\x8f\x84", "test_acc"},  // 테스트 정확도
    {"\xed\x85\x8c\xec\x8a\xa4\xed\x8a\xb8 \xec\x86\x90\xec\x8b\xa4", "test_loss"},  // 테스트 손실
    {"\xec\x86\x90\xec\x8b\xa4", "loss"},                                            // 손실
    {"\xec\xa0\x95\xed\x99\x95\xeb\x8f\x84", "acc"},                                 // 정확도
    {"\xed\x95\x99\xec\x8a\xb5\xeb\xa5\xa0", "lr"},                                  // 학습률
    // The data set a line reports on, in Chinese (simplified, traditional), before an English name
    // ("整体测试集上的Loss: 262.6", the test-set lines of a widely copied Chinese PyTorch course): the
    // English word for the split, which makes the line an evaluation's (Note: [Evaluation lines] in
    // metrics.cc). After the compound names above that hold them (测试集损失).
    {"\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86", "test"},                                // 测试集
    {"\xe9\xaa\x8c\xe8\xaf\x81\xe9\x9b\x86", "val"},                                 // 验证集
    {"\xe8\xae\xad\xe7\xbb\x83\xe9\x9b\x86", "train"},                               // 训练集
    {"\xe6\xb8\xac\xe8\xa9\xa6\xe9\x9b\x86", "test"},                                // 測試集
    {"\xe9\xa9\x97\xe8\xad\x89\xe9\x9b\x86", "val"},                                 // 驗證集
    {"\xe8\xa8\x93\xe7\xb7\xb4\xe9\x9b\x86", "train"},                               // 訓練集
};

// Note: [Names in alphabetic scripts]. The same names in the languages of other Latin and Cyrillic scripts
// (Spanish, Portuguese, French, German, Russian), small and capital first letter, read only as whole words
// (no letter before or after them: "perda" is not read in "perdas"), longest first where one holds
// another. A word that means precision as well as accuracy in its language (precisión, précision,
// precisão) is left out: an F1 run's precision read as its accuracy would look stuck.
constexpr Translation kWordTranslations[] = {
    {"p\xc3\xa9rdida de validaci\xc3\xb3n", "val_loss"},  // pérdida de validación
    {"P\xc3\xa9rdida de validaci\xc3\xb3n", "val_loss"},
    {"p\xc3\xa9rdida de entrenamiento", "train_loss"},  // pérdida de entrenamiento
    {"P\xc3\xa9rdida de entrenamiento", "train_loss"},
    {"p\xc3\xa9rdida de prueba", "test_loss"},  // pérdida de prueba
    {"P\xc3\xa9rdida de prueba", "test_loss"},
    {"p\xc3\xa9rdida", "loss"},  // pérdida
    {"P\xc3\xa9rdida", "loss"},
    {"exactitud", "acc"},  // exactitud
    {"Exactitud", "acc"},
    {"\xc3\xa9poca", "epoch"},  // época
    {"\xc3\x89poca", "epoch"},
    {"tasa de aprendizaje", "lr"},  // tasa de aprendizaje
    {"Tasa de aprendizaje", "lr"},
    {"perda de valida\xc3\xa7\xc3\xa3o", "val_loss"},  // perda de validação
    {"Perda de valida\xc3\xa7\xc3\xa3o", "val_loss"},
    {"perda de treinamento", "train_loss"},  // perda de treinamento
    {"Perda de treinamento", "train_loss"},
    {"perda de treino", "train_loss"},  // perda de treino
    {"Perda de treino", "train_loss"},
    {"perda de teste", "test_loss"},  // perda de teste
    {"Perda de teste", "test_loss"},
    {"perda", "loss"},  // perda
    {"Perda", "loss"},
    {"acur\xc3\xa1" "cia de valida\xc3\xa7\xc3\xa3o", "val_acc"},  // acurácia de validação
    {"Acur\xc3\xa1" "cia de valida\xc3\xa7\xc3\xa3o", "val_acc"},
    {"acur\xc3\xa1" "cia", "acc"},  // acurácia
    {"Acur\xc3\xa1" "cia", "acc"},
    {"taxa de aprendizado", "lr"},  // taxa de aprendizado
    {"Taxa de aprendizado", "lr"},
    {"perte de validation", "val_loss"},  // perte de validation
    {"Perte de validation", "val_loss"},
    {"perte d'entra\xc3\xaenement", "train_loss"},  // perte d'entraînement
    {"Perte d'entra\xc3\xaenement", "train_loss"},
    {"perte de test", "test_loss"},  // perte de test
    {"Perte de test", "test_loss"},
    {"perte", "loss"},  // perte
    {"Perte", "loss"},
    {"exactitude", "acc"},  // exactitude
    {"Exactitude", "acc"},
    {"\xc3\xa9poque", "epoch"},  // époque
    {"\xc3\x89poque", "epoch"},
    {"taux d'apprentissage", "lr"},  // taux d'apprentissage
    {"Taux d'apprentissage", "lr"},
    {"validierungsverlust", "val_loss"},  // validierungsverlust
    {"Validierungsverlust", "val_loss"},
    {"trainingsverlust", "train_loss"},  // trainingsverlust
    {"Trainingsverlust", "train_loss"},
    {"testverlust", "test_loss"},  // testverlust
    {"Testverlust", "test_loss"},
    {"verlust", "loss"},  // verlust
    {"Verlust", "loss"},
    {"validierungsgenauigkeit", "val_acc"},  // validierungsgenauigkeit
    {"Validierungsgenauigkeit", "val_acc"},
    {"genauigkeit", "acc"},  // genauigkeit
    {"Genauigkeit", "acc"},
    {"epoche", "epoch"},  // epoche
    {"Epoche", "epoch"},
    {"lernrate", "lr"},  // lernrate
    {"Lernrate", "lr"},
    {"\xd0\xbf\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd0\xb8", "loss"},  // потери
    {"\xd0\x9f\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd0\xb8", "loss"},
    {"\xd0\xbf\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd1\x8f", "loss"},  // потеря
    {"\xd0\x9f\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd1\x8f", "loss"},
    {"\xd1\x82\xd0\xbe\xd1\x87\xd0\xbd\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c", "acc"},  // точность
    {"\xd0\xa2\xd0\xbe\xd1\x87\xd0\xbd\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c", "acc"},
    {"\xd1\x8d\xd0\xbf\xd0\xbe\xd1\x85\xd0\xb0", "epoch"},  // эпоха
    {"\xd0\xad\xd0\xbf\xd0\xbe\xd1\x85\xd0\xb0", "epoch"},
    {"\xd1\x81\xd0\xba\xd0\xbe\xd1\x80\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c \xd0\xbe\xd0\xb1\xd1\x83\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd1\x8f", "lr"},  // скорость обучения
    {"\xd0\xa1\xd0\xba\xd0\xbe\xd1\x80\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c \xd0\xbe\xd0\xb1\xd1\x83\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd1\x8f", "lr"},
};

// The word for "loss" in each script, and the evaluation data sets' names (测试集, 验证集 and their
// traditional forms, which a line prints before an English "Loss"), and the words for accuracy (a log
// that prints its loss under the English name and its accuracy in its own language, "训练精度"): a head
// holding none has no translated names worth reading.
constexpr const char* kLossWords[] = {"\xe6\x8d\x9f\xe5\xa4\xb1", "\xe6\x90\x8d\xe5\xa4\xb1", "\xec\x86\x90\xec\x8b\xa4",
                                      "\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86", "\xe9\xaa\x8c\xe8\xaf\x81\xe9\x9b\x86",
                                      "\xe6\xb8\xac\xe8\xa9\xa6\xe9\x9b\x86", "\xe9\xa9\x97\xe8\xad\x89\xe9\x9b\x86",
                                      "\xe5\x87\x86\xe7\xa1\xae\xe7\x8e\x87"  /* 准确率 */,
                                      "\xe7\xb2\xbe\xe5\xba\xa6"  /* 精度 */,
                                      "\xe6\xad\xa3\xe7\xa1\xae\xe7\x8e\x87"  /* 正确率 */,
                                      "\xec\xa0\x95\xed\x99\x95\xeb\x8f\x84"  /* 정확도 */,
                                      "\xe6\xad\xa3\xe8\xa7\xa3\xe7\x8e\x87"  /* 正解率 */,
                                      "\xe6\xba\x96\xe7\xa2\xba\xe7\x8e\x87"  /* 準確率 */,
                                      "p\xc3\xa9rdida",
                                      "P\xc3\xa9rdida",
                                      "perda",
                                      "Perda",
                                      "perte",
                                      "Perte",
                                      "Verlust",
                                      "verlust",
                                      "\xd0\xbf\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd0\xb8",
                                      "\xd0\x9f\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd0\xb8",
                                      "\xd0\xbf\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd1\x8f",
                                      "\xd0\x9f\xd0\xbe\xd1\x82\xd0\xb5\xd1\x80\xd1\x8f",
                                      "exactitud",
                                      "Exactitud",
                                      "acur\xc3\xa1" "cia",
                                      "Acur\xc3\xa1" "cia",
                                      "Genauigkeit",
                                      "genauigkeit",
                                      "\xd1\x82\xd0\xbe\xd1\x87\xd0\xbd\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c",
                                      "\xd0\xa2\xd0\xbe\xd1\x87\xd0\xbd\xd0\xbe\xd1\x81\xd1\x82\xd1\x8c"};

bool Holds(std::string_view text, std::string_view word) {
  // The words start with 0xE6 or 0xEC: memchr finds the candidates.
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end) {
    const void* hit = std::memchr(p, word[0], static_cast<size_t>(end - p));
    if (hit == nullptr) return false;
    p = static_cast<const char*>(hit);
    if (static_cast<size_t>(end - p) >= word.size() && std::memcmp(p, word.data(), word.size()) == 0) return true;
    ++p;
  }
  return false;
}

// A byte of a letter: an ASCII letter, or any byte of a character outside ASCII (the scripts' letters).
bool LetterByte(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || static_cast<unsigned>((u | 0x20) - 'a') < 26u;
}

// Replaces each whole-word occurrence of t.word in *line by t.name with a blank on either side.
void ReplaceWord(const Translation& t, std::string* line) {
  const std::string_view word(t.word);
  size_t at = line->find(word);
  if (at == std::string::npos) return;
  std::string with;
  size_t from = 0;
  for (; at != std::string::npos; at = line->find(word, at + 1)) {
    const size_t after = at + word.size();
    if ((at > 0 && LetterByte((*line)[at - 1])) || (after < line->size() && LetterByte((*line)[after]))) continue;
    with.append(*line, from, at - from);
    with += ' ';
    with += t.name;
    with += ' ';
    from = after;
  }
  if (from == 0) return;
  with.append(*line, from, std::string::npos);
  line->swap(with);
}

}  // namespace

PastedNames PastedNames::Detect(std::string_view head) {
  PastedNames names;
  names.escapes_ = head.find("\\_") != std::string_view::npos || head.find("\\*") != std::string_view::npos;
  for (const char* word : kLossWords) names.translated_ = names.translated_ || Holds(head, word);
  for (const char* quote : {"\xe2\x80\x98", "\xe2\x80\x99", "\xe2\x80\x9c", "\xe2\x80\x9d"}) {
    names.curly_ = names.curly_ || Holds(head, quote);
  }
  return names;
}

void PastedNames::Rewrite(std::string* line) const {
  if (escapes_) MarkdownEscapeReader::Unescape(line);
  if (curly_) text::NormalizeTypography(line);  // Note: [Typographic characters] in formats/text.h
  if (!translated_) return;
  for (const Translation& t : kWordTranslations) ReplaceWord(t, line);  // Note: [Names in alphabetic scripts]
  for (const Translation& t : kTranslations) {
    const std::string_view word(t.word);
    size_t at = line->find(word);
    if (at == std::string::npos) continue;
    std::string with;
    with.reserve(line->size() + 16);
    size_t from = 0;
    for (; at != std::string::npos; at = line->find(word, from)) {
      with.append(*line, from, at - from);
      with += ' ';
      with += t.name;
      with += ' ';
      from = at + word.size();
    }
    with.append(*line, from, std::string::npos);
    line->swap(with);
  }
}

void PastedNames::Feed(std::string_view data, std::string* out) {
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    const std::string_view piece = data.substr(0, nl);
    if (passing_) {
      out->append(piece);
    } else if (carry_.size() + piece.size() > kMaxLine) {
      out->append(carry_);
      out->append(piece);
      carry_.clear();
      passing_ = true;
    } else {
      carry_.append(piece);
    }
    if (nl == std::string_view::npos) return;
    if (!passing_) {
      Rewrite(&carry_);
      out->append(carry_);
      carry_.clear();
    }
    out->push_back('\n');
    passing_ = false;
    data.remove_prefix(nl + 1);
  }
}

void PastedNames::Pending(std::string* out) const {
  if (carry_.empty()) return;
  std::string line = carry_;
  Rewrite(&line);
  out->append(line);
}

void PastedNames::Finish(std::string* out) {
  Pending(out);
  carry_.clear();
  passing_ = false;
}

}  // namespace triage
