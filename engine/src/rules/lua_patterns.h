// Counted Lua pattern matching for rules.
//
// Note: [Counted patterns] The stock string.find/match/gmatch/gsub run their backtracking matcher in C,
// where the VM's count hook never fires: `("x"):rep(16384):find(".-.-.-y")` runs for minutes inside one
// instruction. Rules get these four functions instead. They implement the pattern language of the
// Lua 5.4 manual (section 6.4.1) with the same results and error messages, but every character test,
// balance scan and back-reference byte is a step, and the steps are charged to the caller's budget in
// batches, the last (partial) one when the function returns: when the charge function says stop, the
// function raises, like the count hook would. (Until 2026-11-28 the partial batch was dropped, so a
// loop of calls of under 4096 steps each was charged nothing for its patterns.)
#ifndef TRIAGE_ENGINE_LUA_PATTERNS_H_
#define TRIAGE_ENGINE_LUA_PATTERNS_H_

#include <cstdint>

struct lua_State;

namespace triage {

// Charges `steps` to the running call's budget. Returns nullptr to go on, or why the call must stop
// (then it stays stopped: every later charge in the same call says so too).
using PatternCharge = const char* (*)(lua_State* L, std::uint64_t steps);

// Replaces find, match, gmatch and gsub in the table at the top of the stack (the string library)
// with counted versions that charge `charge`. Raises only on memory errors.
void InstallCountedPatterns(lua_State* L, PatternCharge charge);

}  // namespace triage

#endif  // TRIAGE_ENGINE_LUA_PATTERNS_H_
