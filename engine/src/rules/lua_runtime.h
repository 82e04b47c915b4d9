// Sandboxed Lua for rules (the reference is rules/LUA_API.md; this file implements API version 1).
//
// Note: [Lua sandbox] Every rule's Lua runs in an environment of its own, built from a whitelist:
// the base functions minus load/loadfile/dofile/require/collectgarbage/print, plus copies of string,
// table, math and utf8 (string.dump removed everywhere), plus the `triage` helper table. Source is
// loaded as text only (mode "t"), so bytecode never reaches the VM. Each rule's lua_State has a memory
// cap (custom allocator) and each call an instruction and time cap that pcall cannot catch (Note: [Lua
// deadline]); string patterns count as instructions (Note: [Counted patterns]). After a rule's chunk
// has run, its environment is frozen: globals can be read, not assigned; what a call leaves behind
// anyway (rawset, upvalues) lasts until the next input at most (Note: [Lua accounts]).
//
// Note: [Per-input memo] The engine calls a rule once per incident it matches, and every call of one
// input gets the same ctx.incidents table; what a rule works out from all the incidents is the same
// for each of them. triage.per_input(ctx, fn) returns what fn(ctx.incidents) returned, running fn on
// the first call that asks for this incidents table and this function only; the results are kept
// in the rule's own environment, in a table with weak keys, so they go with the environment when the
// next input starts (Note: [Lua accounts]), and a hand-made ctx of a rule's test gets its own. A ctx
// without incidents runs fn({}) on every call. fn is held to what the input has left of the rule's
// all-calls budget, not to the calling function's own limits (WidenBudget in lua_runtime.cc).
//
// Note: [Lua threads] A lua_State is never shared between threads. A RuleSet owns a LuaRuntime,
// which keeps a pool of LuaStates, each able to run every Lua rule of the set. A diagnosis takes one
// state from the pool for its whole run (creating one when the pool is empty) and gives it back, so
// there are at most as many states as threads diagnosing at once with that rule set. A rule's own
// lua_State is made and its chunks run at its first call in that LuaState, not before: a diagnosis
// whose candidates include one Lua rule starts one Lua VM, not one per Lua rule of the set (loading
// ran every rule's Lua once already, to check it).
#ifndef TRIAGE_ENGINE_LUA_RUNTIME_H_
#define TRIAGE_ENGINE_LUA_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rules/rule.h"  // Rule, LuaChunk, LuaRef
#include "triage/triage.h"

struct lua_State;

namespace triage {

class MetricCollector;  // metrics.h

// What a call into Lua produced, converted out of the VM.
struct LuaValue {
  enum class Type { kNil, kBool, kNumber, kString, kTable, kOther };
  Type type = Type::kNil;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::map<std::string, LuaValue> fields;  // kTable: string keys (integer keys as decimal strings)
  std::string other;                       // kOther: the Lua type name
};

// An error out of Lua, with the position Lua reported (or the called function's definition).
struct LuaError {
  std::string code;     // lua-error | lua-budget | lua-memory | lua-bad-return | lua-syntax | ...
  std::string file;
  int line = 0;
  std::string message;
};

// The incident-independent data a call sees (rules/LUA_API.md "ctx").
struct LuaCallInput {
  const std::vector<Incident>* incidents = nullptr;
  int incident = -1;                                   // 0-based index into incidents
  const std::map<std::string, std::string>* captures = nullptr;
  const std::map<std::string, std::string>* values = nullptr;  // from `values:`; may be null
  double confidence = 0;
  std::string rule_id, category;
  const MetricCollector* metrics = nullptr;            // series of the input; may be null
  const std::map<std::string, std::string>* facts = nullptr;  // ctx.facts (Note: [Environment facts]); may be null
};

class LuaState;

// Lua of one rule set: the per-state loader and the pool of states (Note: [Lua threads]).
class LuaRuntime {
 public:
  LuaRuntime(const RuleSet* rules, LuaLimits limits);  // `rules` owns this runtime
  ~LuaRuntime();

  // A state borrowed from the pool; returned on destruction.
  class Lease {
   public:
    Lease(LuaRuntime* owner, std::unique_ptr<LuaState> state);
    ~Lease();
    Lease(Lease&&) = default;
    LuaState* get() const { return state_.get(); }
    LuaState* operator->() const { return state_.get(); }
    explicit operator bool() const { return state_ != nullptr; }

   private:
    LuaRuntime* owner_;
    std::unique_ptr<LuaState> state_;
  };

  // Borrows a state with every Lua rule loaded. Thread-safe. Null only when Lua itself cannot start.
  Lease Acquire();
  const LuaLimits& limits() const { return limits_; }
  int states_created() const;

 private:
  void Release(std::unique_ptr<LuaState> state);
  const RuleSet* rules_;
  LuaLimits limits_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<LuaState>> free_;
  int created_ = 0;
};

// The Lua rules of a set for one thread: each rule in a sandboxed lua_State of its own
// (Note: [Lua accounts]). Used by one thread at a time.
class LuaState {
 public:
  static std::unique_ptr<LuaState> Create(const LuaLimits& limits);
  ~LuaState();
  LuaState(const LuaState&) = delete;
  LuaState& operator=(const LuaState&) = delete;

  // Runs `chunks` in a fresh environment for rule slot `slot` and freezes it. On failure the slot
  // stays unusable and *error says why (syntax errors carry file:line).
  bool LoadRule(int slot, const std::vector<LuaChunk>& chunks, LuaError* error);
  // Makes rule `r` of `rules` (those with Lua chunks) loadable as slot r: LoadRule runs at the slot's
  // first Call (Note: [Lua threads]) with the chunks of rules->Full(r) (Note: [Texts on demand] in
  // rule_cache.h); a load that fails then leaves the slot unusable, as above. `rules` must outlive
  // this state.
  void LoadOnFirstCall(const RuleSet* rules) { pending_ = rules; }
  bool HasRule(int slot) const;  // loaded (a rule not yet called is not)

  // What checking a rule's Lua at load found (CheckRule).
  struct RuleCheck {
    std::map<std::string, int> functions;  // as Functions() gives them
    bool global_ok = false;                // as GetGlobal(`global`) returned
    LuaValue global;
  };
  // Runs `chunks` as LoadRule would, in a fresh environment, and reports what Functions() and, when
  // `global` is not null, GetGlobal(global) would give, then drops the environment: the checks of a
  // load share one lua_State (Note: [Shared check state]) instead of one each. Returns what LoadRule
  // would (false with *error when the chunks do not load; out->global_ok false with *error when the
  // global does not convert). The rule's chunks run under the same limits as in a state of its own.
  // `inline_only`: the chunks are all the reader's own for inline expressions (a rule with no .lua
  // file), checked without a full environment (Note: [Inline-only checks]).
  bool CheckRule(const std::vector<LuaChunk>& chunks, const char* global, RuleCheck* out, LuaError* error,
                 bool inline_only = false);

  // Returns the global functions a loaded rule defines, with the line each is defined on.
  std::map<std::string, int> Functions(int slot) const;
  // Returns the value of global `name` of a loaded rule converted (used for whole-Lua rules).
  bool GetGlobal(int slot, const std::string& name, LuaValue* out, LuaError* error);

  // Calls function `name` of rule `slot` with a ctx table built from `input` (nullptr: no argument).
  // Returns false with *error on a Lua error, a budget overrun or a missing function.
  bool Call(int slot, const std::string& name, const LuaCallInput* input, LuaValue* result, LuaError* error);

  // Call when a new input starts: every rule called since gets a fresh environment and ctx at its
  // next call (Note: [Lua accounts]).
  void ResetInput();
  std::size_t memory_used() const;  // all rules' states together

  struct Budget;  // memory, instruction and time accounting; defined in lua_runtime.cc
  struct Vm;      // one rule's lua_State; defined in lua_runtime.cc
  struct SeriesCache;  // the input's metric series, copied once for every rule; in lua_runtime.cc

 private:
  explicit LuaState(const LuaLimits& limits);
  Vm* Find(int slot) const;
  // A lua_State with the libraries and the set-up chunk, under limits_; null with *error if it cannot
  // start (`file` names the rule the error is reported for).
  std::unique_ptr<Vm> StartVm(const std::string& file, LuaError* error) const;
  LuaLimits limits_;
  std::map<int, std::unique_ptr<Vm>> vms_;  // slot -> that rule's own lua_State (Note: [Lua accounts])
  const RuleSet* pending_ = nullptr;  // rules loaded at their first Call (LoadOnFirstCall)
  std::vector<bool> tried_;                     // slots whose load on first call has been attempted
  std::unique_ptr<SeriesCache> series_;         // made at the input's first call (ResetInput drops it)
  std::unique_ptr<Vm> check_;                   // CheckRule's state (Note: [Shared check state])
  std::size_t check_base_ = 0;                  // its memory in use with no rule's environment
};

// Returns "" when `code` is exactly one Lua expression, else why not (Lua's syntax message). The code
// is compiled, never run; an inline `lua: EXPRESSION` is wrapped as `return (EXPRESSION\n)` only after
// this check, so it cannot close the wrapper and run statements at load.
std::string LuaExpressionError(const std::string& code);

// Returns true when `s` is a Lua function name ("lua:NAME" references name a function).
bool IsLuaName(const std::string& s);

}  // namespace triage

#endif  // TRIAGE_ENGINE_LUA_RUNTIME_H_
