// Line shapes: the verdicts of lines the prefilter stopped on, remembered by the line's bytes with its
// digits masked, so that the next line of the same shape (the same text, other numbers) is judged
// without reading it again.
//
//   LineVerdicts verdicts;  // one per Session
//   if (verdicts.Active()) {
//     LineVerdicts::Verdict v = verdicts.Find(text);  // kInert or kRead: a line of this shape was judged
//     ...                                             // else the full judgement, then, when v is kUnknown,
//     verdicts.Store(!pf.ShapeDecides(found, text, candidates) ? LineVerdicts::kUndecided
//                    : inert ? LineVerdicts::kInert : LineVerdicts::kRead);
//   }
//
// Note: [Line shapes] Web and application logs repeat a few hundred line layouts with different
// numbers: of the 32,419 ISO-stamped lines of 8 MiB of the bench's web text, 929 distinct texts once
// every digit is written '0' (3% of the lines are a shape's first). A line the prefilter's scanner
// stops on (it holds a keyword) is judged by Session's Inert: every keyword it holds (KeywordsIn),
// their patterns' literal checks and conditions, their regexes (~2,300 instructions a line with 1000
// rules). A verdict found for a text T holds for every text T' that differs from T only in which
// digit stands at each of T's digit places, when:
//   - the keywords T' holds are T's: every keyword T holds is digit-free (a digit-free keyword lies in
//     T' exactly where it lies in T), and no keyword with a digit can lie in any such T' (its text with
//     digits as '0' is not in T's, lowered, with digits as '0');
//   - each pattern that can match T' matches T' exactly when it matches T: the prefilter's candidates
//     are sound (a pattern whose regex matches a line holds one of its literals and is among the
//     candidates of the line's keywords, Note: [Line prefilter]), so only the patterns of T's keywords
//     and the patterns without required literals can match; each of them is digit-blind
//     (DigitBlindPattern: no part of it tells one digit from another, so it matches T' exactly when it
//     matches T) or matches no such T' (it is no candidate of T, so its digit-free literals are in no
//     T', and none of its literals with a digit, masked, lies in T masked).
//   (With an idle keyword among T's keywords, or none, the verdict reads no pattern of the keywords:
//   the first condition and the patterns without literals suffice.)
// LinePrefilter::ShapeDecides checks these; a verdict is stored only then, so a cached verdict is the
// verdict the full judgement would give (tests/line_shapes_test.cc compares them). Where shapes do
// not repeat, the table rests (Active).
#ifndef TRIAGE_ENGINE_LINE_SHAPES_H_
#define TRIAGE_ENGINE_LINE_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace triage {

// True when the RE2 `pattern` matches a text exactly when it matches any text that differs from it
// only in which ASCII digits stand at its digit places: no literal digit, no character class holding
// some digits but not all, no escape that names a byte by number. Conservative: false for anything
// the check does not read (a `\Q...\E` quote, `\x`, `\p`, octal escapes); a quantifier's bounds and a
// group's name may hold digits.
bool DigitBlindPattern(std::string_view pattern);

// Writes `text` with each ASCII digit replaced by '0' to *out (replacing its contents).
void MaskDigits(std::string_view text, std::string* out);
// MaskDigits, returning a hash of what it wrote (the same bytes give the same hash).
std::uint64_t MaskDigitsHashed(std::string_view text, std::string* out);

// A table of line verdicts by shape (Note: [Line shapes]): kSlots slots, each holding one text's
// digit-masked bytes (texts up to kMaxText bytes) and its verdict. A text may lie in either of two
// slots picked by two parts of its hash (two choices, not sets of two: in sets of two, the few
// shapes that make most of a log's stopped lines could meet in one set and take turns evicting each
// other; 908 misses where 556 shapes came, against 742 for one slot a text); a new text takes the
// one of its two used longer ago. The slots' hashes, lengths, verdicts and last uses lie in one
// small array and their texts in another, at a fixed stride, so that a look-up reads a few cache
// lines. Not thread-safe: one per Session.
class LineVerdicts {
 public:
  static constexpr size_t kSlots = 4096;
  static constexpr size_t kMaxText = 192;
  // kUnknown: no verdict stored for the shape; kUndecided: the shape's texts may differ (each is
  // judged in full, and nothing more is stored for it).
  enum Verdict : unsigned char { kUnknown, kInert, kRead, kUndecided };

  // Whether to look the next text up at all. A log whose stopped lines seldom repeat a shape (an id of
  // letters in every one) would pay the look-up and ShapeDecides on each for nothing (web text with a
  // random hex word in each stopped line: `Session::Feed` +53% with 1000 rules): when fewer than a
  // quarter of a window of kWindow look-ups find their shape, the table rests for the next kRest texts
  // (false), then tries another window.
  static constexpr unsigned kWindow = 256, kRest = 16384;
  bool Active() {
    if (rest_ == 0) return true;
    --rest_;
    return false;
  }
  // Returns the verdict stored for the shape of `text`, kUnknown when none. Remembers the shape for
  // Store.
  Verdict Find(std::string_view text);
  // Stores `verdict` for the shape of the text the last Find was given (nothing for one over kMaxText
  // or empty).
  void Store(Verdict verdict);

  // Counts, for tests and benchmarks.
  std::uint64_t hits() const { return hits_; }
  std::uint64_t stores() const { return stores_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint16_t size = 0;      // of the text; 0: the slot holds nothing
    Verdict verdict = kUnknown;
    std::uint32_t used = 0;      // tick_ at its last store or hit (wrapping: only which slot goes first depends on it)
  };
  Verdict Look(std::string_view text);  // Find without the window's counts
  // The two slots the last Find's text may lie in.
  void Places(size_t (&at)[2]) const;
  std::vector<Slot> slots_;      // allocated at the first Store
  std::unique_ptr<char[]> texts_;  // slot i's text at i * kMaxText
  std::string key_;              // the last Find's masked text
  std::uint64_t hash_ = 0;
  bool storable_ = false;        // the last Find's text fits
  std::uint32_t tick_ = 0;
  unsigned window_ = 0, window_hits_ = 0, rest_ = 0;  // Active's window and rest
  std::uint64_t hits_ = 0, stores_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LINE_SHAPES_H_
