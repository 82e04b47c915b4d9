// Note: [Pasted series names]
// Metric extraction knows series by their English names as programs print them (loss, val_loss,
// train_loss, acc, lr, ...). Two ways a person hands over a log change those names:
//   - a paste through a Markdown converter (an issue form's rich mode, a notebook's Markdown cell)
//     escapes '_' and '*': "val\_loss: 0.71", "{'train\_loss': 2.30}";
//   - a training script written in Chinese, Japanese or Korean prints the names in that language:
//     "训练损失: 0.693, 验证损失: 0.701" (zh), "検証損失" (ja), "검증 손실" (ko), "训练精度" (accuracy), or prints
//     an English name after the Chinese name of the data set it reports on: "整体测试集上的Loss: 262.6" (the
//     whole test set's loss); and a script written in Spanish, Portuguese, French, German or Russian prints
//     "Época 3 - pérdida: 2.30", "Trainingsverlust 0.69", "потери: 0.69, точность: 0.50" (Note: [Names in
//     alphabetic scripts] in pasted_names.cc: whole words only);
//   - a chat client or word processor makes quotes curly: "{‘loss’: 0.69}", "{“loss”: 0.69}" (read with
//     straight quotes, and no-break spaces as spaces, as the segmenter reads them: Note: [Typographic
//     characters] in formats/text.h; 5 of the corpus's logs diagnosed from metrics lost their diagnosis
//     so before, tests/paste_forms_test.cc).
// The input's head (the first lines a session holds to look for a hard wrap: Note: [Hard-wrapped
// pastes] in hard_wrap.h) says which are there: a "\_" or "\*" for the escapes, the word for
// "loss" (损失, 損失, 손실, pérdida, perda, perte, Verlust, потери), the word for accuracy (准确率, 精度, 정확도,
// exactitud, acurácia, Genauigkeit, точность) or an evaluation data set's name (测试集, 验证集, 測試集, 驗證集) for the
// translated names, a curly quote for the quotes. Only then does the session hand metric
// extraction its lines rewritten: the escapes undone as the segmenter undoes them (outside Windows
// paths: Note: [Markdown escapes] in formats/markdown_escape.h), and the translated names replaced by
// the English names of the same series, with a blank on either side so that the characters around
// them do not join the name ("第1轮训练损失:0.69" reads as "第1轮 train_loss :0.69"). kTranslations
// lists them: only words whose meaning is not in doubt (loss, training and validation loss, accuracy,
// learning rate; "test loss" and "test accuracy" as test_loss and test_acc, which metric extraction
// reads as the evaluation's, as it does the English ones; the data sets' names 测试集, 验证集 and 训练集 as
// "test", "val" and "train", which make the names after them on the line the evaluation's or the
// training's: Note: [Evaluation lines] in metrics.cc). The segmenter reads the lines as they are.
// Every other input pays a few searches of its head (for the two escapes, and memchr for the first byte
// of each word for loss).
//
// Not read: a log whose head holds neither (its names appear only after 200 lines of other output).
#ifndef TRIAGE_ENGINE_LOG_PASTED_NAMES_H_
#define TRIAGE_ENGINE_LOG_PASTED_NAMES_H_

#include <string>
#include <string_view>

namespace triage {

class PastedNames {
 public:
  // What `head` shows; `active()` is false for an input that needs no rewriting.
  static PastedNames Detect(std::string_view head);

  bool active() const { return escapes_ || translated_ || curly_; }
  bool escapes() const { return escapes_; }
  bool translated() const { return translated_; }

  // Appends `data` to *out, its whole lines rewritten; an unfinished last line waits for the next call
  // (at most kMaxLine bytes, then it is passed on as it is).
  void Feed(std::string_view data, std::string* out);
  // Ends the input: appends the unfinished last line, rewritten.
  void Finish(std::string* out);
  // Appends the unfinished last line, rewritten, without ending the input (for a snapshot).
  void Pending(std::string* out) const;

  // Rewrites one line (no '\n').
  void Rewrite(std::string* line) const;

 private:
  static constexpr size_t kMaxLine = 64 * 1024;

  bool escapes_ = false;
  bool translated_ = false;
  bool curly_ = false;
  bool passing_ = false;  // the line being read outgrew kMaxLine: its rest goes on as it is
  std::string carry_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_PASTED_NAMES_H_
