#include "log/formats/pdb_prompt.h"

#include "log/formats/text.h"

namespace triage {

size_t PdbPromptReader::Prompt(std::string_view line) {
  for (std::string_view prompt : {"(Pdb) ", "(Pdb++) ", "ipdb> "}) {
    if (text::StartsWith(line, prompt)) return prompt.size();
  }
  return 0;
}

bool PdbPromptReader::LineHook(Segmenter&, std::string* line) {
  if (size_t n = Prompt(*line); n > 0) line->erase(0, n);
  return true;
}

}  // namespace triage
