// Note: [Srun labels]
// `srun --label` writes each task's number before every line that task prints: "2: Traceback ...",
// right-aligned to the widest number (" 2: " among 16 tasks). A line of ordinary output can start the
// same way (an enumeration "0: cat", a class table "  3: truck", a numbered line of a message), so a
// label is removed only once the input has shown srun's labelling: a label before a traceback header,
// a frame line or an exception line, which is how a labelled task's failure starts (and a line the log
// path always reads: it holds an idle keyword). From then on every labelled line loses its label and
// carries the task as its rank (Note: [Streams] in segmenter.cc); before, a labelled line is read as it
// stands.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_SRUN_LABEL_H_
#define TRIAGE_ENGINE_LOG_FORMATS_SRUN_LABEL_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class SrunLabelReader {
 public:
  // `line` hook: removes a task label from *line, once the input shows them, and sets the line's rank.
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of a label at the start of `line` (0 when none) and its task number.
  static size_t Label(std::string_view line, std::string* task);
  bool Strip(Segmenter& s, std::string* line);

 private:
  bool labelled_ = false;  // the input has shown srun's labels
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_SRUN_LABEL_H_
