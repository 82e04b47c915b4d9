// LineScanner, the keyword derivation from rule patterns, and the log path that skips lines with them
// (Note: [Line prefilter] in engine/src/log/line_scanner.h).
#include "log/line_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include "log/regex.h"
#include "log/segmenter.h"
#include "log/simd.h"
#include "rules/rule.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

// The reference the two implementations are checked against: split, lower-case, search. With a
// filter (Note: [Keyword contexts]), `keywords` are the scanner's (its indexes are the filter's), and
// a keyword counts at the places of the text the filter says.
LineScanner::Hit Naive(std::string_view text, const std::vector<std::string>& keywords,
                       const LineScanner::HitFilter* filter = nullptr) {
  LineScanner::Hit hit;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    for (char& c : line) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    for (size_t i = 0; i < keywords.size(); ++i) {
      std::string k = keywords[i];
      if (k.find('\n') != std::string::npos) continue;
      for (char& c : k) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      for (size_t at = line.find(k); at != std::string::npos; at = k.empty() ? std::string::npos : line.find(k, at + 1)) {
        if (filter && !filter->Counts(static_cast<std::uint32_t>(i), text.data(), text.size(), start + at)) continue;
        hit.found = true;
        hit.line_start = start;
        return hit;
      }
    }
    if (nl == std::string_view::npos) break;
    ++hit.newlines;
    start = nl + 1;
  }
  hit.line_start = text.size();
  return hit;
}

// The reference for KeywordsIn: the indexes of the (lower-case) keywords the lower-cased text holds.
std::vector<std::uint32_t> NaiveKeywordsIn(std::string_view text, const std::vector<std::string>& keywords) {
  std::string lower(text);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  std::vector<std::uint32_t> out;
  for (size_t k = 0; k < keywords.size(); ++k) {
    if (!keywords[k].empty() && lower.find(keywords[k]) != std::string::npos) {
      out.push_back(static_cast<std::uint32_t>(k));
    }
  }
  return out;
}

std::string Describe(const LineScanner::Hit& h) {
  return "found=" + std::to_string(h.found) + " line_start=" + std::to_string(h.line_start) +
         " newlines=" + std::to_string(h.newlines);
}

TEST(LineScanner, FindsTheFirstLineHoldingAKeyword) {
  const std::vector<std::string> kw = {"Traceback", "Error", "what():"};
  struct Case {
    std::string text;
    bool found;
    size_t line_start;
    std::uint64_t newlines;
  } cases[] = {
      {"", false, 0, 0},
      {"epoch 1 loss 0.25\n", false, 18, 1},
      {"epoch 1 loss 0.25\nTraceback (most recent call last):\n", true, 18, 1},
      {"RuntimeError: CUDA error: out of memory", true, 0, 0},
      {"a\nb\nc\n  what():  boom\n", true, 6, 3},
      {"TRACEBACK in capitals\n", true, 0, 0},          // ASCII case folding
      {"Err\nor split by a newline\n", false, 26, 2},   // a keyword never spans lines
      {"no keyword, no newline", false, 22, 0},
      {std::string(100, 'x') + "\n" + std::string(40, 'y') + "error", true, 101, 1},
  };
  for (LineScanner::Impl impl : {LineScanner::Impl::kPortable, LineScanner::Impl::kAvx2, LineScanner::Impl::kAvx512,
                                 LineScanner::Impl::kAvx512OnCandidates, LineScanner::Impl::kAvx512OnEveryBlock,
                                 LineScanner::Impl::kAvx512WithoutStage}) {
    LineScanner scanner(kw, impl);
    for (const Case& c : cases) {
      LineScanner::Hit h = scanner.Find(c.text);
      EXPECT_EQ(h.found, c.found) << c.text << " -> " << Describe(h);
      EXPECT_EQ(h.line_start, c.line_start) << c.text << " -> " << Describe(h);
      EXPECT_EQ(h.newlines, c.newlines) << c.text << " -> " << Describe(h);
    }
  }
}

// The way on every block runs its stage for two 32-byte blocks at once (Note: [Wide stage blocks] in
// line_scanner.cc): a keyword at each offset of both blocks of a pair (and of the blocks past them,
// where the text's end leaves one block alone), upper case or not, each kind the follow-up tables
// hold (going on past its anchor, ending with it, 3 bytes long), and a keyword's anchor followed by
// other bytes, found where the portable scan finds it and nowhere else.
TEST(LineScanner, EveryOffsetOfTheWideStage) {
  const std::vector<std::string> kw = {"traceback", "collective", "warning", "hard", "ema", "pickle", "items("};
  const LineScanner portable(kw, LineScanner::Impl::kPortable);
  const LineScanner on_every_block(kw, LineScanner::Impl::kAvx512OnEveryBlock);
  const LineScanner avx512(kw, LineScanner::Impl::kAvx512);
  for (const std::string& word : {std::string("TraceBack"), std::string("collective"), std::string("WARNING"),
                                  std::string("hard"), std::string("EMA"), std::string("items("),
                                  std::string("pickled"), std::string("active"), std::string("warn"),
                                  std::string("items/")}) {
    for (size_t at = 0; at < 200; ++at) {
      for (size_t after : {0u, 3u, 40u, 100u}) {
        std::string text = std::string(at, 'z') + word + std::string(after, 'q');
        if (at >= 2) text[at / 2] = '\n';
        const LineScanner::Hit want = Naive(text, kw);
        ASSERT_EQ(Describe(portable.Find(text)), Describe(want)) << word << " at " << at << ", " << after << " after";
        ASSERT_EQ(Describe(on_every_block.Find(text)), Describe(want)) << word << " at " << at << ", " << after << " after";
        ASSERT_EQ(Describe(avx512.Find(text)), Describe(want)) << word << " at " << at << ", " << after << " after";
      }
    }
  }
}

// Long buffers: the newlines counted and the hit's line start over ~200 KiB of lines of 1, 16, 31,
// 32 and 33 bytes (around the AVX2 loop's 32-byte blocks), a keyword after them or none, the last
// line starting at several offsets of its block.
TEST(LineScanner, LongBuffersCountEveryNewline) {
  const std::vector<std::string> kw = {"traceback", "Error"};
  LineScanner portable(kw, LineScanner::Impl::kPortable);
  LineScanner avx2(kw, LineScanner::Impl::kAvx2);
  LineScanner avx512(kw, LineScanner::Impl::kAvx512);
  LineScanner on_candidates(kw, LineScanner::Impl::kAvx512OnCandidates);
  LineScanner on_every_block(kw, LineScanner::Impl::kAvx512OnEveryBlock);
  LineScanner without_stage(kw, LineScanner::Impl::kAvx512WithoutStage);
  for (size_t len : {1u, 16u, 31u, 32u, 33u}) {
    std::string line(len - 1, 'x');
    line += '\n';
    std::string text;
    while (text.size() < 200000) text += line;
    for (size_t pad = 0; pad < 40; pad += 7) {
      for (const std::string& tail : {std::string(pad, 'y') + "a Traceback here\n", std::string(pad, 'y') + "\n"}) {
        const std::string all = text + tail;
        const LineScanner::Hit want = Naive(all, kw);
        ASSERT_EQ(Describe(portable.Find(all)), Describe(want)) << "portable, lines of " << len << ", pad " << pad;
        ASSERT_EQ(Describe(avx2.Find(all)), Describe(want)) << "avx2, lines of " << len << ", pad " << pad;
        ASSERT_EQ(Describe(avx512.Find(all)), Describe(want)) << "avx512, lines of " << len << ", pad " << pad;
        ASSERT_EQ(Describe(on_candidates.Find(all)), Describe(want)) << "avx512 stage on candidates, lines of " << len;
        ASSERT_EQ(Describe(on_every_block.Find(all)), Describe(want)) << "avx512 stage on every block, lines of " << len;
        ASSERT_EQ(Describe(without_stage.Find(all)), Describe(want)) << "avx512 without the stage, lines of " << len;
      }
    }
  }
}

TEST(LineScanner, KeywordsInListsEveryKeywordOnce) {
  LineScanner scanner({"Error", "loss=nan", "nan", "what():"});
  std::vector<std::uint32_t> found;
  scanner.KeywordsIn("ERROR: loss=NaN after loss=nan", &found);
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::uint32_t>{0, 1, 2}));
  found.clear();
  scanner.KeywordsIn("epoch 1 loss=0.5", &found);
  EXPECT_TRUE(found.empty());
}

TEST(LineScanner, EmptyKeywordMatchesEveryLineAndNewlineKeywordsAreDropped) {
  LineScanner all({""});
  EXPECT_TRUE(all.Find("anything\n").found);
  EXPECT_FALSE(all.Find("").found);
  LineScanner none({"a\nb"});
  EXPECT_TRUE(none.keywords().empty());
  EXPECT_FALSE(none.Find("a\nb\n").found);
}

// Checks both implementations against the reference on `rounds` random buffers built from `pieces`
// and runs of one letter, started at offsets 0-3: misaligned buffers and tails of every length.
// With `layout`, both scanners are built with it; with `filter`, both ask it (Note: [Keyword contexts]).
void ExpectAgreement(const std::vector<std::string>& kw, const std::vector<std::string>& pieces, int rounds,
                     unsigned seed, const LineScanner::Layout* layout = nullptr,
                     const LineScanner::HitFilter* filter = nullptr) {
  LineScanner portable(kw, LineScanner::Impl::kPortable, layout, filter);
  LineScanner avx2(kw, LineScanner::Impl::kAvx2, layout, filter);
  LineScanner avx512(kw, LineScanner::Impl::kAvx512, layout, filter);
  LineScanner on_candidates(kw, LineScanner::Impl::kAvx512OnCandidates, layout, filter);
  LineScanner on_every_block(kw, LineScanner::Impl::kAvx512OnEveryBlock, layout, filter);
  LineScanner without_stage(kw, LineScanner::Impl::kAvx512WithoutStage, layout, filter);
  EXPECT_FALSE(portable.uses_avx2());
  EXPECT_EQ(avx2.uses_avx2(), LineScanner::CpuHasAvx2());
  EXPECT_FALSE(avx2.uses_avx512());
  EXPECT_EQ(avx512.uses_avx512(), LineScanner::CpuHasAvx2() && CpuHasAvx512());
  std::mt19937 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    std::string text;
    int n = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < n; ++i) {
      if (rng() % 3 == 0) {
        text += std::string(rng() % 50, static_cast<char>('a' + rng() % 26));
      } else {
        text += pieces[rng() % pieces.size()];
      }
    }
    std::string_view view(text);
    view.remove_prefix(std::min<size_t>(view.size(), rng() % 4));
    LineScanner::Hit want = filter ? Naive(view, portable.keywords(), filter) : Naive(view, kw);
    ASSERT_EQ(Describe(portable.Find(view)), Describe(want)) << "portable, round " << round;
    ASSERT_EQ(Describe(avx2.Find(view)), Describe(want)) << "avx2, round " << round;
    ASSERT_EQ(Describe(avx512.Find(view)), Describe(want)) << "avx512, round " << round;
    ASSERT_EQ(Describe(on_candidates.Find(view)), Describe(want)) << "avx512 stage on candidates, round " << round;
    ASSERT_EQ(Describe(on_every_block.Find(view)), Describe(want)) << "avx512 stage on every block, round " << round;
    ASSERT_EQ(Describe(without_stage.Find(view)), Describe(want)) << "avx512 without the stage, round " << round;
    // KeywordsIn: every keyword the text holds, each once, by every implementation.
    std::vector<std::uint32_t> want_in = NaiveKeywordsIn(view, portable.keywords());
    for (const LineScanner* s : {&portable, &avx2, &avx512}) {
      std::vector<std::uint32_t> got;
      s->KeywordsIn(view, &got);
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, want_in) << (s == &portable ? "portable" : s == &avx2 ? "avx2" : "avx512") << " KeywordsIn, round "
                              << round;
    }
  }
}

// Both implementations must agree with the reference on the same inputs: keyword fragments in both
// cases, newlines, NUL and high bytes, with keywords straddling the 32-byte blocks and the buffer end.
TEST(LineScanner, PortableAndAvx2AgreeWithReference) {
  const std::vector<std::string> kw = {"traceback", "Error", "terminate called", "\x1b", "what():", "mat1 and mat2"};
  std::printf("[ INFO     ] AVX2 implementation %s on this CPU, on AVX-512's registers %s\n",
              LineScanner::CpuHasAvx2() ? "tested" : "unavailable",
              LineScanner::CpuHasAvx2() && CpuHasAvx512() ? "tested" : "unavailable");
  ExpectAgreement(kw,
                  {"TraceBack", "ERROR", "error", "erro", "rror", "terminate", " called", "what()", ":", "mat1 and ",
                   "mat2", "\n", "\n", "\n", "loss=0.1 ", std::string(1, '\0'), "\xff\xfe", "\x1b[0m", "            "},
                  3000, 1234);
}

// The bundled rules' keywords, as their prefilter's scanner keeps them.
std::vector<std::string> BundledKeywords() {
  LoadOptions options;
  options.env_path = false;
  LoadResult loaded = LoadRules(options);
  return loaded.rules->prefilter ? loaded.rules->prefilter->Scanner().keywords() : std::vector<std::string>();
}

// Pieces of text to build inputs from for keywords `kw`: each keyword, in upper case, cut in two and
// without its first byte, with newlines, blanks, metric text, NUL and a high byte.
std::vector<std::string> KeywordPieces(const std::vector<std::string>& kw) {
  std::vector<std::string> pieces = {"\n", "\n", "\n", " ", "loss=0.25 ", "INFO ", std::string(1, '\0'), "\xff"};
  for (const std::string& k : kw) {
    std::string upper = k;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    pieces.push_back(k);
    pieces.push_back(upper);
    pieces.push_back(k.substr(0, k.size() / 2));
    pieces.push_back(k.substr(k.size() / 2));
    pieces.push_back(k.substr(1));  // the anchor without the keyword's first byte
  }
  return pieces;
}

// The bundled rules' keywords: every bucket of the fingerprint scan in use, anchors inside keywords,
// short keywords of several lengths (1 to 3 bytes) in buckets of their own.
TEST(LineScanner, ManyKeywordsAgreeWithReference) {
  std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  for (const char* extra : {"ab", "nan", "inf", "x"}) kw.push_back(extra);
  const std::vector<std::string> pieces = KeywordPieces(kw);
  ExpectAgreement(kw, pieces, 6000, 99);
  // And without the 1-byte keyword, which otherwise stops the scan on most buffers.
  kw.pop_back();
  ExpectAgreement(kw, pieces, 6000, 7);
}

// A filter that reads the text on both sides of a keyword found: keyword k counts where the byte
// before it is no 'x' and, for an odd k, where a blank or the text's end follows it.
class AroundFilter : public LineScanner::HitFilter {
 public:
  explicit AroundFilter(std::vector<std::string> keywords) : keywords_(std::move(keywords)) {}
  bool Counts(std::uint32_t k, const char* p, size_t n, size_t start) const override {
    ++asked;
    if (start > 0 && (p[start - 1] == 'x' || p[start - 1] == 'X')) return false;
    const size_t end = start + keywords_[k].size();
    return k % 2 == 0 || end == n || p[end] == ' ';
  }
  // Note: [Hit contexts]: the same rule as pairs of ASCII-lowered bytes (never an upper-case letter):
  // any byte but 'x' before; after it, any byte for an even k, ' ' for an odd one.
  bool Contexts(std::uint32_t k, std::string_view, std::vector<Context>* contexts) const override {
    for (int b = 0; b < 256; ++b) {
      if (b != 'x' && !(b >= 'A' && b <= 'Z')) contexts->push_back({b, k % 2 == 0 ? -1 : ' '});
    }
    return true;
  }
  mutable std::atomic<std::uint64_t> asked{0};

 private:
  std::vector<std::string> keywords_;
};

// Note: [Keyword contexts]: with a filter every implementation stops on the first line where a keyword
// lies at a place the filter counts, reading on past the places it does not (in the same line, across
// blocks and in the tail), with the bundled keywords and a few short ones, pieces preceded by 'x' and
// followed by blanks and letters. Fails when an implementation takes the first keyword found without
// asking, or stops at the first it asks about. The filter also lists its contexts (Note: [Hit
// contexts]), which the AVX2 and AVX-512 loops test before asking: fails when they test the text's
// bytes around the keyword unlowered.
TEST(LineScanner, FilteredKeywordsAgreeWithReference) {
  std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  for (const char* extra : {"ab", "nan", "inf"}) kw.push_back(extra);
  std::vector<std::string> pieces = KeywordPieces(kw);
  for (const char* extra : {"x", "X", " ", "a", "xx "}) pieces.push_back(extra);
  const AroundFilter filter(LineScanner::UsableKeywords(kw));
  ExpectAgreement(kw, pieces, 6000, 31, nullptr, &filter);
  EXPECT_GT(filter.asked.load(), 10000u);
  // The reference itself: some lines hold keywords only at places the filter does not count.
  const std::vector<std::string> two = LineScanner::UsableKeywords({"error", "ab"});
  const AroundFilter small(two);
  EXPECT_FALSE(Naive("xerror x\n", two, &small).found);
  EXPECT_TRUE(Naive("xerror error\n", two, &small).found);
}

// A filter like a LinePrefilter's for literals that begin with their keyword and go on with two
// bytes: keyword k counts where ASCII-lower of the two bytes after it are those of one of `afters[k]`.
class SuffixFilter : public LineScanner::HitFilter {
 public:
  SuffixFilter(std::vector<std::string> keywords, std::vector<std::vector<std::string>> afters)
      : keywords_(std::move(keywords)), afters_(std::move(afters)) {}
  bool Counts(std::uint32_t k, const char* p, size_t n, size_t start) const override {
    ++asked;
    const size_t end = start + keywords_[k].size();
    for (const std::string& a : afters_[k]) {
      if (end + 2 <= n && std::tolower(static_cast<unsigned char>(p[end])) == a[0] &&
          std::tolower(static_cast<unsigned char>(p[end + 1])) == a[1]) {
        return true;
      }
    }
    return false;
  }
  bool Contexts(std::uint32_t k, std::string_view, std::vector<Context>* contexts) const override {
    for (const std::string& a : afters_[k]) contexts->push_back({-1, a[0], a[1]});
    return true;
  }
  mutable std::atomic<std::uint64_t> asked{0};

 private:
  std::vector<std::string> keywords_;
  std::vector<std::vector<std::string>> afters_;
};

// Note: [Second byte after]: a keyword whose literals begin with it ("items(" for "item") is tested in
// the loop against the two bytes after it, so the "items/" of web text is no call out of the loop:
// every implementation and way stops where the reference does, with keywords straddling blocks, cut
// at the buffer's end and one byte before it, in both cases; and on text holding "items/" on every line
// the AVX2 and AVX-512 loops ask the filter about the one line that counts only. Fails with the second
// byte left out of the loops' test (the filter is asked on every line) or read one byte off.
TEST(LineScanner, SecondByteAfterKeepsKeywordsInWordsInTheLoop) {
  const std::vector<std::string> kw = LineScanner::UsableKeywords({"item", "error", "nan"});
  const SuffixFilter filter(kw, {{"s(", "=["}, {": ", "s:"}, {" l", "%)"}});
  ExpectAgreement(kw,
                  {"items(", "ITEMS(", "items/", "items", "item", "s(", "(", "item=[", "item=", "error: ",
                   "Errors:", "errors/", "error", "nan loss", "NaN l", "nan%)", "nan ", "\n", "\n", "x", " "},
                  6000, 77, nullptr, &filter);
  std::string text;
  for (int i = 0; i < 4000; ++i) text += "10.1.2.3 - - \"GET /api/v1/items HTTP/1.1\" 200 " + std::to_string(i) + "\n";
  const size_t last = text.size();
  text += "total = items(x)\n";
  for (const LineScanner::Impl impl : {LineScanner::Impl::kAvx2, LineScanner::Impl::kAvx512,
                                       LineScanner::Impl::kAvx512OnCandidates, LineScanner::Impl::kAvx512OnEveryBlock,
                                       LineScanner::Impl::kAvx512WithoutStage}) {
    const LineScanner scanner(kw, impl, nullptr, &filter);
    filter.asked = 0;
    const LineScanner::Hit hit = scanner.Find(text);
    ASSERT_TRUE(hit.found);
    EXPECT_EQ(hit.line_start, last);
    EXPECT_EQ(hit.newlines, 4000u);
    if (scanner.uses_avx2()) {
      EXPECT_LE(filter.asked.load(), 2u) << "implementation " << static_cast<int>(impl);
    }
  }
}

// Note: [Short keyword hash]: the positions a short keyword's bucket accepts pass the anchor hash only
// where the text's first bytes may be a short keyword (or a full-length anchor): "ked " of "picked up"
// fits the nibbles of "net", "ema" and "[0m" but is none of them. Every implementation and way still
// stops where the reference does, with short keywords in both cases, straddling blocks and cut at the
// buffer's end. Fails with a short keyword's hash taken over all kPrints bytes of its zero-padded copy
// (keywords missed) or with short candidates passed untested (the count).
TEST(LineScanner, ShortKeywordsHashedBeforeTheCall) {
  const std::vector<std::string> kw = LineScanner::UsableKeywords({"net", "EMA", "[0m", "ab", "error", "x"});
  ExpectAgreement(kw,
                  {"net", "NET", "nets", "ema", "Ema", "[0m", "[0M", "ab", "AB", "a", "ked ", "picked up ", "error",
                   "erro", "x", "X", "\n", "\n", " ", "0m"},
                  6000, 91);
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "worker " + std::to_string(i) + " picked up job " + std::to_string(i % 7) + "\n";
  const LineScanner scanner(kw, LineScanner::Impl::kPortable);
  const LineScanner::Counts c = scanner.CountCandidates(text);
  EXPECT_GE(c.table, 2000u);
  EXPECT_LT(c.hashed * 10, c.table);
}

// Note: [Short keyword groups]: CJK keywords of three bytes beside ASCII ones of three bytes do not
// make the ASCII bucket accept " lo" of every " loss" (their continuation bytes' low nibbles with the
// letters' high nibble 6 did), and every implementation still stops where the reference does on both
// kinds of text. Fails with the short keywords grouped by length alone (a table candidate a line).
TEST(LineScanner, NonAsciiShortKeywordsKeepAsciiTextOut) {
  const std::vector<std::string> kw =
      LineScanner::UsableKeywords({"ema", "net", " go", "bmm", "\xe5\x9c\xa8", "\xe6\x98\xaf", "\xe7\xac\xac", "error"});
  ExpectAgreement(kw,
                  {"ema", "net", " go", "bmm", "\xe5\x9c\xa8", "\xe6\x98\xaf", "\xe7\xac\xac", "\xe7\xac", " loss=",
                   "'loss'", "error", "\n", " ", "lo"},
                  6000, 17);
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "epoch 1 step " + std::to_string(i) + " loss=0." + std::to_string(i % 97) + " {'loss': 1.5}\n";
  const LineScanner scanner(kw, LineScanner::Impl::kPortable);
  EXPECT_EQ(scanner.CountCandidates(text).table, 0u);
}

// Note: [Lazy anchor layout]: the quick layout of the bundled keywords is one the scanner takes as
// given (it would choose afresh otherwise, and the start would pay for it), it is not the chosen one,
// and a scanner with it answers as the reference does.
TEST(LineScanner, QuickLayoutAgreesWithReference) {
  std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  for (const char* extra : {"ab", "nan", "inf"}) kw.push_back(extra);
  const LineScanner::Layout quick = LineScanner::QuickLayout(kw);
  const LineScanner::Layout chosen = LineScanner::ChooseLayout(kw);
  EXPECT_NE(quick.buckets, chosen.buckets);
  const LineScanner given(kw, LineScanner::Impl::kAuto, &quick);
  EXPECT_EQ(given.layout().offsets, quick.offsets);
  EXPECT_EQ(given.layout().buckets, quick.buckets);
  const LineScanner fresh(kw);
  EXPECT_EQ(fresh.layout().offsets, chosen.offsets);
  EXPECT_EQ(fresh.layout().buckets, chosen.buckets);
  ExpectAgreement(kw, KeywordPieces(kw), 3000, 5, &quick);
}

// The AVX-512 loop's filters after the nibble tables (Notes: [Hash stage], [Anchor follow-up] in
// line_scanner.cc) may only drop positions where no keyword lies. Web-like text whose words hold the
// bundled keywords' anchors without their keywords ("WARN app" for "warning", "rebuilt" for "builtin",
// "shard" for "shared"), each keyword itself in every case mix, followed by every byte class and cut
// at every place, on long buffers (many runs of blocks: the ways of the stage are timed and taken)
// and with each way alone. Fails when the stage's hash reads other bits of a byte than vpermb does,
// or when the follow-up compares the text's bytes unfolded.
TEST(LineScanner, StageAndFollowUpKeepEveryKeyword) {
  const std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  const LineScanner portable(kw, LineScanner::Impl::kPortable);
  std::vector<const LineScanner*> scanners;
  const LineScanner timed(kw, LineScanner::Impl::kAvx512);
  const LineScanner on_candidates(kw, LineScanner::Impl::kAvx512OnCandidates);
  const LineScanner on_every_block(kw, LineScanner::Impl::kAvx512OnEveryBlock);
  const LineScanner without_stage(kw, LineScanner::Impl::kAvx512WithoutStage);
  for (const LineScanner* s : {&timed, &on_candidates, &on_every_block, &without_stage}) scanners.push_back(s);
  // Ordinary lines first: a filler of ~130 KB, so the keyword comes after several runs of blocks.
  const std::string filler_line =
      "10.4.158.25 - - [21/Nov/2026:09:00:01 +0000] \"GET /search?q=shoes HTTP/1.1\" 200 3290 \"kube-probe/1.27\"\n"
      "2026-11-21T09:00:04.004Z WARN app.db worker 2502 picked up job; index rebuilt, shard 3 healthz idle\n";
  std::string filler;
  while (filler.size() < 130000) filler += filler_line;
  const LineScanner::Hit in_filler = portable.Find(filler);
  ASSERT_FALSE(in_filler.found) << "the filler must hold no keyword";
  std::mt19937 rng(2026);
  const std::string after[] = {"", " ", "\n", "x", "X", "_", "0", "\xff", std::string(1, '\0'), "ing", "ING"};
  size_t checked = 0;
  for (const std::string& k : kw) {
    for (int round = 0; round < 2; ++round) {
      std::string word = k;
      for (char& c : word) {
        if (rng() % 2) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      const std::string text = filler + "a line with " + word + after[rng() % std::size(after)] + "\nmore\n";
      // Cut at the keyword's end, within it and past it: the last bytes go through the tail.
      for (size_t cut : {text.size(), text.size() - 6, filler.size() + 12 + word.size(), filler.size() + 12 + word.size() / 2}) {
        const std::string_view view(text.data(), cut);
        // The reference reads the part after the filler (which ends with a line end) alone.
        LineScanner::Hit tail = portable.Find(view.substr(filler.size()));
        tail.line_start += filler.size();
        tail.newlines += in_filler.newlines;
        const std::string want = Describe(tail);
        for (const LineScanner* s : scanners) {
          ASSERT_EQ(Describe(s->Find(view)), want) << "keyword '" << k << "' as '" << word << "', cut " << cut;
        }
        // KeywordsIn runs the stage too (KeywordsInAvx512): the keywords of the last lines, and of the
        // last filler line with them (a line the scan stopped on is read whole).
        const size_t last_filler = filler.rfind('\n', filler.size() - 2) + 1;
        for (const std::string_view part : {view.substr(filler.size()), view.substr(last_filler)}) {
          std::vector<std::uint32_t> want_in, got;
          portable.KeywordsIn(part, &want_in);
          std::sort(want_in.begin(), want_in.end());
          timed.KeywordsIn(part, &got);
          std::sort(got.begin(), got.end());
          ASSERT_EQ(got, want_in) << "KeywordsIn, keyword '" << k << "' as '" << word << "', cut " << cut;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

// The round of probes that chooses the stage's way (Note: [Stage runs] in line_scanner.cc) carries
// over calls: the log path calls Find again after each line it stopped on, and where those are a few
// hundred bytes apart no single call reads a round's six probes of 512 blocks. Until 2026-11-28 a
// round was a call's own, and on such text none ever ended (the stage never ran). Counts rounds, not
// time: fails when a call's probe is dropped at its hit.
TEST(LineScanner, ProbeRoundsEndAcrossShortCalls) {
  if (!LineScanner::CpuHasAvx2() || !CpuHasAvx512()) GTEST_SKIP() << "no AVX-512 VBMI: Find has no stage to time";
  const LineScanner scanner({"warning", "traceback"});
  ASSERT_TRUE(scanner.uses_avx512());
  // A keyword line after every ~300 bytes of web text, 2 MiB in all: each call reads ~10 blocks.
  const std::string filler =
      "10.4.158.25 - - [21/Nov/2026:09:00:01 +0000] \"GET /search?q=shoes HTTP/1.1\" 200 3290 \"kube-probe/1.27\"\n"
      "10.4.158.26 - - [21/Nov/2026:09:00:02 +0000] \"GET /index.html HTTP/1.1\" 304 1290 \"curl/7.88.1\"\n"
      "2026-11-21T09:00:04.004Z INFO app.db worker 2502 picked up job 3904 from queue default\n";
  std::string text;
  while (text.size() < (size_t{2} << 20)) text += filler + "2026-11-21T09:00:05.005Z WARNING disk almost full\n";
  size_t stops = 0;
  for (size_t at = 0; at < text.size();) {
    const LineScanner::Hit hit = scanner.Find(std::string_view(text).substr(at));
    if (!hit.found) break;
    ++stops;
    at += hit.line_start;
    at = text.find('\n', at) + 1;
  }
  EXPECT_GT(stops, 6000u);
  // One round at the first call, then one per 32,768 blocks (1 MiB) read outside rounds.
  EXPECT_GE(scanner.probe_rounds(), 2u);
  // A scanner given one way times nothing.
  const LineScanner fixed({"warning", "traceback"}, LineScanner::Impl::kAvx512OnEveryBlock);
  for (size_t at = 0; at < 100000;) {
    const LineScanner::Hit hit = fixed.Find(std::string_view(text).substr(at));
    if (!hit.found) break;
    at = text.find('\n', at + hit.line_start) + 1;
  }
  EXPECT_EQ(fixed.probe_rounds(), 0u);
}

// Anchors avoid bytes ordinary text holds together (Note: [Anchor choice]): "ndex" of "index out of
// range" is in every "index.html", "work" of "dataloader worker (pid " in every "worker-3", "comp" of
// "compile" in every "completed" and ".com". A keyword that is itself in a sample ("warning") may
// anchor on its own bytes there: that occurrence is a true hit.
TEST(LineScanner, AnchorsAvoidBytesOrdinaryTextHolds) {
  const std::vector<std::string> kw = {"index out of range", "dataloader worker (pid ", "compile", "warning"};
  const LineScanner scanner(kw);
  ASSERT_EQ(scanner.layout().offsets.size(), kw.size());
  std::vector<std::string> anchors;
  for (size_t i = 0; i < kw.size(); ++i) anchors.push_back(kw[i].substr(scanner.layout().offsets[i], 4));
  EXPECT_EQ(anchors[0].find("ndex"), std::string::npos) << anchors[0];
  EXPECT_EQ(anchors[0].find("inde"), std::string::npos) << anchors[0];
  EXPECT_EQ(anchors[1].find("work"), std::string::npos) << anchors[1];
  EXPECT_NE(anchors[2], "comp");
  EXPECT_EQ(anchors[3], "warn");  // "arni", "rnin" and "ning" are in every "learning_rate" and "running"
}

// A layout handed to the constructor (the rule cache's, Note: [Rule cache]) is used when it fits the
// keywords, whatever it is: any placement gives a correct scanner. One that does not fit (an offset past
// a keyword's end, a bucket out of range, a wrong length, a short keyword given an anchor) is chosen
// afresh, as without one.
TEST(LineScanner, GivenLayoutIsUsedWhenItFitsAndChosenAfreshOtherwise) {
  std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  for (const char* extra : {"ab", "nan", "x"}) kw.push_back(extra);
  const LineScanner fresh(kw);
  const LineScanner::Layout chosen = fresh.layout();
  ASSERT_EQ(chosen.offsets.size(), kw.size());
  // The cached layout gives the same scanner.
  EXPECT_EQ(LineScanner(kw, LineScanner::Impl::kAuto, &chosen).layout().buckets, chosen.buckets);
  // Another valid layout: every anchor at its keyword's end, buckets in turn.
  LineScanner::Layout other = chosen;
  int turn = 0;
  for (size_t i = 0; i < kw.size(); ++i) {
    if (other.offsets[i] < 0) continue;
    other.offsets[i] = static_cast<int>(kw[i].size()) - 4;
    other.buckets[i] = turn++ % 8;
  }
  const LineScanner given(kw, LineScanner::Impl::kAuto, &other);
  EXPECT_EQ(given.layout().offsets, other.offsets);
  EXPECT_EQ(given.layout().buckets, other.buckets);
  std::vector<std::string> pieces = {"\n", "\n", " ", "loss=0.25 ", "INFO "};
  for (const std::string& k : kw) {
    pieces.push_back(k);
    pieces.push_back(k.substr(1));
  }
  ExpectAgreement(kw, pieces, 3000, 5, &other);
  // Layouts that do not fit.
  size_t long_kw = 0, short_kw = 0;
  for (size_t i = 0; i < kw.size(); ++i) (chosen.offsets[i] >= 0 ? long_kw : short_kw) = i;
  std::vector<LineScanner::Layout> bad(5, chosen);
  bad[0].offsets[long_kw] = static_cast<int>(kw[long_kw].size()) - 3;  // the anchor runs past the end
  bad[1].buckets[long_kw] = 16;                                        // no such bucket
  bad[2].buckets[long_kw] = -1;
  bad[3].offsets.pop_back();                                           // another keyword list's
  bad[4].offsets[short_kw] = 0;                                        // a short keyword has no anchor
  bad[4].buckets[short_kw] = 0;
  for (const LineScanner::Layout& b : bad) {
    const LineScanner s(kw, LineScanner::Impl::kAuto, &b);
    EXPECT_EQ(s.layout().offsets, chosen.offsets);
    EXPECT_EQ(s.layout().buckets, chosen.buckets);
  }
  ExpectAgreement(kw, pieces, 500, 6, &bad[1]);
}

// Note: [Cached mix]: a chosen layout carries the seed of the mix its scanner chose (ChooseLayout,
// which builds no tables, none); a scanner given it builds the same tables without scoring the
// seeds (the same candidates at every stage), any other seed gives a scanner that answers as the
// reference does, and a value that is no seed has the seed chosen afresh. kAvx2 builds no stage
// and keeps the given value.
TEST(LineScanner, GivenMixIsUsedWhenItIsASeed) {
  std::vector<std::string> kw = BundledKeywords();
  ASSERT_GT(kw.size(), 40u);
  for (const char* extra : {"ab", "nan"}) kw.push_back(extra);
  const LineScanner fresh(kw);
  const LineScanner::Layout chosen = fresh.layout();
  ASSERT_GE(chosen.mix, 0);
  ASSERT_LT(chosen.mix, LineScanner::kMixSeeds);
  EXPECT_EQ(LineScanner::ChooseLayout(kw).mix, -1);
  const LineScanner given(kw, LineScanner::Impl::kAuto, &chosen);
  EXPECT_EQ(given.layout().mix, chosen.mix);
  const std::vector<std::string> pieces = KeywordPieces(kw);
  std::mt19937 rng(5);
  std::string text;
  for (int i = 0; i < 20000; ++i) text += pieces[rng() % pieces.size()] + (rng() % 2 ? " " : "");
  for (int i = 0; i < 200; ++i) {
    text += "2026-11-29 04:11:0" + std::to_string(i % 10) + " INFO trainer: epoch " + std::to_string(i) +
            " step 120/500 loss=0.2531 lr=0.001 grad_norm=1.25 | 37%|###7      | 12.3it/s [00:04<00:07]\n";
  }
  const LineScanner::Counts a = fresh.CountCandidates(text), b = given.CountCandidates(text);
  EXPECT_EQ(a.table, b.table);
  EXPECT_EQ(a.staged, b.staged);
  EXPECT_EQ(a.hashed, b.hashed);
  EXPECT_EQ(a.anchored, b.anchored);
  EXPECT_LT(a.staged, a.table);
  for (int seed = 0; seed < LineScanner::kMixSeeds; seed += 5) {
    LineScanner::Layout other = chosen;
    other.mix = seed;
    EXPECT_EQ(LineScanner(kw, LineScanner::Impl::kAuto, &other).layout().mix, seed);
    ExpectAgreement(kw, pieces, 300, 40 + static_cast<unsigned>(seed), &other);
  }
  for (int bad : {-1, -3, LineScanner::kMixSeeds, 1 << 30}) {
    LineScanner::Layout other = chosen;
    other.mix = bad;
    const LineScanner s(kw, LineScanner::Impl::kAuto, &other);
    EXPECT_EQ(s.layout().mix, chosen.mix) << bad;
    EXPECT_EQ(s.layout().offsets, chosen.offsets) << bad;
  }
  EXPECT_EQ(LineScanner(kw, LineScanner::Impl::kAvx2, &chosen).layout().mix, chosen.mix);
}

TEST(RequiredLiterals, TellsPatternsWithAndWithoutARequiredLiteral) {
  struct Case {
    std::string pattern;
    bool has;
    std::vector<std::string> atoms;  // sorted
  } cases[] = {
      {R"(mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x)", true,
       {"mat1 and mat2 shapes cannot be multiplied ("}},
      {"CUDA out of memory|Tried to allocate", true, {"cuda out of memory", "tried to allocate"}},
      {R"(Loss is (nan|inf))", true, {"loss is inf", "loss is nan"}},
      {R"((?P<file>\w+)\.\w:(?P<line>\d+)\.\))", false, {}},   // only 1-2 byte literals
      {"foo|.*", false, {}},                                       // one branch needs nothing
      {"(", false, {}},                                            // does not parse
  };
  for (const Case& c : cases) {
    std::vector<std::string> atoms;
    EXPECT_EQ(RequiredLiterals(c.pattern, &atoms), c.has) << c.pattern;
    std::sort(atoms.begin(), atoms.end());
    EXPECT_EQ(atoms, c.atoms) << c.pattern;
  }
}

// Of a pattern's ORs of atoms the scanner needs one; words ordinary text prints (connectives, function
// words) are not the one kept while another OR holds none (Note: [Atoms of ordinary text]): before, the
// OR of " in ", " after " and " when " outscored a short OR no sample prints, and sent every web-server
// line with " in " to the rules.
TEST(RequiredLiterals, KeepsAnOrOrdinaryTextDoesNotPrint) {
  struct Case {
    std::string pattern;
    std::vector<std::string> atoms;  // sorted
  } cases[] = {
      {R"((?:xid|nvml) (?:\w+ )?(?:after|when|while) )", {"nvml ", "xid "}},
      {R"(NaN (?:\w+ )?(?:after|when|while) )", {"nan "}},
      // nan-during-training-in-words' second form: its NaN/inf OR, with the blank, not the connectives
      // (and not "inf" alone, inside every "INFO")
      {R"((?i)(?:^|[^\w])(?:nan|nans|nan's|inf|infs|inf's) (?:[a-z]+ )?(?:values? |loss(?:es)? |outputs? )?)"
       R"((?:during|while|in|when|after) (?:the |my |our )?(?:training|train|fine-tuning|finetuning|fine tuning)\b)",
       {"inf ", "inf's ", "infs ", "nan ", "nan's ", "nans "}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> atoms;
    EXPECT_TRUE(RequiredLiterals(c.pattern, &atoms)) << c.pattern;
    std::sort(atoms.begin(), atoms.end());
    EXPECT_EQ(atoms, c.atoms) << c.pattern;
  }
}

// GreedyCover keeps counts in a heap and recounts only the top: its picks must be those of recounting
// every candidate before each pick, ties included (count, then specific, then length, then index).
std::vector<size_t> GreedyCoverByRecount(const std::vector<CoverCandidate>& cover, size_t items) {
  std::vector<size_t> picked;
  std::vector<bool> done(items, false);
  size_t left = items;
  while (left > 0) {
    size_t best = cover.size(), best_count = 0;
    for (size_t c = 0; c < cover.size(); ++c) {
      size_t count = 0;
      for (size_t i : cover[c].covers) count += done[i] ? 0 : 1;
      if (count == 0) continue;
      bool better = best == cover.size() || count > best_count;
      if (best != cover.size() && count == best_count) {
        better = cover[c].specific != cover[best].specific ? cover[c].specific : cover[c].length > cover[best].length;
      }
      if (better) {
        best = c;
        best_count = count;
      }
    }
    if (best == cover.size()) break;
    picked.push_back(best);
    for (size_t i : cover[best].covers) {
      if (!done[i]) {
        done[i] = true;
        --left;
      }
    }
  }
  return picked;
}

TEST(CoverKeywords, GreedyCoverPicksAsARecountWould) {
  std::mt19937 rng(15);
  for (int round = 0; round < 2000; ++round) {
    const size_t items = 1 + rng() % 40;
    std::vector<CoverCandidate> cover(1 + rng() % 30);
    for (CoverCandidate& c : cover) {
      c.length = 3 + rng() % 3;  // few lengths and counts: many ties
      c.specific = rng() % 2 == 0;
      for (size_t i = 0; i < items; ++i) {
        if (rng() % 4 == 0) c.covers.push_back(i);
      }
    }
    ASSERT_EQ(GreedyCover(cover, items), GreedyCoverByRecount(cover, items)) << "round " << round;
  }
}

// Every required literal of the bundled rules' message patterns, pattern after pattern.
std::vector<std::string> BundledAtoms() {
  LoadOptions options;
  options.env_path = false;
  LoadResult loaded = LoadRules(options);
  std::vector<std::string> atoms;
  for (const RuleSet::PatternRef& ref : loaded.rules->patterns) {
    std::vector<std::string> a;
    if (RequiredLiterals(loaded.rules->rules[ref.rule].patterns[ref.pattern].value, &a)) {
      atoms.insert(atoms.end(), a.begin(), a.end());
    }
  }
  return atoms;
}

TEST(CoverKeywords, EveryBundledAtomContainsAKeyword) {
  const std::vector<std::string> atoms = BundledAtoms();
  ASSERT_GT(atoms.size(), 0u);
  std::vector<std::string> keywords = CoverKeywords({"Traceback", "Error"}, atoms);
  EXPECT_EQ(keywords[0], "traceback");
  EXPECT_EQ(keywords[1], "error");
  for (const std::string& atom : atoms) {
    bool covered = std::any_of(keywords.begin(), keywords.end(),
                               [&](const std::string& k) { return atom.find(k) != std::string::npos; });
    EXPECT_TRUE(covered) << atom;
  }
  // Words every healthy training log prints would make the scanner stop on every line, and words of
  // ordinary application text on many lines of an application's log (issue 15: "index" and "worker"
  // sent a fifth of a web server's lines to the rules; later "work" and "trying", inside every
  // "worker" and "retrying", an eighth).
  for (const char* common : {"loss", "epoch", "step", "tensor", "cuda", "index", "worker", "process", "request",
                             "failed", "found", "input", "file", "that", "work", "trying", "backend", "address", " in ",
                             " after ", " when ", " while ", " during ", "in ", "after ", "when ", "while ",
                             "during "}) {
    EXPECT_EQ(std::count(keywords.begin(), keywords.end(), common), 0) << common;
  }
  std::printf("[ INFO     ] %zu atoms covered by %zu keywords\n", atoms.size(), keywords.size());
}

// CoverKeywords as it was first written: every candidate compared with every atom by a search, the
// candidates in a std::set. The reference the indexed version is tested against.
std::vector<std::string> CoverKeywordsBySearch(const std::vector<std::string>& base,
                                               const std::vector<std::string>& atoms) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
  };
  std::vector<std::string> keywords;
  for (const std::string& b : base) keywords.push_back(lower(b));
  std::vector<std::string> open;
  for (const std::string& a : atoms) {
    const std::string l = lower(a);
    const bool done = std::any_of(keywords.begin(), keywords.end(),
                                  [&](const std::string& k) { return l.find(k) != std::string::npos; });
    if (!done && std::find(open.begin(), open.end(), l) == open.end()) open.push_back(l);
  }
  std::set<std::string> candidates;
  for (const std::string& a : open) {
    candidates.insert(a);
    for (size_t b = 0; b < a.size();) {  // each maximal run of [a-z0-9_]
      size_t e = b;
      while (e < a.size() && (std::isalnum(static_cast<unsigned char>(a[e])) || a[e] == '_')) ++e;
      if (e > b && SpecificCoverWord(a.substr(b, e - b))) candidates.insert(a.substr(b, e - b));
      b = e + 1;
    }
  }
  const std::vector<std::string> texts(candidates.begin(), candidates.end());
  std::vector<CoverCandidate> cover;
  for (const std::string& c : texts) {
    cover.push_back({c.size(), SpecificCoverWord(c), {}});
    for (size_t i = 0; i < open.size(); ++i) {
      if (open[i].find(c) != std::string::npos) cover.back().covers.push_back(i);
    }
  }
  for (size_t c : GreedyCover(cover, open.size())) keywords.push_back(texts[c]);
  return keywords;
}

// The bundled rules' atoms and made-up ones (words shared between atoms, as prefixes of one another
// and inside longer words, short and empty atoms, repeats, upper case, bytes outside ASCII, base
// keywords inside atoms): the same keywords in the same order as the search.
TEST(CoverKeywords, IndexedCoverPicksAsTheSearchDid) {
  const std::vector<std::string> bundled = BundledAtoms();
  ASSERT_GT(bundled.size(), 0u);
  const std::vector<std::string> idle = Segmenter::IdleKeywords();
  const std::vector<std::string> bundled_keywords = CoverKeywords(idle, bundled);
  EXPECT_EQ(bundled_keywords, CoverKeywordsBySearch(idle, bundled));
  EXPECT_GT(bundled_keywords.size(), idle.size() + 100);
  // Shared among threads (Note: [Cover on the load's threads]): the same keywords in the same order.
  for (int threads : {2, 3, 8}) EXPECT_EQ(CoverKeywords(idle, bundled, threads), bundled_keywords) << threads;
  std::mt19937 rng(15);
  const std::vector<std::string> words = {"cuda",  "cudnn", "nccl",    "ncclx", "torch",  "torchrun", "oom",
                                          "shard", "shards", "reshard", "deadlock", "lock", "xla",  "_c",
                                          "mps",   "nan",   "graph",   "graphs", "Recompil", "é", "已杀死",
                                          "error", "kernel", "kern",   "2d",    "conv2d", "a",  ""};
  const std::string seps = " _.:=(/-";
  for (int round = 0; round < 300; ++round) {
    // Every tenth round holds several of the chunks the threads share out (kCoverChunk, 128 atoms).
    std::vector<std::string> atoms(1 + rng() % (round % 10 == 0 ? 700 : 120));
    for (std::string& atom : atoms) {
      const size_t pieces = rng() % 5;
      for (size_t p = 0; p < pieces; ++p) {
        if (p > 0 && rng() % 3 != 0) atom += seps[rng() % seps.size()];
        atom += words[rng() % words.size()];
      }
    }
    std::vector<std::string> base = {"Traceback"};
    if (round % 3 == 0) base.push_back(words[rng() % words.size()]);
    ASSERT_EQ(CoverKeywords(base, atoms, 1 + round % 3), CoverKeywordsBySearch(base, atoms)) << "round " << round;
  }
}

// A plan made on several threads is the plan one thread makes: the keywords, and each keyword's
// patterns in pattern order (Note: [Cover on the load's threads]).
TEST(CoverKeywords, PlanOnThreadsIsThePlanOnOne) {
  LoadOptions options;
  options.env_path = false;
  LoadResult loaded = LoadRules(options);
  std::vector<std::optional<std::vector<std::string>>> atoms;
  for (const RuleSet::PatternRef& ref : loaded.rules->patterns) {
    std::vector<std::string> a;
    atoms.emplace_back();
    if (RequiredLiterals(loaded.rules->rules[ref.rule].patterns[ref.pattern].value, &a)) atoms.back() = a;
  }
  ASSERT_GT(atoms.size(), 1000u);
  const std::vector<std::string> idle = Segmenter::IdleKeywords();
  const PrefilterPlan one = PlanLinePrefilter(atoms, idle, false, 1);
  size_t listed = 0;
  for (const std::vector<int>& ps : one.keyword_patterns) {
    EXPECT_TRUE(std::is_sorted(ps.begin(), ps.end()));
    EXPECT_EQ(std::adjacent_find(ps.begin(), ps.end()), ps.end());
    listed += ps.size();
  }
  EXPECT_GT(listed, atoms.size() / 2);
  for (int threads : {2, 4}) {
    const PrefilterPlan many = PlanLinePrefilter(atoms, idle, false, threads);
    EXPECT_EQ(many.keywords, one.keywords) << threads;
    EXPECT_EQ(many.keyword_patterns, one.keyword_patterns) << threads;
  }
}

// A keyword only says which patterns may match a line; the pattern's own required literals decide
// cheaply whether its regex need run at all (LinePrefilter::MayMatch).
TEST(LinePrefilter, PatternsRunOnlyOnLinesHoldingTheirLiterals) {
  std::vector<std::string> patterns = {"index out of range in self", "CUDA error: (?P<what>.*)", "[0-9]+ retries"};
  std::vector<std::string> idle = {"Traceback", "Error"};
  std::shared_ptr<const LinePrefilter> pf = BuildLinePrefilter(patterns, idle);
  ASSERT_TRUE(pf);
  ASSERT_EQ(pf->literals.size(), 3u);
  EXPECT_FALSE(pf->MayMatch(0, "index shard 3 refreshed"));
  EXPECT_TRUE(pf->MayMatch(0, "indexerror: index out of range in self"));
  EXPECT_TRUE(pf->MayMatch(1, "runtimeerror: cuda error: device-side assert triggered"));
  EXPECT_FALSE(pf->MayMatch(1, "cuda is available"));
  EXPECT_TRUE(pf->MayMatch(2, "gave up after 3 retries"));
}

// Candidates (Note: [Anchored literals]) gives exactly the patterns of the found keywords that MayMatch
// allows, however a literal lies: the keyword twice in it or in the text, first in the text before the
// literal, a literal holding another keyword only, one across a line break, one with a cased letter
// outside ASCII; on made-up texts and on every line of the corpus (not corpus/heldout) with the bundled
// rules.
std::vector<int> MayMatchReference(const LinePrefilter& pf, const std::vector<std::uint32_t>& found,
                                   std::string_view lowered) {
  std::vector<int> out;
  for (std::uint32_t k : found) {
    for (int p : pf.keyword_patterns[k]) {
      if (pf.MayMatch(p, lowered)) out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Also the scan (Note: [Keyword contexts]): on a text of one line, it stops exactly when the text holds
// a keyword read wherever it lies (LinePrefilter::any_place) or a literal of a pattern of its keywords;
// *skipped counts the texts with keywords it does not stop on.
void ExpectCandidatesAsMayMatch(const LinePrefilter& pf, std::string_view text, int* nonempty, int* skipped = nullptr) {
  std::vector<std::uint32_t> found;
  pf.Scanner().KeywordsIn(text, &found);
  std::string lowered(text);
  for (char& c : lowered) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  std::vector<int> got;
  pf.Candidates(found, lowered, &got);
  std::sort(got.begin(), got.end());
  got.erase(std::unique(got.begin(), got.end()), got.end());
  const std::vector<int> want = MayMatchReference(pf, found, lowered);
  *nonempty += !want.empty();
  EXPECT_EQ(got, want) << std::string(text.substr(0, 200));
  if (text.find('\n') != std::string_view::npos) return;
  const bool any_place = std::any_of(found.begin(), found.end(), [&](std::uint32_t k) { return pf.any_place[k]; });
  const bool stops = pf.Scanner().Find(text).found;
  EXPECT_EQ(stops, any_place || !want.empty()) << std::string(text.substr(0, 200));
  if (skipped && !found.empty() && !stops) ++*skipped;
}

// Calls f(line) for every line of every file under corpus/ but corpus/heldout (never read).
void ForEachCorpusLine(const std::function<void(const std::string&)>& f) {
  for (auto it = std::filesystem::recursive_directory_iterator(std::string(TRIAGE_SOURCE_DIR) + "/corpus");
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == "heldout") {
      it.disable_recursion_pending();  // never read
      continue;
    }
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) f(line);
  }
}

TEST(LinePrefilter, CandidatesAreThePatternsMayMatchAllows) {
  const std::vector<std::string> patterns = {
      "error: cuda error code (?P<c>\\d+)", "(?:index out of range|out of bounds) in self",
      "CUDA error: device-side assert", "cudnn error: (?:bad param|not supported)", "NCCL error in: .*",
      "caf\xc3\xa9 cr\xc3\xa8me failed", "first line\\nsecond line", "worker \\d+ exited unexpectedly",
      "(?i)unexpected eof in worker", "[0-9]+ retries",
      // One literal with a keyword, one across a line break (no keyword holds it: searched for).
      "(?:segfault in allreduce|lost\\nconnection) now", "allreduce timed out", "allreduce hung",
  };
  std::shared_ptr<const LinePrefilter> pf = BuildLinePrefilter(patterns, {"Traceback", "Error"});
  ASSERT_TRUE(pf);
  int nonempty = 0, skipped = 0;
  for (const char* t : {"error error: cuda error code 3", "cuda error code 3 but error: cuda error code 4",
                        "an error: cuda error cod", "index error in self: index out of range in self",
                        "value out of bounds in self", "CUDA ERROR: DEVICE-SIDE ASSERT triggered",
                        "cudnn error: not supported; cudnn error: bad param", "NCCL error in: ProcessGroupNCCL.cpp",
                        "CAF\xc3\xa9 CR\xc3\xa8ME FAILED", "first line\nsecond line", "first line second line",
                        "worker 3 exited unexpectedly", "Unexpected EOF in worker 3", "gave up after 3 retries",
                        "error", "", "self self self error", "segfault earlier; lost\nconnection now",
                        "allreduce earlier; lost\nconnection now",
                        "segfault in allreduce now", "lost\nconnection now"}) {
    ExpectCandidatesAsMayMatch(*pf, t, &nonempty);
  }
  // Random texts from the patterns' words, so that keywords and literals overlap every which way.
  std::mt19937 rng(7);
  const std::vector<std::string> words = {"error", "error:", "cuda", "code", "1", "index", "out", "of", "range",
                                          "bounds", "in", "self", "cudnn", "bad", "param", "nccl", "worker",
                                          "exited", "unexpectedly", "unexpected", "eof", "retries", "\n", "EOF"};
  for (int i = 0; i < 3000; ++i) {
    std::string t;
    for (int w = 0, n = 1 + static_cast<int>(rng() % 12); w < n; ++w) t += words[rng() % words.size()] + " ";
    ExpectCandidatesAsMayMatch(*pf, t, &nonempty, &skipped);
  }
  EXPECT_GT(nonempty, 500);
  EXPECT_GT(skipped, 100);

  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  LoadResult bundled = LoadRules(o);
  ASSERT_TRUE(bundled.rules->prefilter);
  int lines = 0, bundled_nonempty = 0, bundled_skipped = 0;
  ForEachCorpusLine([&](const std::string& line) {
    ++lines;
    ExpectCandidatesAsMayMatch(*bundled.rules->prefilter, line, &bundled_nonempty, &bundled_skipped);
  });
  EXPECT_GT(lines, 10000);
  EXPECT_GT(bundled_nonempty, 1000);
  EXPECT_GT(bundled_skipped, 100);
}

// Note: [Cached checks]: a prefilter built from a plan that carries its checks has the checks one
// derives from the atoms, for the bundled rules; checks that do not fit (an index, a length or a place
// out of range, a cut or an extra word) are derived again, to the same.
TEST(LinePrefilter, CachedChecksAreTheDerivedOnesAndBadOnesAreDerivedAgain) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.cache = false;
  const LoadResult bundled = LoadRules(o);
  ASSERT_TRUE(bundled.rules->prefilter);
  const std::vector<std::string> patterns = bundled.rules->prefilter->patterns;
  const std::vector<std::string> idle = Segmenter::IdleKeywords();
  const auto atoms = PatternAtoms(patterns, idle);
  const PrefilterPlan plan = PlanLinePrefilter(atoms, idle);
  ASSERT_FALSE(plan.checks.packed.empty());
  PrefilterPlan bare = plan;
  bare.checks = PrefilterChecks();
  const auto derived = BuildLinePrefilter(patterns, atoms, idle, bare);
  ASSERT_TRUE(derived);
  ASSERT_FALSE(derived->check_bytes.empty());
  auto same = [&](const PrefilterPlan& with, const std::string& what) {
    const auto pf = BuildLinePrefilter(patterns, atoms, idle, with);
    ASSERT_TRUE(pf) << what;
    EXPECT_TRUE(pf->literals == derived->literals) << what;
    ASSERT_EQ(pf->keyword_checks.size(), derived->keyword_checks.size()) << what;
    for (size_t k = 0; k < pf->keyword_checks.size(); ++k) {
      const auto& a = pf->keyword_checks[k];
      const auto& b = derived->keyword_checks[k];
      ASSERT_EQ(a.size(), b.size()) << what << ", keyword " << k;
      for (size_t c = 0; c < a.size(); ++c) {
        EXPECT_TRUE(a[c].pattern == b[c].pattern && a[c].literal == b[c].literal && a[c].offset == b[c].offset &&
                    a[c].at == b[c].at && a[c].size == b[c].size && a[c].front == b[c].front && a[c].back == b[c].back)
            << what << ", keyword " << k << ", check " << c;
      }
      ASSERT_EQ(pf->next_groups[k].size(), derived->next_groups[k].size()) << what << ", keyword " << k;
      for (size_t g = 0; g < pf->next_groups[k].size(); ++g) {
        EXPECT_TRUE(pf->next_groups[k][g].byte == derived->next_groups[k][g].byte &&
                    pf->next_groups[k][g].begin == derived->next_groups[k][g].begin &&
                    pf->next_groups[k][g].end == derived->next_groups[k][g].end)
            << what << ", keyword " << k;
      }
    }
    EXPECT_EQ(pf->keyed_from, derived->keyed_from) << what;
    EXPECT_EQ(pf->check_bytes, derived->check_bytes) << what;
    EXPECT_EQ(pf->any_place, derived->any_place) << what;
  };
  same(plan, "the plan's checks");
  // The first check that compares a literal: the words of its pattern, literal, place and size.
  const std::string& packed = plan.checks.packed;
  auto word = [&](size_t at) {
    std::uint32_t v = 0;
    for (int b = 3; b >= 0; --b) v = v << 8 | static_cast<unsigned char>(packed[at + static_cast<size_t>(b)]);
    return v;
  };
  size_t first = 0;
  for (size_t pos = 0; pos + 12 <= packed.size() && first == 0;) {
    const std::uint32_t count = word(pos), groups = word(pos + 8);
    for (std::uint32_t c = 0; c < count; ++c) {
      if (word(pos + 12 + 20 * c + 4) != 0) {
        first = pos + 12 + 20 * c;
        break;
      }
    }
    pos += 12 + 20 * static_cast<size_t>(count) + 12 * static_cast<size_t>(groups);
  }
  ASSERT_GT(first, 0u);
  auto set_word = [](PrefilterPlan* p, size_t at, std::uint32_t v) {
    for (int b = 0; b < 4; ++b) p->checks.packed[at + static_cast<size_t>(b)] = static_cast<char>(v >> (8 * b) & 0xff);
  };
  struct Damage {
    const char* what;
    std::function<void(PrefilterPlan*)> apply;
  };
  const std::vector<Damage> damages = {
      {"a pattern out of range", [&](PrefilterPlan* p) { set_word(p, first, static_cast<std::uint32_t>(patterns.size())); }},
      {"a literal out of range", [&](PrefilterPlan* p) { set_word(p, first + 4, 1000); }},
      {"a place past the literal", [&](PrefilterPlan* p) { set_word(p, first + 8, word(first + 16) + 1); }},
      {"a place past the bytes", [&](PrefilterPlan* p) { set_word(p, first + 12, static_cast<std::uint32_t>(plan.checks.bytes.size())); }},
      {"a size one longer", [&](PrefilterPlan* p) { set_word(p, first + 16, word(first + 16) + 1); }},
      {"a cut word", [](PrefilterPlan* p) { p->checks.packed.resize(p->checks.packed.size() - 4); }},
      {"an extra word", [](PrefilterPlan* p) { p->checks.packed.append(4, '\0'); }},
      {"a pattern too few", [](PrefilterPlan* p) { p->checks.foldable.pop_back(); }},
      {"a pattern's literals not kept", [&](PrefilterPlan* p) { p->checks.foldable[word(first)] = '0'; }},
  };
  for (const Damage& d : damages) {
    PrefilterPlan bad = plan;
    d.apply(&bad);
    same(bad, d.what);
  }
}

// A literal of characters without case (CJK, kana, Hangul, their punctuation) is a keyword as it
// is: a Chinese shell's "已杀死" ("Killed") stands for its pattern instead of the ASCII word "python",
// which the user agents and paths of an application's log print on many lines. A literal with a cased
// letter outside ASCII still gives way to its longest ASCII run, which the scanner can fold.
TEST(RequiredLiterals, CaselessCharactersAreKeywordsAsPrinted) {
  const std::string killed = "\u7b2c \\d+ \u884c\uff1a *\\d+ \u5df2\u6740\u6b7b [^\\n]*python";
  std::vector<std::string> atoms;
  ASSERT_TRUE(RequiredLiterals(killed, &atoms));
  ASSERT_FALSE(atoms.empty());
  for (const std::string& a : atoms) {
    EXPECT_NE(a, "python");
    EXPECT_NE(a.find("\u5df2\u6740\u6b7b"), std::string::npos) << a;
  }
  ASSERT_TRUE(RequiredLiterals("\u00c9chec du chargement", &atoms));
  EXPECT_EQ(atoms, std::vector<std::string>{"chec du chargement"});

  std::shared_ptr<const LinePrefilter> pf = BuildLinePrefilter({killed}, {"Traceback"});
  ASSERT_TRUE(pf);
  const std::string web = "10.1.2.3 - - [21/Nov/2026:09:00:01 +0000] \"GET /healthz HTTP/1.1\" 200 12 \"-\" "
                          "\"python-requests/2.31.0\"\n";
  EXPECT_FALSE(pf->Scanner().Find(web).found);
  const std::string shell = "./tools/dist_train.sh: \u7b2c 13 \u884c\uff1a 114146 \u5df2\u6740\u6b7b python3 train.py\n";
  EXPECT_TRUE(pf->Scanner().Find(web + shell).found);
  EXPECT_EQ(pf->Scanner().Find(web + shell).newlines, 1u);
  ASSERT_EQ(pf->literals.size(), 1u);
  EXPECT_TRUE(pf->MayMatch(0, shell));
}

// The same rules without the prefilter: every line goes through the segmenter and the full Set.
std::shared_ptr<const RuleSet> WithoutPrefilter(LoadResult loaded) {
  std::shared_ptr<RuleSet> copy = std::const_pointer_cast<RuleSet>(loaded.rules);
  copy->prefilter.reset();
  return copy;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Report FeedInPieces(std::shared_ptr<const RuleSet> rules, std::string_view text, size_t piece) {
  Session session(std::move(rules), {}, "-");
  for (size_t i = 0; i < text.size(); i += piece) session.Feed(text.substr(i, piece));
  return session.Finish();
}

// Output contract: skipping lines must not change any diagnosis, incident, line number or count on
// any corpus case, whole or fed in small pieces.
TEST(LinePrefilter, CorpusReportsUnchanged) {
  LoadOptions options;
  options.env_path = false;
  LoadResult with = LoadRules(options);
  ASSERT_TRUE(with.rules->prefilter);
  std::shared_ptr<const RuleSet> without = WithoutPrefilter(LoadRules(options));
  int cases = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TRIAGE_SOURCE_DIR) + "/corpus")) {
    if (entry.path().filename() != "log.txt") continue;
    std::string text = ReadFile(entry.path());
    // Progress lines before the failure move every line number: the skipped lines must be counted.
    std::string padded;
    for (int i = 0; i < 500; ++i) padded += "Epoch 1:  40%|####      | " + std::to_string(i) + "/1250 [00:10<00:15, 41.5it/s, loss=0.693]\n";
    padded += text;
    for (const std::string* t : {&text, &padded}) {
      // Whole and in pieces each against its own reference: the two already differ on over-long lines
      // (a Session reports a line as cut only when it spans Feed calls).
      EXPECT_EQ(ToJson(FeedInPieces(with.rules, *t, t->size() + 1)), ToJson(FeedInPieces(without, *t, t->size() + 1)))
          << entry.path();
      EXPECT_EQ(ToJson(FeedInPieces(with.rules, *t, 61)), ToJson(FeedInPieces(without, *t, 61)))
          << entry.path() << " in 61-byte pieces";
    }
    ++cases;
  }
  EXPECT_GT(cases, 50);
}

// Note: [Lazy anchor layout]: a load with no rule cache starts with the quick layout; the log path's
// bytes bring in the chosen one midway. Four threads share the prefilter while one of them counts the
// bytes past kChosenLayoutAfter: every answer, before, during and after the change, is the one a
// scanner with the chosen layout gives alone (Find on runs of corpus lines, KeywordsIn on each line),
// and both scanners answered some. Fails when the chosen scanner is given other keywords (or in
// another order) than the first.
// The bundled rules loaded with no rule cache (the prefilter starts with the quick layout).
LoadResult BundledWithoutCache() {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.cache = false;
  return LoadRules(o);
}

TEST(LinePrefilter, LaterLayoutAnswersAsTheFirstFromManyThreads) {
  LoadResult loaded = BundledWithoutCache();
  ASSERT_TRUE(loaded.rules->prefilter);
  const LinePrefilter& pf = *loaded.rules->prefilter;
  ASSERT_TRUE(pf.layout_pending);
  ASSERT_EQ(&pf.Scanner(), pf.first_scanner.get());
  const std::vector<std::string> keywords = pf.Scanner().keywords();
  EXPECT_EQ(pf.Scanner().layout().buckets, LineScanner::QuickLayout(keywords).buckets);
  const LineScanner reference(keywords, LineScanner::Impl::kAuto, nullptr, &pf);  // asking pf as its scanners do
  std::vector<std::string> texts;
  std::string run;
  int in_run = 0;
  ForEachCorpusLine([&](const std::string& line) {
    texts.push_back(line);
    run += line + "\n";
    if (++in_run == 40) {
      texts.push_back(std::move(run));
      run.clear();
      in_run = 0;
    }
  });
  ASSERT_GT(texts.size(), 10000u);
  std::vector<std::string> want(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<std::uint32_t> found;
    reference.KeywordsIn(texts[i], &found);
    std::sort(found.begin(), found.end());
    want[i] = Describe(reference.Find(texts[i]));
    for (std::uint32_t k : found) want[i] += " " + std::to_string(k);
  }
  constexpr int kThreads = 4;
  std::atomic<int> wrong{0}, by_first{0}, by_chosen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      std::vector<size_t> order(texts.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<std::uint32_t> found;
      for (size_t n = 0; n < order.size(); ++n) {
        const size_t i = order[n];
        // Thread 0 brings the chosen layout in a third of the way through.
        if (t == 0) pf.Scanned(LinePrefilter::kChosenLayoutAfter / (order.size() / 3));
        const LineScanner& scanner = pf.Scanner();
        (&scanner == pf.first_scanner.get() ? by_first : by_chosen)++;
        found.clear();
        scanner.KeywordsIn(texts[i], &found);
        std::sort(found.begin(), found.end());
        std::string got = Describe(scanner.Find(texts[i]));
        for (std::uint32_t k : found) got += " " + std::to_string(k);
        if (got != want[i]) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(by_first.load(), 1000);
  EXPECT_GT(by_chosen.load(), 1000);
  EXPECT_NE(&pf.Scanner(), pf.first_scanner.get());
  EXPECT_EQ(&pf.Scanner(), &pf.ChosenScanner());
  EXPECT_EQ(pf.Scanner().keywords(), keywords);
  EXPECT_EQ(pf.Scanner().layout().offsets, reference.layout().offsets);
  EXPECT_EQ(pf.Scanner().layout().buckets, reference.layout().buckets);
}

// The log path brings the chosen layout in after kChosenLayoutAfter bytes: a log of ~1.8 MB (a corpus
// log among progress lines, four times) diagnosed with a load that had no rule cache gives what every
// line classified gives, whole and in pieces, and its prefilter has the chosen layout afterwards (a
// short log leaves the first).
TEST(LinePrefilter, LogPathBringsTheChosenLayoutIn) {
  LoadResult lazy = BundledWithoutCache();
  ASSERT_TRUE(lazy.rules->prefilter);
  const LinePrefilter& pf = *lazy.rules->prefilter;
  std::shared_ptr<const RuleSet> without = WithoutPrefilter(BundledWithoutCache());
  const std::string shortlog = ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/shape/linear-flattened-conv/log.txt");
  EXPECT_EQ(ToJson(FeedInPieces(lazy.rules, shortlog, shortlog.size() + 1)),
            ToJson(FeedInPieces(without, shortlog, shortlog.size() + 1)));
  EXPECT_EQ(&pf.Scanner(), pf.first_scanner.get());
  std::string text;
  for (int i = 0; i < 24000; ++i) {
    text += "Epoch 1:  40%|####      | " + std::to_string(i) + "/24000 [00:10<00:15, 41.5it/s, loss=0.693]\n";
    if (i % 6000 == 5999) text += shortlog;
  }
  text += ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/formats/cpp-caught-what/log.txt");
  ASSERT_GT(text.size(), LinePrefilter::kChosenLayoutAfter + (1 << 18));
  const std::string want = ToJson(FeedInPieces(without, text, text.size() + 1));
  EXPECT_EQ(ToJson(FeedInPieces(lazy.rules, text, 65536)), want);
  EXPECT_NE(&pf.Scanner(), pf.first_scanner.get());
  EXPECT_EQ(ToJson(FeedInPieces(lazy.rules, text, text.size() + 1)), want);
}

// A real warning line PyTorch 1.13 prints, matched by a rule whose pattern has no literal of 3+ bytes:
// the loader warns, and the slow path still finds the line among skipped progress lines.
TEST(LinePrefilter, PatternWithoutRequiredLiteralStillMatches) {
  const std::string rule = R"(id: non-leaf-grad-access
category: autograd.no_grad_fn
title: Test rule with a pattern no keyword guards
match:
  message: '(?P<file>\w+)\.\w:(?P<line>\d+)\.\)'
explain: 'Warned from {file}.'
hypotheses:
  - id: only
    text: 'x'
    test: 'x'
    fix: 'x'
verify: 'x'
examples:
  - match: '(Triggered internally at  ./build/aten/src/ATen/core/TensorBody.h:480.)'
)";
  LoadResult with = LoadRulesFromStrings({{"non-leaf-grad-access.yaml", rule}});
  const Problem* warning = nullptr;
  for (const Problem& p : with.problems) {
    if (p.code == "no-required-literal") warning = &p;
  }
  ASSERT_NE(warning, nullptr) << "problems: " << with.problems.size();
  EXPECT_EQ(warning->severity, Problem::Severity::kWarning);
  EXPECT_EQ(warning->line, 5) << warning->ToString();
  EXPECT_EQ(warning->column, 12) << warning->ToString();
  ASSERT_TRUE(with.rules->prefilter);
  ASSERT_TRUE(with.rules->prefilter->unfiltered);

  std::string log;
  for (int i = 0; i < 300; ++i) log += "step " + std::to_string(i) + " loss 0.4\n";
  log += "<string>:5: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
         "Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
         "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
         "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
         "github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered internally at  "
         "./build/aten/src/ATen/core/TensorBody.h:480.)\n";
  for (int i = 300; i < 600; ++i) log += "step " + std::to_string(i) + " loss 0.4\n";
  Report got = FeedInPieces(with.rules, log, log.size());
  ASSERT_EQ(got.incidents.size(), 1u);
  EXPECT_EQ(got.incidents[0].line_start, 301);
  ASSERT_EQ(got.diagnoses.size(), 1u);
  EXPECT_EQ(got.diagnoses[0].captures["file"], "TensorBody");
  EXPECT_EQ(ToJson(got), ToJson(FeedInPieces(WithoutPrefilter(LoadRulesFromStrings({{"non-leaf-grad-access.yaml", rule}})),
                                             log, log.size())));
}

// A pattern whose only required literal is printed by healthy logs ("inf" in INFO) is correct but
// slow: the loader says so (common-literal), at the pattern, and not for the written-out form.
TEST(LinePrefilter, CommonRequiredLiteralIsWarned) {
  auto rule = [](const std::string& pattern) {
    return "id: nan-loss-test\ncategory: numerics.nan_loss\ntitle: t\nmatch:\n  message: '" + pattern +
           "'\nexplain: 'x'\nhypotheses:\n  - id: only\n    text: 'x'\n    test: 'x'\n    fix: 'x'\n"
           "verify: 'x'\nexamples:\n  - match: 'loss: inf'\n";
  };
  auto common = [&](const std::string& pattern) -> const Problem* {
    static LoadResult loaded;
    loaded = LoadRulesFromStrings({{"nan-loss-test.yaml", rule(pattern)}});
    for (const Problem& p : loaded.problems) {
      if (p.code == "common-literal") return &p;
    }
    return nullptr;
  };
  const Problem* warned = common(R"((?i)loss\s*[:=]\s*(?:nan|inf)\b)");
  ASSERT_NE(warned, nullptr);
  EXPECT_EQ(warned->severity, Problem::Severity::kWarning);
  EXPECT_EQ(warned->line, 5) << warned->ToString();
  EXPECT_NE(warned->message.find("'inf'"), std::string::npos) << warned->message;
  EXPECT_EQ(common(R"((?i)loss(?::|: |=)(?:nan|inf)\b)"), nullptr);
  // A literal holding a segmenter keyword costs nothing more: those lines are read anyway.
  ASSERT_TRUE(CommonInLogs("warning"));
  EXPECT_EQ(common(R"((?i)warning\s*\d+)"), nullptr);
}

// segmenter.cc takes the line before a C++ "Exception raised from" block as its message. That line
// has no keyword, so the scanner skips it: the log path must still hand it over as the previous line.
TEST(LinePrefilter, PreviousLineContextSurvivesSkipping) {
  std::string log;
  for (int i = 0; i < 1000; ++i) log += "request " + std::to_string(i) + ": ok [3, 16]\n";
  log += "\n   \n";  // blank lines do not replace the previous line
  log += ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/formats/cpp-caught-what/log.txt");
  // A rule set none of whose keywords occurs in the message line.
  const std::string rule = R"(id: unrelated
category: autograd.no_grad_fn
title: A rule about something else
match:
  message: 'element 0 of tensors does not require grad'
explain: 'x'
hypotheses:
  - id: only
    text: 'x'
    test: 'x'
    fix: 'x'
verify: 'x'
examples:
  - match: 'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn'
)";
  LoadResult loaded = LoadRulesFromStrings({{"unrelated.yaml", rule}});
  ASSERT_TRUE(loaded.ok());
  Report got = FeedInPieces(loaded.rules, log, log.size());
  ASSERT_GE(got.incidents.size(), 1u);
  bool found = false;
  for (const Incident& inc : got.incidents) {
    if (inc.kind != Incident::Kind::kCxxError) continue;
    found = inc.message == "request 1 failed: index out of range in self" && inc.line_start == 1002 + 2;
    EXPECT_TRUE(found) << inc.message << " at line " << inc.line_start;
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(ToJson(got), ToJson(FeedInPieces(WithoutPrefilter(LoadRulesFromStrings({{"unrelated.yaml", rule}})),
                                             log, log.size())));
}

// Note: [Literal conditions]. The reference: FilteredRE2's own formula for a pattern, given the atoms
// a lower-case text holds.
class Formula {
 public:
  explicit Formula(const std::string& pattern) : filter_(LiteralCondition::kAtomLen) {
    int id = 0;
    ok_ = filter_.Add(pattern, RegexOptions(), &id) == RE2::NoError;
    if (ok_) filter_.Compile(&atoms_);
  }
  bool Holds(const std::string& lowered) {
    if (!ok_) return true;
    present_.clear();
    for (size_t i = 0; i < atoms_.size(); ++i) {
      if (lowered.find(atoms_[i]) != std::string::npos) present_.push_back(static_cast<int>(i));
    }
    passed_.clear();
    filter_.AllPotentials(present_, &passed_);
    return !passed_.empty();
  }

 private:
  re2::FilteredRE2 filter_;
  bool ok_ = false;
  std::vector<std::string> atoms_;
  std::vector<int> present_, passed_;
};

std::string LowerAsciiForTest(std::string text) {
  for (char& c : text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  return text;
}

// On ASCII texts made of the patterns' atoms, pieces of them, other words and mutated matches: a text
// a pattern's regex matches always meets its condition; the condition holds whenever FilteredRE2's
// formula does, and with few atoms (every minimal clause) exactly when it does; and it rules out
// texts.
TEST(LiteralConditions, ClausesHoldAsFilteredRE2sFormula) {
  struct Case {
    std::string pattern;
    std::vector<std::string> matches;
  };
  const std::vector<Case> cases = {
      {"(?:^|[^\\w])worker(?:=|: | )['\"]?(?P<dtype>16|16-true|bf16|bf16-mixed)(?:['\"]|,|\\s|$)",
       {"precision: worker=bf16, devices: 8", "worker: '16-true' set", "a worker 16"}},
      {"(?:index out of range|out of bounds) in self", {"IndexError: index out of range in self", "out of bounds in self"}},
      {"error: cuda error code (?P<c>\\d+)", {"RuntimeError: CUDA error code 700 (error: cuda error code 700)"}},
      {"(?:alpha|beta) (?:gamma|delta) epsilon(?:s)? [0-9]+", {"beta gamma epsilons 42", "alpha delta epsilon 1"}},
      {"(?i)unexpected eof in worker (?:16|32)", {"Unexpected EOF in worker 32"}},
      {"nccl (?:timeout|watchdog).*rank (?:\\d+).*(?:allreduce|broadcast|allgather)",
       {"NCCL watchdog thread: rank 3 timed out in AllReduce", "nccl timeout on rank 12 (broadcast)"}},
      {"(?:killed|terminated) by signal (?:9|15).*(?:oom|memory)", {"worker killed by signal 9 (out of memory)"}},
      {"step (?:\\d+) loss (?:nan|inf)(?:, grad norm (?:nan|inf))?", {"step 12 loss nan, grad norm inf", "step 3 loss inf"}},
      // Over kEveryClauseAtoms atoms: the greedy clauses.
      {"(?:ab|cd)x(?:ef|gh)y(?:ij|kl)z(?:mn|op)", {"abxefyijzmn", "cdxghyklzop"}},
      {"(?:alpha one|beta two|gamma three|delta four|epsilon five|zeta six|eta seven|theta eight|iota nine) "
       "and (?:red|green|blue) (?:cat|dog)",
       {"alpha one and red cat", "iota nine and blue dog"}},
  };
  const std::vector<std::string> others = {"worker", "index", "error", "rank", "step", "loss", "16", "nan", " ", "=",
                                           ":", ",", "'", "x", "in", "self", "and", "the", "of"};
  std::mt19937 rng(11);
  int exact_cases = 0, greedy_cases = 0;
  for (const Case& c : cases) {
    const LiteralCondition condition = PatternCondition(c.pattern);
    EXPECT_FALSE(condition.clauses.empty()) << c.pattern;
    const bool exact = condition.atoms.size() <= 8;
    (exact ? exact_cases : greedy_cases) += 1;
    RE2 re(c.pattern, RegexOptions());
    ASSERT_TRUE(re.ok()) << c.pattern;
    Formula reference(c.pattern);
    int matched = 0, ruled_out = 0;
    for (int i = 0; i < 20000; ++i) {
      std::string text;
      if (rng() % 3 == 0) {
        // A match, perhaps cut or with a stretch doubled.
        text = c.matches[rng() % c.matches.size()];
        const size_t at = rng() % (text.size() + 1), len = rng() % 6;
        if (rng() % 2) {
          text.erase(at, len);
        } else {
          text.insert(at, text.substr(at, len));
        }
      } else {
        for (int w = 0, n = 1 + static_cast<int>(rng() % 6); w < n; ++w) {
          const int kind = static_cast<int>(rng() % 3);
          std::string piece = others[rng() % others.size()];
          if (kind < 2 && !condition.atoms.empty()) piece = condition.atoms[rng() % condition.atoms.size()];
          if (kind == 1 && piece.size() > 1) piece = piece.substr(rng() % 2, piece.size() - 1);  // one byte off
          text += piece;
          text += " :"[rng() % 2];
        }
      }
      if (rng() % 4 == 0) {
        for (char& ch : text) ch = (ch >= 'a' && ch <= 'z' && rng() % 2) ? static_cast<char>(ch - 32) : ch;
      }
      const std::string lowered = LowerAsciiForTest(text);
      const bool holds = ConditionHolds(condition, lowered);
      const bool formula = reference.Holds(lowered);
      if (RE2::PartialMatch(text, re)) {
        ++matched;
        EXPECT_TRUE(holds) << c.pattern << " ruled out a text it matches: " << text;
      }
      EXPECT_TRUE(!formula || holds) << c.pattern << ": " << text;
      if (exact) {
        EXPECT_EQ(holds, formula) << c.pattern << ": " << text;
      }
      ruled_out += !holds;
    }
    EXPECT_GT(matched, 500) << c.pattern;
    EXPECT_GT(ruled_out, 1000) << c.pattern;
    std::printf("[ INFO     ] %zu atoms, %zu clauses, %d of 20000 texts matched, %d ruled out: %s\n",
                condition.atoms.size(), condition.clauses.size(), matched, ruled_out, c.pattern.c_str());
  }
  EXPECT_GE(exact_cases, 6);
  EXPECT_GE(greedy_cases, 2);
  // The web line that ran the worker pattern's regex, and the line it is for.
  const LiteralCondition worker = PatternCondition(cases[0].pattern);
  EXPECT_FALSE(ConditionHolds(worker, "app.jobs worker 2626 picked up job 2821 from queue default"));
  EXPECT_TRUE(ConditionHolds(worker, "precision: worker=bf16, devices: 8"));
  // The log path's check: a pattern's first checks say yes (its regex decides), the next its condition.
  std::shared_ptr<const LinePrefilter> pf = BuildLinePrefilter({cases[0].pattern}, {"Traceback"});
  ASSERT_TRUE(pf);
  const std::string web = "app.jobs worker 2626 picked up job 2821 from queue default";
  for (unsigned i = 0; i < LinePrefilter::kChecksBeforeCondition; ++i) EXPECT_TRUE(pf->MayMatchLine(0, web));
  EXPECT_FALSE(pf->MayMatchLine(0, web));
  EXPECT_TRUE(pf->MayMatchLine(0, "precision: worker=bf16, devices: 8"));
  // Nothing to check: no atom, or a pattern that does not parse.
  EXPECT_TRUE(PatternCondition("[0-9]+ ?[a-z]").clauses.empty());
  EXPECT_TRUE(PatternCondition("(unclosed").clauses.empty());
}

// Every line of the corpus (not corpus/heldout) with the bundled rules, as the log path's Inert asks:
// of the candidates of an ASCII line, the condition MayMatchLine checks never rules out one whose regex
// matches the line.
TEST(LiteralConditions, NeverRuleOutAMatchOnCorpusLines) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  LoadResult bundled = LoadRules(o);
  ASSERT_TRUE(bundled.rules->prefilter);
  const LinePrefilter& pf = *bundled.rules->prefilter;
  int lines = 0, matches = 0, ruled_out = 0;
  std::vector<std::uint32_t> found;
  std::vector<int> candidates;
  ForEachCorpusLine([&](const std::string& line) {
    if (std::any_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) return;
    ++lines;
    found.clear();
    pf.Scanner().KeywordsIn(line, &found);
    const std::string lowered = LowerAsciiForTest(line);
    candidates.clear();
    pf.Candidates(found, lowered, &candidates);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (int p : candidates) {
      const bool may = ConditionHolds(pf.Condition(p), lowered);
      ruled_out += !may;
      if (RE2::PartialMatch(line, bundled.rules->regexes[static_cast<size_t>(p)]->Get())) {
        ++matches;
        EXPECT_TRUE(may) << bundled.rules->regexes[static_cast<size_t>(p)]->pattern() << " on " << line;
      }
    }
  });
  EXPECT_GT(lines, 10000);
  EXPECT_GT(matches, 1000);
  std::printf("[ INFO     ] %d ASCII lines, %d matches, %d candidates ruled out\n", lines, matches, ruled_out);
}

// The log path checks conditions on ASCII lines only: FilteredRE2 folds "É" to "é" in an atom, and a
// line lowered by ASCII keeps its "É" (so the atom would seem absent). Both rules' lines are found as
// without the prefilter, among lines that stop the scanner and are ruled out by the conditions (after
// kChecksBeforeCondition checks of each pattern).
TEST(LiteralConditions, TheLogPathFindsWhatItWouldWithoutThem) {
  auto rule = [](const std::string& id, const std::string& pattern, const std::string& example) {
    return "id: " + id + "\ncategory: autograd.no_grad_fn\ntitle: A test rule\nmatch: {message: '" + pattern +
           "'}\nexplain: x\nhypotheses: [{id: only, text: x, test: x, fix: x}]\nverify: x\nexamples: [{match: '" +
           example + "'}]\n";
  };
  const std::vector<std::pair<std::string, std::string>> files = {
      {"cafe-crashed.yaml", rule("cafe-crashed", "(?i)caf\u00e9 crashed on node (?:16|32)", "CAF\u00c9 CRASHED ON NODE 16")},
      {"worker-dtype.yaml",
       rule("worker-dtype", "(?:^|[^\\w])worker(?:=|: | )(?P<dtype>16|bf16)(?:,|\\s|$)", "precision: worker=bf16, ok")}};
  LoadResult with = LoadRulesFromStrings(files);
  ASSERT_TRUE(with.ok());
  ASSERT_TRUE(with.rules->prefilter);
  std::string log;
  for (int i = 0; i < 400; ++i) {
    log += "app.jobs worker " + std::to_string(2000 + i) + " picked up job " + std::to_string(i) + "\n";
    log += "caf\u00e9 crashed on node 7 of " + std::to_string(i) + "\n";
    log += "cafe crashed on node 16 of " + std::to_string(i) + "\n";  // a candidate (ASCII), no match
    if (i == 150) log += "CAF\u00c9 CRASHED ON NODE 16\n";
    if (i == 300) log += "precision: worker=bf16, devices: 8\n";
  }
  Report got = FeedInPieces(with.rules, log, log.size());
  std::set<std::string> ids;
  for (const Diagnosis& d : got.diagnoses) ids.insert(d.rule);
  EXPECT_EQ(ids, (std::set<std::string>{"cafe-crashed", "worker-dtype"}));
  EXPECT_EQ(ToJson(got), ToJson(FeedInPieces(WithoutPrefilter(LoadRulesFromStrings(files)), log, log.size())));
}

}  // namespace
}  // namespace triage
