// SHA-256, which the allow file of project rule directories and the rule cache's key record (Note:
// [Rule trust], Note: [Rule cache]); both implementations (SHA-NI and portable) on the same vectors.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "rules/sha256.h"

namespace triage {
namespace {

constexpr Sha256::Impl kImpls[] = {Sha256::Impl::kPortable, Sha256::Impl::kShaNi, Sha256::Impl::kAuto};

std::string Hex(Sha256::Impl impl, const std::string& s) {
  Sha256 h(impl);
  h.Add(s);
  return h.HexDigest();
}

TEST(Sha256, KnownDigests) {
  for (Sha256::Impl impl : kImpls) {
    SCOPED_TRACE(static_cast<int>(impl));
    // FIPS 180-4 examples (csrc.nist.gov "SHA256.pdf") and the empty message.
    EXPECT_EQ(Hex(impl, ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(Hex(impl, "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(Hex(impl, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // Two blocks of message (FIPS 180-4's 896-bit example for SHA-512, here through SHA-256).
    EXPECT_EQ(Hex(impl, "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                        "mnopqrstnopqrstu"),
              "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    // A million 'a', fed in uneven pieces.
    Sha256 h(impl);
    std::string chunk(999, 'a');
    for (int i = 0; i < 1001; ++i) h.Add(chunk);  // 999,999 bytes
    h.Add("a");
    EXPECT_EQ(h.HexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST(Sha256, ImplementationsAgreeOnEveryLengthAndSplit) {
  // Every length around the block and padding boundaries, fed whole and in pieces: the SHA-NI path
  // (where this CPU has it; otherwise it runs the portable code and the test checks the split logic)
  // must give the portable digest.
  std::mt19937 rng(15);
  for (size_t n = 0; n < 300; ++n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    const std::string want = Hex(Sha256::Impl::kPortable, s);
    EXPECT_EQ(Hex(Sha256::Impl::kShaNi, s), want) << n;
    Sha256 pieces(Sha256::Impl::kShaNi);
    for (size_t at = 0; at < n;) {
      size_t take = std::min<size_t>(n - at, rng() % 80);
      pieces.Add(std::string_view(s).substr(at, take));
      at += take;
    }
    EXPECT_EQ(pieces.HexDigest(), want) << n;
  }
}

TEST(Sha256, ShaNiIsUsedWhereTheCpuHasIt) {
  EXPECT_EQ(Sha256(Sha256::Impl::kShaNi).uses_sha_ni(), Sha256::CpuHasShaNi());
  EXPECT_EQ(Sha256().uses_sha_ni(), Sha256::CpuHasShaNi());
  EXPECT_FALSE(Sha256(Sha256::Impl::kPortable).uses_sha_ni());
  std::printf("SHA-NI on this CPU: %s\n", Sha256::CpuHasShaNi() ? "yes" : "no");
}

}  // namespace
}  // namespace triage
