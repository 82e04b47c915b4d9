#include "log/line_shapes.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace triage {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// An escape (the byte after '\') that names a byte by number or whose set the check does not read:
// octal and back-references, \x, Unicode classes, \Q quotes.
inline bool UnreadEscape(char d) { return IsDigit(d) || d == 'x' || d == 'p' || d == 'P' || d == 'Q'; }

// The value of a class member at p[j] (a byte, or an escape of one), for a range's bounds; advances j.
// A letter escape (\t, \n, ... or a class such as \d, which RE2 refuses as a range bound) counts as a
// control byte, below '0'. Returns -1 for an escape UnreadEscape refuses or a '\' at the end.
int MemberValue(std::string_view p, size_t* j) {
  if (p[*j] != '\\') return static_cast<unsigned char>(p[(*j)++]);
  if (*j + 1 >= p.size() || UnreadEscape(p[*j + 1])) return -1;
  const unsigned char d = static_cast<unsigned char>(p[*j + 1]);
  *j += 2;
  const bool letter = (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z');
  return letter ? 0 : d;
}

// The character class opening at p[i] ('['): true when it holds every digit or none; *end: past its ']'.
bool ClassBlind(std::string_view p, size_t i, size_t* end) {
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;  // the complement of all or none is none or all
  bool first = true;                     // a ']' first is a member
  while (j < p.size()) {
    if (p[j] == ']' && !first) {
      *end = j + 1;
      return true;
    }
    first = false;
    if (p[j] == '[' && j + 1 < p.size() && p[j + 1] == ':') {  // [:alpha:] and the like: all digits or none
      size_t close = p.find(":]", j + 2);
      if (close == std::string_view::npos) return false;
      j = close + 2;
      continue;
    }
    const int lo = MemberValue(p, &j);
    if (lo < 0) return false;
    if (j + 1 < p.size() && p[j] == '-' && p[j + 1] != ']') {
      ++j;
      const int hi = MemberValue(p, &j);
      if (hi < 0) return false;
      const bool all = lo <= '0' && hi >= '9', none = hi < '0' || lo > '9';
      if (!all && !none) return false;
    } else if (lo >= '0' && lo <= '9') {
      return false;
    }
  }
  return false;  // unclosed: RE2 refuses the pattern anyway
}

}  // namespace

bool DigitBlindPattern(std::string_view p) {
  // Without a digit byte the pattern names no digit: its classes' ranges have bounds outside the digits
  // (all of them or none inside), Perl, POSIX and Unicode classes hold all of 0-9 or none, and case
  // folding leaves digits alone.
  if (std::none_of(p.begin(), p.end(), IsDigit)) return true;
  size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size() || UnreadEscape(p[i + 1])) return false;
      i += 2;
    } else if (c == '[') {
      if (!ClassBlind(p, i, &i)) return false;
    } else if (c == '{') {
      // A repetition {n}, {n,}, {n,m} (RE2 reads '{' as itself when what follows is none of these).
      size_t j = i + 1;
      while (j < p.size() && IsDigit(p[j])) ++j;
      bool repeat = j > i + 1 && j < p.size();
      if (repeat && p[j] == ',') {
        ++j;
        while (j < p.size() && IsDigit(p[j])) ++j;
      }
      repeat = repeat && j < p.size() && p[j] == '}';
      i = repeat ? j + 1 : i + 1;
    } else if (c == '(' && i + 2 < p.size() && p[i + 1] == '?') {
      // A group's name, (?P<name>...) or (?<name>...), may hold digits; flags (?i: ...) hold none.
      size_t j = i + 2;
      if (p[j] == 'P') ++j;
      if (j < p.size() && p[j] == '<') {
        size_t close = p.find('>', j);
        if (close == std::string_view::npos) return false;
        i = close + 1;
      } else {
        i += 2;
      }
    } else if (IsDigit(c)) {
      return false;
    } else {
      ++i;
    }
  }
  return true;
}

namespace {

constexpr std::uint64_t kMul1 = 0xff51afd7ed558ccdull, kMul2 = 0xc4ceb9fe1a85ec53ull;

inline std::uint64_t Mix(std::uint64_t h, std::uint64_t w) {
  h = (h ^ w) * kMul1;
  return h ^ (h >> 29);
}

inline char MaskByte(char c) { return static_cast<unsigned char>(c - '0') < 10 ? '0' : c; }

// Writes text[0, n) with its digits as '0' to out and returns a hash of what it wrote: 16 bytes at a
// time with SSE2 (every x86-64 CPU has it; the last bytes through a zeroed block), else one by one.
std::uint64_t MaskAndHash(const char* text, size_t n, char* out) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ n, h2 = 0;
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1), zero = _mm_set1_epi8('0');
  auto mask = [&](__m128i v) {
    // Bytes from 0x80 are negative as signed bytes: below '0'.
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, below), _mm_cmplt_epi8(v, above));
    v = _mm_or_si128(_mm_andnot_si128(digit, v), _mm_and_si128(digit, zero));
    // Two chains, one per half, so that each multiply waits on half as many.
    h = Mix(h, static_cast<std::uint64_t>(_mm_cvtsi128_si64(v)));
    h2 = Mix(h2, static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v))));
    return v;
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i))));
  }
  if (i < n) {
    alignas(16) char block[16] = {};
    std::memcpy(block, text + i, n - i);
    _mm_store_si128(reinterpret_cast<__m128i*>(block), mask(_mm_load_si128(reinterpret_cast<const __m128i*>(block))));
    std::memcpy(out + i, block, n - i);
  }
#else
  for (size_t i = 0; i < n; i += 8) {
    std::uint64_t w = 0;
    for (size_t j = 0; j < 8 && i + j < n; ++j) {
      out[i + j] = MaskByte(text[i + j]);
      w |= std::uint64_t{static_cast<unsigned char>(out[i + j])} << (8 * j);
    }
    h = Mix(h, w);
  }
#endif
  h = (h ^ h2) * kMul2;
  return h ^ (h >> 32);
}

}  // namespace

void MaskDigits(std::string_view text, std::string* out) {
  out->resize(text.size());
  MaskAndHash(text.data(), text.size(), out->data());
}

std::uint64_t MaskDigitsHashed(std::string_view text, std::string* out) {
  out->resize(text.size());
  return MaskAndHash(text.data(), text.size(), out->data());
}

void LineVerdicts::Places(size_t (&at)[2]) const {
  at[0] = hash_ % kSlots;
  at[1] = (hash_ >> 32) % kSlots;
  if (at[1] == at[0]) at[1] = at[0] ^ 1;
}

LineVerdicts::Verdict LineVerdicts::Find(std::string_view text) {
  const Verdict found = Look(text);
  window_hits_ += found != kUnknown;
  if (++window_ == kWindow) {
    if (window_hits_ * 4 < kWindow) rest_ = kRest;
    window_ = window_hits_ = 0;
  }
  return found;
}

LineVerdicts::Verdict LineVerdicts::Look(std::string_view text) {
  storable_ = !text.empty() && text.size() <= kMaxText;
  if (!storable_) return kUnknown;
  hash_ = MaskDigitsHashed(text, &key_);
  if (slots_.empty()) return kUnknown;
  size_t at[2];
  Places(at);
  for (size_t i : at) {
    Slot& s = slots_[i];
    if (s.hash != hash_ || s.size != key_.size() || std::memcmp(&texts_[i * kMaxText], key_.data(), key_.size()) != 0) {
      continue;
    }
    s.used = ++tick_;
    ++hits_;
    return s.verdict;
  }
  return kUnknown;
}

void LineVerdicts::Store(Verdict verdict) {
  if (!storable_) return;
  if (slots_.empty()) {
    slots_.resize(kSlots);
    texts_.reset(new char[kSlots * kMaxText]);  // (not zeroed: only the pages of slots used are touched)
  }
  size_t at[2];
  Places(at);
  const size_t i = slots_[at[1]].used < slots_[at[0]].used ? at[1] : at[0];  // the one used longer ago
  slots_[i] = {hash_, static_cast<std::uint16_t>(key_.size()), verdict, ++tick_};
  std::memcpy(&texts_[i * kMaxText], key_.data(), key_.size());
  ++stores_;
}

}  // namespace triage
