#ifndef TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_
#define TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_

#include <optional>
#include <string>
#include <vector>

namespace triage {

// The atoms RE2's FilteredRE2 (minimum atom length 3, RegexOptions()) lists for `pattern` added alone,
// in FilteredRE2's order, read from the pattern's text without RE2's prefilter analysis (Note:
// [Literal fast path] in pattern_atoms.cc). Answers only when every match must contain every one of
// them (the prefilter is one atom or an AND of atoms; an empty list: no prefilter, the pattern is
// matched unfiltered); nullopt for a pattern outside the subset of the syntax read here or whose
// prefilter holds an OR, which the caller asks FilteredRE2 about. `pattern` must be one RE2 accepts.
std::optional<std::vector<std::string>> AndedAtoms(const std::string& pattern);

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_PATTERN_ATOMS_H_
