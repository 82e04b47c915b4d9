#include "diagnose/similar_case.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include "rules/rule.h"
#include "rules/rule_cache.h"

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

// The hash of SimilarIndex::slots: the word's bytes as 8-byte words (the last one zero-padded),
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
    // The last 1-7 bytes, zero-padded, from two overlapping loads (4-7 bytes: bytes 0-3 and n-4 to n-1,
    // the overlap the same bits either way) or three single bytes (1-3: 0, n/2 and n-1), not a loop.
    std::uint64_t v;
    if (n >= 4) {
      std::uint32_t first, last;
      std::memcpy(&first, p, 4);
      std::memcpy(&last, p + n - 4, 4);
      v = first | static_cast<std::uint64_t>(last) << (8 * (n - 4));
    } else {
      auto byte = [p](size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i); };
      v = byte(0) | byte(n / 2) | byte(n - 1);
    }
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

// Finds `word` (hash `h`) in `slots` (2 * (mask + 1) numbers: a slot's hash, then its id + 1, 0 when
// empty; never full), `word_of(id)` giving the word of an id: its slot, holding its id + 1, or the
// empty slot it would take.
template <typename WordOf>
inline size_t FindSlot(const std::uint32_t* slots, size_t mask, std::string_view word, std::uint64_t h,
                       const WordOf& word_of) {
  const auto low = static_cast<std::uint32_t>(h);
  for (size_t s = static_cast<size_t>(h >> 32) & mask;; s = (s + 1) & mask) {
    const std::uint32_t id1 = slots[2 * s + 1];
    if (id1 == 0) return s;
    if (slots[2 * s] == low && word_of(id1 - 1) == word) return s;
  }
}

// Doubles `slots`, each word placed again by its hash.
void GrowSlots(std::vector<std::uint32_t>* slots, const std::vector<std::string_view>& words) {
  std::vector<std::uint32_t> grown(slots->size() * 2, 0);
  const size_t mask = grown.size() / 2 - 1;
  for (size_t s = 0; s < slots->size(); s += 2) {
    const std::uint32_t id1 = (*slots)[s + 1];
    if (id1 == 0) continue;
    size_t t = static_cast<size_t>(WordHash(words[id1 - 1]) >> 32) & mask;
    while (grown[2 * t + 1] != 0) t = (t + 1) & mask;
    grown[2 * t] = (*slots)[s];
    grown[2 * t + 1] = id1;
  }
  slots->swap(grown);
}

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

// The image (Note: [Similar index image]): an ImageHead, then per tier its fit's answers and right
// (u32 each), the rows (an ImageRow each), the `also:` categories' and the words' (offset, size) in
// the text (u32 each), the words' idf (f64), the word -> id table's slots (hash, id + 1: u32 each), the
// postings' starts (words + 1 of them), the rows' word ids and the postings (row ids), the text (every
// string), zero bytes up to a multiple of 8. Little-endian, as the machine that wrote it.
constexpr std::uint32_t kImageMagic = 0x78646973;  // "sidx"
constexpr std::uint32_t kImageFormat = 1;
struct ImageHead {
  std::uint32_t magic, format;
  std::uint32_t rows, words, also, slots, tiers, row_words, text;
  std::uint32_t fits_stored;  // 1: the fits were read from the index file, 0: fitted from its rows
  double unseen_idf;
};
static_assert(sizeof(ImageHead) == 48, "ImageHead's layout changed: bump kImageFormat");
struct ImageRow {
  std::uint32_t case_at, case_size, category_at, category_size, source_at, source_size;
  std::uint32_t also_at, also_count, words_at, words_count;
  double norm;
};
static_assert(sizeof(ImageRow) == 48, "ImageRow's layout changed: bump kImageFormat");
static_assert(sizeof(int) == 4 && sizeof(double) == 8, "the image holds 4-byte ids and 8-byte weights");

// Where each part of an image with `h`'s counts begins, from the image's start, and where it ends.
struct ImageLayout {
  std::uint64_t fits, rows, also, words, idf, slots, starts, row_words, postings, text, end;
};
ImageLayout LayoutOf(const ImageHead& h) {
  ImageLayout l;
  std::uint64_t at = sizeof(ImageHead);
  auto take = [&at](std::uint64_t bytes) {
    const std::uint64_t here = at;
    at += bytes;
    return here;
  };
  l.fits = take(8 * std::uint64_t{h.tiers});
  l.rows = take(sizeof(ImageRow) * std::uint64_t{h.rows});
  l.also = take(8 * std::uint64_t{h.also});
  l.words = take(8 * std::uint64_t{h.words});
  l.idf = take(8 * std::uint64_t{h.words});
  l.slots = take(8 * std::uint64_t{h.slots});
  l.starts = take(4 * (std::uint64_t{h.words} + 1));
  l.row_words = take(4 * std::uint64_t{h.row_words});
  l.postings = take(4 * std::uint64_t{h.row_words});
  l.text = take(h.text);
  l.end = (at + 7) & ~std::uint64_t{7};
  return l;
}

// What an index's views point into: the image (or a cache file holding it) and the rows' views.
struct SimilarStorage {
  std::unique_ptr<char[]> bytes;  // an image built from the text
  MappedCacheFile file;           // or a cache file read back
  const char* data = nullptr;     // the one of the two in use
  size_t size = 0;
  std::vector<SimilarRow> rows;
  std::vector<std::string_view> also;
};

// Copies `n` values of `v` into the image at byte `at`.
template <typename T>
void Put(char* image, std::uint64_t at, const T* v, size_t n) {
  if (n > 0) std::memcpy(image + at, v, n * sizeof(T));
}

// Writes the tiers' fits into an image's fits part.
void PutFits(char* image, const std::vector<SimilarTierFit>& fits) {
  std::vector<std::uint32_t> numbers;
  for (const SimilarTierFit& f : fits) {
    numbers.push_back(static_cast<std::uint32_t>(f.n));
    numbers.push_back(static_cast<std::uint32_t>(f.right));
  }
  Put(image, sizeof(ImageHead), numbers.data(), numbers.size());
}

// Reads the index file's text into an image (Note: [Similar index parse]); *fits_current false when it
// stores no current fits (the image's are then zero: the caller fits the rows and puts them in).
// False (with *error) on a malformed line.
bool BuildImage(std::string_view text, SimilarStorage* image, bool* fits_current, std::string* error) {
  if (text.size() >= (std::uint64_t{1} << 31)) {
    *error = "the index file is too large";
    return false;
  }
  std::vector<std::pair<std::string_view, SimilarTierFit>> stored;
  std::string pool;                      // the image's text: every string
  std::vector<ImageRow> rows;
  std::vector<std::uint32_t> also;       // (offset, size) per `also:` category
  std::vector<std::string_view> words;   // id -> word (views into `text`)
  std::vector<std::uint32_t> word_refs;  // (offset, size) per word
  std::vector<std::uint32_t> slots(2 * 4096, 0);
  std::vector<int> row_words;            // every row's ids, row after row
  std::vector<int> ids;                  // one row's ids, before sorting
  size_t lines = 0;
  for (const char* nl = text.data(); !text.empty() &&
       (nl = static_cast<const char*>(std::memchr(nl, '\n', static_cast<size_t>(text.data() + text.size() - nl)))) != nullptr;
       ++nl) {
    ++lines;
  }
  rows.reserve(lines);
  pool.reserve(text.size());
  row_words.reserve(text.size() / 8);
  auto put = [&pool](std::string_view s, std::uint32_t* at, std::uint32_t* size) {
    *at = static_cast<std::uint32_t>(pool.size());
    *size = static_cast<std::uint32_t>(s.size());
    pool.append(s);
  };
  const char* const text_end = text.data() + text.size();
  int number = 0;
  size_t pos = 0;
  std::string_view fields[5];
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
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
      stored.emplace_back(fields[1], fit);
      continue;
    }
    if (count != 4 || fields[0].empty() || fields[1].empty()) {
      *error = "line " + std::to_string(number) + ": expected case, category, source, words (tab-separated)";
      return false;
    }
    ImageRow row{};
    put(fields[0], &row.case_at, &row.case_size);
    row.also_at = static_cast<std::uint32_t>(also.size() / 2);
    bool category = false;
    for (size_t c = 0; c <= fields[1].size();) {
      size_t comma = fields[1].find(',', c);
      if (comma == std::string_view::npos) comma = fields[1].size();
      if (comma > c) {
        const std::string_view label = fields[1].substr(c, comma - c);
        if (!category) {
          put(label, &row.category_at, &row.category_size);
          category = true;
        } else {
          also.resize(also.size() + 2);
          put(label, &also[also.size() - 2], &also[also.size() - 1]);
        }
      }
      c = comma + 1;
    }
    if (!category) {
      *error = "line " + std::to_string(number) + ": no category";
      return false;
    }
    row.also_count = static_cast<std::uint32_t>(also.size() / 2) - row.also_at;
    if (fields[2] != "-") put(fields[2], &row.source_at, &row.source_size);
    // The words (Note: [Similar index parse]).
    const char* p = fields[3].data();
    const char* const end = p + fields[3].size();
    ids.clear();
    for (;;) {
      while (p < end && Space(*p)) ++p;
      if (p == end) break;
      const char* const begin = p;
      p = WordEnd(p, end, text_end);
      const std::string_view word(begin, static_cast<size_t>(p - begin));
      const std::uint64_t h = WordHash(word);
      auto word_of = [&words](std::uint32_t id) { return words[id]; };
      size_t slot = FindSlot(slots.data(), slots.size() / 2 - 1, word, h, word_of);
      if (slots[2 * slot + 1] == 0) {
        if (2 * (words.size() + 1) > slots.size() / 2) {
          GrowSlots(&slots, words);
          slot = FindSlot(slots.data(), slots.size() / 2 - 1, word, h, word_of);
        }
        words.push_back(word);
        word_refs.resize(word_refs.size() + 2);
        put(word, &word_refs[word_refs.size() - 2], &word_refs[word_refs.size() - 1]);
        slots[2 * slot] = static_cast<std::uint32_t>(h);
        slots[2 * slot + 1] = static_cast<std::uint32_t>(words.size());
      }
      ids.push_back(static_cast<int>(slots[2 * slot + 1] - 1));
    }
    std::sort(ids.begin(), ids.end());
    row.words_at = static_cast<std::uint32_t>(row_words.size());
    row_words.insert(row_words.end(), ids.begin(), std::unique(ids.begin(), ids.end()));
    row.words_count = static_cast<std::uint32_t>(row_words.size()) - row.words_at;
    rows.push_back(row);
  }
  // The word -> id table at its final size, the least power of two at most half full (the parse's grew
  // by doubling from 4,096 slots), the words placed again in id order.
  size_t final_slots = 16;
  while (final_slots < 2 * words.size()) final_slots *= 2;
  if (final_slots != slots.size() / 2) {
    slots.assign(2 * final_slots, 0);
    for (size_t w = 0; w < words.size(); ++w) {
      const std::uint64_t h = WordHash(words[w]);
      size_t s = static_cast<size_t>(h >> 32) & (final_slots - 1);
      while (slots[2 * s + 1] != 0) s = (s + 1) & (final_slots - 1);
      slots[2 * s] = static_cast<std::uint32_t>(h);
      slots[2 * s + 1] = static_cast<std::uint32_t>(w + 1);
    }
  }
  // The weights, the postings (each word's rows, ascending) and the rows' lengths.
  const double n = static_cast<double>(rows.size());
  std::vector<int> df(words.size(), 0);
  for (int w : row_words) ++df[static_cast<size_t>(w)];
  std::vector<std::uint32_t> starts(words.size() + 1, 0);
  for (size_t w = 0; w < words.size(); ++w) starts[w + 1] = starts[w] + static_cast<std::uint32_t>(df[w]);
  std::vector<int> postings(row_words.size());
  std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (std::uint32_t k = rows[r].words_at; k < rows[r].words_at + rows[r].words_count; ++k) {
      postings[next[static_cast<size_t>(row_words[k])]++] = static_cast<int>(r);
    }
  }
  std::vector<double> idf(words.size());
  for (size_t w = 0; w < df.size(); ++w) idf[w] = std::log((n + 1) / (df[w] + 1));
  for (ImageRow& row : rows) {
    double sum = 0;
    for (std::uint32_t k = row.words_at; k < row.words_at + row.words_count; ++k) {
      sum += idf[static_cast<size_t>(row_words[k])] * idf[static_cast<size_t>(row_words[k])];
    }
    row.norm = std::sqrt(sum);
  }
  const std::vector<SimilarTier>& tiers = SimilarTiers();
  bool current = stored.size() == tiers.size();
  for (size_t t = 0; current && t < tiers.size(); ++t) current = stored[t].first == tiers[t].id;
  *fits_current = current;

  ImageHead head{};
  head.magic = kImageMagic;
  head.format = kImageFormat;
  head.rows = static_cast<std::uint32_t>(rows.size());
  head.words = static_cast<std::uint32_t>(words.size());
  head.also = static_cast<std::uint32_t>(also.size() / 2);
  head.slots = static_cast<std::uint32_t>(slots.size() / 2);
  head.tiers = static_cast<std::uint32_t>(tiers.size());
  head.row_words = static_cast<std::uint32_t>(row_words.size());
  head.text = static_cast<std::uint32_t>(pool.size());
  head.fits_stored = current ? 1 : 0;
  head.unseen_idf = std::log(n + 1);
  const ImageLayout l = LayoutOf(head);
  image->size = static_cast<size_t>(l.end);
  image->bytes.reset(new char[image->size]);  // every part is written below but the padding
  char* const out = image->bytes.get();
  image->data = out;
  std::memset(out + l.text + pool.size(), 0, static_cast<size_t>(l.end - l.text) - pool.size());
  Put(out, 0, &head, 1);
  std::vector<SimilarTierFit> fits(tiers.size());
  if (current) {
    for (size_t t = 0; t < tiers.size(); ++t) fits[t] = stored[t].second;
  }
  PutFits(out, fits);
  Put(out, l.rows, rows.data(), rows.size());
  Put(out, l.also, also.data(), also.size());
  Put(out, l.words, word_refs.data(), word_refs.size());
  Put(out, l.idf, idf.data(), idf.size());
  Put(out, l.slots, slots.data(), slots.size());
  Put(out, l.starts, starts.data(), starts.size());
  Put(out, l.row_words, row_words.data(), row_words.size());
  Put(out, l.postings, postings.data(), postings.size());
  Put(out, l.text, pool.data(), pool.size());
  return true;
}

// Opens the image at byte `at` of storage->data into *index, every count, offset and id checked
// against the image's bounds (a cut or damaged image is refused, never read past); false when it
// does not read.
bool OpenImage(const std::shared_ptr<SimilarStorage>& storage, size_t at, SimilarIndex* index) {
  if (at > storage->size) return false;
  const char* const base = storage->data + at;
  const size_t size = storage->size - at;
  if (reinterpret_cast<std::uintptr_t>(base) % alignof(double) != 0 || size < sizeof(ImageHead)) return false;
  ImageHead h;
  std::memcpy(&h, base, sizeof h);
  if (h.magic != kImageMagic || h.format != kImageFormat || h.tiers != SimilarTiers().size() || h.fits_stored > 1) {
    return false;
  }
  const ImageLayout l = LayoutOf(h);
  if (l.end != size) return false;
  const auto* const fits = reinterpret_cast<const std::uint32_t*>(base + l.fits);
  const auto* const also = reinterpret_cast<const std::uint32_t*>(base + l.also);
  const auto* const word_refs = reinterpret_cast<const std::uint32_t*>(base + l.words);
  const auto* const slots = reinterpret_cast<const std::uint32_t*>(base + l.slots);
  const auto* const starts = reinterpret_cast<const std::uint32_t*>(base + l.starts);
  const auto* const row_words = reinterpret_cast<const std::uint32_t*>(base + l.row_words);
  const auto* const postings = reinterpret_cast<const std::uint32_t*>(base + l.postings);
  const char* const text = base + l.text;
  // The checks are written as reductions over whole arrays, without a branch per value, so that the
  // compiler runs them 8 values at a time: this is a warm start's path.
  auto in_text = [&h](std::uint32_t offset, std::uint32_t length) { return length <= h.text && offset <= h.text - length; };
  // The word -> id table: a power of two of slots, more than the words, so that a search always meets
  // an empty slot; as many taken as there are words, each naming one.
  if (h.slots == 0 || (h.slots & (h.slots - 1)) != 0 || h.slots <= h.words) return false;
  std::uint32_t taken = 0, out_of_range = 0;
  for (size_t s = 0; s < h.slots; ++s) {
    taken += slots[2 * s + 1] != 0;
    out_of_range |= slots[2 * s + 1] > h.words;
  }
  if (taken != h.words || out_of_range != 0) return false;
  std::uint32_t refs_out = 0;
  for (size_t w = 0; w < h.words; ++w) refs_out |= !in_text(word_refs[2 * w], word_refs[2 * w + 1]);
  std::uint32_t starts_down = starts[0];
  for (size_t w = 0; w < h.words; ++w) starts_down |= starts[w] > starts[w + 1];
  if (refs_out != 0 || starts_down != 0 || starts[h.words] != h.row_words) return false;
  for (size_t k = 0; k < h.row_words; ++k) out_of_range |= postings[k] >= h.rows;
  // Every id names a word, and a row's ids ascend (a binary search reads them): the rows' ids lie one
  // row after another (checked row by row below), so an id not above the one before it may only begin
  // a row; the descents are counted over the whole array and those at a row's first id below.
  for (size_t k = 0; k < h.row_words; ++k) out_of_range |= row_words[k] >= h.words;
  std::uint32_t descents = 0, row_descents = 0;
  for (size_t k = 1; k < h.row_words; ++k) descents += row_words[k] <= row_words[k - 1];
  if (out_of_range != 0) return false;
  storage->also.reserve(h.also);
  for (size_t a = 0; a < h.also; ++a) {
    if (!in_text(also[2 * a], also[2 * a + 1])) return false;
    storage->also.emplace_back(text + also[2 * a], also[2 * a + 1]);
  }
  storage->rows.reserve(h.rows);
  std::uint32_t next_word = 0;  // where the next row's ids must begin
  for (size_t r = 0; r < h.rows; ++r) {
    ImageRow in;
    std::memcpy(&in, base + l.rows + r * sizeof(ImageRow), sizeof in);
    if (!in_text(in.case_at, in.case_size) || !in_text(in.category_at, in.category_size) || in.category_size == 0 ||
        !in_text(in.source_at, in.source_size) || in.also_count > h.also || in.also_at > h.also - in.also_count ||
        in.words_at != next_word || in.words_count > h.row_words - in.words_at) {
      return false;
    }
    if (in.words_at > 0 && in.words_count > 0) row_descents += row_words[in.words_at] <= row_words[in.words_at - 1];
    next_word += in.words_count;
    SimilarRow row;
    row.case_path = std::string_view(text + in.case_at, in.case_size);
    row.category = std::string_view(text + in.category_at, in.category_size);
    row.also = SimilarSpan<std::string_view>(storage->also.data() + in.also_at, in.also_count);
    row.source = std::string_view(text + in.source_at, in.source_size);
    row.words = SimilarSpan<int>(reinterpret_cast<const int*>(row_words) + in.words_at, in.words_count);
    row.norm = in.norm;
    storage->rows.push_back(row);
  }
  if (next_word != h.row_words || descents != row_descents) return false;
  SimilarIndex out;
  out.tier_fits.resize(h.tiers);
  for (size_t t = 0; t < h.tiers; ++t) {
    SimilarTierFit& fit = out.tier_fits[t];
    if (fits[2 * t] > 0x7fffffffu || fits[2 * t + 1] > fits[2 * t]) return false;
    fit.n = static_cast<int>(fits[2 * t]);
    fit.right = static_cast<int>(fits[2 * t + 1]);
    fit.confidence = fit.n ? static_cast<double>(fit.right) / fit.n : 0;
  }
  out.fits_stored = h.fits_stored == 1;
  out.rows = SimilarSpan<SimilarRow>(storage->rows.data(), storage->rows.size());
  out.idf = SimilarSpan<double>(reinterpret_cast<const double*>(base + l.idf), h.words);
  out.unseen_idf = h.unseen_idf;
  out.text = text;
  out.word_refs = word_refs;
  out.posting_starts = starts;
  out.postings = reinterpret_cast<const int*>(postings);
  out.slots = slots;
  out.slot_count = h.slots;
  out.storage = storage;
  *index = std::move(out);
  return true;
}

// Reads the index file's text into a fresh storage and opens it, fitting the tiers when the file
// stores no current fits (Note: [Stored tier fits]).
bool ParseInto(std::string_view text, std::shared_ptr<SimilarStorage>* storage, SimilarIndex* index, std::string* error) {
  *storage = std::make_shared<SimilarStorage>();
  bool fits_current = false;
  if (!BuildImage(text, storage->get(), &fits_current, error)) return false;
  if (!OpenImage(*storage, 0, index)) {
    *error = "the index's image does not read back";
    return false;
  }
  if (!fits_current) {
    FitSimilarTiers(index);
    PutFits((*storage)->bytes.get(), index->tier_fits);
  }
  return true;
}

}  // namespace

// Note: [Stored tier fits] Fitting the tiers (FitSimilarTiers) votes on every row of the index: ~130 M
// instructions, ~19 ms, paid by every run that reads the index (a log no rule matches) when it was done
// at load. `triage rules similar-index` fits them once, on the rows it writes, and stores each tier's
// record as a line `!fit<TAB>TIER<TAB>N<TAB>RIGHT` after the rows; the confidence, RIGHT / N, is computed
// as the fit computes it. The stored records are used only when they name SimilarTiers()'s ids, in its
// order: an index without them (a test's), or written before a tier was added or renamed, is fitted
// at load as before (and its image, Note: [Similar index image], keeps that fit). SimilarIndex.TheShippedIndexIsCurrent rebuilds the file (its fits included) and
// SimilarIndex.TheStoredFitsAreAFreshFit compares the stored records with a fit of the shipped rows.
//
// Note: [Similar index parse] A log no rule answers reads the index at its start (~300 KB, ~1,340
// rows, ~20,000 word occurrences of ~1,750 distinct words). Read from its text (the first such start
// after the file changed, or with no cache: Note: [Similar index image]), a word's end is found 16
// bytes at a time (WordEnd), the word hashed 8 bytes at a time (WordHash), and its id looked up in an
// open-addressed table of (hash, id + 1) slots, at most half full, that is also the index's word -> id
// map afterwards; rows, words and postings go into flat arrays, strings into one text, never a string
// or vector per row or word (SimilarIndex.* and the shipped index's tests hold the rows, words and
// fits).
//
// Note: [Similar index image] The parse cost ~6 M instructions of a ~19 M warm start on such a log
// (tests/bench/README.md, twenty-ninth pass). So what it produces is one image (BuildImage: counts,
// then the rows' (offset, size) records, the ids, the postings, the weights, the row lengths, the
// word table and every string, in arrays of fixed-size numbers) that the index only points into
// (OpenImage: a view per row, no parse). LoadSimilarIndex keeps the image in the rule cache's
// directory (DefaultRuleCacheDir(), Note: [Rule cache] in rules/rule_cache.h), as
// similar-HASH.bin (HASH of the index file's path; the newest kKeepSimilarImages kept), after a header
// that records what it was built from: the index file's path and stat(2) stamp (device, inode, size,
// modification and status-change times in ns) and the program's identity (its size and modification
// time, the version, as the rule cache's key has them), then the image's size and checksum (Note:
// [Cache checksums] in rules/rule_cache.cc). A start stat(2)s the index file and reads the cache file
// (MapCacheFile: into a huge page as the rule entry is, Note: [Entry on huge pages]; read into a malloc'd
// buffer it lay outside the heap's huge windows, ~113 page faults) and uses the image only when that
// header is byte for byte its own, the size and checksum agree, and OpenImage's bounds checks pass
// (~0.46 M instructions against the parse's ~6.4 M); anything else (an edited, replaced or touched file, another build, a cut, damaged or planted
// image) is a miss: the text is parsed as before and the image written again. As for the rule files'
// stamps (Note: [Rule file stamps] in rules/rule_loader.cc), an image is written only for a file whose
// modification and status-change times are two seconds older than the read began, and for the stamp
// of the open file the bytes were read from (fstat), so an edit within the file system's timestamp
// granularity is never served stale. The directory's checks are the rule cache's (Note: [Cache
// hardening] in rules/rule_cache.h); TRIAGE_NO_CACHE=1 parses the text at every start. The text in
// rules/similar/ stays the source of truth: an image is never read without it. `cmake --install`
// ships one (cmake/ship_rule_cache.cmake runs the installed command on a log of an error no rule
// knows, with the cache directory set to the shipped one, Note: [Shipped rule cache]); a load whose
// own directory has no image reads the shipped one (its directory and file may be root's, never
// writable by others), which names the installed file and program as any image does, and copies
// nothing. The image lies in the rule entry's huge windows when they have room (Note: [Shared huge
// windows] in rules/rule_cache.cc).
namespace {

constexpr int kKeepSimilarImages = 4;
constexpr char kSimilarCacheMagic[] = "triage-similar-index 1\n";

// The header a cached image of the index file at `path`, whose stamp is `st`, must begin with (Note:
// [Similar index image]), zero-padded to a multiple of 8 bytes.
std::string CacheHeader(const std::string& path, const struct stat& st) {
  std::string out = kSimilarCacheMagic;
  auto u64 = [&out](std::uint64_t v) {
    char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    out.append(le, sizeof le);
  };
  auto ns = [](const timespec& t) { return static_cast<std::uint64_t>(t.tv_sec) * 1000000000 + static_cast<std::uint64_t>(t.tv_nsec); };
  u64(static_cast<std::uint64_t>(st.st_dev));
  u64(static_cast<std::uint64_t>(st.st_ino));
  u64(static_cast<std::uint64_t>(st.st_size));
  u64(ns(st.st_mtim));
  u64(ns(st.st_ctim));
  struct stat exe;  // the program (as AddProgramIdentity in rules/rule_loader.cc keys it)
  const bool ok = ::stat("/proc/self/exe", &exe) == 0;
  u64(ok ? static_cast<std::uint64_t>(exe.st_size) : 0);
  u64(ok ? ns(exe.st_mtim) : 0);
  const std::string_view version(TRIAGE_VERSION);
  u64(version.size());
  out += version;
  u64(path.size());
  out += path;
  out.append((8 - out.size() % 8) % 8, '\0');
  return out;
}

std::int64_t Nanoseconds(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// Reads the file at `path` whole into *bytes (*size of them), and its stamp when opened into *st; false
// when it is not a regular file or cannot be read.
bool ReadIndexFile(const std::string& path, std::unique_ptr<char[]>* bytes, size_t* size, struct stat* st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fstat(fd, st) == 0 && S_ISREG(st->st_mode);
  size_t got = 0;
  if (ok) {
    size_t room = static_cast<size_t>(st->st_size) + 1;  // one more: a file grown since fstat is read on
    bytes->reset(new char[room]);
    for (;;) {
      if (got == room) {
        std::unique_ptr<char[]> more(new char[2 * room]);
        std::memcpy(more.get(), bytes->get(), got);
        *bytes = std::move(more);
        room *= 2;
      }
      const ssize_t n = ::read(fd, bytes->get() + got, room - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = n == 0;
        break;
      }
      got += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  *size = got;
  return ok;
}

}  // namespace

bool ParseSimilarIndex(std::string_view text, SimilarIndex* index, std::string* error) {
  std::shared_ptr<SimilarStorage> storage;
  SimilarIndex parsed;
  if (!ParseInto(text, &storage, &parsed, error)) return false;
  *index = std::move(parsed);
  return true;
}

std::string SimilarCacheFileName(const std::string& path) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(CacheChecksum(path)));
  return std::string("similar-") + hex + ".bin";
}

std::unique_ptr<SimilarIndex> LoadSimilarIndex(const std::string& path, const std::string& cache_dir, SimilarLoad* how,
                                               std::int64_t settle_ns, const std::string& shipped_dir) {
  SimilarLoad ignored;
  if (how == nullptr) how = &ignored;
  *how = SimilarLoad();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  auto index = std::make_unique<SimilarIndex>();
  const std::string name = cache_dir.empty() ? "" : SimilarCacheFileName(path);
  if (!cache_dir.empty()) {  // Note: [Similar index image]
    const std::string header = CacheHeader(path, st);
    // The user's image, else the install's (Note: [Shipped rule cache]: its directory may be root's).
    for (const std::string* dir : {&cache_dir, &shipped_dir}) {
      if (dir->empty() || (dir == &shipped_dir && shipped_dir == cache_dir)) continue;
      const CacheOwner owner = dir == &cache_dir ? CacheOwner::kUser : CacheOwner::kUserOrRoot;
      auto storage = std::make_shared<SimilarStorage>();
      if (MapCacheFile(*dir, name, &storage->file, owner) && storage->file.view().size() >= header.size() + 16 &&
          std::memcmp(storage->file.view().data(), header.data(), header.size()) == 0) {
        storage->data = storage->file.view().data();
        storage->size = storage->file.view().size();
        const char* const bytes = storage->data;
        std::uint64_t size = 0, sum = 0;
        std::memcpy(&size, bytes + header.size(), 8);
        std::memcpy(&sum, bytes + header.size() + 8, 8);
        const size_t at = header.size() + 16;
        if (size == storage->size - at && sum == CacheChecksum(std::string_view(bytes + at, storage->size - at)) &&
            OpenImage(storage, at, index.get())) {
          how->from_cache = true;
          how->from_shipped = dir == &shipped_dir;
          return index;
        }
        *index = SimilarIndex();  // what a failed OpenImage left
      }
    }
  }
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::unique_ptr<char[]> text;
  size_t text_size = 0;
  struct stat read_st;
  if (!ReadIndexFile(path, &text, &text_size, &read_st)) return nullptr;
  std::shared_ptr<SimilarStorage> storage;
  std::string error;
  if (!ParseInto(std::string_view(text.get(), text_size), &storage, index.get(), &error)) return nullptr;
  const std::int64_t settled = Nanoseconds(now) - settle_ns;
  if (!cache_dir.empty() && Nanoseconds(read_st.st_mtim) < settled && Nanoseconds(read_st.st_ctim) < settled) {
    const std::string header = CacheHeader(path, read_st);  // the stamp of the bytes read
    const std::string_view image(storage->bytes.get(), storage->size);
    std::uint64_t size_sum[2] = {image.size(), CacheChecksum(image)};
    how->written = WriteCacheFile(cache_dir, name, {header, std::string_view(reinterpret_cast<const char*>(size_sum), sizeof size_sum), image},
                                  "similar-", ".bin", kKeepSimilarImages);
  }
  return index;
}

std::string_view SimilarIndex::Word(int id) const {
  return std::string_view(text + word_refs[2 * static_cast<size_t>(id)], word_refs[2 * static_cast<size_t>(id) + 1]);
}

SimilarSpan<int> SimilarIndex::Postings(int id) const {
  const std::uint32_t from = posting_starts[static_cast<size_t>(id)], to = posting_starts[static_cast<size_t>(id) + 1];
  return SimilarSpan<int>(postings + from, to - from);
}

int SimilarIndex::WordId(std::string_view word) const {
  if (slot_count == 0) return -1;
  const size_t s = FindSlot(slots, slot_count - 1, word, WordHash(word), [this](std::uint32_t id) { return Word(static_cast<int>(id)); });
  return static_cast<int>(slots[2 * s + 1]) - 1;
}

const SimilarIndex* BundledSimilarIndex(const std::string& cache_dir) {
  // One index per cache directory a process uses (almost always one); a map's nodes never move, so a
  // pointer handed out stays valid, and the load runs under the lock once per directory.
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<SimilarIndex>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(cache_dir);
  if (it == loaded.end()) {
    it = loaded.emplace(cache_dir, LoadSimilarIndex(BundledRulesDir() + "/similar/cases.tsv", cache_dir, nullptr,
                                                    2'000'000'000, ShippedRuleCacheDir())).first;
  }
  return it->second.get();
}

const SimilarIndex* BundledSimilarIndex() { return BundledSimilarIndex(DefaultRuleCacheDir()); }

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
std::vector<SimilarNeighbour> ScoreRows(const SimilarIndex& index, SimilarSpan<int> ids, double query,
                                        const std::vector<std::string>& leave_out) {
  std::vector<SimilarNeighbour> out;
  if (ids.empty() || query <= 0) return out;
  std::vector<double> dot(index.rows.size(), 0);
  std::vector<int> shared(index.rows.size(), 0);  // shared message words (the class not counted)
  for (int w : ids) {
    const double idf = index.idf[static_cast<size_t>(w)];
    const bool is_class = index.Word(w).substr(0, 6) == "class:";
    for (int r : index.Postings(w)) {
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

std::string_view ThreadOf(const SimilarRow& row) { return row.source.empty() ? row.case_path : row.source; }

// The vote on scored rows (ScoreRows); `ids` are the query's known words (for the shared words).
SimilarVote VoteOn(const SimilarIndex& index, const std::vector<SimilarNeighbour>& scored, SimilarSpan<int> ids) {
  SimilarVote vote;
  const SimilarNeighbour* best = nullptr;
  for (const SimilarNeighbour& n : scored) {  // the first of (nearly) equal scores, as ever
    if (!best || n.score > best->score + 1e-12) best = &n;
  }
  if (!best) return vote;
  SimilarReading& reading = vote.nearest;
  reading.row = best->row;
  reading.score = best->score;
  std::vector<std::pair<double, std::string_view>> common;
  for (int w : ids) {
    if (std::binary_search(reading.row->words.begin(), reading.row->words.end(), w)) {
      common.emplace_back(index.idf[static_cast<size_t>(w)], index.Word(w));
    }
  }
  std::stable_sort(common.begin(), common.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < common.size() && k < 6; ++k) reading.shared.emplace_back(common[k].second);
  // The threads in the window: each one's most similar row, the nearest case's thread first.
  std::vector<SimilarNeighbour> near;
  for (const SimilarNeighbour& n : scored) {
    if (n.score >= best->score - kSimilarWindow && &n != best) near.push_back(n);
  }
  std::stable_sort(near.begin(), near.end(), [](const SimilarNeighbour& a, const SimilarNeighbour& b) { return a.score > b.score; });
  vote.threads.push_back(*best);
  for (const SimilarNeighbour& n : near) {
    const std::string_view thread = ThreadOf(*n.row);
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
  const SimilarSpan<int> known(ids.data(), ids.size());
  return VoteOn(index, ScoreRows(index, known, query, leave_out), known);
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
    const std::vector<std::string> leave_out = {std::string(row.case_path), std::string(row.source)};
    const SimilarVote vote = VoteOn(*index, ScoreRows(*index, row.words, row.norm * row.norm, leave_out), row.words);
    if (vote.tier < 0 || vote.nearest.row->category == "none") continue;
    SimilarTierFit& fit = index->tier_fits[static_cast<size_t>(vote.tier)];
    ++fit.n;
    const std::string_view answer = vote.nearest.row->category;
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
  const std::string name(row.case_path.substr(row.case_path.find_last_of('/') + 1));
  const std::string category(row.category);
  auto where_of = [](const SimilarRow& r) { return r.source.empty() ? "corpus/" + std::string(r.case_path) : std::string(r.source); };
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
      if (disagree.find(r.category) == std::string::npos) disagree.append(disagree.empty() ? "" : ", ").append(r.category);
    }
  }
  const SimilarTier& tier = SimilarTiers()[static_cast<size_t>(vote.tier)];
  const SimilarTierFit fit =
      static_cast<size_t>(vote.tier) < index.tier_fits.size() ? index.tier_fits[static_cast<size_t>(vote.tier)] : SimilarTierFit();
  Diagnosis d;
  d.rule = "similar:" + name;
  d.category = category;
  d.confidence = fit.confidence;
  d.title = CategoryTitle(category);
  d.incident = incident;
  d.captures["similar_case"] = std::string(row.case_path);
  d.captures["source"] = where;
  d.captures["similarity"] = score;
  d.captures["similar_tier"] = tier.id;
  d.captures["agreeing_threads"] = std::to_string(vote.agreeing);
  d.explanation = "No rule knows this error's wording and its frames name no category; its words are closest to "
                  "a known case's (" + where + "), whose cause was " + category + ". They share " + words +
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
  h.text = "This error reads like the known case " + where + ", whose cause was " + category + " (" + d.title + ").";
  h.test = "Read " + where + " and compare its error, and the cause found there, with this run.";
  h.fix = "The fixes of that category's rules apply if the cause is the same: triage explain " + category;
  d.hypotheses.push_back(std::move(h));
  d.checks.push_back("triage explain " + category + "  # the rules of this category: their checks and fixes");
  d.verify = "The run gets past the step that raised this error.";
  return d;
}

}  // namespace triage
