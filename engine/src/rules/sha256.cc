// SHA-256 as specified in FIPS 180-4, section 6.2; the SHA-NI path follows the same steps with the
// x86 instructions that do four schedule words and two rounds at a time.
#include "rules/sha256.h"

#include <algorithm>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define TRIAGE_SHA_NI 1
#endif

namespace triage {
namespace {

// First 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 4.2.2).
alignas(16) constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

inline std::uint32_t Rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void BlocksPortable(std::uint32_t* state, const unsigned char* p, std::size_t count) {
  for (; count > 0; --count, p += 64) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) {
      w[t] = static_cast<std::uint32_t>(p[4 * t]) << 24 | static_cast<std::uint32_t>(p[4 * t + 1]) << 16 |
             static_cast<std::uint32_t>(p[4 * t + 2]) << 8 | static_cast<std::uint32_t>(p[4 * t + 3]);
    }
    for (int t = 16; t < 64; ++t) {
      std::uint32_t s0 = Rotr(w[t - 15], 7) ^ Rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      std::uint32_t s1 = Rotr(w[t - 2], 17) ^ Rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
      std::uint32_t t1 = h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[t] + w[t];
      std::uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
  }
}

#ifdef TRIAGE_SHA_NI
// Note: [SHA-NI] sha256rnds2 runs two rounds on the working variables held as two vectors, {A,B,E,F}
// and {C,D,G,H} (highest lane first), taking the two round inputs W+K from the low lanes of its third
// operand; sha256msg1 and sha256msg2 compute the schedule four words at a time: for words t..t+3,
// msg1(W[t-16..], W[t-12..]) adds sigma0 of W[t-15..], the words W[t-7..] are added (an alignr of the
// two previous groups), and msg2 adds sigma1 of W[t-2..], which for the upper two words are the
// group's own first two words (the instruction chains them).
__attribute__((target("sha,sse4.1,ssse3"))) void BlocksShaNi(std::uint32_t* state, const unsigned char* p,
                                                            std::size_t count) {
  // Big-endian words: reverse the bytes of each 32-bit lane.
  const __m128i swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (; count > 0; --count, p += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i m[4];  // the schedule's last four groups of four words; group i lives in m[i % 4]
    for (int i = 0; i < 16; ++i) {
      __m128i w;
      if (i < 4) {
        w = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), swap);
      } else {
        const __m128i prev = m[(i + 3) & 3], prev2 = m[(i + 2) & 3];
        w = _mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]);
        w = _mm_add_epi32(w, _mm_alignr_epi8(prev, prev2, 4));
        w = _mm_sha256msg2_epu32(w, prev);
      }
      m[i & 3] = w;
      const __m128i wk = _mm_add_epi32(w, _mm_load_si128(reinterpret_cast<const __m128i*>(kRound + 4 * i)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

}  // namespace

bool Sha256::CpuHasShaNi() {
#ifdef TRIAGE_SHA_NI
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const bool ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
  }();
  return has;
#else
  return false;
#endif
}

Sha256::Sha256(Impl impl)
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      sha_ni_(impl != Impl::kPortable && CpuHasShaNi()) {}

void Sha256::Blocks(const unsigned char* p, std::size_t count) {
#ifdef TRIAGE_SHA_NI
  if (sha_ni_) return BlocksShaNi(h_, p, count);
#endif
  BlocksPortable(h_, p, count);
}

void Sha256::Add(std::string_view bytes) {
  total_ += bytes.size();
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  if (n == 0) return;
  if (used_ > 0) {  // complete the buffered block first
    std::size_t take = std::min(n, sizeof buf_ - used_);
    std::memcpy(buf_ + used_, p, take);
    used_ += take;
    p += take;
    n -= take;
    if (used_ < sizeof buf_) return;
    Blocks(buf_, 1);
    used_ = 0;
  }
  // Whole blocks straight from the input, the rest into the buffer.
  Blocks(p, n / 64);
  used_ = n % 64;
  if (used_ > 0) std::memcpy(buf_, p + n / 64 * 64, used_);
}

std::string Sha256::HexDigest() {
  // Padding: a 1 bit, zeros up to 56 bytes mod 64, then the length in bits, big-endian.
  std::uint64_t bits = total_ * 8;
  unsigned char pad[72] = {0x80};
  std::size_t zeros = (used_ < 56 ? 56 - used_ : 120 - used_);
  for (int i = 0; i < 8; ++i) pad[zeros + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  Add(std::string_view(reinterpret_cast<const char*>(pad), zeros + 8));
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint32_t v : h_) {
    for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xf];
  }
  return out;
}

}  // namespace triage
