// SHA-256 (FIPS 180-4), for content digests that an attacker must not be able to match with other
// content: the allowed project rule directories (Note: [Rule trust] in rules/rule_trust.h).
#ifndef TRIAGE_ENGINE_SHA256_H_
#define TRIAGE_ENGINE_SHA256_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triage {

class Sha256 {
 public:
  Sha256();
  void Add(std::string_view bytes);
  std::string HexDigest();  // 64 lowercase hex digits; call once, after the last Add

 private:
  void Block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t used_ = 0;     // bytes in buf_
  std::uint64_t total_ = 0;  // bytes added
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_SHA256_H_
