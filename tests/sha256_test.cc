// SHA-256, which the allow file of project rule directories records (Note: [Rule trust]).
#include <string>

#include <gtest/gtest.h>

#include "rules/sha256.h"

namespace triage {
namespace {

TEST(Sha256, KnownDigests) {
  auto hex = [](const std::string& s) {
    Sha256 h;
    h.Add(s);
    return h.HexDigest();
  };
  // FIPS 180-4 examples (csrc.nist.gov "SHA256.pdf") and the empty message.
  EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a', fed in uneven pieces.
  Sha256 h;
  std::string chunk(999, 'a');
  for (int i = 0; i < 1001; ++i) h.Add(chunk);  // 999,999 bytes
  h.Add("a");
  EXPECT_EQ(h.HexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace triage
