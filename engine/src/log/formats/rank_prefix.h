// Note: [Rank prefix]
// torch 2.x's elastic agent writes "[rank3]: " before every line of rank 3's output, torchrun --tee
// writes "[default3]:" (a colon, no space) and some launchers "[Rank3]". The prefix is unambiguous
// where it is present: a bracket, one of these words, digits, a bracket, at the very start of the line.
// Prefixes can nest (torchrun --tee's "[default0]:" around a process that writes "[rank0]: " itself): all are
// removed, and the rank is the innermost one.
// The reader removes it from that line and records the rank, whatever else the log holds (Note:
// [Streams] in segmenter.cc: an open incident knows the lines of other ranks by it).
#ifndef TRIAGE_ENGINE_LOG_FORMATS_RANK_PREFIX_H_
#define TRIAGE_ENGINE_LOG_FORMATS_RANK_PREFIX_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class RankPrefixReader {
 public:
  // `line` hook: removes a rank prefix from *line and sets the line's rank (Segmenter::set_rank).
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of the rank prefix at the start of `line` (0 when none; nested prefixes together) and its rank
  // (the innermost).
  static size_t Prefix(std::string_view line, std::string* rank);

 private:
  static size_t OnePrefix(std::string_view line, std::string* rank);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_RANK_PREFIX_H_
