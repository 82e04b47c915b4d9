// SHA-256 (FIPS 180-4), for content digests that an attacker must not be able to match with other
// content: the allowed project rule directories (Note: [Rule trust] in rules/rule_trust.h) and the
// rule cache's key (Note: [Rule cache] in rules/rule_cache.h).
//
// Two implementations of the compression function give identical digests: one with the x86 SHA
// extensions (SHA-NI), chosen at run time when the CPU has them, and a portable one. The cache key
// hashes every rule file on each start of `triage` (~0.8 MB for the bundled rules), where the portable
// code costs a few milliseconds and SHA-NI a fraction of one.
#ifndef TRIAGE_ENGINE_SHA256_H_
#define TRIAGE_ENGINE_SHA256_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triage {

class Sha256 {
 public:
  enum class Impl { kAuto, kPortable, kShaNi };

  // kShaNi falls back to kPortable where the CPU (or the compiler) lacks the SHA extensions.
  explicit Sha256(Impl impl = Impl::kAuto);
  void Add(std::string_view bytes);
  std::string HexDigest();  // 64 lowercase hex digits; call once, after the last Add

  // Returns true when this digest runs the SHA-NI code.
  bool uses_sha_ni() const { return sha_ni_; }
  // Returns true when this CPU can run the SHA-NI code.
  static bool CpuHasShaNi();

 private:
  void Blocks(const unsigned char* p, std::size_t count);  // `count` whole 64-byte blocks
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t used_ = 0;     // bytes in buf_
  std::uint64_t total_ = 0;  // bytes added
  bool sha_ni_ = false;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_SHA256_H_
