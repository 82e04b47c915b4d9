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
    // Korean
    {"\xed\x9b\x88\xeb\xa0\xa8 \xec\x86\x90\xec\x8b\xa4", "train_loss"},              // 훈련 손실
    {"\xed\x95\x99\xec\x8a\xb5 \xec\x86\x90\xec\x8b\xa4", "train_loss"},              // 학습 손실
    {"\xea\xb2\x80\xec\xa6\x9d \xec\x86\x90\xec\x8b\xa4", "val_loss"},                // 검증 손실
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

// The word for "loss" in each script, and the evaluation data sets' names (测试集, 验证集 and their
// traditional forms, which a line prints before an English "Loss"): a head holding none has no translated
// names worth reading.
constexpr const char* kLossWords[] = {"\xe6\x8d\x9f\xe5\xa4\xb1", "\xe6\x90\x8d\xe5\xa4\xb1", "\xec\x86\x90\xec\x8b\xa4",
                                      "\xe6\xb5\x8b\xe8\xaf\x95\xe9\x9b\x86", "\xe9\xaa\x8c\xe8\xaf\x81\xe9\x9b\x86",
                                      "\xe6\xb8\xac\xe8\xa9\xa6\xe9\x9b\x86", "\xe9\xa9\x97\xe8\xad\x89\xe9\x9b\x86"};

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
