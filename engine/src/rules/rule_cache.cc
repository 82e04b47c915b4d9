#include "rules/rule_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "rules/calibration.h"
#include "rules/lua_runtime.h"
#include "log/simd.h"
#include "rules/signal_rules.h"
#include "triage/triage.h"

namespace triage {
namespace fs = std::filesystem;

// Every field of these structs is in its Fields list below (Note: [Cache fields]). A field added to
// one of them must be added there too (and kFormat bumped), or cached loads would silently drop it:
// these size checks fail the build as a reminder. (x86-64 libstdc++ sizes; other targets skip them.)
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Rule) == 840, "Rule changed: list the new field in Fields(Rule) and bump kFormat");
static_assert(sizeof(HypothesisSpec) == 432, "HypothesisSpec changed: list the new field in Fields(HypothesisSpec) and bump kFormat");
static_assert(sizeof(Example) == 160, "Example changed: list the new field in Fields(Example) and bump kFormat");
static_assert(sizeof(SignalSpec) == 128, "SignalSpec changed: list the new field in Fields(SignalSpec) and bump kFormat");
static_assert(sizeof(Problem) == 144, "Problem changed: list the new field in Fields(Problem) and bump kFormat");
#endif

namespace {

constexpr std::uint32_t kMagic = 0x54524331;  // "TRC1"
constexpr std::uint32_t kFormat = 15;  // 6: checksums (Note: [Cache checksums]); 7: pattern_programs; 8: the layout's mix; 9: conditions; 10: a rule's texts and Lua code last (Note: [Texts on demand]); 11: a hypothesis' category; 12: the checksum on 32-bit lanes, the plan's checks (Note: [Cached checks]); 13: a condition's frames; 14: 32 checksum lanes; 15: the examples apart (Note: [Examples apart])
constexpr int kKeepEntries = 8;

// Note: [Cache checksums] The structure of an entry or a part is checked as it is read (lengths,
// counts, enums, the trailer), but a damaged byte inside a string or a number (a bit flipped on disk, a
// partly written block after a crash) would still read as a rule, a different one. So an entry and
// each part end with a 64-bit checksum of all their bytes before it, checked after the structure
// reads well: a mismatch is a miss, and the entry or part is built again. The checksum (CacheChecksum
// below) is 32 32-bit lanes of multiply-and-rotate over 4-byte words: not a defence against
// someone who can write the directory (Note: [Cache hardening] and the key in each entry are), only
// against damage. A damaged part the parts file keeps unused is dropped when the file is written again.
// Each 4-byte word changes its lane by a bijection of that lane's state (add the word times an odd
// number, rotate, times another odd number), and the length and each lane go into the result, so any
// one damaged word, or a cut, changes its lane and so, but for a chance of about 2^-64, the sum; the
// rotation carries a lane's top bits down, so two flips of the same bit in one lane do not cancel.
// The 32 lanes are four AVX2 registers, each its own chain of dependent multiplies: ~27 instructions per
// 128 bytes. Format 12 had eight lanes, one register, and so one chain (a multiply's latency and the
// rotation per 32 bytes): 1.16 M instructions and ~0.34 ms for the ~4 MB entry, against ~0.87 M and
// ~0.2 ms with four chains (a C loop over 4 MiB on the 2-vCPU EPYC VM of tests/bench/README.md,
// 2026-12-01, format 14); format 11's four 64-bit lanes (64-bit multiplies, which neither SSE nor AVX2
// has) took ~28 per 32 bytes. The sum is the same on every CPU, as
// it must be for a cache directory that machines of different CPUs share: the portable rounds are the
// reference, and RuleCache.ChecksumSameOnEveryPath compares the two.
//
// Note: [Cache fields] Each struct the cache holds lists its fields once, in a Fields(archive, value)
// overload below; the Writer and the Reader both walk that list, so they cannot disagree on a field
// or its order. An archive is called with each field: a Writer writes it, a Reader reads into it.
// The bytes: integers, enums and bools as 8 bytes, doubles as their bits, strings and containers
// length-first, an optional or a pointer as a presence flag and then its value.

template <class T, class U>
using IfIs = std::enable_if_t<std::is_same_v<std::remove_const_t<T>, U>, int>;

template <class A, class T, IfIs<T, SourcePos> = 0>
void Fields(A& a, T& p) {
  a(p.line);
  a(p.column);
}
template <class A, class T, IfIs<T, Text> = 0>
void Fields(A& a, T& t) {
  a(t.value);
  a(t.pos);
}
template <class A, class T, IfIs<T, LuaRef> = 0>
void Fields(A& a, T& r) {
  a(r.name);
  a(r.line);
  a(r.column);
}
// A chunk's code is one of the rule's texts (RuleTextFields; Note: [Texts on demand]): only a Lua
// rule that is called runs it.
template <class A, class T, IfIs<T, LuaChunk> = 0>
void Fields(A& a, T& c) {
  a(c.file);
}
template <class A, class T, IfIs<T, Condition> = 0>
void Fields(A& a, T& c) {
  a(c.message);
  a(c.input);
  a(c.facts);
  a(c.frames);
  a(c.pos);
}
template <class A, class T, IfIs<T, HypothesisSpec> = 0>
void Fields(A& a, T& h) {
  a(h.id);
  a(h.text);
  a(h.test);
  a(h.probe);
  a(h.probe_args);
  a(h.fix);
  a(h.cpp_test);
  a(h.cpp_fix);
  a(h.when);
  a(h.when_if);
  a(h.first);
  a(h.category);
}
template <class A, class T, IfIs<T, Example> = 0>
void Fields(A& a, T& e) {
  a(e.kind);
  a(e.text);
  a(e.captures);
  a(e.why);
  a(e.pos);
  a(e.hypotheses);
  a(e.check_hypotheses);
}
template <class A, class T, IfIs<T, SignalSpec> = 0>
void Fields(A& a, T& s) {
  a(s.detector);
  a(s.series);
  a(s.params);
  a(s.evidence_for);
}
// A rule's fields in two runs (Note: [Texts on demand] in rule_cache.h): first every field matching
// and ranking read before a rule is a candidate, then its texts (its Lua chunks' code among them),
// which a load may leave in the entry.
template <class A, class T, IfIs<T, Rule> = 0>
void RuleMatchFields(A& a, T& r) {
  a(r.id);
  a(r.file);
  a(r.category);
  a(r.title);
  a(r.prior);
  a(r.patterns);
  a(r.pattern_programs);
  a(r.exceptions);
  a(r.context);
  a(r.frames_none);
  a(r.specificity);
  a(r.overrides);
  a(r.signal);
  a(r.origin);
  a(r.lua_file);
  a(r.lua_chunks);
  a(r.values_fn);
  a(r.score_fn);
  a(r.unless);
  a(r.needs);
  a(r.lua_tests);
}
template <class A, class T, IfIs<T, Rule> = 0>
void RuleTextFields(A& a, T& r) {
  a(r.explain);
  a(r.hypotheses);
  a(r.checks);
  a(r.checks_when);
  a(r.verify);
  a(r.verify_probe);
  a(r.cpp_checks);
  a(r.cpp_verify);
  a(r.refs);
  a.Examples(r.examples);  // in an entry, in its examples section (Note: [Examples apart])
  for (auto& chunk : r.lua_chunks) a(chunk.code);  // one per chunk RuleMatchFields listed
}
template <class A, class T, IfIs<T, Rule> = 0>
void Fields(A& a, T& r) {
  RuleMatchFields(a, r);
  RuleTextFields(a, r);
}
template <class A, class T, IfIs<T, DisabledRule> = 0>
void Fields(A& a, T& d) {
  a(d.id);
  a(d.file);
  a(d.by);
}
template <class A, class T, IfIs<T, Problem> = 0>
void Fields(A& a, T& p) {
  a(p.severity);
  a(p.code);
  a(p.file);
  a(p.line);
  a(p.column);
  a(p.rule_id);
  a(p.message);
}
template <class A, class T, IfIs<T, ParsedRules> = 0>
void Fields(A& a, T& p) {
  a(p.rules);
  a(p.disabled);
  a(p.problems);
  a(p.atoms);
  a(p.plan.keywords);
  a(p.plan.keyword_patterns);
  a(p.plan.layout.offsets);
  a(p.plan.layout.buckets);
  a(p.plan.layout.mix);
  a(p.plan.checks.foldable);  // Note: [Cached checks] in log/line_scanner.h
  a(p.plan.checks.packed);
  a(p.plan.checks.bytes);
  a(p.calibrated);
  a(p.calibration);
}

template <class A, class T, IfIs<T, RulePart> = 0>
void Fields(A& a, T& p) {
  a(p.key);
  a(p.ok);
  a(p.rule);
  a(p.problems);
  a(p.atoms);
}

// The largest valid value of each enum the cache holds; a Reader refuses larger ones.
constexpr int MaxValue(ExampleKind) { return static_cast<int>(ExampleKind::kKnownGap); }  // a rule file holds no kLuaTest
constexpr int MaxValue(SeriesId) { return kSeriesCount - 1; }
constexpr int MaxValue(Problem::Severity) {
  return std::max(static_cast<int>(Problem::Severity::kWarning), static_cast<int>(Problem::Severity::kError));
}

std::uint64_t Rotl(std::uint64_t v, int r) { return (v << r) | (v >> (64 - r)); }
std::uint32_t Rotl32(std::uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

constexpr std::uint32_t kLaneMul = 0x9E3779B1u, kWordMul = 0x85EBCA77u;
constexpr size_t kLanes = 32;         // 32-bit lanes, one per 4-byte word of a 128-byte stripe
constexpr size_t kStripe = 4 * kLanes;

// The lanes' start and the stripes' rounds (Note: [Cache checksums]): lane k takes the k-th 4-byte word
// (little-endian) of each 128-byte stripe.
void StartLanes(std::uint32_t lane[kLanes]) {
  for (size_t k = 0; k < kLanes; ++k) lane[k] = kLaneMul * static_cast<std::uint32_t>(2 * k + 1) + kWordMul;
}
void StripesPortable(const char* p, size_t stripes, std::uint32_t lane[kLanes]) {
  for (size_t s = 0; s < stripes; ++s, p += kStripe) {
    for (size_t k = 0; k < kLanes; ++k) {
      const auto* b = reinterpret_cast<const unsigned char*>(p + 4 * k);
      const std::uint32_t w = static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
                              static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
      lane[k] = Rotl32(lane[k] + w * kWordMul, 13) * kLaneMul;
    }
  }
}
#ifdef TRIAGE_AVX2
// The same rounds on the 32 lanes as four registers of eight, each its own chain of dependent
// multiplies, so that the four overlap (x86 is little-endian: a lane's word as StripesPortable reads it).
__attribute__((target("avx2"))) void StripesAvx2(const char* p, size_t stripes, std::uint32_t lane[kLanes]) {
  __m256i acc[4];
  for (int r = 0; r < 4; ++r) acc[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane + 8 * r));
  const __m256i word_mul = _mm256_set1_epi32(static_cast<int>(kWordMul));
  const __m256i lane_mul = _mm256_set1_epi32(static_cast<int>(kLaneMul));
  for (size_t s = 0; s < stripes; ++s, p += kStripe) {
    for (int r = 0; r < 4; ++r) {
      const __m256i w =
          _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * r)), word_mul);
      __m256i a = _mm256_add_epi32(acc[r], w);
      a = _mm256_or_si256(_mm256_slli_epi32(a, 13), _mm256_srli_epi32(a, 19));
      acc[r] = _mm256_mullo_epi32(a, lane_mul);
    }
  }
  for (int r = 0; r < 4; ++r) _mm256_storeu_si256(reinterpret_cast<__m256i*>(lane + 8 * r), acc[r]);
}
#endif

// The lanes, the length and the tail of fewer than 128 bytes into 64 bits.
std::uint64_t FinishChecksum(const std::uint32_t lane[kLanes], const char* tail, size_t n) {
  constexpr std::uint64_t kA = 0x9E3779B185EBCA87ull, kB = 0xC2B2AE3D27D4EB4Full, kC = 0x165667B19E3779F9ull;
  std::uint64_t h = static_cast<std::uint64_t>(n) * kC;
  for (size_t k = 0; k < kLanes; k += 2) {
    const std::uint64_t pair = static_cast<std::uint64_t>(lane[k]) | static_cast<std::uint64_t>(lane[k + 1]) << 32;
    h = Rotl(h ^ (Rotl(pair * kB, 31) * kA), 27) * kB + kC;
  }
  for (size_t i = 0; i < n % kStripe; ++i) h = Rotl(h ^ (static_cast<unsigned char>(tail[i]) * kC), 11) * kA;
  h ^= h >> 33;
  h *= kB;
  h ^= h >> 29;
  h *= kC;
  return h ^ (h >> 32);
}

}  // namespace

std::uint64_t CacheChecksum(std::string_view bytes, bool portable) {
  std::uint32_t lane[kLanes];
  StartLanes(lane);
  const size_t stripes = bytes.size() / kStripe;
#ifdef TRIAGE_AVX2
  if (!portable && CpuHasAvx2()) {
    StripesAvx2(bytes.data(), stripes, lane);
  } else {
    StripesPortable(bytes.data(), stripes, lane);
  }
#else
  (void)portable;
  StripesPortable(bytes.data(), stripes, lane);
#endif
  return FinishChecksum(lane, bytes.data() + stripes * kStripe, bytes.size());
}

namespace {

std::uint64_t Checksum(std::string_view bytes) { return CacheChecksum(bytes); }

class Writer {
 public:
  Writer() = default;
  // Starts the output with `prefix` (an entry's header), `reserve` bytes set aside.
  Writer(std::string_view prefix, size_t reserve) {
    out_.reserve(reserve);
    out_ += prefix;
  }
  void U64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  // Writes `v` over the 8 bytes at `at` (a size known only once what follows is written).
  void Patch(size_t at, std::uint64_t v) { std::memcpy(&out_[at], &v, sizeof v); }
  void Append(std::string_view bytes) { out_ += bytes; }
  // Rules' examples written from here on go to *examples instead (Note: [Examples apart]).
  void SplitExamples(Writer* examples) { examples_ = examples; }
  void Examples(const std::vector<Example>& v) {
    if (examples_ != nullptr) return (*examples_)(v);
    (*this)(v);
  }
  // Appends the checksum of what was written from byte `from` on (Note: [Cache checksums]).
  void Seal(size_t from) { U64(Checksum(std::string_view(out_).substr(from))); }
  size_t size() const { return out_.size(); }
  std::string Take() { return std::move(out_); }

  void operator()(const std::string& s) {
    U64(s.size());
    out_ += s;
  }
  void operator()(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    U64(bits);
  }
  void operator()(int v) { U64(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  void operator()(bool v) { U64(v); }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void operator()(E e) {
    (*this)(static_cast<int>(e));
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    U64(v.size());
    for (const T& x : v) (*this)(x);
  }
  template <class V>
  void operator()(const std::map<std::string, V>& m) {
    U64(m.size());
    for (const auto& [k, v] : m) {
      (*this)(k);
      (*this)(v);
    }
  }
  template <class T>
  void operator()(const std::optional<T>& o) {
    (*this)(o.has_value());
    if (o) (*this)(*o);
  }
  template <class T>
  void operator()(const std::shared_ptr<const T>& p) {
    (*this)(p != nullptr);
    if (p) (*this)(*p);
  }
  template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
  void operator()(const T& x) {
    Fields(*this, x);
  }

 private:
  std::string out_;
  Writer* examples_ = nullptr;  // Note: [Examples apart]
};

// Reads what Writer wrote. Any inconsistency (a short file, a length beyond the end, an enum out of
// range) marks the reader failed; the values read after that are empty.
class Reader {
 public:
  explicit Reader(std::string_view in, bool examples = true) : in_(in), examples_(examples) {}
  // Rules read from here on leave their texts in the input (Note: [Texts on demand]): each one's span
  // goes to *spans.
  void DeferTexts(std::vector<DeferredTexts::Span>* spans) { spans_ = spans; }
  // Note: [Examples apart]: the rules' examples are not in this input but in an entry's examples
  // section, read by *examples (nullptr: left there, not read), each rule's in turn.
  void SplitExamples(Reader* examples) {
    split_ = true;
    section_ = examples;
  }
  bool ok() const { return ok_; }
  bool AtEnd() const { return pos_ == in_.size(); }
  // Reads a checksum and checks it against the bytes before it; true when it is the last thing in
  // the input and they agree (Note: [Cache checksums]).
  bool SealedEnd() {
    const size_t end = pos_;
    const std::uint64_t sum = U64();
    return ok_ && AtEnd() && sum == Checksum(in_.substr(0, end));
  }
  // The reads every field makes are forced inline: called from each Fields instantiation, they
  // were left out of line, and calls and string_view::substr's checks took ~1.5 M of a warm start.
  [[gnu::always_inline]] std::uint64_t U64() {
    std::uint64_t v = 0;
    if (sizeof v > in_.size() - pos_) return Fail();
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  [[gnu::always_inline]] void operator()(std::string& s) {
    const std::string_view v = View();
    if (!skipping_) s = std::string(v);
  }
  // A string as operator() reads it, left in place (empty once the reader failed).
  [[gnu::always_inline]] std::string_view View() {
    const size_t n = Count();  // 0 with pos_ at the end when it failed
    const char* const p = in_.data() + pos_;
    pos_ += n;
    return {p, n};
  }
  // The rest of the input from here, `n` bytes of it consumed.
  std::string_view Take(std::uint64_t n) {
    if (n > in_.size() - pos_) return Fail(), std::string_view();
    std::string_view s = in_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  void operator()(double& v) {
    std::uint64_t bits = U64();
    std::memcpy(&v, &bits, sizeof v);
  }
  void operator()(int& v) { v = static_cast<int>(static_cast<std::int64_t>(U64())); }
  void operator()(bool& v) { v = U64() != 0; }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void operator()(E& e) {
    int v = 0;
    (*this)(v);
    if (v < 0 || v > MaxValue(E{})) {
      Fail();
      v = 0;
    }
    e = static_cast<E>(v);
  }
  // Elements are added as they are read: a corrupt count (bounded by the bytes left, but a Rule takes
  // ~750 bytes in memory for each byte a count may claim) stops at the first element that is not
  // there, instead of allocating hundreds of times the file's size first. Room for all of them is
  // made at once only when it is no larger than the bytes left (so never more than the file's size):
  // growing the rules' vector by doubling moved ~450 Rules and touched ~700 KB of fresh pages.
  template <class T>
  void operator()(std::vector<T>& v) {
    const size_t n = Count();
    if (skipping_) {  // read over: every element into one scratch value, `v` left as it is
      T scratch;
      for (size_t i = 0; i < n && ok_; ++i) (*this)(scratch);
      return;
    }
    v.clear();
    v.reserve(ok_ && n <= (in_.size() - pos_) / sizeof(T) ? n : std::min<size_t>(n, 64));
    for (size_t i = 0; i < n && ok_; ++i) (*this)(v.emplace_back());
  }
  // Note: [Examples left out]
  // A rule's examples are a third of the rule files' text, and only the tools read them (RunRuleExamples,
  // ExplainRule): a warm `triage` start copied ~0.5 MB of them into strings it never read. A reader
  // asked to leave them out reads over them, every count, enum and length checked as when they are kept
  // (the entry's checksum too: a damaged entry is as much a miss), into one scratch example whose
  // strings stay empty, and leaves each rule's list empty. (That is how a part's examples, which are
  // inline, are left out; an entry's are in a section of their own, not read at all: Note: [Examples apart].)
  void operator()(std::vector<Example>& v) {
    if (examples_) return operator()<Example>(v);
    const size_t n = Count();
    v.clear();
    Example scratch;
    ++skipping_;
    for (size_t i = 0; i < n && ok_; ++i) (*this)(scratch);
    --skipping_;
  }
  template <class V>
  void operator()(std::map<std::string, V>& m) {
    if (skipping_) {  // read over, `m` left as it is
      std::string k;
      V v;
      for (size_t n = Count(); ok_ && n > 0; --n) {
        (*this)(k);
        (*this)(v);
      }
      return;
    }
    m.clear();
    for (size_t n = Count(); ok_ && n > 0; --n) {
      std::string k;
      (*this)(k);
      (*this)(m[k]);
    }
  }
  template <class T>
  void operator()(std::optional<T>& o) {
    bool has = false;
    (*this)(has);
    o.reset();
    if (has) (*this)(o.emplace());
  }
  template <class T>
  void operator()(std::shared_ptr<const T>& p) {
    bool has = false;
    (*this)(has);
    p.reset();
    if (!has) return;
    auto value = std::make_shared<T>();
    (*this)(*value);
    p = std::move(value);
  }
  template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
  void operator()(T& x) {
    Fields(*this, x);
  }
  // A rule's examples, where they are (Note: [Examples apart]).
  void Examples(std::vector<Example>& v) {
    if (!split_) return (*this)(v);
    if (section_ == nullptr) return v.clear();  // left in the examples section
    section_->skipping_ = skipping_;
    examples_begin_ = section_->pos_;
    (*section_)(v);
    examples_end_ = section_->pos_;
    if (!section_->ok_) Fail();
  }
  // Note: [Texts on demand]: with spans asked for, a rule's texts are read over (checked, not kept).
  void operator()(Rule& r) {
    RuleMatchFields(*this, r);
    if (spans_ == nullptr) return RuleTextFields(*this, r);
    const size_t begin = pos_;
    examples_begin_ = examples_end_ = 0;
    ++skipping_;
    RuleTextFields(*this, r);
    --skipping_;
    spans_->push_back({begin, pos_, examples_begin_, examples_end_});
  }

 private:
  // A count of items that each take at least one byte: bounded by what is left, so a corrupt length
  // can never make us allocate more than the file holds.
  [[gnu::always_inline]] size_t Count() {
    std::uint64_t n = U64();
    if (n > in_.size() - pos_) return Fail();
    return static_cast<size_t>(n);
  }
  [[gnu::cold, gnu::noinline]] std::uint64_t Fail() {
    ok_ = false;
    pos_ = in_.size();
    return 0;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
  bool examples_ = true;  // false: examples read over (Note: [Examples left out])
  int skipping_ = 0;      // inside what is read over: strings, vectors and maps are not kept
  std::vector<DeferredTexts::Span>* spans_ = nullptr;  // Note: [Texts on demand]
  bool split_ = false;          // the examples are in an examples section (Note: [Examples apart])
  Reader* section_ = nullptr;   // its reader; nullptr: not read
  size_t examples_begin_ = 0, examples_end_ = 0;  // the last rule's examples in the section
};

}  // namespace

void CacheKey::Add(std::string_view bytes) {
  Add(static_cast<std::uint64_t>(bytes.size()));
  sha_.Add(bytes);
}

void CacheKey::Add(std::uint64_t value) {
  char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  sha_.Add(std::string_view(le, sizeof le));
}

std::string CacheKey::Hex() const {
  Sha256 copy = sha_;  // HexDigest ends a digest: finish a copy, so more may still be added
  return copy.HexDigest();
}

std::string DefaultRuleCacheDir() {
  if (const char* off = std::getenv("TRIAGE_NO_CACHE"); off && *off) return "";
  if (const char* dir = std::getenv("TRIAGE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/triage";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/triage";
  return "";
}

std::string ShippedRuleCacheDir() {
  const std::string bundled = BundledRulesDir();
  if (bundled.empty()) return "";
  fs::path dir(bundled);
  if (!dir.has_filename()) dir = dir.parent_path();  // a trailing '/'
  return (dir.parent_path() / "rule-cache").string();
}

// Note: [Examples apart]
// A rule's examples are a third of an entry (~1.3 MB of the bundled rules' ~4 MB) and only the tools
// read them (Note: [Examples left out]); a warm `triage` start still read them into memory (Note:
// [Entry on huge pages]), checksummed them and read over them, every count and enum checked. So an
// entry (format 15) is two sections, each with its checksum: first everything but the examples,
// then the rules' examples, each rule's list in rule order. The payload starts kMagic, kFormat, the
// first section's size (its checksum included) and the examples section's; a load that leaves the
// examples out reads (from the file: ReadRuleCache) the first section alone, checks that the sizes
// add up to the payload's (a truncated entry is a miss as before) and never reads the examples
// section, whose bytes it does not use; a load that keeps them reads both and checks both sections'
// checksums and structure, so a damaged example is a miss for every load that reads examples. The
// parts file and the image's parts keep a rule's examples inline (RulePart: the section is an entry's).
namespace {

// `prefix`, then the serialised payload; `reserve`: the bytes to set aside (the size of the last entry
// written, so that the output is not copied as it grows).
std::string SerializeParsedRulesAfter(std::string_view prefix, const ParsedRules& p, size_t reserve) {
  Writer w(prefix, reserve);
  Writer examples(std::string_view(), reserve / 2);
  w.U64(kMagic);
  w.U64(kFormat);
  const size_t sizes = w.size();
  w.U64(0);  // the first section's size, its checksum included
  w.U64(0);  // the examples section's
  w.SplitExamples(&examples);
  w(p);
  w.U64(kMagic);  // trailer: a truncated file fails here
  examples.Seal(0);
  w.Patch(sizes, w.size() + sizeof(std::uint64_t) - prefix.size());
  w.Patch(sizes + sizeof(std::uint64_t), examples.size());
  w.Seal(prefix.size());
  w.Append(examples.Take());
  return w.Take();
}

// The payload's two sections' sizes (Note: [Examples apart]) from its first bytes; false when they
// do not read or do not add up to `whole`, the payload's size.
bool PayloadSections(std::string_view head, size_t whole, size_t* first, size_t* examples) {
  Reader in(head);
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  const std::uint64_t a = in.U64(), b = in.U64();
  if (!in.ok() || a > whole || b != whole - a || a < 4 * sizeof(std::uint64_t)) return false;
  *first = static_cast<size_t>(a);
  *examples = static_cast<size_t>(b);
  return true;
}

// Parses a payload of `whole` bytes of which `bytes` holds the first section at least (all of it when
// `examples`): Note: [Examples apart].
bool ParsePayload(std::string_view bytes, size_t whole, ParsedRules* out, bool examples, std::shared_ptr<const void> keep) {
  size_t first = 0, rest = 0;
  if (!PayloadSections(bytes, whole, &first, &rest) || first > bytes.size()) return false;
  if (examples && bytes.size() != whole) return false;
  Reader in(bytes.substr(0, first), examples);
  Reader section(examples ? bytes.substr(first, rest) : std::string_view());
  in.SplitExamples(examples ? &section : nullptr);
  for (int i = 0; i < 4; ++i) in.U64();  // read by PayloadSections
  ParsedRules p;
  std::shared_ptr<DeferredTexts> deferred;
  if (keep) {  // Note: [Texts on demand]
    deferred = std::make_shared<DeferredTexts>();
    deferred->keep = std::move(keep);
    deferred->payload = bytes.substr(0, first);
    if (examples) deferred->examples_section = bytes.substr(first, rest);
    deferred->examples = examples;
    deferred->split = true;
    in.DeferTexts(&deferred->spans);
  }
  in(p);
  if (in.U64() != kMagic || !in.ok() || !in.SealedEnd()) return false;
  if (examples && !section.SealedEnd()) return false;
  CalibrationMap map;
  if (p.calibrated && !CalibrationMap::FromFlat(p.calibration, &map)) return false;
  if (deferred && deferred->spans.size() != p.rules.size()) return false;
  p.deferred = std::move(deferred);
  *out = std::move(p);
  return true;
}

}  // namespace

std::string SerializeParsedRules(const ParsedRules& p) { return SerializeParsedRulesAfter("", p, 0); }

bool ParseParsedRules(std::string_view bytes, ParsedRules* out, bool examples, std::shared_ptr<const void> keep) {
  return ParsePayload(bytes, bytes.size(), out, examples, std::move(keep));
}

bool ReadDeferredTexts(const DeferredTexts& texts, size_t rule, Rule* into) {
  if (rule >= texts.spans.size()) return false;
  const DeferredTexts::Span& span = texts.spans[rule];
  if (span.begin > span.end || span.end > texts.payload.size()) return false;
  Reader in(texts.payload.substr(span.begin, span.end - span.begin), texts.examples);
  const bool section = texts.split && texts.examples;
  if (section && (span.examples_begin > span.examples_end || span.examples_end > texts.examples_section.size())) {
    return false;
  }
  Reader examples(section ? texts.examples_section.substr(span.examples_begin, span.examples_end - span.examples_begin)
                          : std::string_view());
  if (texts.split) in.SplitExamples(section ? &examples : nullptr);
  RuleTextFields(in, *into);
  return in.ok() && in.AtEnd() && examples.ok() && examples.AtEnd();
}

// Note: [Parts file layout] The parts file is read on every load that misses the whole-set entry,
// and it may hold up to kMaxRuleParts parts of several rule sets: a load parses only the index (each
// part's key and length) and then only the parts whose key it asks for, and rewriting the file after
// an edit copies the unchanged parts' bytes instead of parsing and serialising them again. The bytes:
// kMagic, kFormat, the count, then each part's key (a string) and length, then the parts' bytes in
// that order (each a RulePart as Fields lists it, its key again, then its checksum: Note: [Cache
// checksums]), then kMagic. A part whose bytes do not parse, do not hold the key the index gives or
// fail their checksum is a miss for its file alone (read afresh, the damaged part dropped); an unused
// part is copied without being parsed, only its checksum checked, so a damaged one is dropped then.
std::string SerializeRulePart(const RulePart& part) {
  Writer w;
  w(part);
  w.Seal(0);
  return w.Take();
}

bool ParseRulePart(const StoredPart& stored, RulePart* part) {
  Reader in(stored.bytes);
  RulePart p;
  in(p);
  if (!in.ok() || !in.SealedEnd() || p.key != stored.key) return false;
  *part = std::move(p);
  return true;
}

namespace {

// The index and trailer of a parts file (Note: [Parts file layout]): what goes before and after the
// parts' bytes.
std::string PartsHeader(const std::vector<StoredPart>& parts) {
  Writer w;
  w.U64(kMagic);
  w.U64(kFormat);
  w.U64(parts.size());
  for (const StoredPart& p : parts) {
    w(std::string(p.key));
    w.U64(p.bytes.size());
  }
  return w.Take();
}

std::string PartsTrailer() {
  Writer w;
  w.U64(kMagic);
  return w.Take();
}

}  // namespace

bool IndexRuleParts(std::string_view bytes, std::vector<StoredPart>* out) {
  Reader in(bytes);
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  const std::uint64_t n = in.U64();
  // Each part takes at least 16 bytes of the index: a corrupt count cannot make us allocate much.
  if (!in.ok() || n > bytes.size() / 16) return false;
  std::vector<StoredPart> parts(static_cast<size_t>(n));
  std::vector<std::uint64_t> sizes(parts.size());
  for (size_t i = 0; i < parts.size() && in.ok(); ++i) {
    parts[i].key = in.View();
    sizes[i] = in.U64();
  }
  for (size_t i = 0; i < parts.size() && in.ok(); ++i) parts[i].bytes = in.Take(sizes[i]);
  if (in.U64() != kMagic || !in.ok() || !in.AtEnd()) return false;
  *out = std::move(parts);
  return true;
}

std::string SerializeRuleParts(const std::vector<RulePart>& parts) {
  std::vector<std::string> bytes;
  std::vector<StoredPart> stored;
  for (const RulePart& p : parts) bytes.push_back(SerializeRulePart(p));
  for (size_t i = 0; i < parts.size(); ++i) stored.push_back({parts[i].key, bytes[i]});
  std::string out = PartsHeader(stored);
  for (const std::string& b : bytes) out += b;
  return out + PartsTrailer();
}

bool ParseRuleParts(std::string_view bytes, std::vector<RulePart>* out) {
  std::vector<StoredPart> stored;
  if (!IndexRuleParts(bytes, &stored)) return false;
  std::vector<RulePart> parts(stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    if (!ParseRulePart(stored[i], &parts[i])) return false;
  }
  *out = std::move(parts);
  return true;
}

// The image's bytes (Note: [Bundled rule image] in rule_cache.h): kImageMagic, then kMagic, kFormat,
// the key, the root, the entry's length and the parts' length, then the entry (a payload as
// SerializeParsedRules writes it, checksum included), the parts (as SerializeRuleParts writes them:
// index, parts each with its checksum, trailer), and kMagic. The entry and each part are checked as
// a cache entry's are when they are used.
constexpr char kImageMagic[] = "triage-rule-image 1\n";

std::string SerializeBundledImage(std::string_view key, std::string_view root, std::string_view entry,
                                  const std::vector<StoredPart>& parts) {
  std::string blob = PartsHeader(parts);
  for (const StoredPart& p : parts) blob.append(p.bytes);
  blob += PartsTrailer();
  Writer w(kImageMagic, entry.size() + blob.size() + 256);
  w.U64(kMagic);
  w.U64(kFormat);
  w(std::string(key));
  w(std::string(root));
  w.U64(entry.size());
  w.U64(blob.size());
  std::string out = w.Take();
  out.append(entry);
  out += blob;
  Writer end;
  end.U64(kMagic);
  return out + end.Take();
}

bool IndexBundledImage(std::string_view bytes, BundledImage* image) {
  const std::string_view magic(kImageMagic);
  if (bytes.compare(0, magic.size(), magic) != 0) return false;
  Reader in(bytes.substr(magic.size()));
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  BundledImage out;
  out.key = in.View();
  out.root = in.View();
  const std::uint64_t entry_size = in.U64(), parts_size = in.U64();
  if (!in.ok()) return false;
  out.entry = in.Take(entry_size);
  const std::string_view blob = in.Take(parts_size);
  if (in.U64() != kMagic || !in.ok() || !in.AtEnd() || out.root.empty()) return false;
  if (!IndexRuleParts(blob, &out.parts)) return false;
  *image = std::move(out);
  return true;
}

namespace {

// The parts file on disk: kPartsMagic, then the serialised parts.
constexpr char kPartsMagic[] = "triage-rule-parts 2\n";

// An entry on disk: kEntryMagic, the key it was built for, then the serialised payload.
constexpr char kEntryMagic[] = "triage-rule-cache 2\n";

std::string EntryPath(const std::string& dir, const std::string& key) { return dir + "/rules-" + key + ".bin"; }

bool OwnedRight(const struct stat& st, CacheOwner owner) {
  return st.st_uid == ::geteuid() || (owner == CacheOwner::kUserOrRoot && st.st_uid == 0);
}

// True when `dir` is a directory owned by this user (or root, for `owner` kUserOrRoot) that no one
// else may write (Note: [Cache hardening]); with `create`, makes it (mode 0700; missing parents with
// the umask's mode) first.
bool SafeCacheDir(const std::string& dir, bool create, CacheOwner owner = CacheOwner::kUser) {
  if (create) {
    std::error_code ec;
    fs::path parent = fs::path(dir).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return false;
  return S_ISDIR(st.st_mode) && OwnedRight(st, owner) && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Opens a regular file owned by this user (or root, for kUserOrRoot, which also refuses a file others
// may write), not through a symlink, of at most kMaxEntryBytes: its descriptor (the caller closes it)
// and size, or -1.
int OpenOwnRegularFile(const std::string& path, CacheOwner owner, size_t* size) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (fstat then refuses it).
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && OwnedRight(st, owner) &&
            (owner == CacheOwner::kUser || (st.st_mode & (S_IWGRP | S_IWOTH)) == 0) &&
            static_cast<std::uint64_t>(st.st_size) <= kMaxEntryBytes;
  if (!ok) {
    ::close(fd);
    return -1;
  }
  *size = static_cast<size_t>(st.st_size);
  return fd;
}

// Reads such a file (OpenOwnRegularFile) whole.
bool ReadOwnRegularFile(const std::string& path, std::string* bytes, CacheOwner owner = CacheOwner::kUser) {
  size_t size = 0;
  int fd = OpenOwnRegularFile(path, owner, &size);
  if (fd < 0) return false;
  bytes->assign(size, '\0');
  size_t got = 0;
  while (got < bytes->size()) {
    ssize_t n = ::read(fd, &(*bytes)[got], bytes->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  return got == bytes->size();
}

// Note: [Mapped cache entry]
// A warm start reads the whole-set entry (~1.9 MB for the bundled rules). Read into a string, that
// was ~460 pages zeroed by the string and then copied into by read(2): ~2 M instructions and as many
// page faults as pages, a quarter of a warm start's faults. The entry is mapped instead (read-only,
// private): its pages are the page cache's, mapped a batch per fault, or all at once for an entry,
// which is read whole (its checksum): ~40 faults fewer (since Note: [Entry on huge pages], an entry is
// read into huge pages where the kernel offers them, and mapped elsewhere). Cache files are only ever
// replaced whole (written under a temporary name, then renamed: WriteAndRename), never rewritten in
// place, so a mapping always sees one complete file, as a read would. A load that misses the entry
// maps the parts file (~1.9 MB) too, for the same reasons: the parts it uses are parsed from the
// mapping and the others written on from it.

// Writes `pieces`, one after another, to a fresh file in `dir` (mkstemp: mode 0600, O_EXCL) and renames
// it to `path`.
bool WriteAndRename(const std::string& dir, const std::string& path, const std::vector<std::string_view>& pieces) {
  std::string tmp = dir + "/.rules-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return false;
  bool put = true;
  for (size_t first = 0; put && first < pieces.size();) {
    // As many pieces as one writev takes; a short write goes on from where it stopped.
    std::vector<iovec> iov;
    for (size_t i = first; i < pieces.size() && iov.size() < IOV_MAX; ++i) {
      iov.push_back({const_cast<char*>(pieces[i].data()), pieces[i].size()});
    }
    first += iov.size();
    for (size_t at = 0; at < iov.size();) {
      ssize_t n = ::writev(fd, iov.data() + at, static_cast<int>(iov.size() - at));
      if (n < 0 && errno == EINTR) continue;
      const size_t before = at;
      size_t done = n < 0 ? 0 : static_cast<size_t>(n);
      while (at < iov.size() && done >= iov[at].iov_len) {
        done -= iov[at].iov_len;
        ++at;
      }
      if (done > 0) {  // within iov[at]
        iov[at].iov_base = static_cast<char*>(iov[at].iov_base) + done;
        iov[at].iov_len -= done;
      }
      if (n < 0 || (n == 0 && at == before)) {
        put = false;
        break;
      }
    }
  }
  bool ok = ::close(fd) == 0 && put && ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

bool WriteAndRename(const std::string& dir, const std::string& path, std::string_view bytes) {
  return WriteAndRename(dir, path, std::vector<std::string_view>{bytes});
}

}  // namespace

bool ReadRuleCache(const std::string& dir, const std::string& key, ParsedRules* parsed, CacheOwner owner,
                   bool examples, bool texts_on_demand) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/false, owner)) return false;
  auto file = std::make_shared<MappedCacheFile>();  // Note: [Mapped cache entry]
  const std::string header = std::string(kEntryMagic) + key + "\n";
  // Without examples, only the entry's first section is read (Note: [Examples apart]): its size is
  // the payload's third number.
  if (!(examples ? file->Map(EntryPath(dir, key), owner, /*whole=*/true)
                 : file->MapPrefix(EntryPath(dir, key), owner, header.size() + 2 * sizeof(std::uint64_t), header.size()))) {
    return false;
  }
  const std::string_view bytes = file->view();
  // The entry must say it was built for this very key: one built from other sources is a miss.
  if (bytes.size() < header.size() || bytes.compare(0, header.size(), header) != 0) return false;
  // Parsed in place; with texts on demand the mapping stays open with the rules (Note: [Texts on demand]).
  const size_t whole = file->file_size() - header.size();
  return ParsePayload(bytes.substr(header.size()), whole, parsed, examples,
                      texts_on_demand ? std::shared_ptr<const void>(std::move(file)) : nullptr);
}

MappedCacheFile::~MappedCacheFile() {
  if (data_ != nullptr && windows_ == nullptr) ::munmap(data_, mapped_);
}

namespace {

// Note: [Entry on huge pages]
// A warm start reads the whole-set entry whole (~4 MB for the bundled rules: its checksum, then the
// rules): mapped from the page cache, that is ~990 pages, and on the VMs of tests/bench/README.md (a
// paravirtual MMU) each page's first touch costs ~2.5 us whether MAP_POPULATE mapped it or a fault
// did: ~2.5 ms of a ~11 ms start. Read with read(2) into anonymous memory on transparent huge pages,
// the same bytes cost ~1.4 ms (two or three faults, each zeroing a 2 MiB page, and the kernel's copy).
// So where /sys/kernel/mm/transparent_hugepage/enabled offers huge pages (`always`, or `madvise`, as
// MADV_HUGEPAGE asks), a whole read takes a private anonymous mapping of whole 2 MiB windows, aligned
// (or the rest of the last read's: Note: [Shared huge windows]), and reads the file into it; elsewhere (THP `never`, no such file, a read that
// fails or comes short) the file is mapped as before, since 4 KiB anonymous pages would each fault
// (~1,000 faults: slower than the mapping). Where the kernel has no huge page at hand when the
// windows are first written, they fault 4 KiB at a time (the risk Note: [Heap on huge pages] takes
// too). The bytes are the file's either way: cache files are only ever replaced whole (written under
// a temporary name, then renamed), so a read sees one complete file, as a mapping does.
constexpr size_t kHugePage = size_t{2} << 20;

bool HugePagesOffered() {
#ifdef MADV_HUGEPAGE
  static const bool offered = [] {
    int fd = ::open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[128];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    const std::string_view v(buf, static_cast<size_t>(n));
    return v.find("[always]") != std::string_view::npos || v.find("[madvise]") != std::string_view::npos;
  }();
  return offered;
#else
  return false;
#endif
}

// Note: [Shared huge windows]
// Each whole read took windows of its own: the entry's 3.27 MB two (4 MiB), the similar-case index's
// image (Note: [Similar index image] in diagnose/similar_case.cc, 468 KB) a third, and the kernel
// zeroes each 2 MiB page at its first write, ~14% of a warm start's CPU samples for the six huge pages
// a no-rule start touched (three of them the heap's; tests/bench/README.md, thirtieth pass). So the
// windows a read maps are shared: what is left of them after the read (the entry's last ~0.7 MiB)
// serves the next read that fits, which holds them as long as the first does (a reference count:
// the windows are unmapped when the last file reading them goes). The similar image thus lies in the
// entry's second window, zeroed already: one huge page fewer, and no mmap, munmap and madvise of its
// own. The windows stay writable (they were made read-only after each read: mprotect's TLB flush
// cost ~0.1-0.25 ms here, and a read into the rest of a window needs it writable): the views handed
// out are const, and a stray write could only change this process's copy, never the file. A host that
// keeps the similar index (one per cache directory, for the process's life) keeps the windows it
// lies in, at most one entry's (4 MiB for the bundled rules).
struct HugeWindows {
  char* base = nullptr;
  size_t len = 0;
  HugeWindows(char* b, size_t l) : base(b), len(l) {}
  HugeWindows(const HugeWindows&) = delete;
  HugeWindows& operator=(const HugeWindows&) = delete;
  ~HugeWindows() { ::munmap(base, len); }
};

std::mutex windows_mu;
std::weak_ptr<HugeWindows> last_windows;  // the windows of the last read, while a file reads them
size_t last_windows_used = 0;             // bytes of them taken, a multiple of 64

// Reads `size` bytes of `fd` into whole huge-page windows (the rest of the last read's when they fit,
// else new ones); MAP_FAILED when it cannot. `file_size`: the file's size, of which `size` may be the
// first bytes only. *windows: the windows read into, which own the mapping.
void* ReadIntoHugePages(int fd, size_t size, size_t file_size, std::shared_ptr<void>* windows) {
#ifdef MADV_HUGEPAGE
  if (size == 0 || size > kMaxEntryBytes || !HugePagesOffered()) return MAP_FAILED;
  std::shared_ptr<HugeWindows> w;
  char* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(windows_mu);
    w = last_windows.lock();
    if (w != nullptr && w->len - last_windows_used >= size) {
      p = w->base + last_windows_used;
      last_windows_used += (size + 63) & ~size_t{63};  // taken even when the read fails below
    } else {
      w = nullptr;
    }
  }
  if (w == nullptr) {
    const size_t len = (size + kHugePage - 1) & ~(kHugePage - 1);
    void* const raw = ::mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return MAP_FAILED;
    // Keep the aligned `len` bytes, give back the rest (before and after).
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    const std::uintptr_t end = start + len + kHugePage;
    if (end > aligned + len) ::munmap(reinterpret_cast<void*>(aligned + len), end - (aligned + len));
    p = reinterpret_cast<char*>(aligned);
    ::madvise(p, len, MADV_HUGEPAGE);
    w = std::make_shared<HugeWindows>(p, len);
    std::lock_guard<std::mutex> lock(windows_mu);
    last_windows = w;
    last_windows_used = (size + 63) & ~size_t{63};
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, p + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  char extra = 0;  // the file must end where fstat said: one more byte means it is not the file measured
  if (got != size || (size == file_size && ::read(fd, &extra, 1) != 0)) return MAP_FAILED;  // `w` unmaps unshared windows
  *windows = std::move(w);
  return p;
#else
  (void)fd;
  (void)size;
  (void)file_size;
  (void)windows;
  return MAP_FAILED;
#endif
}

}  // namespace

bool MappedCacheFile::Map(const std::string& path, CacheOwner owner, bool whole) {
  return MapFirst(path, owner, whole, SIZE_MAX, 0);
}

bool MappedCacheFile::MapPrefix(const std::string& path, CacheOwner owner, size_t at, size_t base) {
  return MapFirst(path, owner, true, at, base);
}

bool MappedCacheFile::MapFirst(const std::string& path, CacheOwner owner, bool whole, size_t at, size_t base) {
  if (data_ != nullptr) return false;
  size_t file_size = 0;
  int fd = OpenOwnRegularFile(path, owner, &file_size);
  if (fd < 0) return false;
  size_t size = file_size;
  std::uint64_t first = 0;  // Note: [Examples apart]: the first section's length, where the file says it
  if (at != SIZE_MAX && at <= file_size && file_size - at >= sizeof first &&
      ::pread(fd, &first, sizeof first, static_cast<off_t>(at)) == static_cast<ssize_t>(sizeof first) &&
      first <= file_size - base && base + first > at) {
    size = static_cast<size_t>(base + first);
  }
  size_t mapped = size;
  std::shared_ptr<void> windows;
  void* p = whole ? ReadIntoHugePages(fd, size, file_size, &windows) : MAP_FAILED;  // Note: [Entry on huge pages]
  if (p == MAP_FAILED) {
    mapped = size;
    // A short read above left the offset moved: mmap takes its own offset, so that does not matter.
    p = size == 0 ? MAP_FAILED : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (whole ? MAP_POPULATE : 0), fd, 0);
  }
  ::close(fd);
  if (p == MAP_FAILED) return false;
  data_ = p;
  size_ = size;
  mapped_ = mapped;
  file_size_ = file_size;
  windows_ = std::move(windows);
  return true;
}

bool ReadRuleParts(const std::string& dir, MappedCacheFile* file, std::vector<StoredPart>* parts, CacheOwner owner) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/false, owner)) return false;
  if (!file->Map(dir + "/" + kRulePartsFile, owner)) return false;  // Note: [Mapped cache entry]
  const std::string_view magic(kPartsMagic);
  const std::string_view bytes = file->view();
  if (bytes.compare(0, magic.size(), magic) != 0) return false;
  return IndexRuleParts(bytes.substr(magic.size()), parts);
}

void WriteRuleParts(const std::string& dir, const std::vector<StoredPart>& parts) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/true)) return;
  // A part whose checksum fails (Note: [Cache checksums]) is not copied on.
  std::vector<StoredPart> kept;
  for (const StoredPart& p : parts) {
    if (kept.size() == kMaxRuleParts) break;
    std::uint64_t sum = 0;
    if (p.bytes.size() < sizeof sum) continue;
    std::memcpy(&sum, p.bytes.data() + p.bytes.size() - sizeof sum, sizeof sum);
    if (sum == Checksum(p.bytes.substr(0, p.bytes.size() - sizeof sum))) kept.push_back(p);
  }
  const std::string header = kPartsMagic + PartsHeader(kept);
  const std::string trailer = PartsTrailer();
  std::vector<std::string_view> pieces = {header};
  for (const StoredPart& p : kept) pieces.push_back(p.bytes);
  pieces.push_back(trailer);
  WriteAndRename(dir, dir + "/" + kRulePartsFile, pieces);
}

namespace {

// Keeps the newest `keep` files of `dir` named PREFIX...EXTENSION: each edit of a rule file makes a
// new key. Only regular files named so are removed (a symlink's target never is).
void KeepNewest(const std::string& dir, const std::string& prefix, const std::string& extension, int keep) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && it->path().extension() == extension && it->is_regular_file(ec) &&
        !it->is_symlink(ec)) {
      entries.emplace_back(fs::last_write_time(it->path(), ec), it->path());
    }
  }
  if (static_cast<int>(entries.size()) <= keep) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = static_cast<size_t>(keep); i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

// A stamp index on disk: kStampMagic, its stamp key, then the content key, each on a line, then the
// stamp records it was written for (Note: [Stamp records compared] in rule_loader.cc), to the end.
constexpr char kStampMagic[] = "triage-rule-stamps 2\n";
constexpr int kKeepStampIndexes = 32;

std::string StampPath(const std::string& dir, const std::string& stamp_key) {
  return dir + "/stamps-" + stamp_key + ".key";
}

bool IsHexKey(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

bool ReadStampIndex(const std::string& dir, const std::string& stamp_key, std::string_view records,
                    std::string* content_key, CacheOwner owner) {
  if (dir.empty() || !IsHexKey(stamp_key) || !SafeCacheDir(dir, /*create=*/false, owner)) return false;
  std::string bytes;
  if (!ReadOwnRegularFile(StampPath(dir, stamp_key), &bytes, owner)) return false;
  const std::string header = std::string(kStampMagic) + stamp_key + "\n";
  if (bytes.size() != header.size() + 65 + records.size() || bytes.compare(0, header.size(), header) != 0 ||
      bytes[header.size() + 64] != '\n' || bytes.compare(header.size() + 65, records.size(), records) != 0) {
    return false;
  }
  const std::string_view key = std::string_view(bytes).substr(header.size(), 64);
  if (!IsHexKey(key)) return false;
  *content_key = std::string(key);
  return true;
}

void WriteStampIndex(const std::string& dir, const std::string& stamp_key, std::string_view records,
                     const std::string& content_key) {
  if (dir.empty() || !IsHexKey(stamp_key) || !IsHexKey(content_key) || !SafeCacheDir(dir, /*create=*/true)) return;
  const std::string head = std::string(kStampMagic) + stamp_key + "\n" + content_key + "\n";
  if (!WriteAndRename(dir, StampPath(dir, stamp_key), {head, records})) return;
  KeepNewest(dir, "stamps-", ".key", kKeepStampIndexes);
}

namespace {

// The pattern-set record on disk (Note: [Compiled pattern sets]): kSetsMagic, then a key a line,
// the newest first.
constexpr char kSetsMagic[] = "triage-pattern-sets 1\n";

// The keys of `dir`'s record; empty when there is none or it is malformed or not safe to read.
std::vector<std::string> ReadPatternSets(const std::string& dir) {
  std::string bytes;
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/false) ||
      !ReadOwnRegularFile(dir + "/" + kPatternSetsFile, &bytes)) {
    return {};
  }
  const std::string_view magic(kSetsMagic);
  if (bytes.compare(0, magic.size(), magic) != 0 || (bytes.size() - magic.size()) % 65 != 0) return {};
  std::vector<std::string> keys;
  for (size_t at = magic.size(); at < bytes.size(); at += 65) {
    const std::string_view key = std::string_view(bytes).substr(at, 64);
    if (!IsHexKey(key) || bytes[at + 64] != '\n') return {};
    keys.emplace_back(key);
  }
  return keys;
}

}  // namespace

bool KnownPatternSet(const std::string& dir, const std::string& set_key) {
  const std::vector<std::string> keys = ReadPatternSets(dir);
  return IsHexKey(set_key) && std::find(keys.begin(), keys.end(), set_key) != keys.end();
}

void RecordPatternSet(const std::string& dir, const std::string& set_key) {
  if (dir.empty() || !IsHexKey(set_key) || !SafeCacheDir(dir, /*create=*/true)) return;
  std::vector<std::string> keys = ReadPatternSets(dir);
  keys.erase(std::remove(keys.begin(), keys.end(), set_key), keys.end());
  keys.insert(keys.begin(), set_key);
  if (keys.size() > static_cast<size_t>(kKeepPatternSets)) keys.resize(kKeepPatternSets);
  std::string bytes = kSetsMagic;
  for (const std::string& k : keys) bytes += k + "\n";
  WriteAndRename(dir, dir + "/" + kPatternSetsFile, bytes);
}

namespace {

// A kept plan on disk (Note: [Reused prefilter plan]): kPlanMagic, its key, then the plan's fields as
// an entry holds them, between kMagic and kFormat and a trailing kMagic, and the checksum.
constexpr char kPlanMagic[] = "triage-prefilter-plan 1\n";

std::string PlanPath(const std::string& dir, const std::string& plan_key) { return dir + "/plan-" + plan_key + ".bin"; }

template <class A, class P>
void PlanFields(A& a, P& plan) {
  a(plan.keywords);
  a(plan.keyword_patterns);
  a(plan.layout.offsets);
  a(plan.layout.buckets);
  a(plan.layout.mix);
  a(plan.checks.foldable);
  a(plan.checks.packed);
  a(plan.checks.bytes);
}

}  // namespace

bool ReadPrefilterPlan(const std::string& dir, const std::string& plan_key, PrefilterPlan* plan) {
  if (dir.empty() || !IsHexKey(plan_key) || !SafeCacheDir(dir, /*create=*/false)) return false;
  std::string bytes;
  if (!ReadOwnRegularFile(PlanPath(dir, plan_key), &bytes)) return false;
  const std::string header = std::string(kPlanMagic) + plan_key + "\n";
  if (bytes.compare(0, header.size(), header) != 0) return false;
  Reader in(std::string_view(bytes).substr(header.size()));
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  PrefilterPlan read;
  PlanFields(in, read);
  if (in.U64() != kMagic || !in.ok() || !in.SealedEnd()) return false;
  *plan = std::move(read);
  return true;
}

void WritePrefilterPlan(const std::string& dir, const std::string& plan_key, const PrefilterPlan& plan) {
  if (dir.empty() || !IsHexKey(plan_key) || !SafeCacheDir(dir, /*create=*/true)) return;
  const std::string header = std::string(kPlanMagic) + plan_key + "\n";
  Writer w(header, 0);
  w.U64(kMagic);
  w.U64(kFormat);
  PlanFields(w, plan);
  w.U64(kMagic);
  w.Seal(header.size());
  if (!WriteAndRename(dir, PlanPath(dir, plan_key), w.Take())) return;
  KeepNewest(dir, "plan-", ".bin", kKeepPlans);
}

bool MapCacheFile(const std::string& dir, const std::string& name, MappedCacheFile* file, CacheOwner owner) {
  return !dir.empty() && SafeCacheDir(dir, /*create=*/false, owner) && file->Map(dir + "/" + name, owner, /*whole=*/true);
}

bool WriteCacheFile(const std::string& dir, const std::string& name, const std::vector<std::string_view>& pieces,
                    const std::string& prefix, const std::string& extension, int keep) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/true)) return false;
  if (!WriteAndRename(dir, dir + "/" + name, pieces)) return false;
  KeepNewest(dir, prefix, extension, keep);
  return true;
}

void WriteRuleCacheBytes(const std::string& dir, const std::string& key, std::string_view payload) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/true)) return;
  const std::string header = std::string(kEntryMagic) + key + "\n";
  if (!WriteAndRename(dir, EntryPath(dir, key), std::vector<std::string_view>{header, payload})) return;
  KeepNewest(dir, "rules-", ".bin", kKeepEntries);
}

void WriteRuleCache(const std::string& dir, const std::string& key, const ParsedRules& parsed) {
  if (dir.empty() || !SafeCacheDir(dir, /*create=*/true)) return;
  const std::string bytes = SerializeParsedRulesAfter(std::string(kEntryMagic) + key + "\n", parsed, size_t{2} << 20);
  if (!WriteAndRename(dir, EntryPath(dir, key), bytes)) {
    return;
  }
  KeepNewest(dir, "rules-", ".bin", kKeepEntries);
}

}  // namespace triage
