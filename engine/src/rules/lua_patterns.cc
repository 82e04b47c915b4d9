// Counted Lua pattern matching: Note: [Counted patterns] in lua_patterns.h.
//
// Errors leave these functions by longjmp (lua_error), so no frame here holds an object with a
// destructor: the matcher's state is a plain struct and results are built on the Lua stack.
#include "rules/lua_patterns.h"
#include "triage/locale_free.h"

#include <cstddef>
#include <cstring>

#include <lua.hpp>

namespace triage {
namespace {

constexpr int kMaxCaptures = 32;       // as LUA_MAXCAPTURES
constexpr int kMaxDepth = 200;         // nested matcher calls before "pattern too complex"
constexpr std::uint64_t kBatch = 4096; // steps between charges
constexpr std::ptrdiff_t kOpen = -1;   // capture started, not closed
constexpr std::ptrdiff_t kPosition = -2;  // "()" capture
constexpr char kSpecials[] = "^$*+?.([%-";

struct Capture {
  const char* start;
  std::ptrdiff_t len;
};

struct Matcher {
  lua_State* L;
  PatternCharge charge;
  const char* begin;  // subject
  const char* end;
  const char* pend;   // pattern end
  int level;          // captures in use
  int depth;          // nested calls left
  std::uint64_t steps;
  Capture cap[kMaxCaptures];
};

[[noreturn]] void Fail(lua_State* L, const char* message) {
  luaL_where(L, 1);  // the Lua code that called the string function (as luaL_error)
  lua_pushstring(L, message);
  lua_concat(L, 2);
  lua_error(L);
  for (;;) {}  // lua_error does not return
}

void ChargeNow(Matcher* m) {
  const char* stop = m->charge(m->L, m->steps);
  m->steps = 0;
  if (stop != nullptr) Fail(m->L, stop);
}

inline void Step(Matcher* m, std::uint64_t n = 1) {
  m->steps += n;
  if (m->steps >= kBatch) ChargeNow(m);
}

bool ClassHas(unsigned char c, unsigned char cls) {
  bool in;
  switch (AsciiLower(cls)) {
    case 'a': in = IsAsciiAlpha(c); break;
    case 'c': in = IsAsciiCntrl(c); break;
    case 'd': in = IsAsciiDigit(c); break;
    case 'g': in = IsAsciiGraph(c); break;
    case 'l': in = IsAsciiLower(c); break;
    case 'p': in = IsAsciiPunct(c); break;
    case 's': in = IsAsciiSpace(c); break;
    case 'u': in = IsAsciiUpper(c); break;
    case 'w': in = IsAsciiAlnum(c); break;
    case 'x': in = IsAsciiXDigit(c); break;
    case 'z': in = c == 0; break;  // deprecated in the manual, still accepted
    default: return cls == c;  // %. for a non-letter is the character itself
  }
  return IsAsciiUpper(cls) ? !in : in;
}

// Returns the end of the single-character class starting at p: past '.', a char, "%x" or "[set]".
const char* ClassEnd(Matcher* m, const char* p) {
  char c = *p++;
  if (c == '%') {
    if (p >= m->pend) Fail(m->L, "malformed pattern (ends with '%')");
    return p + 1;
  }
  if (c != '[') return p;
  if (p < m->pend && *p == '^') ++p;
  // The first character of a set is a member even when it is ']'.
  do {
    if (p >= m->pend) Fail(m->L, "malformed pattern (missing ']')");
    char d = *p++;
    if (d == '%' && p < m->pend) ++p;
  } while (p >= m->pend || *p != ']');
  return p + 1;
}

// Whether c is in the set [..] that starts at open ('[') and whose ']' is at close.
bool SetHas(unsigned char c, const char* open, const char* close) {
  const char* p = open + 1;
  bool negate = *p == '^';
  if (negate) ++p;
  for (; p < close; ++p) {
    if (*p == '%') {
      ++p;
      if (ClassHas(c, static_cast<unsigned char>(*p))) return !negate;
    } else if (p + 2 < close && p[1] == '-') {
      if (static_cast<unsigned char>(p[0]) <= c && c <= static_cast<unsigned char>(p[2])) return !negate;
      p += 2;
    } else if (static_cast<unsigned char>(*p) == c) {
      return !negate;
    }
  }
  return negate;
}

// Whether the subject character at s matches the class [p, ep).
bool One(Matcher* m, const char* s, const char* p, const char* ep) {
  Step(m);
  if (s >= m->end) return false;
  unsigned char c = static_cast<unsigned char>(*s);
  switch (*p) {
    case '.': return true;
    case '%': return ClassHas(c, static_cast<unsigned char>(p[1]));
    case '[': return SetHas(c, p, ep - 1);
    default: return static_cast<unsigned char>(*p) == c;
  }
}

const char* Match(Matcher* m, const char* s, const char* p);

const char* Balance(Matcher* m, const char* s, const char* p) {
  if (p + 1 >= m->pend) Fail(m->L, "malformed pattern (missing arguments to '%b')");
  if (s >= m->end || *s != *p) return nullptr;
  char open = p[0], close = p[1];
  int depth = 1;
  while (++s < m->end) {
    Step(m);
    if (*s == close) {
      if (--depth == 0) return s + 1;
    } else if (*s == open) {
      ++depth;
    }
  }
  return nullptr;
}

const char* BackReference(Matcher* m, const char* s, char digit) {
  int k = digit - '1';
  if (k < 0 || k >= m->level || m->cap[k].len == kOpen) {
    luaL_where(m->L, 1);
    lua_pushfstring(m->L, "invalid capture index %%%d", k + 1);
    lua_concat(m->L, 2);
    lua_error(m->L);
  }
  std::ptrdiff_t len = m->cap[k].len;
  if (len < 0) return nullptr;  // a position capture never matches text
  Step(m, static_cast<std::uint64_t>(len));
  if (m->end - s >= len && std::memcmp(m->cap[k].start, s, static_cast<size_t>(len)) == 0) return s + len;
  return nullptr;
}

const char* Greedy(Matcher* m, const char* s, const char* p, const char* ep) {
  std::ptrdiff_t n = 0;
  while (One(m, s + n, p, ep)) ++n;
  for (; n >= 0; --n) {
    if (const char* r = Match(m, s + n, ep + 1)) return r;
  }
  return nullptr;
}

const char* Lazy(Matcher* m, const char* s, const char* p, const char* ep) {
  for (;;) {
    if (const char* r = Match(m, s, ep + 1)) return r;
    if (!One(m, s, p, ep)) return nullptr;
    ++s;
  }
}

const char* Open(Matcher* m, const char* s, const char* p, std::ptrdiff_t what) {
  if (m->level >= kMaxCaptures) Fail(m->L, "too many captures");
  m->cap[m->level] = {s, what};
  ++m->level;
  const char* r = Match(m, s, p);
  if (r == nullptr) --m->level;
  return r;
}

const char* Close(Matcher* m, const char* s, const char* p) {
  int k = m->level - 1;
  while (k >= 0 && m->cap[k].len != kOpen) --k;
  if (k < 0) Fail(m->L, "invalid pattern capture");
  m->cap[k].len = s - m->cap[k].start;
  const char* r = Match(m, s, p);
  if (r == nullptr) m->cap[k].len = kOpen;
  return r;
}

const char* MatchBody(Matcher* m, const char* s, const char* p) {
  for (;;) {
    if (p == m->pend) return s;
    switch (*p) {
      case '(':
        if (p + 1 < m->pend && p[1] == ')') return Open(m, s, p + 2, kPosition);
        return Open(m, s, p + 1, kOpen);
      case ')':
        return Close(m, s, p + 1);
      case '$':
        if (p + 1 == m->pend) return s == m->end ? s : nullptr;
        break;
      case '%':
        if (p + 1 >= m->pend) break;  // ClassEnd reports it
        if (p[1] == 'b') {
          s = Balance(m, s, p + 2);
          if (s == nullptr) return nullptr;
          p += 4;
          continue;
        }
        if (p[1] == 'f') {
          p += 2;
          if (p >= m->pend || *p != '[') Fail(m->L, "missing '[' after '%f' in pattern");
          const char* ep = ClassEnd(m, p);
          Step(m);
          unsigned char before = s == m->begin ? 0 : static_cast<unsigned char>(s[-1]);
          unsigned char at = s < m->end ? static_cast<unsigned char>(*s) : 0;
          if (SetHas(before, p, ep - 1) || !SetHas(at, p, ep - 1)) return nullptr;
          p = ep;
          continue;
        }
        if (p[1] >= '0' && p[1] <= '9') {
          s = BackReference(m, s, p[1]);
          if (s == nullptr) return nullptr;
          p += 2;
          continue;
        }
        break;
      default:
        break;
    }
    const char* ep = ClassEnd(m, p);
    char q = ep < m->pend ? *ep : '\0';
    if (!One(m, s, p, ep)) {
      if (q == '*' || q == '?' || q == '-') {  // zero repetitions are allowed
        p = ep + 1;
        continue;
      }
      return nullptr;
    }
    switch (q) {
      case '?':
        if (const char* r = Match(m, s + 1, ep + 1)) return r;
        p = ep + 1;
        continue;
      case '+': return Greedy(m, s + 1, p, ep);
      case '*': return Greedy(m, s, p, ep);
      case '-': return Lazy(m, s, p, ep);
      default:
        ++s;
        p = ep;
        continue;
    }
  }
}

const char* Match(Matcher* m, const char* s, const char* p) {
  if (m->depth-- == 0) Fail(m->L, "pattern too complex");
  const char* r = MatchBody(m, s, p);
  ++m->depth;
  return r;
}

PatternCharge ChargeOf(lua_State* L) {
  return *static_cast<PatternCharge*>(lua_touserdata(L, lua_upvalueindex(1)));
}

void Init(Matcher* m, lua_State* L, const char* s, size_t ls, const char* p, size_t lp) {
  m->L = L;
  m->charge = ChargeOf(L);
  m->begin = s;
  m->end = s + ls;
  m->pend = p + lp;
  m->level = 0;
  m->depth = kMaxDepth;
  m->steps = 0;
  // A call that already ran out stops here, before any work.
  ChargeNow(m);
}

void Restart(Matcher* m) {
  m->level = 0;
  m->depth = kMaxDepth;
}

// Pushes capture i (the whole match [s, e) when the pattern has none and i == 0).
void PushCapture(Matcher* m, int i, const char* s, const char* e) {
  if (i >= m->level) {
    if (i != 0) {
      luaL_where(m->L, 1);
      lua_pushfstring(m->L, "invalid capture index %%%d", i + 1);
      lua_concat(m->L, 2);
      lua_error(m->L);
    }
    lua_pushlstring(m->L, s, static_cast<size_t>(e - s));
    return;
  }
  const Capture& c = m->cap[i];
  if (c.len == kOpen) Fail(m->L, "unfinished capture");
  if (c.len == kPosition) {
    lua_pushinteger(m->L, static_cast<lua_Integer>(c.start - m->begin) + 1);
  } else {
    lua_pushlstring(m->L, c.start, static_cast<size_t>(c.len));
  }
}

// Pushes every capture, or the whole match when there are none and s is given. Returns how many.
int PushCaptures(Matcher* m, const char* s, const char* e) {
  int n = (m->level == 0 && s != nullptr) ? 1 : m->level;
  luaL_checkstack(m->L, n, "too many captures");
  for (int i = 0; i < n; ++i) PushCapture(m, i, s, e);
  return n;
}

// A 1-based, possibly negative start position turned into a 0-based offset (may exceed len).
size_t StartOffset(lua_Integer pos, size_t len) {
  if (pos > 0) return static_cast<size_t>(pos) - 1;
  if (pos == 0) return 0;
  if (pos < -static_cast<lua_Integer>(len)) return 0;
  return static_cast<size_t>(static_cast<lua_Integer>(len) + pos);
}

bool HasSpecials(const char* p, size_t lp) {
  for (size_t i = 0; i < lp; ++i) {
    if (p[i] != '\0' && std::strchr(kSpecials, p[i]) != nullptr) return true;
  }
  return false;
}

// Charges what a pattern function counted since its last batch (Note: [Counted patterns]: a call
// ends with its last, partial batch charged, or a loop of calls each under kBatch steps would be
// charged nothing). Raises when that runs the budget out.
int Settle(Matcher* m, int results) {
  if (m->steps > 0) ChargeNow(m);
  return results;
}

int FindOrMatchBody(lua_State* L, bool find, Matcher& m) {
  size_t ls = 0, lp = 0;
  const char* s = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  size_t init = StartOffset(luaL_optinteger(L, 3, 1), ls);
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  Init(&m, L, s, ls, p, lp);
  if (find && (lua_toboolean(L, 4) || !HasSpecials(p, lp))) {
    Step(&m, ls - init);
    const char* hit = nullptr;
    if (lp == 0) {
      hit = s + init;
    } else {
      for (const char* q = s + init; q + lp <= s + ls; ++q) {
        q = static_cast<const char*>(std::memchr(q, *p, static_cast<size_t>(s + ls - q)));
        if (q == nullptr || q + lp > s + ls) break;
        Step(&m, lp);
        if (std::memcmp(q, p, lp) == 0) {
          hit = q;
          break;
        }
      }
    }
    if (hit == nullptr) {
      luaL_pushfail(L);
      return 1;
    }
    lua_pushinteger(L, static_cast<lua_Integer>(hit - s) + 1);
    lua_pushinteger(L, static_cast<lua_Integer>(hit - s) + static_cast<lua_Integer>(lp));
    return 2;
  }
  bool anchored = lp > 0 && *p == '^';
  if (anchored) ++p;
  const char* from = s + init;
  do {
    Restart(&m);
    if (const char* e = Match(&m, from, p)) {
      if (!find) return PushCaptures(&m, from, e);
      lua_pushinteger(L, static_cast<lua_Integer>(from - s) + 1);
      lua_pushinteger(L, static_cast<lua_Integer>(e - s));
      return PushCaptures(&m, nullptr, nullptr) + 2;
    }
  } while (from++ < m.end && !anchored);
  luaL_pushfail(L);
  return 1;
}

int FindOrMatch(lua_State* L, bool find) {
  Matcher m;
  m.L = L;
  m.charge = ChargeOf(L);
  m.steps = 0;
  return Settle(&m, FindOrMatchBody(L, find, m));
}

int Find(lua_State* L) { return FindOrMatch(L, true); }
int MatchFn(lua_State* L) { return FindOrMatch(L, false); }

// gmatch's iterator state, kept in a userdata between calls (offsets into the subject upvalue).
struct GmatchState {
  size_t next;          // where the next search starts
  std::ptrdiff_t last;  // end of the last match, or -1
};

int GmatchStep(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(2), &ls);
  const char* p = lua_tolstring(L, lua_upvalueindex(3), &lp);
  auto* st = static_cast<GmatchState*>(lua_touserdata(L, lua_upvalueindex(4)));
  Matcher m;
  Init(&m, L, s, ls, p, lp);
  for (const char* from = s + st->next; from <= m.end; ++from) {
    Restart(&m);
    const char* e = Match(&m, from, p);
    if (e != nullptr && e - s != st->last) {
      st->next = static_cast<size_t>(e - s);
      st->last = e - s;
      return Settle(&m, PushCaptures(&m, from, e));
    }
  }
  st->next = ls + 1;
  return Settle(&m, 0);
}

int Gmatch(lua_State* L) {
  size_t ls = 0;
  luaL_checklstring(L, 1, &ls);
  luaL_checkstring(L, 2);
  size_t init = StartOffset(luaL_optinteger(L, 3, 1), ls);
  if (init > ls) init = ls + 1;
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));  // the charge function's box
  lua_insert(L, 1);
  auto* st = static_cast<GmatchState*>(lua_newuserdatauv(L, sizeof(GmatchState), 0));
  st->next = init;
  st->last = -1;
  lua_pushcclosure(L, GmatchStep, 4);
  return 1;
}

// Appends the replacement for the match [s, e) to b; returns whether it differs from the match.
bool Replace(Matcher* m, luaL_Buffer* b, const char* s, const char* e, int how) {
  lua_State* L = m->L;
  if (how == LUA_TSTRING || how == LUA_TNUMBER) {
    size_t lr = 0;
    const char* r = lua_tolstring(L, 3, &lr);
    for (size_t i = 0; i < lr; ++i) {
      Step(m);
      if (r[i] != '%') {
        luaL_addchar(b, r[i]);
        continue;
      }
      ++i;
      char d = i < lr ? r[i] : '\0';
      if (d == '%') {
        luaL_addchar(b, '%');
      } else if (d >= '0' && d <= '9') {
        if (d == '0') {
          luaL_addlstring(b, s, static_cast<size_t>(e - s));
        } else {
          PushCapture(m, d - '1', s, e);
          luaL_tolstring(L, -1, nullptr);
          lua_remove(L, -2);
          luaL_addvalue(b);
        }
      } else {
        Fail(L, "invalid use of '%' in replacement string");
      }
    }
    return true;
  }
  if (how == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    int n = PushCaptures(m, s, e);
    lua_call(L, n, 1);
  } else {
    PushCapture(m, 0, s, e);
    lua_gettable(L, 3);
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: keep the original text
    lua_pop(L, 1);
    luaL_addlstring(b, s, static_cast<size_t>(e - s));
    return false;
  }
  if (!lua_isstring(L, -1)) {
    luaL_where(L, 1);
    lua_pushfstring(L, "invalid replacement value (a %s)", luaL_typename(L, -2));
    lua_concat(L, 2);
    lua_error(L);
  }
  luaL_addvalue(b);
  return true;
}

int Gsub(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* src = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  int how = lua_type(L, 3);
  lua_Integer max = luaL_optinteger(L, 4, static_cast<lua_Integer>(ls) + 1);
  luaL_argexpected(L, how == LUA_TNUMBER || how == LUA_TSTRING || how == LUA_TFUNCTION || how == LUA_TTABLE, 3,
                   "string/function/table");
  bool anchored = lp > 0 && *p == '^';
  if (anchored) {
    ++p;
    --lp;
  }
  const char* last = nullptr;
  lua_Integer n = 0;
  bool changed = false;
  Matcher m;
  Init(&m, L, src, ls, p, lp);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (n < max) {
    Restart(&m);
    const char* e = Match(&m, src, p);
    if (e != nullptr && e != last) {
      ++n;
      changed = Replace(&m, &b, src, e, how) || changed;
      src = last = e;
    } else if (src < m.end) {
      luaL_addchar(&b, *src++);
    } else {
      break;
    }
    if (anchored) break;
  }
  if (!changed) {
    lua_pushvalue(L, 1);
  } else {
    luaL_addlstring(&b, src, static_cast<size_t>(m.end - src));
    luaL_pushresult(&b);
  }
  lua_pushinteger(L, n);
  return Settle(&m, 2);
}

}  // namespace

void InstallCountedPatterns(lua_State* L, PatternCharge charge) {
  const struct {
    const char* name;
    lua_CFunction fn;
  } fns[] = {{"find", Find}, {"match", MatchFn}, {"gmatch", Gmatch}, {"gsub", Gsub}};
  int lib = lua_absindex(L, -1);
  for (const auto& f : fns) {
    *static_cast<PatternCharge*>(lua_newuserdatauv(L, sizeof(PatternCharge), 0)) = charge;
    lua_pushcclosure(L, f.fn, 1);
    lua_setfield(L, lib, f.name);
  }
}

}  // namespace triage
