#include "log/formats/learned_prefix.h"

#include <cctype>
#include <string_view>

#include "log/segmenter.h"

namespace triage {
namespace {

constexpr char kDigitRun = '\x01';

// True for text that can be a per-line log prefix: short, ends at a separator, holds a digit or a
// bracket (a time, a pid, a level tag), and no quote or '=' (which mean the header sits inside a value:
// `error="Traceback ...`).
bool LooksLikeLogPrefix(std::string_view p) {
  if (p.empty() || p.size() > 100) return false;
  char last = p.back();
  if (last != ' ' && last != ':' && last != ']' && last != '|') return false;
  if (p.find_first_of("\"'=\\") != std::string_view::npos) return false;
  // A progress bar never ended with a newline (tqdm's `  0%|    | 0/40995 [00:00<?, ?it/s]`) is on this
  // line only: the traceback's own lines do not repeat it (Note: [Glued headers] in python_traceback.cc).
  if (p.find("it/s") != std::string_view::npos || p.find("s/it") != std::string_view::npos ||
      p.find("%|") != std::string_view::npos) {
    return false;
  }
  return p.find_first_of("0123456789]") != std::string_view::npos;
}

std::string ShapeOf(std::string_view p) {
  std::string shape;
  for (size_t i = 0; i < p.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(p[i]))) {
      while (i + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[i + 1]))) ++i;
      shape += kDigitRun;
    } else {
      shape += p[i];
    }
  }
  return shape;
}

// Returns the length of the prefix of `line` that has `shape`, or 0.
size_t MatchShape(std::string_view shape, std::string_view line) {
  size_t j = 0;
  for (char c : shape) {
    if (c == kDigitRun) {
      if (j >= line.size() || !std::isdigit(static_cast<unsigned char>(line[j]))) return 0;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    } else {
      if (j >= line.size() || line[j] != c) return 0;
      ++j;
    }
  }
  return j;
}

}  // namespace

bool LearnedPrefixReader::LineHook(Segmenter& s, std::string* line) {
  // Only a line that mentions a traceback header can teach a new prefix.
  const BlockReader* block = s.open_block();
  const bool may_learn = s.state() == Segmenter::State::kIdle || (block && block->MayLearnPrefix());
  if (s.readers().learned_prefix.Strip(line, may_learn)) s.set_line_prefixed();
  return true;
}

bool LearnedPrefixReader::Strip(std::string* line, bool may_learn) {
  if (size_t n = shape_.empty() ? 0 : MatchShape(shape_, *line); n > 0) {
    line->erase(0, n);
    return true;
  }
  if (!may_learn) return false;
  size_t p = line->find("Traceback (most recent call last):");
  // The header's own first word is not part of the prefix: a DataLoader worker's "Original Traceback" and
  // an ExceptionGroup's "Exception Group Traceback" keep it (a logged worker re-raise would otherwise
  // teach "... - ERROR - Original " and lose the wrapper).
  for (std::string_view word : {std::string_view("Original "), std::string_view("Exception Group ")}) {
    if (p != std::string::npos && p >= word.size() && std::string_view(*line).substr(p - word.size(), word.size()) == word) {
      p -= word.size();
    }
  }
  if (p != std::string::npos && p > 0 && LooksLikeLogPrefix(std::string_view(*line).substr(0, p))) {
    shape_ = ShapeOf(std::string_view(*line).substr(0, p));
    line->erase(0, p);
    return true;
  }
  return false;
}

}  // namespace triage
