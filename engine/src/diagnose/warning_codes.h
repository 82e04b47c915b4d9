// The codes of a report's warnings (Report::warnings, "warnings" in --format json), in one table: each
// code's name and what it means. A report's warnings are notes on the input and on what could not run
// (the rule loader's codes are another table: rules/problem_codes.h). engine/README.md "Warning codes"
// shows the same table (tests/warning_codes_test.cc compares the two, and makes the engine report each
// code it can).
//
// Who reports them: the log path (diagnose/engine.cc: long-line, too-many-incidents), a rule's Lua
// failing while an input is diagnosed (diagnose/ranker.cc, with the code rules/lua_runtime.cc gives the
// failure), ApplyEvidence (diagnose/evidence.cc: probe-inconclusive), and the probes' Guard, outside the
// engine (probes/src/guard.cc: probe-failed).
#ifndef TRIAGE_ENGINE_WARNING_CODES_H_
#define TRIAGE_ENGINE_WARNING_CODES_H_

#include <cstddef>
#include <string>

namespace triage {

// X(enumerator, name, summary); one line per code.
#define TRIAGE_WARNING_CODES(X)                                                                                \
  /* the input */                                                                                              \
  X(kLongLine, "long-line", "lines longer than 64 KiB were cut to that length (of a progress bar's, the last 64 KiB were read)") \
  X(kTooManyIncidents, "too-many-incidents",                                                                   \
    "over 2000 distinct incidents: some between the first and the newest were not kept (their lines are given)") \
  /* a rule's Lua, which is then off for the rest of the input (rules/LUA_API.md "When Lua fails") */          \
  X(kLuaUnavailable, "lua-unavailable", "Lua could not start")                                                 \
  X(kLuaError, "lua-error", "a rule's Lua raised an error")                                                    \
  X(kLuaBudget, "lua-budget", "a rule's Lua ran past its instruction budget or time limit")                   \
  X(kLuaMemory, "lua-memory", "a rule's Lua ran past its memory cap")                                          \
  X(kLuaBadReturn, "lua-bad-return", "a rule's Lua function returned a value of the wrong type or size")       \
  X(kLuaMissingFunction, "lua-missing-function", "a Lua function the rule names is not defined when it is called") \
  /* probes (probes/README.md) */                                                                              \
  X(kProbeInconclusive, "probe-inconclusive", "no probe verdict settled anything: why each probe could not tell") \
  X(kProbeFailed, "probe-failed", "triage_probes' Guard caught an exception while it diagnosed or ran probes")

enum class WarningCode {
#define TRIAGE_WARNING_CODE_ENUMERATOR(e, name, summary) e,
  TRIAGE_WARNING_CODES(TRIAGE_WARNING_CODE_ENUMERATOR)
#undef TRIAGE_WARNING_CODE_ENUMERATOR
};

struct WarningCodeInfo {
  WarningCode code;
  const char* name;
  const char* summary;
};

// Indexed by WarningCode.
inline constexpr WarningCodeInfo kWarningCodes[] = {
#define TRIAGE_WARNING_CODE_INFO(e, name, summary) {WarningCode::e, name, summary},
    TRIAGE_WARNING_CODES(TRIAGE_WARNING_CODE_INFO)
#undef TRIAGE_WARNING_CODE_INFO
};

// Changing the table changes what readers of a report see: update engine/README.md "Warning codes"
// (the test prints the rows it expects), make the engine report a new code in
// WarningCodes.TheEngineReportsEachCode (tests/warning_codes_test.cc), then change this count.
static_assert(sizeof(kWarningCodes) / sizeof(kWarningCodes[0]) == 10,
              "the warning code table changed: update engine/README.md \"Warning codes\", its test and this count");

inline const char* WarningCodeName(WarningCode code) { return kWarningCodes[static_cast<std::size_t>(code)].name; }

// True when the table lists `name`.
inline bool IsWarningCode(const std::string& name) {
  for (const WarningCodeInfo& info : kWarningCodes) {
    if (name == info.name) return true;
  }
  return false;
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_WARNING_CODES_H_
