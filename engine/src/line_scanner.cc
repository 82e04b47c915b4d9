#include "line_scanner.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include <re2/filtered_re2.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TRIAGE_HAVE_X86 1
#endif

#include "rule.h"

namespace triage {
namespace {

inline unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
inline bool IsLowerLetter(unsigned char c) { return c >= 'a' && c <= 'z'; }

// The shortest atom FilteredRE2 keeps: shorter ones would make the scanner stop on most lines.
constexpr int kMinAtomLen = 3;
// The shortest word of an atom used as a keyword instead of the whole atom.
constexpr size_t kMinWordLen = 4;

// Words that healthy training logs print on most lines (progress, metrics, printed tensors). A keyword
// among them would make nearly every line pass the prefilter: correct, but no faster than no prefilter.
const std::set<std::string>& CommonLogWords() {
  static const std::set<std::string> kWords = {
      "loss", "epoch", "step", "steps", "batch", "train", "training", "valid", "validation", "eval", "iter",
      "grad", "grad_fn", "norm", "accuracy", "time", "rank", "samples", "tokens", "tensor", "cuda", "device",
      "info", "debug", "warning", "model", "data"};
  return kWords;
}

// What healthy training logs print on most lines (logging prefixes, progress bars, metric dicts),
// lower-case. A keyword found in it would stop the scanner on most lines of a real log: correct, but
// slow. Used only to choose between keywords, never to decide what matches.
constexpr std::string_view kHealthyLogSample =
    "2024-03-01 12:00:00,123 info trainer.py:214] [100/5000] loss=0.69315 grad_norm=0.4017 lr=0.000100 "
    "samples/s=812.3 eta: 0:10:00 time: 0.5120 data_time: 0.0120 memory: 3012 | epoch 1 step 100/5000 "
    "train_loss 0.4624 val_loss 0.5 acc 0.912 | epoch 1:  40%|####      | 2000/5000 [00:10<00:15, "
    "41.50it/s, loss=0.693, v_num=0] {'loss': 0.6931, 'learning_rate': 4.8e-05, 'epoch': 0.12} "
    "saving checkpoint to checkpoints/epoch=1-step=5000.ckpt warning debug";

// Higher for bytes ordinary log text holds less often (lower-case; digits and punctuation of metric
// lines count as common). Only steers which bytes the AVX2 loop tests; never what matches.
int ByteRarity(char c) {
  static const std::string_view kCommonFirst = " e0t1a2o5i3n4s6r7l8c9.d:hu=m,p/f_g-yw)(b][v|k'x\"jqz";
  size_t at = kCommonFirst.find(static_cast<char>(Lower(static_cast<unsigned char>(c))));
  return at == std::string_view::npos ? 100 : static_cast<int>(at);
}

}  // namespace

bool LineScanner::CpuHasAvx2() {
#if defined(TRIAGE_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

LineScanner::LineScanner(std::vector<std::string> keywords, Impl impl) {
  for (std::string& k : keywords) {
    if (k.find('\n') != std::string::npos) continue;
    if (k.empty()) match_all_ = true;
    for (char& c : k) c = static_cast<char>(Lower(static_cast<unsigned char>(c)));
    if (std::find(keywords_.begin(), keywords_.end(), k) != keywords_.end()) continue;
    keywords_.push_back(std::move(k));
  }
  for (size_t i = 0; i < keywords_.size(); ++i) {
    if (keywords_[i].empty()) continue;
    unsigned char f = static_cast<unsigned char>(keywords_[i][0]);
    first_[f].push_back(static_cast<std::uint32_t>(i));
    has_first_[f] = true;
    max_len_ = std::max(max_len_, keywords_[i].size());
    const std::string& k = keywords_[i];
    size_t rare = 0;
    for (size_t x = 1; x < k.size(); ++x) {
      if (ByteRarity(k[x]) > ByteRarity(k[rare])) rare = x;
    }
    unsigned char r = static_cast<unsigned char>(k[rare]);
    if (by_rare_[r].empty()) rare_bytes_.push_back(r);
    by_rare_[r].push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(rare)});
  }
  avx2_ = impl != Impl::kPortable && CpuHasAvx2();
}

bool LineScanner::KeywordAt(const char* p, size_t n, size_t at) const {
  for (std::uint32_t k : first_[Lower(static_cast<unsigned char>(p[at]))]) {
    const std::string& kw = keywords_[k];
    if (at + kw.size() > n) continue;
    size_t j = 1;
    while (j < kw.size() && Lower(static_cast<unsigned char>(p[at + j])) == static_cast<unsigned char>(kw[j])) ++j;
    if (j == kw.size()) return true;
  }
  return false;
}

bool LineScanner::RareHit(const char* p, size_t n, size_t at) const {
  for (const RareAt& r : by_rare_[Lower(static_cast<unsigned char>(p[at]))]) {
    if (r.offset > at) continue;
    const std::string& kw = keywords_[r.keyword];
    size_t start = at - r.offset;
    if (start + kw.size() > n) continue;
    size_t j = 0;
    while (j < kw.size() && Lower(static_cast<unsigned char>(p[start + j])) == static_cast<unsigned char>(kw[j])) ++j;
    if (j == kw.size()) return true;
  }
  return false;
}

LineScanner::Hit LineScanner::Find(std::string_view text) const {
  if (match_all_) {
    Hit hit;
    hit.found = !text.empty();
    return hit;
  }
  if (avx2_) return FindAvx2(text.data(), text.size());
  return FindPortable(text.data(), text.size(), 0, 0, 0);
}

LineScanner::Hit LineScanner::FindPortable(const char* p, size_t n, size_t from, std::uint64_t newlines,
                                           size_t line_start) const {
  for (size_t i = from; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '\n') {
      ++newlines;
      line_start = i + 1;
      continue;
    }
    if (has_first_[Lower(c)] && KeywordAt(p, n, i)) return {true, line_start, newlines};
  }
  return {false, n, newlines};
}

#if defined(TRIAGE_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
// A position is a candidate when its byte is the rarest byte (in ordinary log text) of some keyword;
// the keywords around it are then verified in full (the "rare byte" idea of memchr::memmem, for many
// needles). The cost per 32 bytes grows with the number of distinct rare bytes, not of keywords. The
// first verified candidate is in the first line holding a keyword: a keyword never spans lines, so one
// in an earlier line has its rare byte earlier too. Letters are compared after OR 0x20, which maps
// exactly {upper, lower} of a letter onto the lower-case byte: the same folding as Lower().
__attribute__((target("avx2"))) LineScanner::Hit LineScanner::FindAvx2(const char* p, size_t n) const {
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  const __m256i newline = _mm256_set1_epi8('\n');
  std::uint64_t newlines = 0;
  size_t line_start = 0;
  size_t i = 0;
  auto hit_at = [&](size_t q, std::uint32_t nl_before) {
    newlines += static_cast<std::uint64_t>(__builtin_popcount(nl_before));
    if (nl_before) line_start = (q & ~size_t{31}) + (31 - __builtin_clz(nl_before)) + 1;
    return Hit{true, line_start, newlines};
  };
  for (; i + 32 <= n; i += 32) {
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i folded = _mm256_or_si256(raw, case_bit);
    __m256i any = _mm256_setzero_si256();
    for (unsigned char b : rare_bytes_) {
      __m256i v = IsLowerLetter(b) ? folded : raw;
      any = _mm256_or_si256(any, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(static_cast<char>(b))));
    }
    std::uint32_t nl = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(raw, newline)));
    std::uint32_t cand = static_cast<std::uint32_t>(_mm256_movemask_epi8(any));
    while (cand) {
      int j = __builtin_ctz(cand);
      if (RareHit(p, n, i + j)) return hit_at(i + j, nl & ((1u << j) - 1));  // bit j is no '\n'
      cand &= cand - 1;
    }
    if (nl) {
      newlines += static_cast<std::uint64_t>(__builtin_popcount(nl));
      line_start = i + (31 - __builtin_clz(nl)) + 1;
    }
  }
  // The last bytes, one at a time, by the same rare-byte rule (a keyword may have started above).
  for (; i < n; ++i) {
    if (p[i] == '\n') {
      ++newlines;
      line_start = i + 1;
    } else if (!by_rare_[Lower(static_cast<unsigned char>(p[i]))].empty() && RareHit(p, n, i)) {
      return {true, line_start, newlines};
    }
  }
  return {false, n, newlines};
}
#else
LineScanner::Hit LineScanner::FindAvx2(const char* p, size_t n) const { return FindPortable(p, n, 0, 0, 0); }
#endif

namespace {

std::string LowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(Lower(static_cast<unsigned char>(c)));
  return s;
}

// Calls f(word) for each maximal run of [a-z0-9_] in a lower-case string.
template <typename F>
void ForEachWord(const std::string& s, F f) {
  for (size_t b = 0; b < s.size();) {
    size_t e = b;
    while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_')) ++e;
    if (e > b) f(s.substr(b, e - b));
    b = e + 1;
  }
}

bool SpecificWord(const std::string& w) {
  return w.size() >= kMinWordLen && w.find_first_not_of("0123456789") != std::string::npos &&
         !CommonLogWords().count(w) && kHealthyLogSample.find(w) == std::string_view::npos;
}

// How good an atom is as the one a line must contain: free when a keyword the scanner looks for anyway
// is inside it, else as good as its longest specific word (few, rare keywords keep the scanner fast).
int AtomQuality(const std::string& atom, const std::vector<std::string>& free_keywords) {
  std::string lower = LowerAscii(atom);
  for (const std::string& k : free_keywords) {
    if (!k.empty() && lower.find(LowerAscii(k)) != std::string::npos) return 1000;
  }
  // Text healthy logs print is the worst choice, the more often printed the worse.
  int printed = 0;
  for (size_t at = kHealthyLogSample.find(lower); at != std::string_view::npos;
       at = kHealthyLogSample.find(lower, at + 1)) {
    --printed;
  }
  if (printed < 0) return printed;
  int best = 0;
  ForEachWord(lower, [&](const std::string& w) {
    if (SpecificWord(w)) best = std::max(best, static_cast<int>(w.size()) * 2);
  });
  return best > 0 ? best : static_cast<int>(atom.size());
}

}  // namespace

namespace {

bool ComputeRequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                             const std::vector<std::string>& free_keywords);

}  // namespace

bool RequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                      const std::vector<std::string>& free_keywords) {
  // Loading asks twice per pattern (the lint check, then BuildLinePrefilter), and FilteredRE2 compiles
  // the pattern each time: remember answers (bounded: cleared when large; rule reloads add patterns).
  static std::mutex mu;
  static std::map<std::string, std::pair<bool, std::vector<std::string>>> cache;
  std::string key;
  for (const std::string& k : free_keywords) key += k + '\x1f';
  key += '\0' + pattern;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) {
      *atoms = it->second.second;
      return it->second.first;
    }
  }
  bool ok = ComputeRequiredLiterals(pattern, atoms, free_keywords);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 4096) cache.clear();
  cache.emplace(std::move(key), std::make_pair(ok, *atoms));
  return ok;
}

namespace {

bool ComputeRequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                             const std::vector<std::string>& free_keywords) {
  atoms->clear();
  re2::FilteredRE2 filter(kMinAtomLen);
  int id = 0;
  if (filter.Add(pattern, RegexOptions(), &id) != RE2::NoError) return false;
  std::vector<std::string> all;
  filter.Compile(&all);
  std::vector<int> passed;
  filter.AllPotentials({}, &passed);
  if (!passed.empty() || all.empty()) return false;  // can match with no atom present
  // The prefilter is a monotone AND/OR formula over the atoms. A set S of atoms is enough for the
  // scanner when the formula is false with every atom outside S present: then every match contains an
  // atom of S. Start from all atoms and drop the worst while that holds (one atom of an AND suffices).
  std::vector<int> order(all.size()), quality(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    order[i] = static_cast<int>(i);
    quality[i] = AtomQuality(all[i], free_keywords);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return quality[a] < quality[b]; });
  std::vector<bool> keep(all.size(), true);
  for (int drop : order) {
    keep[drop] = false;
    std::vector<int> present;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!keep[i]) present.push_back(static_cast<int>(i));
    }
    passed.clear();
    filter.AllPotentials(present, &passed);
    if (!passed.empty()) keep[drop] = true;  // needed after all
  }
  for (size_t k = 0; k < all.size(); ++k) {
    if (!keep[k]) continue;
    const std::string& a = all[k];
    // An atom with non-ASCII bytes: the scanner folds ASCII case only, so keep its longest ASCII run
    // (a substring of the atom, hence also required); none long enough means no usable literal.
    size_t best_pos = 0, best_len = 0;
    for (size_t i = 0; i < a.size();) {
      size_t j = i;
      while (j < a.size() && static_cast<unsigned char>(a[j]) < 0x80) ++j;
      if (j - i > best_len) { best_pos = i; best_len = j - i; }
      i = j + 1;
    }
    if (best_len < static_cast<size_t>(kMinAtomLen)) {
      atoms->clear();
      return false;
    }
    atoms->push_back(a.substr(best_pos, best_len));
  }
  return true;
}

}  // namespace

std::vector<std::string> CoverKeywords(const std::vector<std::string>& base, const std::vector<std::string>& atoms) {
  std::vector<std::string> keywords;
  for (const std::string& b : base) keywords.push_back(LowerAscii(b));
  std::vector<std::string> open;
  for (const std::string& a : atoms) {
    std::string l = LowerAscii(a);
    bool done = std::any_of(keywords.begin(), keywords.end(),
                            [&](const std::string& k) { return l.find(k) != std::string::npos; });
    if (!done && std::find(open.begin(), open.end(), l) == open.end()) open.push_back(l);
  }
  // Candidates: each atom itself (always valid) and its specific words, each covering every open atom
  // that contains it (computed once: the greedy loop below only counts).
  std::set<std::string> candidates;
  for (const std::string& a : open) {
    candidates.insert(a);
    ForEachWord(a, [&](const std::string& w) {
      if (SpecificWord(w)) candidates.insert(w);
    });
  }
  std::vector<std::pair<std::string, std::vector<size_t>>> cover;
  for (const std::string& c : candidates) {
    std::vector<size_t> list;
    for (size_t i = 0; i < open.size(); ++i) {
      if (open[i].find(c) != std::string::npos) list.push_back(i);
    }
    cover.emplace_back(c, std::move(list));
  }
  // Greedy set cover: the candidate that covers the most open atoms; on ties a specific word before a
  // whole atom, then the longer (fewer false positives), then the alphabetically first (set order), so
  // rule order does not matter.
  std::vector<bool> done(open.size(), false);
  size_t left = open.size();
  while (left > 0) {
    const std::pair<std::string, std::vector<size_t>>* best = nullptr;
    size_t best_count = 0;
    for (const auto& entry : cover) {
      size_t count = 0;
      for (size_t i : entry.second) count += done[i] ? 0 : 1;
      if (count == 0) continue;
      bool better = !best || count > best_count;
      if (best && count == best_count) {
        bool word = SpecificWord(entry.first), best_word = SpecificWord(best->first);
        better = word != best_word ? word : entry.first.size() > best->first.size();
      }
      if (better) {
        best = &entry;
        best_count = count;
      }
    }
    if (!best) break;  // unreachable: every open atom is its own candidate
    keywords.push_back(best->first);
    for (size_t i : best->second) {
      if (!done[i]) {
        done[i] = true;
        --left;
      }
    }
  }
  return keywords;
}

std::vector<std::optional<std::vector<std::string>>> PatternAtoms(const std::vector<std::string>& patterns,
                                                                  const std::vector<std::string>& idle_keywords) {
  std::vector<std::optional<std::vector<std::string>>> out(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    std::vector<std::string> atoms;
    if (RequiredLiterals(patterns[i], &atoms, idle_keywords)) out[i] = std::move(atoms);
  }
  return out;
}

std::shared_ptr<const LinePrefilter> BuildLinePrefilter(const std::vector<std::string>& patterns,
                                                         const std::vector<std::string>& idle_keywords) {
  return BuildLinePrefilter(patterns, PatternAtoms(patterns, idle_keywords), idle_keywords);
}

std::shared_ptr<const LinePrefilter> BuildLinePrefilter(
    const std::vector<std::string>& patterns, const std::vector<std::optional<std::vector<std::string>>>& atoms,
    const std::vector<std::string>& idle_keywords) {
  if (atoms.size() != patterns.size()) return nullptr;
  auto out = std::make_shared<LinePrefilter>();
  std::vector<std::string> all_atoms, unfiltered;
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (atoms[i]) {
      all_atoms.insert(all_atoms.end(), atoms[i]->begin(), atoms[i]->end());
    } else {
      unfiltered.push_back(patterns[i]);
      out->unfiltered_patterns.push_back(static_cast<int>(i));
    }
  }
  out->scanner = std::make_unique<LineScanner>(CoverKeywords(idle_keywords, all_atoms));
  out->idle = std::make_unique<LineScanner>(idle_keywords);
  if (!unfiltered.empty()) {
    out->unfiltered = std::make_unique<RE2::Set>(RegexOptions(), RE2::UNANCHORED);
    for (const std::string& p : unfiltered) {
      if (out->unfiltered->Add(p, nullptr) < 0) return nullptr;
    }
    if (!out->unfiltered->Compile()) return nullptr;
  }
  return out;
}

}  // namespace triage
