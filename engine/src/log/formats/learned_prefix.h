// Note: [Learned prefix]
// docker, journalctl, GitHub Actions and logging formatters put a prefix ("2024-03-02T10:15:31.48Z ",
// "Mar 02 10:15:31 host python3[48211]: ", "[2024-01-01 12:00:00,123][ERROR] ") before EVERY line of a
// traceback. Rather than list formats, the segmenter learns the prefix from the text before a
// "Traceback (most recent call last):" header and strips lines of the same shape: the same bytes, except
// that each run of digits matches any run of digits (timestamps, pids). Matching costs one pass over the
// prefix, and only for lines the segmenter reads.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_
#define TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_

#include <string>

namespace triage {

class Segmenter;

class LearnedPrefixReader {
 public:
  // `line` hook: strips the prefix from every normalised line; one may teach a new prefix while no
  // incident or block is open, or in a block that allows it (BlockReader::MayLearnPrefix). A line
  // that carried the prefix is marked so (Segmenter::set_line_prefixed: Note: [Streams]).
  static bool LineHook(Segmenter& s, std::string* line);
  // Removes the learned prefix from *line; while `may_learn` (no block open), a line whose text before
  // a traceback header looks like a log prefix teaches a new one. Returns true when a prefix was removed.
  bool Strip(std::string* line, bool may_learn);

 private:
  std::string shape_;  // the prefix learned; may be empty
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_LEARNED_PREFIX_H_
