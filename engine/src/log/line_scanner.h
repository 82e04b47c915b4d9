// LineScanner: finds the first line of a buffer that contains any of a set of literal keywords, so
// the log path can skip the (vast majority of) lines that no rule and no segmenter marker can care about.
//
//   LineScanner scanner({"traceback", "error", "terminate called"});
//   LineScanner::Hit hit = scanner.Find(buffer);
//   // buffer[0, hit.line_start) holds hit.newlines complete lines that contain no keyword;
//   // when hit.found, the line starting at hit.line_start contains one.
//
// Keywords are matched ASCII-case-insensitively (Note: [Line prefilter]). Two implementations give
// identical results: an AVX2 one chosen at run time when the CPU has AVX2, and a portable one.
// A LineScanner is immutable after construction and may be shared by threads.
//
// Note: [Line prefilter] — why skipping lines is correct.
// While the segmenter is idle (no traceback or C++ error open), a line matters only if it carries one
// of the segmenter's idle markers (Segmenter::IdleKeywords) or a rule pattern matches it. RE2's
// FilteredRE2 computes, for each pattern, lower-case literal "atoms" such that every match contains one
// of them (RequiredLiterals). The keyword set is the idle markers plus, for every atom, one substring of
// it (CoverKeywords picks few, shared, specific words): a line containing an atom contains one of its
// keywords. Case: FilteredRE2's atoms are lower-case because it is built to run on lower-cased text, so
// the scanner folds ASCII case; for the segmenter's case-sensitive markers folding only adds false
// positives, which cost time, never a miss. An atom with characters outside ASCII is a keyword as it
// is when none of them has case (CJK, kana, Hangul, their punctuation: nothing to fold); of an atom
// with a cased one ('é'), only its longest ASCII run is kept, a substring and so also required. The segmenter sees a normalised line (progress-bar text
// before '\r', ANSI escapes and, by the format readers, quote markers, a rank prefix, an srun label or a
// debugger prompt removed): the prefixes and the progress bar leave a substring of the raw line; ANSI removal can join
// text, so ESC itself is a keyword; a line that may carry such a prefix is read by the segmenter rather
// than judged inert (MayCarryLinePrefix, formats/registry.h), so the prefix readers see what they need; a learned log prefix
// (Note: [Learned prefix]) is removed before a stopped line is judged, and a record header not yet learned is read. Patterns without required atoms (the loader
// warns: no-required-literal) are matched on every line by a second, small RE2::Set (LinePrefilter).
// A line hook may ask for the line after the one it reads when it starts with a given indentation
// (Segmenter::ReadNextLine, WantsLine: the continuation a handler may wrap a log record onto, Note:
// [Aligned continuations]): such a line is read whatever it holds.
#ifndef TRIAGE_ENGINE_LINE_SCANNER_H_
#define TRIAGE_ENGINE_LINE_SCANNER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <re2/set.h>

namespace triage {

class LineScanner {
 public:
  // kAuto: the widest this CPU runs. kAvx512: the AVX2 loop on AVX-512's 32 registers with VBMI's hash
  // stage (Notes: [Wide registers], [Hash stage] in line_scanner.cc), kAvx2 where the CPU lacks them;
  // it times three ways (no stage, the stage on candidate blocks, on every block) and takes the
  // cheapest (Note: [Stage runs]); for tests, kAvx512WithoutStage, kAvx512OnCandidates and
  // kAvx512OnEveryBlock take one way only. kPortable and kAvx2 build no hash stage.
  enum class Impl { kAuto, kPortable, kAvx2, kAvx512, kAvx512OnCandidates, kAvx512OnEveryBlock, kAvx512WithoutStage };

  struct Hit {
    bool found = false;       // a line with a keyword was found
    size_t line_start = 0;    // its offset; text.size() when none
    std::uint64_t newlines = 0;  // '\n' bytes in text[0, line_start)
  };

  // Where each keyword's anchor lies and which bucket holds it (Note: [Fingerprint scan]): per keyword
  // of keywords(), the anchor's offset in the keyword and its bucket; -1 for a keyword shorter than
  // the anchor width (anchored on all of it, bucketed by length). Choosing it is most of building a
  // scanner, so the rule cache stores it with the prefilter's plan (Note: [Rule cache]). Any layout
  // that passes the constructor's checks gives a correct scanner; only its speed depends on it.
  // `mix`: the seed of the hash stage's mix chosen for this placement (Note: [Cached mix] in
  // line_scanner.cc), 0 to kMixSeeds - 1; -1 (or any other value): chosen when the scanner is built.
  struct Layout {
    std::vector<int> offsets;
    std::vector<int> buckets;
    int mix = -1;
  };
  static constexpr int kMixSeeds = 64;

  // Note: [Keyword contexts] in line_scanner.cc. What Find asks of a keyword it finds, when the scanner
  // has one: Counts(k, p, n, start) is true when keyword k (an index into keywords()), lying at
  // p[start] of the text p[0, n) Find reads, makes its line one Find returns. Called only where a
  // keyword lies; it must not depend on anything but those arguments (the implementations call it at
  // the same places, so they agree).
  class HitFilter {
   public:
    virtual ~HitFilter() = default;
    virtual bool Counts(std::uint32_t k, const char* p, size_t n, size_t start) const = 0;
    // The bytes around a keyword where it may count (Contexts): ASCII-lowered, -1 for any byte.
    // `after2` is the second byte after the keyword (Note: [Second byte after]); -1 when `after` is.
    struct Context {
      int before = -1, after = -1, after2 = -1;
    };
    // Note: [Hit contexts] in line_scanner.cc. False (the default) when keyword k may count wherever it
    // lies; else true with *contexts listing byte contexts such that Counts holds for k (`keyword`) at
    // text[start] (with 0 < start and end = start + its length, end + 1 < n) only where some context
    // has before -1 or ASCII-lower(text[start - 1]), after -1 or ASCII-lower(text[end]), and after2 -1
    // or ASCII-lower(text[end + 1]). A context of -1 alone makes the list say nothing: answer false
    // instead. Asked when a scanner is built.
    virtual bool Contexts(std::uint32_t k, std::string_view keyword, std::vector<Context>* contexts) const {
      (void)k;
      (void)keyword;
      (void)contexts;
      return false;
    }
  };

  // Builds a scanner for `keywords` (any case). Empty keywords match every line; keywords holding '\n'
  // can never lie inside a line and are dropped. kAvx2 falls back to kPortable where the CPU lacks AVX2.
  // `layout`, when given, is one layout() returned for the same keywords: it is used when it fits them
  // (every offset and bucket in range), and chosen afresh otherwise. `filter`, when given, must outlive
  // the scanner (Find asks it about each keyword found).
  explicit LineScanner(std::vector<std::string> keywords, Impl impl = Impl::kAuto, const Layout* layout = nullptr,
                       const HitFilter* filter = nullptr);
  // As above, for `keywords` the caller holds usable (AreUsable(keywords) is true: UsableKeywords would
  // return them as they are), which are not checked again (~0.17 M instructions for a rule set's ~1,000
  // keywords at every start; BuildLinePrefilter checked them already).
  struct UsableTag {};
  LineScanner(std::vector<std::string> keywords, UsableTag, Impl impl, const Layout* layout, const HitFilter* filter);

  // Returns the first line of `text` ('\n'-separated; the last line may lack its '\n') containing a
  // keyword (with a filter, a keyword at a place the filter Counts), and the number of newlines before
  // it.
  Hit Find(std::string_view text) const;

  // Appends to *found the indexes (into keywords()) of every keyword `text` contains, each once (in no
  // particular order). Uses the fingerprint tables as Find does (AVX2 where Find does).
  void KeywordsIn(std::string_view text, std::vector<std::uint32_t>* found) const;
  // What the scan meets in `text`, position by position (for benchmarks, tests/bench/scan_bench.cc):
  // the positions some bucket's tables accept, those of them that pass the anchor hash (or lie in a
  // short anchor's bucket), and those where a keyword's anchor lies.
  // `staged`: of the table's positions, those the AVX-512 loop's hash stage also passes (Note: [Hash
  // stage] in line_scanner.cc); `hashed` and `anchored` count among the table's positions, as the
  // AVX2 loop meets them.
  // `followed`: of the staged positions, those the stage's follow-up tables pass too (Note: [Staged
  // follow-up] in line_scanner.cc), as the loop with the stage on every block meets them.
  struct Counts {
    std::uint64_t table = 0, staged = 0, hashed = 0, anchored = 0, followed = 0;
  };
  Counts CountCandidates(std::string_view text) const;
  // As CountCandidates, and calls visit(position, buckets, staged, hashed, anchored, followed) for each
  // position some bucket's tables accept (scan_bench --top: which windows of a log make the candidates).
  Counts CountCandidates(
      std::string_view text,
      const std::function<void(size_t at, unsigned buckets, bool staged, bool hashed, bool anchored, bool followed)>& visit)
      const;
  // Returns the keywords in use, lower-cased, in construction order.
  const std::vector<std::string>& keywords() const { return keywords_; }
  // Returns the keywords a scanner built from `keywords` uses: lower-cased, without those holding '\n'
  // and without repeats, in order.
  static std::vector<std::string> UsableKeywords(std::vector<std::string> keywords);
  // Returns true when UsableKeywords(keywords) would return `keywords` as they are.
  static bool AreUsable(const std::vector<std::string>& keywords);
  // Returns the placement a scanner built from `keywords` without a layout chooses (its layout()),
  // without building the scanner's tables, and so without its mix (-1).
  static Layout ChooseLayout(const std::vector<std::string>& keywords);
  // Returns a placement for `keywords` made in a moment: each long keyword anchored on its window of
  // rarest bytes (ByteRarity alone), the buckets in turn. As correct as the chosen one, slower to scan
  // with (Note: [Lazy anchor layout]).
  static Layout QuickLayout(const std::vector<std::string>& keywords);
  // Returns the anchors' placement this scanner uses.
  const Layout& layout() const { return layout_; }
  // Returns true when Find runs the AVX2 implementation.
  bool uses_avx2() const { return avx2_; }
  // Returns true when Find runs it on AVX-512's registers.
  bool uses_avx512() const { return avx512_; }
  // The rounds of probes that timed the hash stage's ways and chose one so far (Note: [Stage runs] in
  // line_scanner.cc): 0 where Find does not run FindAvx512 or runs one way only.
  unsigned probe_rounds() const { return probe_.rounds.load(std::memory_order_relaxed); }
  // Returns true when this CPU can run the AVX2 implementation.
  static bool CpuHasAvx2();

 private:
  // Note: [Fingerprint scan] in line_scanner.cc. Each keyword has an anchor: kPrints of its bytes
  // chosen to be rare in log text (all of it when shorter). Keywords are split into kBuckets buckets;
  // for each byte of an anchor, a low-nibble and a high-nibble table (16 entries each, one per set of
  // 8 buckets) say which buckets may hold that byte there.
  static constexpr int kBuckets = 16;
  static constexpr int kPrints = 4;
  static constexpr int kHashBits = 16;

  struct Anchored {
    std::uint32_t keyword;
    std::uint32_t offset;  // of the anchor in the keyword
  };

  static Layout ChooseLayout(const std::vector<std::string>& keywords, int long_n);
  static int LongBuckets(const std::vector<std::string>& keywords);
  // The bucket group of a keyword shorter than kPrints (Note: [Short keyword groups] in line_scanner.cc):
  // its length when it starts with an ASCII byte, else kPrints (one group for every length).
  static size_t ShortGroup(std::string_view keyword);
  static std::vector<std::pair<int, int>> BucketAnchors(const std::vector<std::vector<std::string>>& choices,
                                                        int buckets);
  // A keyword's anchors offered to BucketAnchors: at most kAnchorChoices, each scored (AnchorScore in
  // line_scanner.cc) within kAnchorSlack of its best.
  static constexpr size_t kAnchorChoices = 6;
  static constexpr int kAnchorSlack = 400;
  Hit FindPortable(const char* p, size_t n, size_t from, std::uint64_t newlines, size_t line_start) const;
  Hit FindAvx2(const char* p, size_t n) const;
  // FindAvx2's loop where the CPU has AVX-512 (VL, BW): the same instructions on 32 registers.
  Hit FindAvx512(const char* p, size_t n) const;
  // The last bytes of FindAvx2's and FindAvx512's text, from p[i], one at a time.
  Hit FindTail(const char* p, size_t n, size_t i, std::uint64_t newlines, size_t line_start) const;
  // The first of the candidates `pass` of the block at p[i] that AnchorHit verifies (its position in
  // the block), or -1; bucket_bits: the block's bucket bits (Note: [Fingerprint scan]).
  int FirstAnchorHit(const char* p, size_t n, size_t i, std::uint32_t pass, const unsigned char (&bucket_bits)[2][32]) const;
  bool KeywordAt(const char* p, size_t n, size_t at) const;
  void KeywordsInAvx2(const char* p, size_t n, std::vector<std::uint32_t>* found) const;
  // KeywordsInAvx2 with the hash stage, where Find runs FindAvx512.
  void KeywordsInAvx512(const char* p, size_t n, std::vector<std::uint32_t>* found) const;
  void KeywordsInFrom(const char* p, size_t n, size_t from, std::vector<std::uint32_t>* found) const;
  // The buckets whose tables accept the kPrints bytes from p[i] (bytes past n accept short anchors only).
  unsigned BucketsAt(const char* p, size_t n, size_t i) const;
  // Calls visit(keyword, start) for each keyword (of `buckets`) whose anchor lies at p[at], the keyword
  // at p[start], until it returns true; returns whether one did. Full-length anchors are looked up by their bytes (Note: [Anchor
  // table] in line_scanner.cc), short ones through their buckets' lists.
  template <typename F>
  bool VisitAnchorHits(const char* p, size_t n, size_t at, unsigned buckets, F visit) const;
  // Appends to *found the keywords (of `buckets`) whose anchor lies at p[at], each once.
  void AnchorHits(const char* p, size_t n, size_t at, unsigned buckets, std::vector<std::uint32_t>* found) const;
  // True when a keyword of one of `buckets` has its anchor at p[at].
  bool AnchorHit(const char* p, size_t n, size_t at, unsigned buckets) const;
  // AnchorHit for Find: a keyword whose anchor lies at p[at] and that the filter, if any, Counts there.
  bool CountedHit(const char* p, size_t n, size_t at, unsigned buckets) const;
  static std::uint32_t FoldedWord(const char* p);  // kPrints bytes as one word, ASCII lower case
  static std::uint32_t AnchorHash(std::uint32_t folded);  // kHashBits bits of a FoldedWord
  // kPrints bytes as one word with bit 5 of each set: ASCII lower case for letters, and a coarser key
  // for the rest (Note: [Loose anchor hash] in line_scanner.cc).
  static std::uint32_t LooseWord(const char* p);
  // False when no full-length anchor can be the kPrints bytes at p (the hash of their LooseWord is not
  // in anchors_).
  bool HashMayHold(const char* p) const;
  // HashMayHold with the byte after the anchor, kPrints + 1 bytes readable at p: false when no
  // full-length anchor is the kPrints bytes at p with its keywords' next byte after them, or with no
  // byte its keywords agree on there (Note: [Follow-up hash] in line_scanner.cc).
  bool FollowMayHold(const char* p) const;
  // kHashBits bits of a LooseWord and the byte after it (bit 5 set, plus one), or 0 for any byte.
  static std::uint32_t FollowHash(std::uint32_t loose, unsigned next);
  // False when no keyword shorter than kPrints can begin at p, with kPrints bytes readable there (the
  // hash of the LooseWord's first bytes, as many as a short keyword's length, is not in anchors_; Note:
  // [Short keyword hash] in line_scanner.cc).
  bool ShortHashMayHold(const char* p) const;
  static std::uint32_t ShortMask(size_t length);  // the low `length` bytes of a word

  // One slot of the anchor table (Note: [Anchor table]): a full-length anchor's bytes (folded) and the
  // keywords anchored on them, refs_[begin, end); begin == end: an empty slot.
  struct AnchorSlot {
    std::uint32_t word = 0;
    std::uint32_t begin = 0, end = 0;
    // The kPrints bytes after the anchor that every keyword of the slot holds there (folded), where
    // next_mask is set: a quick "no" before the full comparison (Note: [Anchor follow-up]).
    std::uint32_t next = 0, next_mask = 0;
    // 1 + the index into contexts_ of the slot's one keyword's contexts; 0: none (Note: [Hit contexts]).
    std::uint32_t context = 0;
  };
  // Where the filter counts a keyword (HitFilter::Contexts), for the anchor table's slots of one
  // keyword: the anchor's offset in it and its length; the bytes allowed before it whatever follows
  // and after it whatever precedes; a 256-bit hash set of the (before, after) pairs allowed together;
  // and one of the (after, second byte after) pairs allowed whatever precedes (Note: [Second byte
  // after]).
  struct HitContext {
    std::uint32_t offset = 0, length = 0;
    std::uint64_t before[4] = {}, after[4] = {}, pairs[4] = {}, after_pairs[4] = {};
  };
  static unsigned PairHash(unsigned before, unsigned after);
  // False when the keyword of `c` cannot lie at p[at - offset] of p[0, n) in a place its filter counts.
  static bool ContextMayHold(const HitContext& c, const char* p, size_t n, size_t at);
  std::vector<HitContext> contexts_;
  // False when no keyword can have its anchor at p[at] (at + kPrints <= n): the anchor table has no
  // slot for the bytes there, or the bytes after them differ from its keywords' (Note: [Anchor
  // follow-up] in line_scanner.cc). Inlined into the scan loops, which call nothing for it.
  bool MayBeAnchored(const char* p, size_t n, size_t at) const;

  std::vector<std::string> keywords_;
  Layout layout_;
  const HitFilter* filter_ = nullptr;      // Note: [Keyword contexts]; null: every keyword found counts
  bool match_all_ = false;                 // an empty keyword: every line matches
  bool avx2_ = false;
  bool avx512_ = false;  // Find runs FindAvx512
  // FindAvx512's way with the hash stage: 0 timed; 1 on candidate blocks, 2 on every block, 3 none.
  int stage_way_ = 0;
  // The way the last timing chose (0 none, 1, 2 as above; Note: [Stage runs]), for calls too short to
  // time them; only speed depends on it, so threads sharing the scanner may race on it (relaxed).
  mutable std::atomic<int> way_hint_{0};
  // The round of probes that times the ways (Note: [Stage runs]), carried over FindAvx512's calls: the
  // log path calls it from each line it stops on, and with many rules on web text those are a few
  // hundred bytes apart, far less than a round. Only speed depends on it: threads sharing the scanner
  // may race on it (relaxed loads and stores, no read-modify-write in the loop).
  struct Probes {
    std::atomic<unsigned> phase{0};             // the phase being timed; kStageProbes (6): no round on
    std::atomic<std::uint64_t> ticks{0}, blocks{0};  // of that phase so far
    std::atomic<double> least[3] = {};          // each way's least ticks per block in this round
    std::atomic<std::uint64_t> since{0};        // blocks read since the last round
    std::atomic<unsigned> rounds{0};            // rounds ended (probe_rounds)
  };
  mutable Probes probe_;
  std::vector<std::uint32_t> first_[256];   // keyword indexes by lower-cased first byte
  bool has_first_[256] = {};
  std::vector<Anchored> bucket_[kBuckets];
  unsigned short_buckets_ = 0;             // buckets of keywords shorter than kPrints
  unsigned short_lengths_ = 0;             // bit L: a keyword of L < kPrints bytes
  // Bitset over AnchorHash(LooseWord) of every full-length anchor, and of each shorter keyword's
  // LooseWord cut to its length (Note: [Short keyword hash]).
  std::vector<std::uint64_t> anchors_;
  // Bitset over FollowHash of each anchor table slot's anchor and the first byte after it that the
  // slot's keywords agree on, or 0 where they agree on none (Note: [Follow-up hash]).
  std::vector<std::uint64_t> follow_;
  std::vector<AnchorSlot> table_;          // full-length anchors by AnchorHash, open addressing
  std::vector<Anchored> refs_;             // the keywords of each slot, slot after slot
  // [set of 8 buckets][anchor byte][nibble] -> bucket bits
  alignas(16) unsigned char low_[2][kPrints][16] = {};
  alignas(16) unsigned char high_[2][kPrints][16] = {};
  // The hash stage (Note: [Hash stage] in line_scanner.cc): per anchor byte, an 8-bit value for each
  // value of a byte's low 5 bits, combined over the kPrints bytes into kStageHashes kStageBits-bit hashes of a
  // position (StageHashes); per hash, set of 8 buckets and hash value, the bits of the buckets holding
  // a full-length anchor of that value (and of the short anchors' buckets, at every value). A position
  // passes for the buckets every hash passes.
  static constexpr int kStageBits = 7;
  static constexpr int kStageHashes = 3;
  alignas(32) unsigned char mix_[kPrints][32] = {};
  alignas(64) unsigned char staged_[kStageHashes][2][1 << kStageBits] = {};  // [hash][set of 8 buckets][value]
  // The first hash's table folded to kFirstHashes values (its value's low 6 bits), for the way that
  // runs the first hash alone on 32-byte registers (Note: [Hash stage] in line_scanner.cc).
  static constexpr unsigned kFirstHashes = 64;
  alignas(32) unsigned char staged_first_[2][kFirstHashes] = {};
  // Note: [Staged follow-up] in line_scanner.cc: per set of 8 buckets and value, [0] the buckets
  // holding a keyword whose anchor's first hash, XORed with follow_mix_ of the keyword's byte after
  // the anchor (its low 5 bits), is that value; [1] the buckets holding a keyword that ends with its
  // anchor (by EndingIndex: Note: [Ending anchor hash]) or is 3 bytes long (by ThreeHash), and the
  // shorter anchors' buckets at every value; [2] as [0], by the second hash XORed with follow_mix_'s
  // value shifted right by one (Note: [Wide stage blocks]).
  alignas(32) unsigned char follow_mix_[32] = {};
  alignas(64) unsigned char follow_staged_[3][2][1 << kStageBits] = {};  // [by next byte, ending, by next byte][set][value]
  // The buckets the loop with the stage on every block passes at p[i] (i + kPrints < n): the stage's
  // hashes (line_scanner.cc's kEveryBlockHashes) and the follow-up tables.
  unsigned FollowBuckets(const char* p, size_t i) const;
  // Fills follow_mix_ and follow_staged_ for the keywords' layout under the mix of `seed`.
  void BuildFollowStage(int seed);
  // The same into `follow_mix` and `follow_staged`, with `mix` (the stage's mix values of `seed`) in
  // place of mix_ (ChooseMix scores each seed by them).
  void MakeFollowStage(const unsigned char (&mix)[kPrints][32], int seed, unsigned char (&follow_mix)[32],
                       unsigned char (&follow_staged)[3][2][1 << kStageBits]) const;
  // kStageBits bits of the mix values of the first 3 bytes at `bytes`, XORed (Note: [Staged follow-up]).
  static unsigned ThreeHash(const unsigned char (&mix)[kPrints][32], const char* bytes);
  // The bucket of the 3-byte keywords, when it holds no shorter ones; else -1.
  int ThreeBucket() const;
  // The ending table's index of the anchor (or window) at `bytes`, with its stage hashes h, for the
  // set of 8 buckets among `buckets` (Note: [Ending anchor hash]): ThreeHash in the set of
  // ThreeBucket(), else the stage's third hash.
  unsigned EndingIndex(const unsigned char (&mix)[kPrints][32], const char* bytes, const unsigned (&h)[kStageHashes],
                       unsigned buckets) const;
  int short_bucket_[kPrints] = {-1, -1, -1, -1};  // the bucket of the ASCII keywords of each length < kPrints
  // The buckets of set `set` the first hash's table holds at some value whose low 6 bits are `folded`.
  static unsigned FirstStaged(const unsigned char (&staged)[kStageHashes][2][1 << kStageBits], int set,
                              unsigned folded);
  // The kStageHashes hashes of the kPrints bytes at `bytes` under `mix`.
  static void StageHashes(const unsigned char (&mix)[kPrints][32], const char* bytes, unsigned (&h)[kStageHashes]);
  // The buckets every hash of `h` passes in `staged` (a stage's tables).
  static unsigned StagePass(const unsigned char (&staged)[kStageHashes][2][1 << kStageBits], const unsigned (&h)[kStageHashes]);
  // The buckets the hash stage passes at p[i] (i + kPrints <= n).
  unsigned StageBuckets(const char* p, size_t i) const;
  // The mix_ values for a set of anchors: those of `seed` when it is one (0 to kMixSeeds - 1), else of
  // the seed whose values spread them best. Returns the seed used.
  int ChooseMix(const std::vector<std::pair<int, std::string>>& anchors, int seed);
};

// Returns true and lower-case atoms one of which every match of `pattern` contains (RE2's FilteredRE2
// with atoms of at least 3 bytes; of an AND of atoms, one is kept, preferring atoms that contain one of
// `free_keywords`, then specific ones); false when the pattern can match without any literal or does
// not parse. See Note: [Line prefilter]. FilteredRE2's prefilter is read from the pattern's text where
// ReadPatternPrefilter can (Note: [Literal fast path]), the same answers without its analysis.
// `program_size`, when given, receives the size of the program the pattern compiles to alone with
// RegexOptions() (RE2::ProgramSize), or -1 when it does not compile; without it, a pattern whose
// prefilter is read from its text and which ProgramSizeBound answers is not compiled at all (Note:
// [Program size bound] in pattern_atoms.cc).
bool RequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                      const std::vector<std::string>& free_keywords = {}, int* program_size = nullptr);

// RequiredLiterals without its memo, the prefilter read by ReadPatternPrefilter where it answers (`fast`) or always by
// FilteredRE2's prefilter (the reference the fast path is tested against).
bool RequiredLiteralsUncached(const std::string& pattern, std::vector<std::string>* atoms,
                              const std::vector<std::string>& free_keywords, int* program_size, bool fast);

// Returns true when `atom` (any case) occurs in what healthy training logs print on most lines (logging
// prefixes, progress bars, metric dicts) and holds none of `read_anyway` (keywords whose lines the log
// path reads in any case, such as the segmenter's): a pattern with such a required literal sends most
// lines of a log through the full rule set. The loader warns (common-literal).
bool CommonInLogs(const std::string& atom, const std::vector<std::string>& read_anyway = {});

// A candidate of a set cover (GreedyCover): its length, whether it is a specific word, and the items
// (indexes) it covers.
struct CoverCandidate {
  size_t length;
  bool specific;
  std::vector<size_t> covers;
};

// Greedy set cover of items 0..items-1: repeatedly the candidate covering the most uncovered items; on
// ties a specific one, then the longer, then the first. Returns the picked candidates' indexes in pick
// order; stops when all items are covered or no candidate covers an uncovered one.
std::vector<size_t> GreedyCover(const std::vector<CoverCandidate>& cover, size_t items);

// True when a lower-case word of an atom may be a keyword on its own (CoverKeywords): long enough, not
// a number, and printed by neither healthy training logs nor ordinary text, not even inside a word.
bool SpecificCoverWord(const std::string& word);

// Returns a keyword set that contains `base` and, for every atom, a keyword that is a substring of it:
// a word of the atom shared by many atoms when one exists (specific words only), else the atom itself.
// `threads`: how many threads may share the work (the same keywords whatever the number: Note: [Cover
// on the load's threads] in line_scanner.cc).
std::vector<std::string> CoverKeywords(const std::vector<std::string>& base, const std::vector<std::string>& atoms,
                                       int threads = 1);

// Note: [Literal conditions] A pattern's required literals (RequiredLiterals) are one OR of atoms: a
// line holding one of them is a candidate, and its regex runs. But FilteredRE2's prefilter of a
// pattern is an AND/OR formula over its atoms, of which the keyword stage keeps one OR: `(?:^|[^\w])
// worker(?:=|: | )['"]?(16|bf16)` needs "worker=", "worker: " or "worker " AND "16", yet every web
// line with "worker " in it ran the regex (with 1000 rules, 3,327 lines of 8 MiB of web text, each
// ~23,000 instructions: under the 64 KiB regex memory this regex runs 16x slower than with RE2's
// default, 4.1 against 0.25 us a line). The whole formula, with atoms of two bytes or more, is a
// second check between the literal checks and the regex. PatternCondition writes it as clauses (a
// CNF): each clause a set of atoms one of which every match holds; with few atoms every minimal
// clause, so the clauses hold exactly when the formula does (FilteredRE2::AllPotentials), with many,
// the minimal clauses greedy removal finds from a few starting points, a weaker but still sound
// check. FilteredRE2's atoms are lower case, Unicode-folded: a text lowered by ASCII only is folded
// the same way only when it is ASCII, so the check is for ASCII text (LinePrefilter::MayMatchLine's
// callers check). A pattern whose formula cannot be written (it does not parse, no atom, over 64
// atoms) has no clauses: the check always holds.
struct LiteralCondition {
  // FilteredRE2's shortest atom here: two bytes ("16" of "bf16"; one byte is in most lines).
  static constexpr int kAtomLen = 2;
  std::vector<std::string> atoms;      // lower case
  std::vector<std::uint64_t> clauses;  // bit i: atoms[i]; each clause needs one of its atoms in the text
};
LiteralCondition PatternCondition(const std::string& pattern);
// True when `lowered`, an ASCII text in lower case, holds an atom of every clause of `condition`.
bool ConditionHolds(const LiteralCondition& condition, std::string_view lowered);

// What the log path needs to skip lines safely for one rule set (Note: [Line prefilter]). Its scanners
// ask it which keywords they find count (Counts, Note: [Keyword contexts] in line_scanner.cc), so they
// live no longer than it.
struct LinePrefilter : LineScanner::HitFilter {
  // The scanner of the idle keywords + keywords covering every rule's atoms, as it is now (Note: [Lazy
  // anchor layout]): the first one until the chosen layout is built, then the one with it.
  const LineScanner& Scanner() const { return *current_scanner.load(std::memory_order_acquire); }
  // Note: [Lazy anchor layout] Choosing the scanner's anchor layout (LineScanner::ChooseLayout) costs
  // ~28 M instructions, a sixth of a start with no rule cache, and pays only on long input: a 20-line
  // log is scanned as fast with any layout. A load with a cached plan has the chosen layout (the rule
  // cache stores it with the plan, Note: [Rule cache]); a load without one (no cache at all, a reload)
  // starts with a layout chosen in a moment (LineScanner::QuickLayout) and `layout_pending`; the log
  // path counts the bytes it scans (Scanned), and once they reach kChosenLayoutAfter the scanner with
  // the chosen layout is built, once, and replaces the first for every later call. Any layout gives the
  // same answers (Find, KeywordsIn: the same keywords, in the same order, so the same indexes), only
  // the speed differs, so threads sharing the prefilter may use either: the first scanner is kept as
  // long as the prefilter, so a thread still scanning with it is never left with a freed one.
  static constexpr std::uint64_t kChosenLayoutAfter = std::uint64_t{1} << 20;
  // Counts `bytes` more bytes of log scanned (the log path's calls); builds the chosen layout's scanner
  // when they reach kChosenLayoutAfter.
  void Scanned(std::uint64_t bytes) const {
    if (layout_pending && scanned.fetch_add(bytes, std::memory_order_relaxed) + bytes >= kChosenLayoutAfter) {
      ChosenScanner();
    }
  }
  // The scanner with the chosen layout, built now when not yet (scan_bench, tests).
  const LineScanner& ChosenScanner() const;
  std::unique_ptr<LineScanner> first_scanner;  // with the plan's layout, or a quick one (layout_pending)
  bool layout_pending = false;
  mutable std::atomic<const LineScanner*> current_scanner{nullptr};
  mutable std::atomic<std::uint64_t> scanned{0};
  mutable std::once_flag chosen_once;
  mutable std::unique_ptr<LineScanner> chosen_scanner;
  // Per keyword of the scanner (same order): the patterns (RuleSet::patterns indexes) with a required
  // literal containing it. A pattern matching a line contains one of its required literals there, and
  // that literal one of the keywords: the patterns of the keywords a line holds are all that can match.
  std::vector<std::vector<int>> keyword_patterns;
  // Per keyword of `scanner`: true when it is one of the idle keywords (a line holding it is read; a
  // line the scanner stopped on without one needs only the patterns of its keywords to be ruled out).
  std::vector<bool> idle_keyword;
  std::unique_ptr<RE2::Set> unfiltered;  // patterns without required literals; null when none
  std::vector<int> unfiltered_patterns;  // their indexes in RuleSet::patterns (for reports)
  // Per pattern: its required literals (lower case), one of which every match contains; empty for a
  // pattern without any, or with a literal holding a cased character outside ASCII (whose case ASCII
  // lowering cannot fold).
  std::vector<std::vector<std::string>> literals;

  // Returns false when pattern `p` cannot match a line whose ASCII lower-case form is `lowered`: it
  // holds none of the pattern's required literals. A check far cheaper than the regex.
  bool MayMatch(int p, std::string_view lowered) const;

  // Appends to *out, for the keywords `found` of a text (KeywordsIn) whose ASCII lower-case form is
  // `lowered`, every pattern of their keyword_patterns for which MayMatch holds: the same patterns,
  // possibly several times, in no particular order (Note: [Anchored literals]).
  void Candidates(const std::vector<std::uint32_t>& found, std::string_view lowered, std::vector<int>* out) const;

  // Note: [Anchored literals] Per keyword k, the checks Candidates makes for the patterns of
  // keyword_patterns[k], derived from `literals` by BuildLinePrefilter. A rule set with many rules has
  // many patterns per keyword ("error" stands for over a hundred); MayMatch searched the line for each
  // of their literals. But a literal L holding k can only lie in a text where k does, and at a known
  // distance: one comparison at each place the text holds k (after L's first k) decides it, with no
  // search. A literal of the pattern without k is left to the keyword it holds (the cover keyword every
  // literal has, CoverKeywords): when the text holds the literal it holds that keyword too, whose checks
  // include the literal. Only a literal holding no keyword at all (one with a '\n', which no keyword
  // holds) is searched for, as MayMatch does; a pattern without checkable literals is a candidate
  // outright. So Candidates gives exactly MayMatch's patterns (tests/line_scanner_test.cc compares them
  // on corpus lines and made-up texts).
  // A check carries its literal's length, first and last bytes and place in check_bytes (every checked
  // literal's bytes, one after another), so that ruling a literal out reads the check alone: with
  // 1000 rules a keyword has hundreds of checks, and reaching each literal through literals[pattern]
  // cost two dependent loads from all over the heap.
  struct LiteralCheck {
    int pattern;
    int literal;  // index into literals[pattern]; -1: the pattern has none to check (a candidate)
    int offset;   // where the keyword first lies in the literal; -1: search the text for the literal
    std::uint32_t at = 0, size = 0;  // the literal is check_bytes[at, at + size)
    char front = 0, back = 0;        // its first and last bytes
  };
  // Each keyword's checks come in two parts: first those read whatever follows the keyword (a pattern
  // without literals, a literal searched for, one that ends with the keyword), then, from
  // keyed_from[k], those of literals that go on after the keyword, ordered by the byte that follows it
  // there; next_groups[k] gives each such byte's range of them. At a place where the text holds the
  // keyword, only the range of the byte that follows it there can hold a literal: with 1000 rules a
  // stopped line of web text had ~35 checks to make, most of them against a literal that could not
  // be there.
  struct NextGroup {
    unsigned char byte;
    std::uint32_t begin, end;  // into keyword_checks[k]
  };
  std::vector<std::vector<LiteralCheck>> keyword_checks;
  std::vector<std::uint32_t> keyed_from;
  std::vector<std::vector<NextGroup>> next_groups;
  std::string check_bytes;
  // Calls found(check) for each check of keyword k that compares a literal at the place `i` where
  // text[0, n) holds the keyword, and whose literal lies there (text[i - offset, ...) equals it: with
  // kFold the text's bytes are ASCII-lowered first, else the text is lowered already), until it returns
  // true; returns whether one did. Checks that compare nothing (no literal, a literal searched for)
  // are not its: Candidates and Counts read them apart.
  template <bool kFold, typename F>
  bool LiteralsAt(std::uint32_t k, const char* text, size_t n, size_t i, F found) const;

  // Note: [Hit contexts] in line_scanner.cc: the byte pairs around keyword k where its literal checks
  // can find a literal, read off keyword_checks (each literal's bytes just before and after its k).
  bool Contexts(std::uint32_t k, std::string_view keyword, std::vector<Context>* contexts) const override;
  // Note: [Keyword contexts] in line_scanner.cc. Per keyword: true when every line holding it must stop
  // the scan (an idle keyword; a pattern of it with no literal to compare, or with a literal searched
  // for, LiteralCheck offset -1); false when a line holds one of its patterns' literals there only
  // where a check of it compares one (LiteralsAt).
  std::vector<bool> any_place;
  // LineScanner::HitFilter: keyword k at text[start] counts when any_place[k] or one of its literal
  // checks finds its literal there.
  bool Counts(std::uint32_t k, const char* p, size_t n, size_t start) const override;

  // Returns false when pattern `p` cannot match the ASCII text whose lower-case form is `lowered`: it
  // lacks every atom of a clause of the pattern's literal condition (Note: [Literal conditions]).
  // Making a condition costs about what compiling the regex does (~0.5 ms on a busy VM: FilteredRE2
  // compiles it, then up to 255 evaluations of its formula), so a pattern's first
  // kChecksBeforeCondition checks say yes (its regex decides) and the condition is made at the next: a
  // pattern that is seldom a candidate costs nothing more, one that is a candidate of thousands of
  // lines pays once. Threads may share the prefilter (the count is only a heuristic; the condition is
  // made once).
  static constexpr unsigned kChecksBeforeCondition = 32;
  bool MayMatchLine(int p, std::string_view lowered) const;
  // Pattern `p`'s condition, made now if not yet.
  const LiteralCondition& Condition(int p) const;
  std::vector<std::string> patterns;  // the patterns, for their conditions
  struct LazyCondition {
    std::atomic<unsigned> checks{0};
    std::once_flag once;
    LiteralCondition condition;
  };
  std::unique_ptr<LazyCondition[]> conditions;  // per pattern

  // Note: [Line shapes] in log/line_shapes.h. True when every text that differs from `text` only in
  // which digits stand at its digit places gets the verdict Session's Inert gives `text` (a line's
  // text as Inert judges it, holding exactly the keywords `found`, KeywordsIn): those keywords are
  // digit-free and no keyword with a digit can lie in such a text (so each holds the same keywords),
  // every pattern without required literals is digit-blind (DigitBlindPattern), and, unless
  // `candidates` is null, each pattern of the keywords is digit-blind or can match no such text (it
  // is not among `candidates`, the text's candidates sorted, and none of its literals with a digit
  // can lie in one). `candidates` null: the verdict did not read the keywords' patterns (an idle
  // keyword among `found`, or no keyword).
  bool ShapeDecides(const std::vector<std::uint32_t>& found, std::string_view text,
                    const std::vector<int>* candidates) const;
  bool shapes_blind = false;                // every pattern without required literals is digit-blind
  std::vector<std::string> digit_keywords;  // the scanner's keywords that hold a digit, digits as '0'
  // Per keyword, what ShapeDecides reads, worked out at its first need (ShapeOf): whether it is
  // digit-free, whether each of its patterns is digit-blind or has literals, and the patterns that
  // are not digit-blind with their literals that hold a digit (digits as '0').
  struct ShapeKeyword {
    std::once_flag once;
    bool digit_free = false, patterns_ok = false;
    struct Sensitive {
      int pattern;
      std::vector<std::string> digit_literals;
    };
    std::vector<Sensitive> sensitive;
  };
  const ShapeKeyword& ShapeOf(std::uint32_t k) const;
  std::unique_ptr<ShapeKeyword[]> shape_keyword;
};

// Builds the prefilter for a rule set's message patterns. Returns null when it cannot (a pattern set
// RE2 fails to compile): the caller then classifies every line, which is slower but still correct.
std::shared_ptr<const LinePrefilter> BuildLinePrefilter(const std::vector<std::string>& patterns,
                                                         const std::vector<std::string>& idle_keywords);

// Returns each pattern's required literals (RequiredLiterals), or nullopt for a pattern without any.
// The slow part of building a prefilter, separate so the rule cache can store it.
std::vector<std::optional<std::vector<std::string>>> PatternAtoms(const std::vector<std::string>& patterns,
                                                                  const std::vector<std::string>& idle_keywords);

// What a prefilter's scanner is built from, derived from the atoms: its keywords (the idle keywords
// and a cover of every atom, CoverKeywords, as LineScanner keeps them: lower case, no '\n', no repeat)
// and, per keyword, the patterns with an atom containing it (LinePrefilter::keyword_patterns). With the
// atoms, the slow part of building a prefilter: the rule cache stores both (Note: [Rule cache]).
// Note: [Cached checks] What BuildLinePrefilter derives from the atoms and a plan's keywords: which
// patterns' literals ASCII lowering folds, and each keyword's literal checks (LinePrefilter::
// keyword_checks, keyed_from, next_groups, check_bytes: Note: [Anchored literals]). Deriving them took
// ~5 M of a warm start's ~34 M instructions (605 rules: ~5,400 searches of a keyword in a literal, the
// sorts, ~2,200 literals lowered and tested for case); the plan made to be cached carries them, and a
// load from the cache decodes them (~1 M instructions: the literals are the atoms' own strings, moved
// and lowered in place once every check fits, not copies, which were ~0.4 M more), every index, place
// and length checked against the atoms and the keywords (checks that do not fit are derived again);
// their bytes are the entry's checksum's to vouch for.
// `packed`: per keyword, little-endian 32-bit words: the check count, keyed_from, the group count,
// then per check its pattern, literal + 1, offset + 1, place in `bytes` and size, then per group its
// byte, begin and end. `foldable`: per pattern '1' when its literals are kept (LinePrefilter::
// literals), else '0'. Empty: derived when the prefilter is built.
struct PrefilterChecks {
  std::string foldable;
  std::string packed;
  std::string bytes;
};

struct PrefilterPlan {
  std::vector<std::string> keywords;
  std::vector<std::vector<int>> keyword_patterns;
  // Per keyword of `scanner`: true when it is one of the idle keywords (a line holding it is read).
  std::vector<bool> idle_keyword;
  // The scanner's anchor placement for `keywords` (LineScanner::Layout); empty: chosen when built.
  LineScanner::Layout layout;
  // Note: [Cached checks]; made with the layout (PlanLinePrefilter's `layout`), else empty.
  PrefilterChecks checks;
};
// `layout`: false leaves the plan's layout empty (Note: [Lazy anchor layout]). `threads`: as CoverKeywords'.
PrefilterPlan PlanLinePrefilter(const std::vector<std::optional<std::vector<std::string>>>& atoms,
                                const std::vector<std::string>& idle_keywords, bool layout = true, int threads = 1);

// Builds the prefilter from atoms computed by PatternAtoms for the same patterns, and a plan made by
// PlanLinePrefilter from them (one that does not fit the patterns is made again, without its layout:
// the scanner starts with a quick one, Note: [Lazy anchor layout]). `threads`: for such a plan, as
// CoverKeywords'.
// `atoms` are taken by value: a prefilter from a plan whose checks fit them makes its literals
// (LinePrefilter::literals) of their strings, lowered in place, instead of copies (Note: [Cached checks]).
std::shared_ptr<const LinePrefilter> BuildLinePrefilter(
    std::vector<std::string> patterns, std::vector<std::optional<std::vector<std::string>>> atoms,
    const std::vector<std::string>& idle_keywords, PrefilterPlan plan = {}, int threads = 1);

}  // namespace triage

#endif  // TRIAGE_ENGINE_LINE_SCANNER_H_
