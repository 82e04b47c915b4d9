// Answering from the most similar known case when neither a rule nor the frames know an error (Note:
// [Similar known case] in similar_case.cc; rules/README.md "Ranking", step 10).
//
//   std::vector<std::string> words = SimilarWords("RuntimeError", "CUDA error: an illegal memory access");
//   const SimilarIndex* index = BundledSimilarIndex();          // rules/similar/cases.tsv, read once
//   SimilarReading r = ReadSimilarCase(*index, words, {});     // r.row: the nearest case, r.score in [0, 1]
//   SimilarVote v = VoteSimilarCases(*index, words, {});       // v.tier: how the nearest threads agree
//   if (v.tier >= 0 && SimilarTiers()[v.tier].speaks) ...      // index->tier_fits[v.tier].confidence
#ifndef TRIAGE_ENGINE_SIMILAR_CASE_H_
#define TRIAGE_ENGINE_SIMILAR_CASE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triage/triage.h"

namespace triage {

// Returns the words an error is compared by: the exception's class (as "class:NAME", its last dotted
// part, lower-case) and the message's words, lower-case, each once, in order of first appearance.
// Left out: numbers and hex, words that start with a digit (sizes: 4x57600), the directories of paths
// (the file name stays), one-letter words, and everything past the message's first 600 bytes. Quoted
// words are kept (Note: [Similar known case] says why).
std::vector<std::string> SimilarWords(const std::string& exception, const std::string& message);

// One known case: a corpus case's primary error, read by the engine, and the label it carries.
struct SimilarRow {
  std::string case_path;  // relative to the corpus root: "wild/cuda/some-case"
  std::string category;   // the label ("none" for a negative case: the fallback then stays silent)
  std::vector<std::string> also;  // the label's other accepted categories (label.yaml `also:`)
  std::string source;     // the thread it came from (wild cases), else ""
  std::vector<int> words; // ids into SimilarIndex::words, ascending
  double norm = 0;        // the row's weight vector's length
};

// A tier's record when every row of the index is voted on with its own case and thread left out:
// answers given (the nearest case not a negative), how many the row's label accepts, and the
// confidence an answer of the tier is reported with, right / n (0 when n is 0). Fitted, not chosen:
// the tier's own leave-one-thread-out precision on the known cases.
struct SimilarTierFit {
  int n = 0;
  int right = 0;
  double confidence = 0;
};

// The known cases and their words' weights: idf(w) = ln((N + 1) / (df(w) + 1)), N rows, df(w) rows
// holding w, so a word every case has weighs nothing and a rare word a lot.
struct SimilarIndex {
  std::vector<SimilarRow> rows;
  std::vector<std::string> words;                // id -> word
  // word -> id: open addressing on the word's hash (WordHash in similar_case.cc), (its low 32 bits, id + 1) per slot,
  // 0 for an empty one; a power of two of slots, at most half full (Note: [Similar index parse]).
  std::vector<std::pair<std::uint32_t, int>> word_slots;
  std::vector<double> idf;                       // id -> weight
  std::vector<std::vector<int>> postings;        // id -> rows holding it, ascending
  // The weight of a word the index never saw (df 0).
  double unseen_idf = 0;
  // Per SimilarTiers() entry, the vote's record on the index's own rows (FitSimilarTiers).
  std::vector<SimilarTierFit> tier_fits;
  // Whether tier_fits were read from the file (Note: [Stored tier fits]) rather than fitted at load.
  bool fits_stored = false;

  // The id of `word`, or -1 when the index does not hold it.
  int WordId(std::string_view word) const;
};

// Parses the index file (rules/similar/cases.tsv: `#` comment lines, then one row a line: case,
// category (then its `also:` categories, comma-separated), source or "-", words separated by spaces,
// tab-separated; then the tiers' stored fits, `!fit`, tier id, answers, right, tab-separated). The
// stored fits are used when they name SimilarTiers()'s ids in its order; otherwise the tiers are fitted
// on the rows (FitSimilarTiers: Note: [Stored tier fits] in similar_case.cc). Returns false (with *error)
// on a malformed line.
bool ParseSimilarIndex(std::string_view text, SimilarIndex* index, std::string* error);

// The index under the bundled rules (BundledRulesDir()/similar/cases.tsv), read and parsed at the first
// call (thread-safe) and kept; null when it is missing or malformed.
const SimilarIndex* BundledSimilarIndex();

// The nearest known case for `words` (IDF-weighted cosine over word sets), skipping every row
// `leave_out` names: an entry that is a row's source, its case path, or ends with "/" + its case path.
struct SimilarReading {
  const SimilarRow* row = nullptr;    // null: no row shares a word
  double score = 0;                   // cosine in [0, 1]
  std::vector<std::string> shared;    // the shared words, heaviest first (at most 6)
};
SimilarReading ReadSimilarCase(const SimilarIndex& index, const std::vector<std::string>& words,
                               const std::vector<std::string>& leave_out);

// The similarity bands `triage eval` prints its leave-one-thread-out table by (Note: [Similar known
// case]). They only measure: which answers are given is the tiers' decision (SimilarTiers).
struct SimilarBand {
  double low, high;  // [low, high)
};
const std::vector<SimilarBand>& SimilarBands();
// Returns the index of the band holding `score`, or -1 when it is under the lowest band.
int SimilarBandOf(double score);

// How near the known cases that vote are: those within this much similarity of the nearest one.
constexpr double kSimilarWindow = 0.1;

// One thread among the nearest known cases: its most similar case.
struct SimilarNeighbour {
  const SimilarRow* row = nullptr;
  double score = 0;
};

// A tier of the vote (Note: [Similar known case], "The vote"): a range of the nearest case's similarity
// and how the threads within kSimilarWindow of it must agree. The first tier that applies decides.
struct SimilarTier {
  enum class Others { kNone, kMinority, kAny };  // threads of another category the window may hold
  const char* id;
  double low, high;  // the nearest case's similarity, [low, high)
  int min_agreeing;  // threads labelled as the nearest case (its own included)
  Others others;
  bool speaks;       // whether the engine answers in this tier
};
const std::vector<SimilarTier>& SimilarTiers();

// The vote of the nearest known cases: the nearest case (as ReadSimilarCase reads it), the threads in
// the window, how many of them carry the nearest case's category, and the tier that applies.
struct SimilarVote {
  SimilarReading nearest;
  std::vector<SimilarNeighbour> threads;  // one per thread, most similar first (the nearest's first)
  int agreeing = 0;                       // threads whose category is the nearest case's
  int tier = -1;                          // into SimilarTiers(); -1: no nearest case, or no tier applies
};
SimilarVote VoteSimilarCases(const SimilarIndex& index, const std::vector<std::string>& words,
                             const std::vector<std::string>& leave_out);
// Returns the first tier that applies to a nearest case at `score` with `agreeing` of `threads`
// threads in the window labelled as it, or -1.
int SimilarTierOf(double score, int agreeing, int threads);

// Fills index->tier_fits (ParseSimilarIndex calls it when the file stores no current fits).
void FitSimilarTiers(SimilarIndex* index);

// The index file's lines that store index.tier_fits (`!fit`, tier id, answers, right), one per tier
// in SimilarTiers()'s order; BuildSimilarIndex appends them after the rows.
std::string SimilarTierFitLines(const SimilarIndex& index);

// The words of incident `primary` as SimilarWords reads them; empty for a traceback cut before its
// exception line (its "message" is a line of the user's code).
std::vector<std::string> SimilarWordsOf(const std::vector<Incident>& incidents, int primary);

// The diagnosis for a vote in a speaking tier whose nearest case is not a negative (the caller checks),
// at the tier's fitted confidence in `index`. Its explanation names the nearest case's thread and the
// agreeing ones; its check is a `triage explain CATEGORY` command line, the same for every audience.
Diagnosis SimilarCaseDiagnosis(const SimilarIndex& index, const SimilarVote& vote, int incident);

}  // namespace triage

#endif  // TRIAGE_ENGINE_SIMILAR_CASE_H_
