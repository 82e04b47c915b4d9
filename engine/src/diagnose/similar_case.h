// Answering from the most similar known case when neither a rule nor the frames know an error (Note:
// [Similar known case] in similar_case.cc; rules/README.md "Ranking", step 10).
//
//   std::vector<std::string> words = SimilarWords("RuntimeError", "CUDA error: an illegal memory access");
//   const SimilarIndex* index = BundledSimilarIndex();          // rules/similar/cases.tsv, read once
//   SimilarReading r = ReadSimilarCase(*index, words, {});     // r.row: the nearest case, r.score in [0, 1]
#ifndef TRIAGE_ENGINE_SIMILAR_CASE_H_
#define TRIAGE_ENGINE_SIMILAR_CASE_H_

#include <memory>
#include <string>
#include <unordered_map>
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
  std::string source;     // the thread it came from (wild cases), else ""
  std::vector<int> words; // ids into SimilarIndex::words, ascending
  double norm = 0;        // the row's weight vector's length
};

// The known cases and their words' weights: idf(w) = ln((N + 1) / (df(w) + 1)), N rows, df(w) rows
// holding w, so a word every case has weighs nothing and a rare word a lot.
struct SimilarIndex {
  std::vector<SimilarRow> rows;
  std::vector<std::string> words;                // id -> word
  std::unordered_map<std::string, int> word_ids; // word -> id
  std::vector<double> idf;                       // id -> weight
  std::vector<std::vector<int>> postings;        // id -> rows holding it, ascending
  // The weight of a word the index never saw (df 0).
  double unseen_idf = 0;
};

// Parses the index file (rules/similar/cases.tsv: `#` comment lines, then one row a line: case,
// category, source or "-", words separated by spaces, tab-separated). Returns false (with *error)
// on a malformed line.
bool ParseSimilarIndex(const std::string& text, SimilarIndex* index, std::string* error);

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

// The similarity bands `triage eval` measures, and whether the engine answers in each (Note: [Similar
// known case]): a band speaks only when it was right >= 85% over >= 10 tuning cases.
struct SimilarBand {
  double low, high;  // [low, high)
  bool speaks;
};
const std::vector<SimilarBand>& SimilarBands();
// Returns the index of the band holding `score`, or -1 when it is under the lowest band.
int SimilarBandOf(double score);

// The confidence a similar-case answer is reported with (Note: [Similar known case]).
constexpr double kSimilarCaseConfidence = 0.4;

// The words of incident `primary` as SimilarWords reads them; empty for a traceback cut before its
// exception line (its "message" is a line of the user's code).
std::vector<std::string> SimilarWordsOf(const std::vector<Incident>& incidents, int primary);

// The diagnosis for a reading in a speaking band whose row is not a negative (the caller checks).
// Its check is a `triage explain CATEGORY` command line, the same for every audience.
Diagnosis SimilarCaseDiagnosis(const SimilarReading& reading, int incident);

}  // namespace triage

#endif  // TRIAGE_ENGINE_SIMILAR_CASE_H_
