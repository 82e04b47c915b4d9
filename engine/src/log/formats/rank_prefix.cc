#include "log/formats/rank_prefix.h"

#include "log/segmenter.h"

namespace triage {

size_t RankPrefixReader::Prefix(std::string_view line, std::string* rank) {
  // Nested prefixes ("[default0]:[rank0]: ", torchrun --tee around a process that writes its own rank prefix)
  // are removed together; the rank is the innermost one, the process's own.
  size_t total = 0;
  for (int depth = 0; depth < 4; ++depth) {
    const size_t n = OnePrefix(line.substr(total), rank);
    if (n == 0) break;
    total += n;
  }
  return total;
}

size_t RankPrefixReader::OnePrefix(std::string_view line, std::string* rank) {
  if (line.empty() || line[0] != '[') return 0;
  size_t close = line.find(']');
  if (close == std::string_view::npos || close >= 24) return 0;
  std::string_view tag = line.substr(1, close - 1);
  size_t digits = tag.find_first_of("0123456789");
  if (digits == std::string_view::npos) return 0;
  std::string_view word = tag.substr(0, digits);
  if ((word != "rank" && word != "default" && word != "Rank") ||
      tag.find_first_not_of("0123456789", digits) != std::string_view::npos) {
    return 0;
  }
  *rank = std::string(tag.substr(digits));
  // torch 2.x writes "[rank1]: " + the original line: drop the one separating space too.
  size_t cut = close + 1;
  if (cut < line.size() && line[cut] == ':') ++cut;
  if (cut < line.size() && line[cut] == ' ') ++cut;
  return cut;
}

bool RankPrefixReader::LineHook(Segmenter& s, std::string* line) {
  std::string rank;
  if (size_t n = Prefix(*line, &rank); n > 0) {
    line->erase(0, n);
    s.set_rank(std::move(rank));
  }
  return true;
}

}  // namespace triage
