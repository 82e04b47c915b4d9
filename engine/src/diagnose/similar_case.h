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

// A read-only run of values held by an index's storage (SimilarIndex::storage): its rows, a row's word
// ids, a word's postings. Copies of an index share the storage, so a span stays valid with any of them.
template <typename T>
class SimilarSpan {
 public:
  SimilarSpan() = default;
  SimilarSpan(const T* data, size_t size) : data_(data), size_(size) {}
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

// One known case: a corpus case's primary error, read by the engine, and the label it carries. Its
// strings and ids are views into the index's storage (Note: [Similar index image] in similar_case.cc).
struct SimilarRow {
  std::string_view case_path;  // relative to the corpus root: "wild/cuda/some-case"
  std::string_view category;   // the label ("none" for a negative case: the fallback then stays silent)
  SimilarSpan<std::string_view> also;  // the label's other accepted categories (label.yaml `also:`)
  std::string_view source;     // the thread it came from (wild cases), else ""
  SimilarSpan<int> words;      // ids into the index's words, ascending
  double norm = 0;             // the row's weight vector's length
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
// holding w, so a word every case has weighs nothing and a rare word a lot. Everything but the tiers'
// fits is a view into one image (Note: [Similar index image] in similar_case.cc), built from the
// index file's text or read from the cache (LoadSimilarIndex), and shared by copies.
struct SimilarIndex {
  SimilarSpan<SimilarRow> rows;
  SimilarSpan<double> idf;  // id -> weight; its size is the number of words
  // The weight of a word the index never saw (df 0).
  double unseen_idf = 0;
  // Per SimilarTiers() entry, the vote's record on the index's own rows (FitSimilarTiers).
  std::vector<SimilarTierFit> tier_fits;
  // Whether tier_fits were read from the index file (Note: [Stored tier fits]) rather than fitted
  // from its rows.
  bool fits_stored = false;

  size_t WordCount() const { return idf.size(); }
  // Word `id` (0 <= id < WordCount()).
  std::string_view Word(int id) const;
  // The rows holding word `id`, ascending.
  SimilarSpan<int> Postings(int id) const;
  // The id of `word`, or -1 when the index does not hold it.
  int WordId(std::string_view word) const;

  // What holds the bytes the views point into (the image, the rows' views), shared by copies.
  std::shared_ptr<const void> storage;
  // Into the image: the words' (offset, length) in `text`; the postings' starts (WordCount() + 1) and
  // the postings; the word -> id table, (the word's hash's low 32 bits, id + 1) per slot, 0 for an
  // empty one, a power of two of slots, never full (Note: [Similar index parse]).
  const char* text = nullptr;
  const std::uint32_t* word_refs = nullptr;
  const std::uint32_t* posting_starts = nullptr;
  const int* postings = nullptr;
  const std::uint32_t* slots = nullptr;
  size_t slot_count = 0;
};

// Parses the index file (rules/similar/cases.tsv: `#` comment lines, then one row a line: case,
// category (then its `also:` categories, comma-separated), source or "-", words separated by spaces,
// tab-separated; then the tiers' stored fits, `!fit`, tier id, answers, right, tab-separated). The
// stored fits are used when they name SimilarTiers()'s ids in its order; otherwise the tiers are fitted
// on the rows (FitSimilarTiers: Note: [Stored tier fits] in similar_case.cc). Returns false (with *error)
// on a malformed line.
bool ParseSimilarIndex(std::string_view text, SimilarIndex* index, std::string* error);

// The index under the bundled rules (BundledRulesDir()/similar/cases.tsv), loaded at the first call for
// `cache_dir` (thread-safe: LoadSimilarIndex with that directory; empty: parsed from the text, nothing
// written) and kept for the process; null when it is missing or malformed. The ranker passes the rule
// set's RuleSet::cache_dir, so a host that loaded its rules with LoadOptions::cache false, or with its
// own cache_dir, gets no file written elsewhere.
const SimilarIndex* BundledSimilarIndex(const std::string& cache_dir);
// The same for DefaultRuleCacheDir() (tools and tests).
const SimilarIndex* BundledSimilarIndex();

// How LoadSimilarIndex went (for tests and benchmarks).
struct SimilarLoad {
  bool from_cache = false;  // the cache's image was used
  bool from_shipped = false;  // the shipped directory's image was used (from_cache too)
  bool written = false;     // the image was built from the text and written to the cache
};
// Loads the index file at `path` (Note: [Similar index image] in similar_case.cc): from its image in
// `cache_dir` when one was written for this very file (its path and stat(2) stamp) by this very
// program and reads back whole, else from its text, then keeping the image in `cache_dir` (best
// effort; not for a file modified less than `settle_ns` before). `cache_dir` "": no cache. Where
// `cache_dir` has no image of its own, one in `shipped_dir` (the install's, Note: [Shipped rule cache]
// in rules/rule_cache.h; its checks let root own it) serves as well, and nothing is written. Null when
// the file is missing or malformed.
std::unique_ptr<SimilarIndex> LoadSimilarIndex(const std::string& path, const std::string& cache_dir,
                                               SimilarLoad* how = nullptr,
                                               std::int64_t settle_ns = 2'000'000'000,
                                               const std::string& shipped_dir = "");
// The name of the image of index file `path` in a cache directory: similar-HASH.bin.
std::string SimilarCacheFileName(const std::string& path);

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
