// Sandboxed Lua for rules: Note: [Lua sandbox] and Note: [Lua threads] in lua_runtime.h.
//
// Lua reports errors with longjmp (Debian's liblua5.4 is built as C), so every Lua API call that can
// raise (any allocation can, under the memory cap) runs inside lua_pcall, in C functions whose frames
// hold no C++ object with a destructor. Conversions back to C++ use only raw, non-raising calls.
#include "rules/lua_runtime.h"

#include <locale.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <lua.hpp>

#include "log/metrics.h"
#include "rules/bundled_lua.h"
#include "rules/lua_patterns.h"
#include "rules/rule.h"

namespace triage {
namespace {

constexpr int kHookStep = 1000;        // instructions between count-hook calls
constexpr std::size_t kCheckBytes = 1 << 20;  // bytes allocated between deadline checks (Note: [Lua deadline])
constexpr int kMaxDepth = 4;           // nesting converted out of a returned table
constexpr int kMaxFields = 1000;       // fields converted out of one returned table
constexpr std::size_t kMaxReturnBytes = 64 << 10;  // text a call may return (strings and keys)
constexpr std::size_t kMaxGlobalBytes = 4 << 20;   // text of a whole-Lua rule's `rule` table
// What all the calls of one rule on one input may use together, in per-call limits (Note: [Lua input
// budget]).
constexpr std::uint64_t kInputInstructionCalls = 32;
constexpr std::uint64_t kInputTimeCalls = 8;

// Trusted set-up code, run once per state with the full base library. It hardens the shared string
// metatable, defines the `triage` helper table and returns the environment builder and freezer.
constexpr char kSetup[] =
#include "rules/lua_setup.inc"
    ;

// Registry keys for the two set-up functions.
constexpr char kMakeEnvKey[] = "triage.make_env";
constexpr char kFreezeKey[] = "triage.freeze";

// Note: [Set-up bytecode]
// Every rule's state runs kSetup (the check state of a load that reads rule files, and each Lua rule's
// own state in a diagnosis): parsing its ~270 lines of source costs ~1.3 M instructions a state. The
// build compiles it once (engine/tools/lua_setup_dump.cc, with the Lua library the build links) into
// kSetupBytecode, which every state loads; debug information is kept, so an error names
// `triage-setup` and its line as the source would. Where the build could not make it (a cross
// build: empty) or this Lua refuses it (the bytecode header names another Lua version, word sizes or
// number format), the process compiles the source once, in a scratch state that holds nothing else,
// when a second state is made, the first state parsing the source (SetupBytecode), as before the
// build step. Only this program's own dump is ever loaded as bytecode (this one, and the bundled rules'
// files', Note: [Bundled rule bytecode]); a rule's own chunks are loaded as text only ("t"), and
// string.dump is removed before a rule runs. An empty result (the scratch state could not
// start) makes OpenLibs parse the source.
constexpr unsigned char kSetupBytecode[] = {
#include "lua_setup_bytecode.inc"
};
// The generated file holds the single byte 0 where the build made no bytecode.
constexpr size_t kSetupBytecodeSize = sizeof kSetupBytecode > 1 ? sizeof kSetupBytecode : 0;

// Note: [Bundled rule bytecode]
// Every load that reads rule files checks each rule's Lua by compiling and running it (Note: [Shared
// check state]), and a diagnosis compiles a firing rule's chunks again in the rule's own state. For
// the bundled rules that compile was ~52 M of a ~360 M-instruction start with no cache (101 files,
// 370 KB of Lua, ~140 instructions a byte; 2026-11-29), the same work on the same bytes every time.
// The build compiles each bundled .lua file (engine/tools/lua_setup_dump.cc --rules, with the Lua
// library the build links) under the chunk name LoadChunks gives a rule's first chunk ("=0"), debug
// information kept, and keeps the file's bytes with its bytecode (BundledLuaBytecode, bundled_lua.cc).
// LoadChunks loads a first chunk whose bytes equal a bundled file's (compared whole, not by a digest)
// from that bytecode: the same functions, constants, line information and chunk name as its own
// compile of those bytes, so the same top level runs, with the same errors at the same lines. Any
// other chunk, a user's edited copy of a bundled file among them, is compiled as before; a Lua that
// refuses the bytecode (another version or word size in the header) makes LoadChunks compile the text.
// What differs is only the compile's own transient memory (the parser's buffers), which a bundled
// file's load no longer charges against the memory cap. The binary carries the files' bytes and
// bytecode (0.71 MB: 370 KB and 340 KB; read only for the files a load meets). Test:
// BundledRuleBytecode.EveryBundledFileHasTheBytecodeItsTextCompilesTo (the table's bytecode is, byte
// for byte, this program's Lua's dump of each bundled file compiled as LoadChunks would).
int AppendBytes(lua_State*, const void* p, size_t size, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(p), size);
  return 0;
}

const std::string& SetupBytecode() {
  static const std::string bytecode = [] {
    std::string out;
    lua_State* L = luaL_newstate();
    if (L == nullptr) return out;
    if (luaL_loadbufferx(L, kSetup, sizeof kSetup - 1, "=triage-setup", "t") == LUA_OK &&
        lua_dump(L, AppendBytes, &out, 0) != 0) {
      out.clear();
    }
    lua_close(L);
    return out;
  }();
  return bytecode;
}

}  // namespace

// Nanoseconds of CPU time used by the calling thread: a time limit on wall-clock time would stop
// healthy rules on a busy machine. Falls back to the steady clock where there is no thread clock.
std::uint64_t CpuNanos() {
#ifdef CLOCK_THREAD_CPUTIME_ID
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1000000000u + static_cast<std::uint64_t>(t.tv_nsec);
  }
#endif
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

struct LuaState::Budget {
  lua_State* L = nullptr;      // once started
  std::size_t used = 0;
  std::size_t limit = 0;
  std::size_t allocated = 0;   // bytes allocated since the last check
  int pace = 0;                // the count hook's current interval
  std::uint64_t count = 0;
  std::uint64_t max = 0;
  std::uint64_t call_max = 0;  // a call's own instruction limit (max is less when the input has less left)
  std::uint32_t ms = 0;
  std::uint64_t deadline = ~std::uint64_t{0};  // CpuNanos() at which the call stops
  std::uint64_t clock_due = 0;                 // the count at which to read the clock again
  // Set by LuaState::Call when what the input has left is less than a call's own limit (Note: [Lua
  // input budget]): then `max` or the deadline is the input's rest, and the stop says "per input".
  std::uint64_t input_ns = ~std::uint64_t{0};  // CPU nanoseconds the input has left for this call
  bool input_max = false;
  bool input_deadline = false;
  // Instructions the input has left for this call (set by LuaState::Call; 0 outside one), the call's
  // start, and what per_input's widening put aside (Note: [Per-input memo]).
  std::uint64_t input_left = 0;
  std::uint64_t started = 0;
  int widened = 0;
  std::uint64_t saved_count = 0, saved_max = 0, saved_deadline = 0, saved_ns = 0;
  bool saved_input_max = false, saved_input_deadline = false;
  bool overrun = false;
  char why[96] = "";  // what ran out, once overrun
  void* call = nullptr;  // the running call's CallArgs, for ctx's lazy fields (Note: [Lazy ctx])
};

namespace {

void CountHook(lua_State* L, lua_Debug* ar);

// Makes the count hook run after the next instruction (and check the budget then).
void CheckSoon(LuaState::Budget* b) {
  b->pace = 1;
  b->clock_due = 0;
  lua_sethook(b->L, CountHook, LUA_MASKCOUNT, 1);
}

void* Alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* b = static_cast<LuaState::Budget*>(ud);
  if (ptr == nullptr) osize = 0;  // osize is then a type tag, not a size
  if (nsize == 0) {
    std::free(ptr);
    b->used -= osize;
    return nullptr;
  }
  if (nsize > osize && b->used + (nsize - osize) > b->limit) return nullptr;
  void* p = std::realloc(ptr, nsize);
  if (p == nullptr) return nullptr;
  b->used = b->used - osize + nsize;
  if (nsize > osize && b->L != nullptr && (b->allocated += nsize - osize) >= kCheckBytes) {
    b->allocated = 0;
    if (b->pace != 1) CheckSoon(b);
  }
  return p;
}

LuaState::Budget* BudgetOf(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<LuaState::Budget*>(ud);
}

// Reads the clock when due; true once the call's time is up.
bool PastDeadline(LuaState::Budget* b) {
  if (b->count < b->clock_due) return false;
  b->clock_due = b->count + kHookStep;
  return CpuNanos() > b->deadline;
}

// Note: [Lua deadline] A call stops when it has run `instructions` VM instructions (string pattern
// steps included, Note: [Counted patterns]) or used `milliseconds` of its thread's CPU time (read
// once per kHookStep steps, not per pattern call). The stop cannot be
// caught: once overrun, the count hook fires on every instruction and raises again, so a pcall that
// caught the error fails at its caller's next instruction, up to the call's own frame; the counted
// pattern functions raise at entry too. C functions that run long without VM instructions allocate as
// they go (string.rep, table.concat, gsub's result): every kCheckBytes allocated, the hook runs at
// the next instruction, so such a loop overshoots the time limit by one allocation's work at most.
//
// Note: [Lua input budget] The engine calls a rule's Lua once per incident it matches (values, score,
// each hypothesis' when), up to the 2000 incidents an input keeps, so limits per call alone let a rule
// whose every call reads every incident cost incidents^2: each call under its limit, the whole minutes
// (rules/LUA_API.md "Reading every incident"). All the calls of one rule on one input therefore share a
// second account too: kInputInstructionCalls times a call's instructions and kInputTimeCalls times its
// CPU time (32 M instructions and 2 s by default). A call gets its own limits or what the input has
// left, whichever is less, and stops as it would at its own limit, saying "of this input"; the ranker
// then turns the rule off for the rest of the input, keeping what its earlier calls decided. The
// account is emptied with the environment, at the rule's first call on the next input.
// Returns true when the budget has just run out.
bool RunsOut(LuaState::Budget* b) {
  if (b->count > b->max) {
    if (b->input_max) {
      std::snprintf(b->why, sizeof b->why, "instruction budget of this input exceeded (%llu instructions, all calls)",
                    static_cast<unsigned long long>(kInputInstructionCalls * b->call_max));
    } else {
      std::snprintf(b->why, sizeof b->why, "instruction budget exceeded (%llu instructions per call)",
                    static_cast<unsigned long long>(b->max));
    }
  } else if (PastDeadline(b)) {
    if (b->input_deadline) {
      std::snprintf(b->why, sizeof b->why, "time limit of this input exceeded (%llu ms of CPU, all calls)",
                    static_cast<unsigned long long>(kInputTimeCalls * b->ms));
    } else {
      std::snprintf(b->why, sizeof b->why, "time limit exceeded (%u ms of CPU per call)", static_cast<unsigned>(b->ms));
    }
  } else {
    return false;
  }
  b->overrun = true;
  CheckSoon(b);
  return true;
}

void CountHook(lua_State* L, lua_Debug* ar) {
  LuaState::Budget* b = BudgetOf(L);
  if (!b->overrun) {
    b->count += static_cast<std::uint64_t>(b->pace);
    if (!RunsOut(b)) {
      if (b->pace != kHookStep) {  // an early check (CheckSoon): back to the normal pace
        b->pace = kHookStep;
        lua_sethook(L, CountHook, LUA_MASKCOUNT, kHookStep);
      }
      return;
    }
  }
  lua_getinfo(L, "Sl", ar);
  lua_pushfstring(L, "%s:%d: %s", ar->short_src, ar->currentline, b->why);
  lua_error(L);
}

const char* ChargePattern(lua_State* L, std::uint64_t steps) {
  LuaState::Budget* b = BudgetOf(L);
  if (b->overrun) return b->why;
  b->count += steps;
  return RunsOut(b) ? b->why : nullptr;
}

// Starts a call's budget: a fresh count and deadline, the hook at its normal pace.
void StartBudget(lua_State* L, LuaState::Budget* b) {
  b->count = 0;
  b->overrun = false;
  b->why[0] = '\0';
  const std::uint64_t ns = std::uint64_t{b->ms} * 1000000u;
  b->input_deadline = b->input_ns < ns;
  b->started = CpuNanos();
  b->deadline = b->started + (b->input_deadline ? b->input_ns : ns);
  b->widened = 0;
  b->clock_due = kHookStep;
  b->allocated = 0;
  b->pace = kHookStep;
  lua_sethook(L, CountHook, LUA_MASKCOUNT, kHookStep);
}

// Message handler: keeps string errors, names the type of anything else (never calls __tostring,
// which is rule code that could itself loop or fail).
int MessageHandler(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) return 1;
  lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  return 1;
}

int Stopped(lua_State* L) {
  lua_pushboolean(L, BudgetOf(L)->overrun);
  return 1;
}

// Note: [Per-input memo] per_input's fn runs once for all the calls of a rule on one input, so it is
// held to what the input has left (Note: [Lua input budget]: 32 times a call's instructions, 8 times
// its CPU time, less what earlier calls used), not to the calling function's own limits; what it
// uses counts to the input, and the rest of the call keeps the call's own limits as if fn had not
// run. WidenBudget and NarrowBudget bracket fn (nested per_input calls: the outermost pair counts).
// Outside a call of LuaState::Call (the file running at load) nothing changes.
int WidenBudget(lua_State* L) {
  LuaState::Budget* b = BudgetOf(L);
  if (b->overrun || b->input_left == 0 || b->widened++ > 0) return 0;
  b->saved_count = b->count;
  b->saved_max = b->max;
  b->saved_input_max = b->input_max;
  b->saved_deadline = b->deadline;
  b->saved_input_deadline = b->input_deadline;
  b->saved_ns = CpuNanos();
  b->max = b->input_left;
  b->input_max = true;
  b->deadline = b->input_ns == ~std::uint64_t{0} ? b->deadline : b->started + b->input_ns;
  b->input_deadline = true;
  return 0;
}

int NarrowBudget(lua_State* L) {
  LuaState::Budget* b = BudgetOf(L);
  if (b->overrun || b->input_left == 0 || b->widened == 0 || --b->widened > 0) return 0;
  const std::uint64_t used = b->count - b->saved_count;
  const std::uint64_t ns = CpuNanos() - b->saved_ns;
  // The call's own limits, moved on by what fn used, within what the input has left.
  b->max = std::min(b->input_left, b->saved_max + used);
  b->input_max = b->saved_input_max || b->max == b->input_left;
  const std::uint64_t input_end = b->input_ns == ~std::uint64_t{0} ? ~std::uint64_t{0} : b->started + b->input_ns;
  b->deadline = std::min(input_end, b->saved_deadline + ns);
  b->input_deadline = b->saved_input_deadline || b->deadline == input_end;
  return 0;
}

int OpenLibs(lua_State* L) {
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  InstallCountedPatterns(L, ChargePattern);  // before anything copies the library
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
  lua_settop(L, 0);
  // Note: [Set-up bytecode]: the build's bytecode; else the process's first state parses the source, as
  // making the bytecode would, and later ones load what the scratch state made of it.
  static std::atomic<bool> embedded{kSetupBytecodeSize > 0};
  int status = LUA_ERRSYNTAX;
  if (embedded.load(std::memory_order_relaxed)) {
    status = luaL_loadbufferx(L, reinterpret_cast<const char*>(kSetupBytecode), kSetupBytecodeSize, "=triage-setup", "b");
    if (status == LUA_ERRSYNTAX) embedded.store(false, std::memory_order_relaxed);  // this Lua refuses it
    if (status == LUA_ERRMEM) return lua_error(L);
    if (status != LUA_OK) lua_pop(L, 1);
  }
  if (status != LUA_OK) {
    static std::atomic<bool> first{true};
    const std::string* bytecode = first.exchange(false) ? nullptr : &SetupBytecode();
    status = bytecode == nullptr || bytecode->empty()
                 ? luaL_loadbufferx(L, kSetup, sizeof kSetup - 1, "=triage-setup", "t")
                 : luaL_loadbufferx(L, bytecode->data(), bytecode->size(), "=triage-setup", "b");
  }
  if (status != LUA_OK) return lua_error(L);
  lua_pushcfunction(L, Stopped);
  lua_pushcfunction(L, WidenBudget);
  lua_pushcfunction(L, NarrowBudget);
  lua_call(L, 3, 2);
  lua_setfield(L, LUA_REGISTRYINDEX, kFreezeKey);
  lua_setfield(L, LUA_REGISTRYINDEX, kMakeEnvKey);
  // The state's own globals keep load, require & co. for nobody: rules only ever see their env.
  return 0;
}

struct LoadArgs {
  const std::vector<LuaChunk>* chunks;
  int failed_chunk;
  bool syntax;
  int env_ref;
  bool plain = false;  // a plain table for the environment, not frozen (Note: [Inline-only checks])
};

// Builds an environment, runs every chunk in it, freezes it; leaves the environment on the stack.
int LoadChunks(lua_State* L) {
  auto* a = static_cast<LoadArgs*>(lua_touserdata(L, 1));
  if (a->plain) {
    lua_newtable(L);
  } else {
    lua_getfield(L, LUA_REGISTRYINDEX, kMakeEnvKey);
    lua_call(L, 0, 1);
  }
  int env = lua_gettop(L);
  for (int k = 0; k < static_cast<int>(a->chunks->size()); ++k) {
    const LuaChunk& c = (*a->chunks)[k];
    a->failed_chunk = k;
    lua_pushfstring(L, "=%d", k);
    // Note: [Bundled rule bytecode]: a first chunk whose bytes are a bundled file's is loaded from the
    // build's compile of those bytes under this very name; anything else (or bytecode this Lua refuses)
    // is compiled here.
    int status = LUA_ERRSYNTAX;
    if (const std::string_view code = k == 0 ? BundledLuaBytecode(c.code) : std::string_view(); !code.empty()) {
      status = luaL_loadbufferx(L, code.data(), code.size(), lua_tostring(L, -1), "b");
      if (status != LUA_OK) lua_pop(L, 1);
    }
    if (status != LUA_OK) status = luaL_loadbufferx(L, c.code.data(), c.code.size(), lua_tostring(L, -1), "t");
    if (status != LUA_OK) {
      a->syntax = status == LUA_ERRSYNTAX;
      return lua_error(L);
    }
    lua_pushvalue(L, env);
    lua_setupvalue(L, -2, 1);  // _ENV of the main chunk
    lua_call(L, 0, 0);
    lua_pop(L, 1);             // the chunk name
  }
  a->failed_chunk = -1;
  if (!a->plain) {
    lua_getfield(L, LUA_REGISTRYINDEX, kFreezeKey);
    lua_pushvalue(L, env);
    lua_call(L, 1, 0);
  }
  lua_settop(L, env);
  a->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

void SetString(lua_State* L, const char* key, const std::string& v) {
  lua_pushlstring(L, v.data(), v.size());
  lua_setfield(L, -2, key);
}
void SetInt(lua_State* L, const char* key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}

void PushIncident(lua_State* L, const Incident& inc, int index) {
  lua_createtable(L, 0, 14);
  SetInt(L, "index", index + 1);
  lua_pushstring(L, IncidentKindName(inc.kind));
  lua_setfield(L, -2, "kind");
  SetString(L, "exception", inc.exception);
  SetString(L, "message", inc.message);
  lua_pushboolean(L, inc.CutBeforeExceptionLine());
  lua_setfield(L, -2, "cut");
  SetInt(L, "line_start", inc.line_start);
  SetInt(L, "line_end", inc.line_end);
  SetInt(L, "count", inc.count);
  SetString(L, "rank", inc.rank);
  if (inc.culprit >= 0) SetInt(L, "culprit", inc.culprit + 1);
  if (inc.caused_by >= 0) SetInt(L, "caused_by", inc.caused_by + 1);
  lua_createtable(L, static_cast<int>(inc.frames.size()), 0);
  for (size_t i = 0; i < inc.frames.size(); ++i) {
    const Frame& f = inc.frames[i];
    lua_createtable(L, 0, 5);
    SetString(L, "file", f.file);
    SetInt(L, "line", f.line);
    SetString(L, "func", f.function);
    SetString(L, "source", f.source);
    lua_pushboolean(L, f.user);
    lua_setfield(L, -2, "user");
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "frames");
  lua_createtable(L, static_cast<int>(inc.context.size()), 0);
  for (size_t i = 0; i < inc.context.size(); ++i) {
    lua_pushlstring(L, inc.context[i].data(), inc.context[i].size());
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "context");
}

void PushStringMap(lua_State* L, const std::map<std::string, std::string>* m) {
  lua_createtable(L, 0, m ? static_cast<int>(m->size()) : 0);
  if (!m) return;
  for (const auto& kv : *m) {
    lua_pushlstring(L, kv.first.data(), kv.first.size());
    lua_pushlstring(L, kv.second.data(), kv.second.size());
    lua_rawset(L, -3);
  }
}

// ctx.metrics: {name = {steps = {...}, values = {...}, count = N, nonfinite = N, recoveries = N}} from the
// collector's downsampled points and its exact counts; x is the printed step, else the epoch, else the
// position in the series.
struct SeriesCopy {
  SeriesId id;
  std::vector<MetricPoint> points;
  std::int64_t count, nonfinite, recoveries;
};
using SeriesPoints = std::vector<SeriesCopy>;

}  // namespace

// The input's series as every rule of a LuaState sees them (Note: [Lazy ctx]).
struct LuaState::SeriesCache {
  const std::vector<Incident>* incidents = nullptr;  // the input they were copied for
  const MetricCollector* metrics = nullptr;
  SeriesPoints points;
};

namespace {

void PushMetrics(lua_State* L, const SeriesPoints* all) {
  lua_newtable(L);
  if (all == nullptr) return;
  for (const SeriesCopy& series : *all) {
    const std::vector<MetricPoint>& points = series.points;
    lua_createtable(L, 0, 5);
    lua_createtable(L, static_cast<int>(points.size()), 0);
    for (size_t k = 0; k < points.size(); ++k) {
      const MetricPoint& pt = points[k];
      lua_pushnumber(L, std::isfinite(pt.step) ? pt.step : std::isfinite(pt.epoch) ? pt.epoch : static_cast<double>(pt.seq));
      lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
    }
    lua_setfield(L, -2, "steps");
    lua_createtable(L, static_cast<int>(points.size()), 0);
    for (size_t k = 0; k < points.size(); ++k) {
      lua_pushnumber(L, points[k].value);
      lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
    }
    lua_setfield(L, -2, "values");
    lua_pushinteger(L, static_cast<lua_Integer>(series.count));
    lua_setfield(L, -2, "count");
    lua_pushinteger(L, static_cast<lua_Integer>(series.nonfinite));
    lua_setfield(L, -2, "nonfinite");
    lua_pushinteger(L, static_cast<lua_Integer>(series.recoveries));
    lua_setfield(L, -2, "recoveries");
    lua_setfield(L, -2, SeriesName(series.id));
  }
}

struct CallArgs {
  const LuaCallInput* input;
  int env_ref;
  int* incidents_ref;
  int* incident_tables_ref;
  int* metrics_ref;
  const SeriesPoints* series;  // copied out of the collector outside the protected call
  const char* name;
  bool missing;
};

// Note: [Lazy ctx] ctx.incidents is a copy of every incident of the input and ctx.metrics of every
// series, made in the rule's own lua_State (Note: [Lua accounts]); most rules read neither, and with
// many Lua rules on an input of many incidents these copies were most of the memory Lua took (a
// thousand rules, ~100 of them called on a 256 MiB log with 64 failures: ~16 of ~24 MB). So ctx
// holds captures, values, incident, probes, confidence and rule, and a protected metatable whose
// __index makes `incidents` or `metrics` at its first read, then stores it in ctx (rawset), so later
// reads are plain; __pairs makes both first, so pairs(ctx) lists every field. What a read gets is what
// was there before: one table per input for all the calls of the rule (per_input and the rules'
// memos rely on it), holding ctx.incident's own table at its index. Only rawget(ctx, "incidents")
// and next(ctx) before any read see the difference. The incident tables made so far are kept per
// input (incident_tables_ref), so ctx.incident is the same table in every call and in the list.

// Pushes the table of incident `i` (0-based) of the call's input, made once per input.
void PushIncidentTable(lua_State* L, CallArgs* a, int i) {
  if (*a->incident_tables_ref == LUA_NOREF) {
    lua_newtable(L);
    *a->incident_tables_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, *a->incident_tables_ref);
  if (lua_rawgeti(L, -1, i + 1) == LUA_TNIL) {
    lua_pop(L, 1);
    PushIncident(L, (*a->input->incidents)[static_cast<size_t>(i)], i);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, i + 1);
  }
  lua_remove(L, -2);
}

// Pushes ctx.incidents or ctx.metrics (`what`), made at the first read of this input.
void PushLazyField(lua_State* L, CallArgs* a, bool incidents) {
  if (incidents) {
    if (a->input->incidents == nullptr) {
      lua_pushnil(L);
      return;
    }
    if (*a->incidents_ref == LUA_NOREF) {
      const size_t n = a->input->incidents->size();
      lua_createtable(L, static_cast<int>(n), 0);
      for (size_t i = 0; i < n; ++i) {
        PushIncidentTable(L, a, static_cast<int>(i));
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
      *a->incidents_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, *a->incidents_ref);
    return;
  }
  if (*a->metrics_ref == LUA_NOREF) {
    PushMetrics(L, a->series);
    *a->metrics_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, *a->metrics_ref);
}

// ctx's __index(ctx, key): makes a lazy field and stores it in ctx; nil for any other key.
int CtxIndex(lua_State* L) {
  auto* a = static_cast<CallArgs*>(BudgetOf(L)->call);
  size_t n = 0;
  const char* key = lua_type(L, 2) == LUA_TSTRING ? lua_tolstring(L, 2, &n) : nullptr;
  const bool incidents = key != nullptr && n == 9 && std::memcmp(key, "incidents", 9) == 0;
  const bool metrics = key != nullptr && n == 7 && std::memcmp(key, "metrics", 7) == 0;
  if (a == nullptr || a->input == nullptr || (!incidents && !metrics)) {
    lua_pushnil(L);
    return 1;
  }
  PushLazyField(L, a, incidents);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, -2);
  lua_rawset(L, 1);
  return 1;
}

// ctx's __pairs(ctx): makes the lazy fields, then iterates ctx as pairs would.
int CtxPairs(lua_State* L) {
  for (const char* key : {"incidents", "metrics"}) {
    lua_pushstring(L, key);
    if (lua_rawget(L, 1) == LUA_TNIL) {
      lua_pushcfunction(L, CtxIndex);
      lua_pushvalue(L, 1);
      lua_pushstring(L, key);
      lua_call(L, 2, 0);
    }
    lua_pop(L, 1);
  }
  lua_getglobal(L, "next");  // the state's own globals keep the base library (OpenLibs)
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Pushes the metatable every ctx of this state gets, made once.
void PushCtxMeta(lua_State* L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "triage.ctx_meta") != LUA_TNIL) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, CtxIndex);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, CtxPairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, "triage.ctx_meta");
}

// Builds ctx and calls env[name](ctx); leaves the one result on the stack.
int CallRuleFunction(lua_State* L) {
  auto* a = static_cast<CallArgs*>(lua_touserdata(L, 1));
  lua_rawgeti(L, LUA_REGISTRYINDEX, a->env_ref);
  lua_getfield(L, -1, a->name);  // the frozen env's __index is a plain table: no rule code runs
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    a->missing = true;
    return luaL_error(L, "no Lua function '%s' in this rule", a->name);
  }
  const LuaCallInput* in = a->input;
  if (in == nullptr) {
    lua_call(L, 0, 1);
    return 1;
  }
  lua_createtable(L, 0, 10);
  if (in->incidents != nullptr && in->incident >= 0 && static_cast<size_t>(in->incident) < in->incidents->size()) {
    PushIncidentTable(L, a, in->incident);
    lua_setfield(L, -2, "incident");
  }
  PushStringMap(L, in->captures);
  lua_setfield(L, -2, "captures");
  PushStringMap(L, in->values);
  lua_setfield(L, -2, "values");
  PushStringMap(L, in->facts);
  lua_setfield(L, -2, "facts");
  lua_newtable(L);
  lua_setfield(L, -2, "probes");
  lua_pushnumber(L, in->confidence);
  lua_setfield(L, -2, "confidence");
  lua_createtable(L, 0, 2);
  SetString(L, "id", in->rule_id);
  SetString(L, "category", in->category);
  lua_setfield(L, -2, "rule");
  PushCtxMeta(L);  // incidents and metrics at their first read (Note: [Lazy ctx])
  lua_setmetatable(L, -2);
  lua_call(L, 1, 1);
  return 1;
}

// What one conversion out of Lua may take: table fields and bytes of text (strings and keys).
struct ConvertBudget {
  int fields;
  std::size_t bytes;
  bool over = false;  // the text did not fit; what was converted is incomplete
};

// Converts the value at `idx` without raising and without running metamethods.
void ToValue(lua_State* L, int idx, int depth, ConvertBudget* budget, LuaValue* out) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
    case LUA_TNIL: out->type = LuaValue::Type::kNil; return;
    case LUA_TBOOLEAN: out->type = LuaValue::Type::kBool; out->boolean = lua_toboolean(L, idx); return;
    case LUA_TNUMBER: out->type = LuaValue::Type::kNumber; out->number = lua_tonumber(L, idx); return;
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      out->type = LuaValue::Type::kString;
      if (n > budget->bytes) {
        budget->over = true;
        return;
      }
      budget->bytes -= n;
      out->string.assign(s, n);
      return;
    }
    case LUA_TTABLE: {
      out->type = LuaValue::Type::kTable;
      if (depth >= kMaxDepth || !lua_checkstack(L, 4)) return;
      lua_pushnil(L);
      while (lua_next(L, idx) != 0) {
        if (--budget->fields < 0 || budget->over) {
          lua_pop(L, 2);
          return;
        }
        std::string key;
        if (lua_type(L, -2) == LUA_TSTRING) {
          size_t n = 0;
          const char* s = lua_tolstring(L, -2, &n);
          if (n > budget->bytes) {
            budget->over = true;
            lua_pop(L, 2);
            return;
          }
          budget->bytes -= n;
          key.assign(s, n);
        } else if (lua_isinteger(L, -2)) {
          key = std::to_string(lua_tointeger(L, -2));
        } else {
          lua_pop(L, 1);
          continue;
        }
        ToValue(L, -1, depth + 1, budget, &out->fields[key]);
        lua_pop(L, 1);
      }
      return;
    }
    default:
      out->type = LuaValue::Type::kOther;
      out->other = luaL_typename(L, idx);
  }
}

// Splits "K:LINE: message" (K the chunk index used as chunk name) into file, line and message.
void Locate(const std::string& raw, const std::vector<std::string>& files, LuaError* error) {
  error->message = raw;
  size_t c1 = raw.find(':');
  if (c1 == std::string::npos || c1 == 0) return;
  size_t c2 = raw.find(':', c1 + 1);
  if (c2 == std::string::npos || c2 == c1 + 1) return;
  for (size_t i = 0; i < c2; ++i) {
    if (i != c1 && (raw[i] < '0' || raw[i] > '9')) return;
  }
  size_t k = std::strtoul(raw.c_str(), nullptr, 10);
  if (k >= files.size()) return;
  error->file = files[k];
  error->line = std::atoi(raw.c_str() + c1 + 1);
  size_t start = c2 + 1;
  while (start < raw.size() && raw[start] == ' ') ++start;
  error->message = raw.substr(start);
}

}  // namespace

bool IsLuaName(const std::string& s) {
  if (s.empty() || s.size() > 100) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Note: [Lua accounts] Each Lua rule has a lua_State of its own, with its own memory cap, budget and
// copy of ctx, so one rule cannot starve, slow down or see the edits of another. Its environment is
// built again, from its chunks, for every input it is called on (lazily, at the first call after
// ResetInput): globals set with rawset, upvalue tables and anything else a call left behind are gone
// before the next input.
struct LuaState::Vm {
  Budget budget;
  std::size_t memory_bytes = 0;    // the rule's cap as the limits state it (budget.limit may add a base)
  lua_State* L = nullptr;
  std::vector<LuaChunk> chunks;
  std::vector<std::string> files;  // of each chunk (chunk k is named "=k")
  int env_ref = LUA_NOREF;
  int incidents_ref = LUA_NOREF;   // ctx.incidents, made once per input at its first read
  int incident_tables_ref = LUA_NOREF;  // the incident tables made so far this input (Note: [Lazy ctx])
  int metrics_ref = LUA_NOREF;     // ctx.metrics, made once per input at its first read
  const std::vector<Incident>* cached_for = nullptr;
  // What this input's calls have used so far (Note: [Lua input budget]).
  std::uint64_t input_instructions = 0;
  std::uint64_t input_ns = 0;
  bool used = false;               // called since the environment was built
  bool stale = false;              // used by an earlier input: build the environment again
  ~Vm() {
    if (L) lua_close(L);
  }
};

namespace {

// Note: [Lua in the C locale]
// Lua converts numbers with the C library: tostring, `..`, string.format and the error messages print
// through snprintf (LUAI_NUMFFORMAT, "%.14g"), tonumber reads through strtod, and string.upper/lower,
// and a pattern class where Lua's own string library is used, ask <ctype.h>. All of them follow the
// C locale, which the embedding process owns: after setlocale(LC_NUMERIC, "de_DE.UTF-8"),
// tostring(0.5) would be "0,5" and tonumber("0,5") 0.5, so a rule's message, captures and checks would
// change with the host. Debian's liblua5.4 is a shared library, so LUAI_NUMFFORMAT cannot be changed.
// Instead every run of Lua code (CallBudgeted, and the set-up in StartVm) runs with the calling
// thread's locale set to "C" (uselocale, POSIX 2008), put back when it returns: other threads, and
// the host after the call, keep theirs. Rule scripts therefore always see the "C" locale's numbers
// ('.' as the decimal point) and ASCII character classes (rules/LUA_API.md "Numbers and text").
class CLocaleScope {
 public:
  CLocaleScope() {
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
    if (c_locale != static_cast<locale_t>(0)) previous_ = uselocale(c_locale);
  }
  ~CLocaleScope() {
    if (previous_ != static_cast<locale_t>(0)) uselocale(previous_);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t previous_ = static_cast<locale_t>(0);
};

// Calls fn(args) in vm's state under a fresh budget, with the message handler, in the "C" locale
// (Note: [Lua in the C locale]); leaves the handler and either nresults results or the error on the
// stack. Returns the lua_pcall status.
int CallBudgeted(LuaState::Vm* vm, lua_CFunction fn, void* args, int nresults) {
  CLocaleScope c_locale;
  lua_State* L = vm->L;
  int handler = lua_gettop(L) + 1;
  lua_pushcfunction(L, MessageHandler);
  lua_pushcfunction(L, fn);
  lua_pushlightuserdata(L, args);
  StartBudget(L, &vm->budget);
  return lua_pcall(L, 1, nresults, handler);
}

// Drops vm's environment and the input's ctx caches.
void DropEnv(LuaState::Vm* vm) {
  for (int* ref : {&vm->env_ref, &vm->incidents_ref, &vm->incident_tables_ref, &vm->metrics_ref}) {
    if (*ref != LUA_NOREF) luaL_unref(vm->L, LUA_REGISTRYINDEX, *ref);
    *ref = LUA_NOREF;
  }
}

// Runs the chunks into a fresh environment of vm (dropping the old one and the input's ctx caches).
// `collect`: collect garbage first (false when the caller just did). `chunks`: the chunks to run when
// not vm's own (CheckRule's, run once and not kept). `plain`: the chunks run in a plain table (Note:
// [Inline-only checks]).
bool BuildEnv(LuaState::Vm* vm, LuaError* error, bool collect = true, const std::vector<LuaChunk>* chunks = nullptr,
              bool plain = false) {
  if (chunks == nullptr) chunks = &vm->chunks;
  lua_State* L = vm->L;
  DropEnv(vm);
  vm->cached_for = nullptr;
  vm->input_instructions = vm->input_ns = 0;
  vm->used = vm->stale = false;
  if (collect) lua_gc(L, LUA_GCCOLLECT);
  LoadArgs args{chunks, -1, false, LUA_NOREF, plain};
  int base = lua_gettop(L);
  int status = CallBudgeted(vm, LoadChunks, &args, 0);
  if (status == LUA_OK) {
    vm->env_ref = args.env_ref;
    lua_settop(L, base);
    return true;
  }
  std::string raw = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error while loading";
  lua_settop(L, base);
  Locate(raw, vm->files, error);
  if (error->file.empty() && args.failed_chunk >= 0) error->file = (*chunks)[args.failed_chunk].file;
  error->code = status == LUA_ERRMEM     ? "lua-memory"
                : vm->budget.overrun     ? "lua-budget"
                : args.syntax            ? "lua-syntax"
                                         : "lua-error";
  if (status == LUA_ERRMEM) {
    error->message = "out of memory while loading (limit " + std::to_string(vm->memory_bytes) + " bytes per rule)";
  }
  lua_gc(L, LUA_GCCOLLECT);
  return false;
}

// The global functions a rule's loaded environment defines, with the line each is defined on. `plain`:
// the environment is a plain table holding them (Note: [Inline-only checks]), not a frozen one.
std::map<std::string, int> FunctionsOf(const LuaState::Vm* vm, bool plain = false) {
  std::map<std::string, int> out;
  lua_State* L = vm->L;
  int base = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->env_ref);
  bool globals = false;  // the table of the rule's globals is on top
  if (plain) {
    globals = lua_type(L, -1) == LUA_TTABLE;
  } else {
    globals = lua_getmetatable(L, -1) && lua_getfield(L, -1, "__index") == LUA_TTABLE;
  }
  if (globals) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
        lua_Debug ar;
        lua_pushvalue(L, -1);
        lua_getinfo(L, ">S", &ar);
        // Only functions written in the rule's own chunks (named "=K") count, not the copied library.
        if (ar.what[0] == 'L' && ar.source[0] == '=' && ar.source[1] >= '0' && ar.source[1] <= '9') {
          out[lua_tostring(L, -2)] = ar.linedefined;
        }
      }
      lua_pop(L, 1);
    }
  }
  lua_settop(L, base);
  return out;
}

// Converts global `name` of a rule's loaded environment (LuaState::GetGlobal).
bool GlobalOf(const LuaState::Vm* vm, const std::string& name, LuaValue* out, LuaError* error) {
  lua_State* L = vm->L;
  int base = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->env_ref);
  bool ok = false;
  if (lua_getmetatable(L, -1) && lua_getfield(L, -1, "__index") == LUA_TTABLE) {
    // Found by iteration, not lua_getfield: interning a new key string could raise out of pcall.
    *out = LuaValue();
    ok = true;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      size_t n = 0;
      if (lua_type(L, -2) == LUA_TSTRING) {
        const char* k = lua_tolstring(L, -2, &n);
        if (name.size() == n && std::memcmp(k, name.data(), n) == 0) {
          ConvertBudget budget{kMaxFields * 10, kMaxGlobalBytes};
          ToValue(L, -1, 0, &budget, out);
          if (budget.over) {
            ok = false;
            error->code = "lua-bad-return";
            error->message = "'" + name + "' holds more than " + std::to_string(kMaxGlobalBytes) + " bytes of text";
          }
          lua_pop(L, 2);
          break;
        }
      }
      lua_pop(L, 1);
    }
  }
  lua_settop(L, base);
  return ok;
}

}  // namespace

LuaState::LuaState(const LuaLimits& limits) : limits_(limits) {}

std::unique_ptr<LuaState> LuaState::Create(const LuaLimits& limits) {
  return std::unique_ptr<LuaState>(new LuaState(limits));
}

LuaState::~LuaState() = default;

std::size_t LuaState::memory_used() const {
  std::size_t n = 0;
  for (const auto& kv : vms_) n += kv.second->budget.used;
  return n;
}

bool LuaState::HasRule(int slot) const { return vms_.count(slot) > 0; }

LuaState::Vm* LuaState::Find(int slot) const {
  auto it = vms_.find(slot);
  return it == vms_.end() ? nullptr : it->second.get();
}

std::unique_ptr<LuaState::Vm> LuaState::StartVm(const std::string& file, LuaError* error) const {
  auto vm = std::make_unique<Vm>();
  vm->budget.limit = vm->memory_bytes = limits_.memory_bytes;
  vm->budget.max = ~std::uint64_t{0};  // set-up is trusted and small: room even under a tiny cap
  vm->L = lua_newstate(Alloc, &vm->budget);
  bool started = vm->L != nullptr;
  if (started) {
    lua_setwarnf(vm->L, nullptr, nullptr);  // an embedded library prints nothing
    vm->budget.L = vm->L;
    vm->budget.pace = kHookStep;
    lua_sethook(vm->L, CountHook, LUA_MASKCOUNT, kHookStep);
    lua_pushcfunction(vm->L, OpenLibs);
    CLocaleScope c_locale;  // Note: [Lua in the C locale]
    started = lua_pcall(vm->L, 0, 0, 0) == LUA_OK;
  }
  if (!started) {
    error->code = "lua-unavailable";
    error->file = file;
    error->message = "could not start Lua (memory limit " + std::to_string(limits_.memory_bytes) + " bytes per rule)";
    return nullptr;
  }
  vm->budget.max = vm->budget.call_max = limits_.instructions;
  vm->budget.ms = limits_.milliseconds;
  return vm;
}

bool LuaState::LoadRule(int slot, const std::vector<LuaChunk>& chunks, LuaError* error) {
  vms_.erase(slot);
  std::unique_ptr<Vm> vm = StartVm(chunks.empty() ? "" : chunks[0].file, error);
  if (!vm) return false;
  vm->chunks = chunks;
  for (const LuaChunk& c : chunks) vm->files.push_back(c.file);
  if (!BuildEnv(vm.get(), error)) return false;
  vms_[slot] = std::move(vm);
  return true;
}

// Note: [Shared check state]
// A load that reads rule files checks each Lua rule by running its chunks (syntax, top-level errors
// and limits, the functions it defines, a whole-Lua rule's `rule` table): with no rule cache, all of
// them (~95 for the bundled rules). Each in a lua_State of its own cost ~0.55 M instructions a rule
// for the state alone (libraries, set-up chunk, closing), ~50 M of a no-cache start, for states that
// were closed unused when the load ended (a diagnosis makes its own, Note: [Lua threads]). The checks
// now share one state: each rule's chunks run in a fresh environment built by the same make_env as a
// rule's own state's (copies of the libraries and the `triage` table, the frozen globals), and the
// environment is dropped and collected when the check is done, so nothing a rule's top level made is
// reachable from the next rule's (the libraries' originals, the string metatable and the registry are
// out of a rule's reach, as in a state of its own). Limits: instructions and time are per run of the
// chunks (CallBudgeted starts a fresh budget); memory is capped at what the state holds after a full
// collection plus the room a fresh state leaves a rule (memory_bytes less the state's own use), so a
// rule gets the same room whichever rules were checked before it. Errors carry the same codes, files,
// lines and messages. Only the load's checks share a state: diagnosing still runs each rule in a state
// of its own (Note: [Lua accounts]).
//
// Note: [Inline-only checks]
// A rule whose only Lua is its inline `lua: EXPRESSION` values (no .lua file: 56 of the 142 bundled
// rules with Lua) has chunks the reader wrote itself, each one assignment of a function to a global
// (rules/rule_reader.cc, ReadLuaRef). Their top level cannot fail, reach a library or use more than a
// few instructions, so what the check must find is whether each compiles and which functions they
// define: they are compiled and run as before (same chunk names, state, limits and errors), but in a
// plain table instead of an environment from make_env (~150 K instructions a rule: the libraries
// copied) that is not frozen, and the functions are read from that table. The room a compile has is
// the environment's copies (~20 KB) more than before under the same cap.
bool LuaState::CheckRule(const std::vector<LuaChunk>& chunks, const char* global, RuleCheck* out, LuaError* error,
                         bool inline_only) {
  const std::string first_file = chunks.empty() ? "" : chunks[0].file;
  if (!check_) {  // each check tries again after a failure, as a state of the rule's own would
    check_ = StartVm(first_file, error);
    if (!check_) return false;
    lua_gc(check_->L, LUA_GCCOLLECT);
    check_base_ = check_->budget.used;
  }
  Vm* vm = check_.get();
  lua_gc(vm->L, LUA_GCCOLLECT);
  vm->budget.limit = vm->budget.used + (limits_.memory_bytes - check_base_);
  vm->files.clear();
  for (const LuaChunk& c : chunks) vm->files.push_back(c.file);
  const bool plain = inline_only && global == nullptr;
  const bool loaded = BuildEnv(vm, error, false, &chunks, plain);  // the chunks are run, not copied into vm
  if (loaded) {
    out->functions = FunctionsOf(vm, plain);
    if (global != nullptr) out->global_ok = GlobalOf(vm, global, &out->global, error);
  }
  DropEnv(vm);
  return loaded;
}

std::map<std::string, int> LuaState::Functions(int slot) const {
  Vm* vm = Find(slot);
  return vm == nullptr ? std::map<std::string, int>() : FunctionsOf(vm);
}

bool LuaState::GetGlobal(int slot, const std::string& name, LuaValue* out, LuaError* error) {
  Vm* vm = Find(slot);
  if (vm == nullptr) {
    error->code = "lua-error";
    error->message = "rule not loaded";
    return false;
  }
  return GlobalOf(vm, name, out, error);
}

void LuaState::ResetInput() {
  for (auto& kv : vms_) kv.second->stale = kv.second->stale || kv.second->used;
  series_.reset();
}

bool LuaState::Call(int slot, const std::string& name, const LuaCallInput* input, LuaValue* result,
                    LuaError* error) {
  Vm* vm = Find(slot);
  if (vm == nullptr && pending_ != nullptr && slot >= 0 && static_cast<size_t>(slot) < pending_->rules.size()) {
    // The rule's first call in this state (Note: [Lua threads]): load it now, once. A failure (memory)
    // is reported below as a rule that did not load, as when every rule was loaded up front.
    if (tried_.size() < pending_->rules.size()) tried_.resize(pending_->rules.size());
    const Rule& rule = pending_->Full(slot);  // its chunks' code (Note: [Texts on demand])
    if (!tried_[static_cast<size_t>(slot)] && !rule.lua_chunks.empty()) {
      tried_[static_cast<size_t>(slot)] = true;
      LuaError ignored;  // the loader ran the same code
      if (LoadRule(slot, rule.lua_chunks, &ignored)) vm = Find(slot);
    }
  }
  if (vm == nullptr) {
    error->code = "lua-error";
    error->message = "the rule's Lua did not load in this state";
    return false;
  }
  // A new input gets the rule as its file left it (Note: [Lua accounts]).
  if (vm->stale && !BuildEnv(vm, error)) return false;
  vm->used = true;
  lua_State* L = vm->L;
  if (input != nullptr && input->incidents != vm->cached_for) {
    for (int* ref : {&vm->incidents_ref, &vm->incident_tables_ref, &vm->metrics_ref}) {
      if (*ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, *ref);
      *ref = LUA_NOREF;
    }
    vm->cached_for = input->incidents;
  }
  // Series are copied here, once per input for all the rules of this state, outside the protected
  // call, so no C++ object lives in a frame Lua may longjmp over; a rule's ctx.metrics is made from
  // them at its first read (Note: [Lazy ctx]).
  if (input != nullptr && (!series_ || series_->incidents != input->incidents || series_->metrics != input->metrics)) {
    if (!series_) series_ = std::make_unique<SeriesCache>();
    series_->incidents = input->incidents;
    series_->metrics = input->metrics;
    series_->points.clear();
    if (input->metrics != nullptr) {
      for (int i = 0; i < kSeriesCount; ++i) {
        if (const MetricSeries* s = input->metrics->Find(static_cast<SeriesId>(i))) {
          series_->points.push_back({static_cast<SeriesId>(i), s->Points(), s->count(), s->nonfinite_count(), s->recoveries()});
        }
      }
    }
  }
  CallArgs args{input, vm->env_ref, &vm->incidents_ref, &vm->incident_tables_ref, &vm->metrics_ref,
                series_ ? &series_->points : nullptr, name.c_str(), false};
  int base = lua_gettop(L);
  // This call gets its own limits, or what the input has left when that is less (Note: [Lua input
  // budget]); what it used is added to the input's account, whether it failed or not.
  Budget& b = vm->budget;
  const std::uint64_t input_max = kInputInstructionCalls * b.call_max;
  const std::uint64_t input_ns = kInputTimeCalls * b.ms * std::uint64_t{1000000};
  if (vm->input_instructions >= input_max || vm->input_ns >= input_ns) {
    error->code = "lua-budget";
    error->file = vm->files.empty() ? "" : vm->files[0];
    error->line = 0;
    error->message = vm->input_instructions >= input_max
                         ? "instruction budget of this input exceeded (" + std::to_string(input_max) + " instructions, all calls)"
                         : "time limit of this input exceeded (" + std::to_string(kInputTimeCalls * b.ms) + " ms of CPU, all calls)";
    return false;
  }
  b.input_max = input_max - vm->input_instructions < b.call_max;
  b.max = b.input_max ? input_max - vm->input_instructions : b.call_max;
  b.input_left = input_max - vm->input_instructions;
  b.input_ns = input_ns - vm->input_ns;
  const std::uint64_t started = CpuNanos();
  b.call = &args;
  int status = CallBudgeted(vm, CallRuleFunction, &args, 1);
  b.call = nullptr;
  vm->input_ns += CpuNanos() - started;
  vm->input_instructions += b.count;
  b.max = b.call_max;
  b.input_max = false;
  b.input_left = 0;
  b.input_ns = ~std::uint64_t{0};
  if (status != LUA_OK) {
    std::string raw = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error";
    lua_settop(L, base);
    Locate(raw, vm->files, error);
    if (error->file.empty() && !vm->files.empty()) error->file = vm->files[0];
    error->code = status == LUA_ERRMEM ? "lua-memory" : vm->budget.overrun ? "lua-budget" : "lua-error";
    if (status == LUA_ERRMEM) {
      error->message = "'" + name + "' ran out of memory (limit " + std::to_string(vm->memory_bytes) +
                       " bytes per rule)";
    }
    if (args.missing) error->code = "lua-missing-function";
    lua_gc(L, LUA_GCCOLLECT);
    return false;
  }
  ConvertBudget budget{kMaxFields, kMaxReturnBytes};
  *result = LuaValue();
  ToValue(L, -1, 0, &budget, result);
  lua_settop(L, base);
  if (vm->budget.used > vm->budget.limit / 2) lua_gc(L, LUA_GCCOLLECT);
  if (budget.over) {
    *result = LuaValue();
    error->code = "lua-bad-return";
    error->file = vm->files.empty() ? "" : vm->files[0];
    error->line = 0;
    error->message = "'" + name + "' returned more than " + std::to_string(kMaxReturnBytes) + " bytes of text";
    return false;
  }
  return true;
}

namespace {

// Note: [Expression checks]
// A load compiles each inline `lua: EXPRESSION` alone to check it is one expression (LuaExpressionError;
// ~90 for the bundled rules with no cache). Starting and closing a lua_State for each was ~80 K
// instructions, most of a check. Each thread now keeps one state for these compiles, emptied and
// collected after each, and a compile gets the room a state of its own would have left it (the cap less
// a fresh state's own memory), so an expression fails for memory where it failed before. Nothing is run
// in it: the compiled function is dropped.
struct ExpressionChecker {
  LuaState::Budget budget;
  lua_State* L = nullptr;
  std::size_t fresh = 0;  // a fresh state's memory in use
  ~ExpressionChecker() {
    if (L) lua_close(L);
  }
  bool Start() {
    if (L) return true;
    budget.used = 0;
    budget.limit = 1u << 20;
    L = lua_newstate(Alloc, &budget);
    fresh = budget.used;
    return L != nullptr;
  }
};

}  // namespace

std::string LuaExpressionError(const std::string& code) {
  thread_local ExpressionChecker checker;  // Note: [Expression checks]
  if (!checker.Start()) return "could not start Lua";
  lua_State* L = checker.L;
  const std::size_t cap = (1u << 20) + 64 * code.size();  // parsing only
  checker.budget.limit = checker.budget.used + (cap - checker.fresh);
  const std::string text = "return (" + code + "\n)";
  std::string why;
  if (luaL_loadbufferx(L, text.data(), text.size(), "=expression", "t") != LUA_OK) {
    why = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "not an expression";
    if (why.rfind("expression:", 0) == 0) {
      size_t colon = why.find(": ");
      if (colon != std::string::npos) why = why.substr(colon + 2);
    }
  }
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT);
  return why;
}

LuaRuntime::LuaRuntime(const RuleSet* rules, LuaLimits limits) : rules_(rules), limits_(limits) {}
LuaRuntime::~LuaRuntime() = default;

LuaRuntime::Lease::Lease(LuaRuntime* owner, std::unique_ptr<LuaState> state)
    : owner_(owner), state_(std::move(state)) {}

LuaRuntime::Lease::~Lease() {
  if (owner_ && state_) owner_->Release(std::move(state_));
}

LuaRuntime::Lease LuaRuntime::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      std::unique_ptr<LuaState> s = std::move(free_.back());
      free_.pop_back();
      s->ResetInput();
      return Lease(this, std::move(s));
    }
  }
  std::unique_ptr<LuaState> s = LuaState::Create(limits_);
  if (!s) return Lease(this, nullptr);
  // Each rule's VM is made at its first call (Note: [Lua threads]); a failure then (memory) disables
  // the rule per call.
  s->LoadOnFirstCall(rules_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++created_;
  }
  return Lease(this, std::move(s));
}

void LuaRuntime::Release(std::unique_ptr<LuaState> state) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(state));
}

int LuaRuntime::states_created() const {
  std::lock_guard<std::mutex> lock(mu_);
  return created_;
}

}  // namespace triage
