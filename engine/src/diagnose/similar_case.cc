#include "diagnose/similar_case.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <utility>

#include "rules/rule.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace triage {

// Note: [Similar known case] An error whose wording no rule knows, raised where no frame row decides,
// may still read like an error the corpus holds: the same library's words around another tensor's
// sizes, another user's names. Ranking step 10 (rules/README.md) compares its words with the primary
// errors of every case of our split and the wild tuning split (rules/similar/cases.tsv, written by
// `triage rules similar-index corpus`, which never enters corpus/heldout/) and, when the nearest cases
// vote for it in a tier that speaks, answers the nearest case's label: one diagnosis at the tier's fitted
// confidence whose explanation names the case, the thread it came from, the threads that agree and the
// words they share.
//
// Words, not patterns: the class and the message's words, with what is the user's rather than the
// library's left out (numbers, sizes, addresses, directories), each word weighed by how
// rare it is among the known cases (IDF), compared by cosine. A row needs two shared message words
// besides the class: an error that shares only "RuntimeError" and one word is not similar.
//
// The vote: the threads (`source:`) of the cases within kSimilarWindow of the nearest one, each counted
// once, and how many carry the nearest case's label; SimilarTiers() says which combinations of the
// nearest similarity and that agreement answer. Measured, not chosen: `triage eval corpus` reads every
// ours and wild tuning case as if no rule had matched, leaving out the case itself and every case from
// the same thread (otherwise a case would be answered from its own label), and prints per band of
// similarity what the nearest case alone and the vote answer, and per tier how often it was right. A
// tier speaks only where that was >= 85% over >= 10 answers
// (CorpusEval.EverySpeakingSimilarTierIsRightOftenEnoughAndCalibrated). The confidence of an answer is
// its tier's precision when every row of the index is voted on the same way (FitSimilarTiers, when the
// index is written: Note: [Stored tier fits]):
// fitted, so that it means what it says; whether it holds for wordings no rule knows, a population the
// tuning cases only partly are, is the held-out split's question.
namespace {

bool IsWordChar(unsigned char c) { return std::isalnum(c) || c == '_'; }

bool IsHexWord(const std::string& w) {
  if (w.size() > 2 && w[0] == '0' && w[1] == 'x') return true;
  if (w.size() < 6) return false;
  bool digit = false;
  for (char c : w) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return digit;
}

constexpr size_t kMessageBytes = 600;
constexpr int kMinSharedWords = 2;

}  // namespace

std::vector<std::string> SimilarWords(const std::string& exception, const std::string& message) {
  std::vector<std::string> out;
  auto add = [&](std::string w) {
    while (!w.empty() && w.front() == '_') w.erase(w.begin());
    while (!w.empty() && w.back() == '_') w.pop_back();
    if (w.size() < 2 || std::isdigit(static_cast<unsigned char>(w[0])) || IsHexWord(w)) return;
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  };
  if (!exception.empty()) {
    std::string cls = exception.substr(exception.find_last_of('.') == std::string::npos ? 0 : exception.find_last_of('.') + 1);
    for (char& c : cls) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!cls.empty()) out.push_back("class:" + cls);
  }
  std::string text = message.substr(0, kMessageBytes);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Quotes are separators: what they hold is kept. Dropping it (user names: keys, variables) was
  // measured worse (2026-11-30, bands 0.8-0.9 and 0.9-1.0 right 88.0% and 89.4% against 90.5% and 93.2%
  // kept): the quotes also hold the library's words, an op's name, a dtype, a module ('torch._six'), and a
  // user's name shared by no other case only lowers the similarity (it weighs in the query's length).
  std::string kept = text;
  for (char& c : kept) {
    if (c == '\'' || c == '"' || c == '`') c = ' ';
  }
  // Paths: a run of non-space characters holding a separator keeps only what follows its last one.
  size_t i = 0;
  while (i < kept.size()) {
    while (i < kept.size() && std::isspace(static_cast<unsigned char>(kept[i]))) ++i;
    size_t j = i;
    while (j < kept.size() && !std::isspace(static_cast<unsigned char>(kept[j]))) ++j;
    std::string chunk = kept.substr(i, j - i);
    const size_t sep = chunk.find_last_of("/\\");
    if (sep != std::string::npos) chunk = chunk.substr(sep + 1);
    std::string word;
    for (char c : chunk) {
      if (IsWordChar(static_cast<unsigned char>(c))) {
        word += c;
      } else if (!word.empty()) {
        add(std::move(word));
        word.clear();
      }
    }
    if (!word.empty()) add(std::move(word));
    i = j;
  }
  return out;
}

namespace {

// The line that stores a tier's fit (Note: [Stored tier fits]).
constexpr std::string_view kFitLine = "!fit";

// Whether `c` separates the words of the words column, as `>>` into a string reads them.
constexpr bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// IsSpace as a table, for the parse's scan of ~280 KB of words.
struct SpaceTable {
  bool space[256] = {};
  constexpr SpaceTable() {
    for (int c = 0; c < 256; ++c) space[c] = IsSpace(static_cast<char>(c));
  }
};
constexpr SpaceTable kSpaces;
bool Space(char c) { return kSpaces.space[static_cast<unsigned char>(c)]; }

// The hash of SimilarIndex::word_slots: the word's bytes as 8-byte words (the last one zero-padded),
// each mixed in by a multiply and shift, then the length, then a final mix.
std::uint64_t WordHash(std::string_view w) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  const char* p = w.data();
  size_t n = w.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  if (n > 0) {
    std::uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  h ^= w.size();
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 32);
}

// The end of the word at `p` (the first space at or after it, or `end`). `limit` (>= end) is how far
// the text may be read: 16 bytes at a time where they lie within it.
const char* WordEnd(const char* p, const char* end, const char* limit) {
#if defined(__SSE2__)
  const __m128i nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4), blank = _mm_set1_epi8(' ');
  while (p < end && limit - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i control = _mm_sub_epi8(v, nine);  // \t \n \v \f \r: 0-4
    const __m128i spaces = _mm_or_si128(_mm_cmpeq_epi8(v, blank), _mm_cmpeq_epi8(_mm_min_epu8(control, four), control));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(spaces));
    if (mask != 0) return std::min(end, p + __builtin_ctz(mask));
    p += 16;
  }
#else
  (void)limit;
#endif
  while (p < end && !Space(*p)) ++p;
  return std::min(p, end);
}

// Finds `word` (hash `h`) in `slots`: its slot, holding its id + 1, or the empty slot it would take.
inline size_t FindSlot(const std::vector<std::pair<std::uint32_t, int>>& slots, const std::vector<std::string>& words,
                std::string_view word, std::uint64_t h) {
  const size_t mask = slots.size() - 1;
  const auto low = static_cast<std::uint32_t>(h);
  for (size_t s = static_cast<size_t>(h >> 32) & mask;; s = (s + 1) & mask) {
    const auto& [hash, id] = slots[s];
    if (id == 0) return s;
    if (hash == low) {
      const std::string& known = words[static_cast<size_t>(id - 1)];
      if (known.size() == word.size() && std::memcmp(known.data(), word.data(), word.size()) == 0) return s;
    }
  }
}

// Doubles `slots`, each word placed again by its stored hash.
void GrowSlots(std::vector<std::pair<std::uint32_t, int>>* slots, const std::vector<std::string>& words) {
  std::vector<std::pair<std::uint32_t, int>> grown(slots->size() * 2, {0, 0});
  const size_t mask = grown.size() - 1;
  for (const auto& slot : *slots) {
    if (slot.second == 0) continue;
    size_t s = static_cast<size_t>(WordHash(words[static_cast<size_t>(slot.second - 1)]) >> 32) & mask;
    while (grown[s].second != 0) s = (s + 1) & mask;
    grown[s] = slot;
  }
  slots->swap(grown);
}

// The bytes of a file, mapped (read-only, populated: the parse reads them all) or, where it cannot be
// mapped, read. Mapping spares the copy into fresh heap pages, each a page fault (Note: [Similar index
// parse]).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        size_ = static_cast<size_t>(st.st_size);
        ok_ = true;
      }
    }
    if (!ok_) {  // read it
      char buffer[4096];
      ok_ = true;
      for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
          if (errno == EINTR) continue;
          ok_ = false;
          break;
        }
        read_.append(buffer, static_cast<size_t>(n));
      }
    }
    ::close(fd);
  }
  ~FileBytes() {
    if (map_) ::munmap(map_, size_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  bool ok() const { return ok_; }
  std::string_view view() const { return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(read_); }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string read_;
  bool ok_ = false;
};

bool ParseCount(std::string_view s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

// Note: [Stored tier fits] Fitting the tiers (FitSimilarTiers) votes on every row of the index: ~130 M
// instructions, ~19 ms, paid by every run that reads the index (a log no rule matches) when it was done
// at load. `triage rules similar-index` fits them once, on the rows it writes, and stores each tier's
// record as a line `!fit<TAB>TIER<TAB>N<TAB>RIGHT` after the rows; the confidence, RIGHT / N, is computed
// as the fit computes it. The stored records are used only when they name SimilarTiers()'s ids, in its
// order: an index without them (a test's), or written before a tier was added or renamed, is fitted
// at load as before. SimilarIndex.TheShippedIndexIsCurrent rebuilds the file (its fits included) and
// SimilarIndex.TheStoredFitsAreAFreshFit compares the stored records with a fit of the shipped rows.
//
// Note: [Similar index parse] A log no rule answers reads the index at its start (~280 KB, ~1,250
// rows, ~20,000 word occurrences of ~1,750 distinct words): the parse is on that start's path. A
// word's end is found 16 bytes at a time (WordEnd), the word hashed 8 bytes at a time (WordHash), and
// its id looked up in SimilarIndex::word_slots, an open-addressed table of (hash, id) that is also the
// index's word -> id map afterwards (no second map built from strings). The file is mapped (FileBytes),
// not copied: a copy wrote ~70 fresh heap pages, a page fault each (SimilarIndex.* and the shipped
// index's tests hold the rows, words and fits).
bool ParseSimilarIndex(std::string_view text, SimilarIndex* index, std::string* error) {
  *index = SimilarIndex();
  std::vector<std::pair<std::string, SimilarTierFit>> stored;
  int number = 0;
  size_t pos = 0;
  std::string_view fields[5];
  size_t lines = 0;
  if (!text.empty()) {
    const char* const text_stop = text.data() + text.size();
    for (const char* nl = text.data();
         (nl = static_cast<const char*>(std::memchr(nl, '\n', static_cast<size_t>(text_stop - nl)))) != nullptr; ++nl) {
      ++lines;
    }
  }
  index->rows.reserve(lines);
  index->word_slots.assign(4096, {0, 0});
  const char* const text_end = text.data() + text.size();
  std::vector<int> row_words;  // one row's ids, before sorting
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++number;
    if (line.empty() || line[0] == '#') continue;
    size_t count = 0;
    size_t start = 0;
    for (;;) {
      const size_t tab = line.find('\t', start);
      if (count < 5) fields[count] = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
      ++count;
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields[0] == kFitLine) {
      SimilarTierFit fit;
      if (count != 4 || fields[1].empty() || !ParseCount(fields[2], &fit.n) || !ParseCount(fields[3], &fit.right) ||
          fit.right > fit.n) {
        *error = "line " + std::to_string(number) + ": expected !fit, tier, answers, right (tab-separated)";
        return false;
      }
      fit.confidence = fit.n ? static_cast<double>(fit.right) / fit.n : 0;
      stored.emplace_back(std::string(fields[1]), fit);
      continue;
    }
    if (count != 4 || fields[0].empty() || fields[1].empty()) {
      *error = "line " + std::to_string(number) + ": expected case, category, source, words (tab-separated)";
      return false;
    }
    SimilarRow row;
    row.case_path = std::string(fields[0]);
    for (size_t c = 0; c <= fields[1].size();) {
      size_t comma = fields[1].find(',', c);
      if (comma == std::string_view::npos) comma = fields[1].size();
      if (comma > c) {
        std::string label(fields[1].substr(c, comma - c));
        if (row.category.empty()) {
          row.category = std::move(label);
        } else {
          row.also.push_back(std::move(label));
        }
      }
      c = comma + 1;
    }
    if (row.category.empty()) {
      *error = "line " + std::to_string(number) + ": no category";
      return false;
    }
    if (fields[2] != "-") row.source = std::string(fields[2]);
    // The words (Note: [Similar index parse]).
    const char* p = fields[3].data();
    const char* const end = p + fields[3].size();
    row_words.clear();
    for (;;) {
      while (p < end && Space(*p)) ++p;
      if (p == end) break;
      const char* const start = p;
      p = WordEnd(p, end, text_end);
      const std::string_view word(start, static_cast<size_t>(p - start));
      const std::uint64_t h = WordHash(word);
      size_t slot = FindSlot(index->word_slots, index->words, word, h);
      if (index->word_slots[slot].second == 0) {
        if (2 * (index->words.size() + 1) > index->word_slots.size()) {
          GrowSlots(&index->word_slots, index->words);
          slot = FindSlot(index->word_slots, index->words, word, h);
        }
        index->words.emplace_back(word);
        index->word_slots[slot] = {static_cast<std::uint32_t>(h), static_cast<int>(index->words.size())};
      }
      row_words.push_back(index->word_slots[slot].second - 1);
    }
    std::sort(row_words.begin(), row_words.end());
    row.words.assign(row_words.begin(), std::unique(row_words.begin(), row_words.end()));
    index->rows.push_back(std::move(row));
  }
  const double n = static_cast<double>(index->rows.size());
  std::vector<int> df(index->words.size(), 0);
  for (const SimilarRow& row : index->rows) {
    for (int w : row.words) ++df[static_cast<size_t>(w)];
  }
  index->postings.assign(index->words.size(), {});
  for (size_t w = 0; w < df.size(); ++w) index->postings[w].reserve(static_cast<size_t>(df[w]));
  for (size_t r = 0; r < index->rows.size(); ++r) {
    for (int w : index->rows[r].words) index->postings[static_cast<size_t>(w)].push_back(static_cast<int>(r));
  }
  index->idf.resize(df.size());
  for (size_t w = 0; w < df.size(); ++w) index->idf[w] = std::log((n + 1) / (df[w] + 1));
  index->unseen_idf = std::log(n + 1);
  for (SimilarRow& row : index->rows) {
    double sum = 0;
    for (int w : row.words) sum += index->idf[static_cast<size_t>(w)] * index->idf[static_cast<size_t>(w)];
    row.norm = std::sqrt(sum);
  }
  const std::vector<SimilarTier>& tiers = SimilarTiers();
  bool current = stored.size() == tiers.size();
  for (size_t t = 0; current && t < tiers.size(); ++t) current = stored[t].first == tiers[t].id;
  if (current) {
    for (const auto& [id, fit] : stored) index->tier_fits.push_back(fit);
    index->fits_stored = true;
  } else {
    FitSimilarTiers(index);
  }
  return true;
}

int SimilarIndex::WordId(std::string_view word) const {
  if (word_slots.empty()) return -1;
  return word_slots[FindSlot(word_slots, words, word, WordHash(word))].second - 1;
}

const SimilarIndex* BundledSimilarIndex() {
  static std::once_flag once;
  static std::unique_ptr<SimilarIndex> index;
  std::call_once(once, [] {
    const FileBytes text(BundledRulesDir() + "/similar/cases.tsv");
    if (!text.ok()) return;
    auto parsed = std::make_unique<SimilarIndex>();
    std::string error;
    if (ParseSimilarIndex(text.view(), parsed.get(), &error)) index = std::move(parsed);
  });
  return index.get();
}

namespace {

bool LeftOut(const SimilarRow& row, const std::vector<std::string>& leave_out) {
  for (const std::string& e : leave_out) {
    if (e.empty()) continue;
    if (e == row.source || e == row.case_path) return true;
    if (e.size() > row.case_path.size() && e.compare(e.size() - row.case_path.size(), row.case_path.size(), row.case_path) == 0 &&
        e[e.size() - row.case_path.size() - 1] == '/') {
      return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// The rows that share at least kMinSharedWords message words with a query (`ids`: its words the index
// knows; `query`: its squared length, unknown words included), left-out rows skipped, with their
// cosine, in row order.
std::vector<SimilarNeighbour> ScoreRows(const SimilarIndex& index, const std::vector<int>& ids, double query,
                                        const std::vector<std::string>& leave_out) {
  std::vector<SimilarNeighbour> out;
  if (ids.empty() || query <= 0) return out;
  std::vector<double> dot(index.rows.size(), 0);
  std::vector<int> shared(index.rows.size(), 0);  // shared message words (the class not counted)
  for (int w : ids) {
    const double idf = index.idf[static_cast<size_t>(w)];
    const bool is_class = index.words[static_cast<size_t>(w)].rfind("class:", 0) == 0;
    for (int r : index.postings[static_cast<size_t>(w)]) {
      dot[static_cast<size_t>(r)] += idf * idf;
      shared[static_cast<size_t>(r)] += !is_class;
    }
  }
  for (size_t r = 0; r < index.rows.size(); ++r) {
    if (shared[r] < kMinSharedWords || index.rows[r].norm <= 0 || LeftOut(index.rows[r], leave_out)) continue;
    out.push_back({&index.rows[r], std::min(1.0, dot[r] / (std::sqrt(query) * index.rows[r].norm))});
  }
  return out;
}

std::string ThreadOf(const SimilarRow& row) { return row.source.empty() ? row.case_path : row.source; }

// The vote on scored rows (ScoreRows); `ids` are the query's known words (for the shared words).
SimilarVote VoteOn(const SimilarIndex& index, const std::vector<SimilarNeighbour>& scored, const std::vector<int>& ids) {
  SimilarVote vote;
  const SimilarNeighbour* best = nullptr;
  for (const SimilarNeighbour& n : scored) {  // the first of (nearly) equal scores, as ever
    if (!best || n.score > best->score + 1e-12) best = &n;
  }
  if (!best) return vote;
  SimilarReading& reading = vote.nearest;
  reading.row = best->row;
  reading.score = best->score;
  std::vector<std::pair<double, std::string>> common;
  for (int w : ids) {
    if (std::binary_search(reading.row->words.begin(), reading.row->words.end(), w)) {
      common.emplace_back(index.idf[static_cast<size_t>(w)], index.words[static_cast<size_t>(w)]);
    }
  }
  std::stable_sort(common.begin(), common.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < common.size() && k < 6; ++k) reading.shared.push_back(common[k].second);
  // The threads in the window: each one's most similar row, the nearest case's thread first.
  std::vector<SimilarNeighbour> near;
  for (const SimilarNeighbour& n : scored) {
    if (n.score >= best->score - kSimilarWindow && &n != best) near.push_back(n);
  }
  std::stable_sort(near.begin(), near.end(), [](const SimilarNeighbour& a, const SimilarNeighbour& b) { return a.score > b.score; });
  vote.threads.push_back(*best);
  for (const SimilarNeighbour& n : near) {
    const std::string thread = ThreadOf(*n.row);
    if (std::none_of(vote.threads.begin(), vote.threads.end(), [&](const SimilarNeighbour& t) { return ThreadOf(*t.row) == thread; })) {
      vote.threads.push_back(n);
    }
  }
  for (const SimilarNeighbour& t : vote.threads) vote.agreeing += t.row->category == reading.row->category;
  vote.tier = SimilarTierOf(reading.score, vote.agreeing, static_cast<int>(vote.threads.size()));
  return vote;
}

// The query's words the index knows, and the query's squared length (every word counted).
double QueryIds(const SimilarIndex& index, const std::vector<std::string>& words, std::vector<int>* ids) {
  double query = 0;
  for (const std::string& w : words) {
    const int id = index.WordId(w);
    const double idf = id < 0 ? index.unseen_idf : index.idf[static_cast<size_t>(id)];
    query += idf * idf;
    if (id >= 0) ids->push_back(id);
  }
  return query;
}

}  // namespace

SimilarReading ReadSimilarCase(const SimilarIndex& index, const std::vector<std::string>& words,
                               const std::vector<std::string>& leave_out) {
  return VoteSimilarCases(index, words, leave_out).nearest;
}

SimilarVote VoteSimilarCases(const SimilarIndex& index, const std::vector<std::string>& words,
                             const std::vector<std::string>& leave_out) {
  std::vector<int> ids;
  const double query = QueryIds(index, words, &ids);
  return VoteOn(index, ScoreRows(index, ids, query, leave_out), ids);
}

const std::vector<SimilarTier>& SimilarTiers() {
  // Note: [Similar known case], "The vote": chosen from the leave-one-thread-out table of `triage eval
  // corpus` (rules/README.md); each tier's confidence is fitted (FitSimilarTiers), not written here.
  using O = SimilarTier::Others;
  static const std::vector<SimilarTier> tiers = {
      {"near-agree", 0.9, 1.01, 1, O::kNone, true},
      {"near-majority", 0.9, 1.01, 2, O::kMinority, true},
      {"near-split", 0.9, 1.01, 1, O::kAny, false},
      {"close-agree", 0.8, 0.9, 1, O::kNone, true},
      {"close-split", 0.8, 0.9, 1, O::kAny, false},
      {"far-agree", 0.4, 0.8, 3, O::kNone, true},
      {"far-pair", 0.4, 0.8, 2, O::kNone, false},
      {"far", 0.2, 0.8, 1, O::kAny, false},
  };
  return tiers;
}

int SimilarTierOf(double score, int agreeing, int threads) {
  const std::vector<SimilarTier>& tiers = SimilarTiers();
  for (size_t t = 0; t < tiers.size(); ++t) {
    const SimilarTier& tier = tiers[t];
    if (score < tier.low || score >= tier.high || agreeing < tier.min_agreeing) continue;
    if (tier.others == SimilarTier::Others::kNone && agreeing != threads) continue;
    if (tier.others == SimilarTier::Others::kMinority && 2 * agreeing <= threads) continue;
    return static_cast<int>(t);
  }
  return -1;
}

void FitSimilarTiers(SimilarIndex* index) {
  index->tier_fits.assign(SimilarTiers().size(), SimilarTierFit());
  for (const SimilarRow& row : index->rows) {
    const std::vector<std::string> leave_out = {row.case_path, row.source};
    const SimilarVote vote = VoteOn(*index, ScoreRows(*index, row.words, row.norm * row.norm, leave_out), row.words);
    if (vote.tier < 0 || vote.nearest.row->category == "none") continue;
    SimilarTierFit& fit = index->tier_fits[static_cast<size_t>(vote.tier)];
    ++fit.n;
    const std::string& answer = vote.nearest.row->category;
    fit.right += answer == row.category || std::find(row.also.begin(), row.also.end(), answer) != row.also.end();
  }
  for (SimilarTierFit& fit : index->tier_fits) fit.confidence = fit.n ? static_cast<double>(fit.right) / fit.n : 0;
}

std::string SimilarTierFitLines(const SimilarIndex& index) {
  std::string out;
  for (size_t t = 0; t < SimilarTiers().size() && t < index.tier_fits.size(); ++t) {
    out += std::string(kFitLine) + "\t" + SimilarTiers()[t].id + "\t" + std::to_string(index.tier_fits[t].n) + "\t" +
           std::to_string(index.tier_fits[t].right) + "\n";
  }
  return out;
}

const std::vector<SimilarBand>& SimilarBands() {
  static const std::vector<SimilarBand> bands = {
      {0.2, 0.3}, {0.3, 0.4}, {0.4, 0.5}, {0.5, 0.6}, {0.6, 0.7}, {0.7, 0.8}, {0.8, 0.9}, {0.9, 1.01},
  };
  return bands;
}

int SimilarBandOf(double score) {
  const std::vector<SimilarBand>& bands = SimilarBands();
  for (size_t b = 0; b < bands.size(); ++b) {
    if (score >= bands[b].low && score < bands[b].high) return static_cast<int>(b);
  }
  return -1;
}

std::vector<std::string> SimilarWordsOf(const std::vector<Incident>& incidents, int primary) {
  if (primary < 0 || primary >= static_cast<int>(incidents.size())) return {};
  const Incident& inc = incidents[static_cast<size_t>(primary)];
  if (inc.CutBeforeExceptionLine() || inc.message.empty()) return {};
  return SimilarWords(inc.exception, inc.message);
}

Diagnosis SimilarCaseDiagnosis(const SimilarIndex& index, const SimilarVote& vote, int incident) {
  const SimilarReading& reading = vote.nearest;
  const SimilarRow& row = *reading.row;
  const std::string name = row.case_path.substr(row.case_path.find_last_of('/') + 1);
  auto where_of = [](const SimilarRow& r) { return r.source.empty() ? "corpus/" + r.case_path : r.source; };
  const std::string where = where_of(row);
  std::string words;
  for (size_t k = 0; k < reading.shared.size(); ++k) {
    std::string w = reading.shared[k];
    if (w.rfind("class:", 0) == 0) w = "the class " + w.substr(6);
    words += (k == 0 ? "" : k + 1 == reading.shared.size() ? " and " : ", ") + w;
  }
  auto fixed2 = [](double v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return std::string(buf);
  };
  const std::string score = fixed2(reading.score);
  // The other threads of the window: those that agree (named, at most three) and those that do not.
  std::string agree, disagree;
  int named = 0, others = 0;
  for (size_t t = 1; t < vote.threads.size(); ++t) {
    const SimilarRow& r = *vote.threads[t].row;
    if (r.category == row.category) {
      if (named++ < 3) agree += std::string(agree.empty() ? "" : ", ") + where_of(r) + " (" + fixed2(vote.threads[t].score) + ")";
    } else {
      ++others;
      if (disagree.find(r.category) == std::string::npos) disagree += (disagree.empty() ? "" : ", ") + r.category;
    }
  }
  const SimilarTier& tier = SimilarTiers()[static_cast<size_t>(vote.tier)];
  const SimilarTierFit fit =
      static_cast<size_t>(vote.tier) < index.tier_fits.size() ? index.tier_fits[static_cast<size_t>(vote.tier)] : SimilarTierFit();
  Diagnosis d;
  d.rule = "similar:" + name;
  d.category = row.category;
  d.confidence = fit.confidence;
  d.title = CategoryTitle(row.category);
  d.incident = incident;
  d.captures["similar_case"] = row.case_path;
  d.captures["source"] = where;
  d.captures["similarity"] = score;
  d.captures["similar_tier"] = tier.id;
  d.captures["agreeing_threads"] = std::to_string(vote.agreeing);
  d.explanation = "No rule knows this error's wording and its frames name no category; its words are closest to "
                  "a known case's (" + where + "), whose cause was " + row.category + ". They share " + words +
                  " (similarity " + score + ").";
  if (named > 0) {
    d.explanation += " " + std::to_string(named) + " other thread" + (named == 1 ? "" : "s") + " as similar (within " +
                     fixed2(kSimilarWindow) + ") had the same cause: " + agree + (named > 3 ? ", ..." : "") + ".";
  }
  if (others > 0) {
    d.explanation += " " + std::to_string(others) + " other thread" + (others == 1 ? "" : "s") + " as similar had another (" +
                     disagree + ").";
  }
  d.explanation += " The category comes from known cases, not from this message: treat it as a lead to check, not a finding.";
  d.ranking = "Read from the most similar known cases (Ranking step 10, tier " + std::string(tier.id) +
              "): no rule matched this error. Answers of this tier were right in " + std::to_string(fit.right) + " of " +
              std::to_string(fit.n) + " known cases, each read with its own thread left out; that is the confidence.";
  Hypothesis h;
  h.id = "similar-case";
  h.text = "This error reads like the known case " + where + ", whose cause was " + row.category + " (" + d.title + ").";
  h.test = "Read " + where + " and compare its error, and the cause found there, with this run.";
  h.fix = "The fixes of that category's rules apply if the cause is the same: triage explain " + row.category;
  d.hypotheses.push_back(std::move(h));
  d.checks.push_back("triage explain " + row.category + "  # the rules of this category: their checks and fixes");
  d.verify = "The run gets past the step that raised this error.";
  return d;
}

}  // namespace triage
