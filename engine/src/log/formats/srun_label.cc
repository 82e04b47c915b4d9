#include "log/formats/srun_label.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

size_t SrunLabelReader::Label(std::string_view line, std::string* task) {
  // (Read byte by byte: find_first_not_of with a set of digits looks each byte up in the set.)
  size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i == line.size() || i >= 4) return 0;
  size_t d = i;
  while (d < line.size() && d - i <= 5 && line[d] >= '0' && line[d] <= '9') ++d;
  if (d == i || d - i > 5 || d + 1 >= line.size() || line[d] != ':' || line[d + 1] != ' ') {
    return 0;
  }
  *task = std::string(line.substr(i, d - i));
  return d + 2;
}

bool SrunLabelReader::LineHook(Segmenter& s, std::string* line) {
  s.readers().srun_label.Strip(s, line);
  return true;
}

bool SrunLabelReader::Strip(Segmenter& s, std::string* line) {
  std::string task;
  const size_t n = Label(*line, &task);
  if (n == 0) return false;
  if (!labelled_) {
    std::string_view rest = text::Trim(std::string_view(*line).substr(n));
    labelled_ = text::StartsWith(rest, "Traceback (most recent call last)") || text::StartsWith(rest, "File \"") ||
                text::IsExceptionLine(rest);
    if (!labelled_) return false;
  }
  line->erase(0, n);
  s.set_rank(std::move(task));
  return true;
}

}  // namespace triage
