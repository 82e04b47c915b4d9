// What the engine's AVX2 code paths need: TRIAGE_AVX2 is defined where they can be compiled (x86 with
// GCC or Clang, each such function marked __attribute__((target("avx2")))), and CpuHasAvx2() says at
// run time whether this CPU may run them. Every AVX2 path has a portable twin tested to agree with it.
#ifndef TRIAGE_ENGINE_SIMD_H_
#define TRIAGE_ENGINE_SIMD_H_

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TRIAGE_AVX2 1
#endif

namespace triage {

// Returns true when this CPU can run the AVX2 paths.
inline bool CpuHasAvx2() {
#ifdef TRIAGE_AVX2
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
#else
  return false;
#endif
}

// Returns true when this CPU can also run code compiled for AVX-512 VL, BW and VBMI (the AVX2 paths on
// 32 vector registers, Note: [Wide registers] in line_scanner.cc, with VBMI's byte permutes: Note:
// [Hash stage] there).
inline bool CpuHasAvx512() {
#ifdef TRIAGE_AVX2
  static const bool has = __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vbmi");
  return has;
#else
  return false;
#endif
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_SIMD_H_
