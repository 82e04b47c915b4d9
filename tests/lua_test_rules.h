// Rules and messages shared by the Lua tests (lua_rules_test.cc, lua_limits_test.cc).
#ifndef TRIAGE_TESTS_LUA_TEST_RULES_H_
#define TRIAGE_TESTS_LUA_TEST_RULES_H_

#include <string>

namespace triage {
namespace lua_test {

// A real PyTorch 1.13 message (Conv2d(3, 64, 3) on 32x32 images flattened into Linear(64, 128)).
constexpr char kMatmul[] = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)";
// A real PyTorch 1.13 message from a different family, matched by the "good" neighbour rule.
constexpr char kBroadcast[] =
    "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0";

// A rule whose values/when/score come from Lua; `extra` adds YAML keys.
inline std::string MatmulRule(const std::string& id, const std::string& extra,
                              const std::string& explain = "got {got}, want {want}") {
  return "id: " + id + R"lua(
category: shape.matmul_mismatch
title: matmul
match:
  message: 'mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x(?P<got>\d+) and (?P<want>\d+)x(?P<out>\d+)\)'
  exception: [RuntimeError]
explain: ')lua" + explain + R"lua('
hypotheses:
  - id: only
    text: 'text'
    test: 'test'
    fix: 'fix'
verify: 'ok'
examples:
  - match: 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)'
)lua" + extra;
}

constexpr char kGoodRule[] = R"lua(id: good
category: shape.broadcast_mismatch
title: broadcast
match:
  message: 'The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\)'
explain: 'a {a} vs b {b}'
hypotheses:
  - id: h
    text: 't'
    test: 't'
    fix: 'f'
verify: 'ok'
examples:
  - match: 'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0'
)lua";

}  // namespace lua_test
}  // namespace triage

#endif  // TRIAGE_TESTS_LUA_TEST_RULES_H_
