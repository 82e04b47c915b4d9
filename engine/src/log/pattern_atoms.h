#ifndef TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_
#define TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace triage {

// RE2's FilteredRE2 prefilter (minimum atom length 3, RegexOptions()) for one pattern added alone, read
// from the pattern's text without RE2's prefilter analysis (Note: [Literal fast path] in
// pattern_atoms.cc): the atoms FilteredRE2::Compile lists, in its order, and which sets of them let a
// match through, as FilteredRE2::AllPotentials answers. Usage:
//   if (std::optional<PatternPrefilter> p = ReadPatternPrefilter(pattern)) {
//     use p->atoms(); p->Passes({0, 2}) tells whether a text holding only atoms 0 and 2 may match
//   } else {
//     ask FilteredRE2
//   }
class PatternPrefilter {
 public:
  // Returns the atoms (lower-cased literals); empty when the pattern has no prefilter (it is matched
  // unfiltered).
  const std::vector<std::string>& atoms() const { return atoms_; }
  // Returns whether a text holding only the atoms at these indexes (into atoms(), each below its size)
  // may match: true always for a pattern without a prefilter.
  bool Passes(const std::vector<int>& present) const;
  // Returns whether `text` may match: Passes() of the atoms it holds, its ASCII letters read in lower case
  // (as the atoms are held).
  bool PassesText(std::string_view text) const;

 private:
  friend std::optional<PatternPrefilter> ReadPatternPrefilter(const std::string& pattern);
  struct Node {
    int atom = -1;            // an atom's index, or -1 for an AND (all) or OR (any) of children
    bool all = false;
    std::vector<int> children;  // node indexes, each below this node's
  };
  std::vector<std::string> atoms_;
  std::vector<Node> nodes_;
  int root_ = -1;
};

// Returns the prefilter of `pattern`, or nullopt for a pattern outside the subset of the syntax read
// here, which the caller asks FilteredRE2 about. `pattern` must be one RE2 accepts (with RegexOptions());
// thread-safe (no shared state).
std::optional<PatternPrefilter> ReadPatternPrefilter(const std::string& pattern);

// Returns an upper bound of the size of the program RE2 compiles `pattern` to alone with RegexOptions()
// (RE2::ProgramSize), counted from the text, for a pattern of the strict subset of the syntax described
// in Note: [Program size bound] (pattern_atoms.cc), every one of which RE2 accepts; nullopt for any other
// pattern, which only RE2's compile answers (it may not compile). Thread-safe (it keeps its thread's last answer).
std::optional<int> ProgramSizeBound(const std::string& pattern);

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_
