// The escape and exhaustion suite for rule Lua (issue 14 item 3; rules/LUA_API.md "The sandbox"):
// each attack runs in a child process that is killed after kKill seconds, and the test asserts the
// child's CPU time (not wall time: the machine may be busy) and peak-memory growth as well as what
// the report says.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <lua.hpp>

#include "lua_test_rules.h"
#include "rules/lua_patterns.h"
#include "rules/lua_runtime.h"
#include "rules/template.h"
#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {
namespace {

using lua_test::kBroadcast;
using lua_test::kGoodRule;
using lua_test::kMatmul;
using lua_test::MatmulRule;

constexpr int kKill = 60;              // seconds before a runaway child is killed (today's main hangs)
constexpr double kMaxSeconds = 5;      // CPU seconds; each attack finishes well inside this (typically < 0.5 s)
constexpr long kMaxGrowthKb = 64 << 10;  // peak RSS growth of the child

struct Outcome {
  bool finished = false;   // exited by itself
  double seconds = 0;      // CPU time of the child
  long growth_kb = 0;
  std::string text;        // what the body returned
};

// Runs body in a forked child; returns its text, CPU time and peak RSS growth.
Outcome Bounded(const std::function<std::string()>& body) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(kKill);
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    long start = u.ru_maxrss;
    std::string out = body();
    getrusage(RUSAGE_SELF, &u);
    out = std::to_string(u.ru_maxrss - start) + "\n" + out;
    for (size_t off = 0; off < out.size();) {
      ssize_t n = write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string all;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) all.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage child{};
  wait4(pid, &status, 0, &child);
  Outcome o;
  o.seconds = static_cast<double>(child.ru_utime.tv_sec + child.ru_stime.tv_sec) +
              static_cast<double>(child.ru_utime.tv_usec + child.ru_stime.tv_usec) / 1e6;
  o.finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  size_t nl = all.find('\n');
  if (o.finished && nl != std::string::npos) {
    o.growth_kb = std::stol(all.substr(0, nl));
    o.text = all.substr(nl + 1);
  }
  return o;
}

void ExpectBounded(const Outcome& o, const std::string& what) {
  EXPECT_TRUE(o.finished) << what << ": killed after " << o.seconds << " s of CPU";
  EXPECT_LT(o.seconds, kMaxSeconds) << what;
  EXPECT_LT(o.growth_kb, kMaxGrowthKb) << what;
}

// "rule:code" for each warning and "+rule" for each diagnosis, one per line; or the load problems.
std::string Summary(const LoadResult& r, const std::string& log, int runs = 1) {
  std::string out;
  for (const Problem& p : r.problems) out += "load " + p.code + " " + p.message + "\n";
  if (!r.rules) return out;
  Engine engine(r.rules);
  for (int i = 0; i < runs; ++i) {
    Report rep = engine.DiagnoseText(log);
    for (const Diagnosis& d : rep.diagnoses) out += "+" + d.rule + " " + d.explanation.substr(0, 200) + "\n";
    for (const Problem& p : rep.warnings) out += p.rule_id + ":" + p.code + " " + p.message + "\n";
  }
  return out;
}

// Writes files into a fresh directory of the test's; returns it.
std::string RuleDir(const std::string& tag, const std::vector<std::pair<std::string, std::string>>& files) {
  std::string dir = ::testing::TempDir() + "/lua_" + tag + "_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : files) {
    std::FILE* f = std::fopen((dir + "/" + name).c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  return dir;
}

// Only the rules of dir, with the instruction cap off and 100 ms of CPU per call.
LoadOptions TimeLimitOnly(const std::string& dir) {
  LoadOptions o;
  o.bundled = o.system = o.user = o.project = o.env_path = o.cache = false;
  o.dirs = {dir};
  o.lua.instructions = ~std::uint64_t{0};
  o.lua.milliseconds = 100;
  return o;
}

// A `values` function body run on kMatmul next to a good rule on kBroadcast.
std::string RunValues(const std::string& lua_file, const std::string& explain = "got {got}") {
  LoadResult r = LoadRulesFromStrings(
      {{"bad.yaml", MatmulRule("bad", "values: lua:v\n", explain)}, {"bad.lua", lua_file}, {"good.yaml", kGoodRule}});
  return Summary(r, std::string(kBroadcast) + "\n" + kMatmul + "\n");
}

TEST(LuaLimits, PcallAndXpcallCannotCatchTheDeadline) {
  const std::vector<std::string> bodies = {
      "while true do pcall(function() while true do end end) end",
      "while true do xpcall(function() while true do end end, function() while true do end end) end",
      "local function f() pcall(f) pcall(f) end while true do pcall(f) end",
      "local t = setmetatable({}, {__index = function() while true do pcall(error) end end}) while true do pcall(function() return t.x end) end",
  };
  for (const std::string& body : bodies) {
    Outcome o = Bounded([&] { return RunValues("function v(ctx)\n  " + body + "\nend\n"); });
    ExpectBounded(o, body);
    EXPECT_NE(o.text.find("bad:lua-budget"), std::string::npos) << body << "\n" << o.text;
    EXPECT_NE(o.text.find("+good"), std::string::npos) << body << "\n" << o.text;
  }
}

TEST(LuaLimits, DeadlineHoldsAtLoadAndInRuleTests) {
  // At load (what `triage` and `triage rules lint` do): the rule is skipped with lua-budget.
  Outcome load = Bounded([] {
    return RunValues("function v(ctx) return nil end\nwhile true do pcall(function() while true do end end) end\n");
  });
  ExpectBounded(load, "load");
  EXPECT_NE(load.text.find("load lua-budget"), std::string::npos) << load.text;
  EXPECT_NE(load.text.find("+good"), std::string::npos) << load.text;
  // A test_ function run by `triage rules test`.
  Outcome test = Bounded([] {
    LoadResult r = LoadRulesFromStrings(
        {{"bad.yaml", MatmulRule("bad", "")},
         {"bad.lua", "function test_loop() while true do pcall(function() while true do end end) end end\n"}});
    return RunRuleExamples(*r.rules).ToText();
  });
  ExpectBounded(test, "rules test");
  EXPECT_NE(test.text.find("budget"), std::string::npos) << test.text;
}

TEST(LuaLimits, TimeLimitWithoutAnInstructionCap) {
  Outcome o = Bounded([] {
    std::string dir = RuleDir("deadline", {{"r.yaml", MatmulRule("r", "values: lua:v\n")},
                                           {"r.lua", "function v(ctx) while true do pcall(function() while true do end end) end end\n"}});
    return Summary(LoadRules(TimeLimitOnly(dir)), kMatmul);
  });
  ExpectBounded(o, "time limit");
  EXPECT_NE(o.text.find("r:lua-budget"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("time limit exceeded (100 ms of CPU per call)"), std::string::npos) << o.text;
}

// C functions that run long without VM instructions: each call is bounded by the memory cap, and
// the time limit is checked after every MiB allocated, so a loop of them stops on time even when
// the instruction budget is unlimited.
TEST(LuaLimits, AllocatingLibraryCallsMeetTheTimeLimit) {
  const std::vector<std::string> bodies = {
      "while true do local s = string.rep('x', 8e6) end",
      "local t = {} for i = 1, 16 do t[i] = string.rep('y', 1e5) end while true do local s = table.concat(t) end",
      "local s = string.rep('z', 4e6) while true do pcall(string.gsub, s, 'z', 'zz') end",
  };
  for (const std::string& body : bodies) {
    Outcome o = Bounded([&] {
      std::string dir = RuleDir("alloc", {{"r.yaml", MatmulRule("r", "values: lua:v\n")},
                                          {"r.lua", "function v(ctx)\n  " + body + "\nend\n"}});
      return Summary(LoadRules(TimeLimitOnly(dir)), kMatmul);
    });
    ExpectBounded(o, body);
    EXPECT_NE(o.text.find("r:lua-budget"), std::string::npos) << body << "\n" << o.text;
    EXPECT_NE(o.text.find("time limit exceeded (100 ms of CPU per call)"), std::string::npos) << body << "\n" << o.text;
    // Stopped close to the limit: the whole child (loading, the call) well under a second of CPU.
    EXPECT_LT(o.seconds, 1.0) << body;
  }
}

TEST(LuaLimits, PatternMatchingIsCounted) {
  const std::vector<std::string> calls = {
      "s:find('.-.-.-b')", "s:match('(.-)(.-)(.-)b')", "s:gsub('.-.-.-b', 'x')",
      "(function() for m in s:gmatch('a.-a.-a.-b') do return m end end)()",
      "s:find('(a*)*b')", "s:find('%f[a]a-a-a-a-b')",
  };
  for (const std::string& call : calls) {
    Outcome o = Bounded([&] {
      return RunValues("function v(ctx)\n  local s = string.rep('a', 16384)\n  local ok = pcall(function() return " +
                       call + " end)\n  while true do pcall(function() return " + call + " end) end\nend\n");
    });
    ExpectBounded(o, call);
    EXPECT_NE(o.text.find("bad:lua-budget"), std::string::npos) << call << "\n" << o.text;
  }
}

// Many pattern calls, each under the 4096 steps the matcher charges at a time: every call's steps
// still count (a call ends with its last, partial batch charged). 2000 calls of ~3000 steps each are
// 6 M steps, over the 1 M a call may use, in only ~20 k VM instructions.
TEST(LuaLimits, ShortPatternCallsAreCountedToo) {
  const std::vector<std::string> calls = {
      "s:find('x', 1, true)", "s:find('x')", "s:match('x')", "s:gsub('x', 'y')",
      "(function() for m in s:gmatch('x') do return m end end)()",
  };
  for (const std::string& call : calls) {
    Outcome o = Bounded([&] {
      return RunValues("function v(ctx)\n  local s = string.rep('a', 3000)\n  for i = 1, 2000 do local _ = " + call +
                       " end\n  return { got = 'finished' }\nend\n");
    });
    ExpectBounded(o, call);
    EXPECT_NE(o.text.find("bad:lua-budget"), std::string::npos) << call << "\n" << o.text;
    EXPECT_EQ(o.text.find("finished"), std::string::npos) << call << "\n" << o.text;
  }
}

// Crafted 16 KB lines that drove the bundled dead-relu-units and vanishing-gradients-per-layer rules to
// several seconds each (their Lua patterns were quadratic); now linear, and dead-relu still diagnoses.
TEST(LuaLimits, BundledRulesOnCraftedLines) {
  LoadOptions opts;
  opts.system = opts.user = opts.project = opts.env_path = opts.cache = false;
  LoadResult r = LoadRules(opts);
  ASSERT_TRUE(r.ok());
  const std::string relu = "layer=" + std::string(16000, 'a') + " dead_ratio=0.9\n";
  const std::string vanish = "layer=" + std::string(16000, 'a') + " grad_mean_abs=e\n";
  Outcome o = Bounded([&] { return Summary(r, relu); });
  ExpectBounded(o, "dead-relu-units");
  EXPECT_NE(o.text.find("+dead-relu-units"), std::string::npos) << o.text.substr(0, 400);
  EXPECT_EQ(o.text.find("lua-"), std::string::npos) << o.text.substr(0, 400);
  Outcome v = Bounded([&] { return Summary(r, std::string(10, '\n') + vanish + vanish + vanish); });
  ExpectBounded(v, "vanishing-gradients-per-layer");
  EXPECT_EQ(v.text.find("lua-"), std::string::npos) << v.text.substr(0, 400);
}

// One rule fills its heap and keeps it full (in _ENV): a bundled Lua rule on a later incident, and
// on the next input, still diagnoses, because each rule has its own memory account.
TEST(LuaLimits, OneRuleCannotStarveAnother) {
  Outcome o = Bounded([] {
    std::string yaml = kGoodRule;
    yaml.replace(yaml.find("id: good"), 8, "id: hog");
    std::string dir = RuleDir(
        "hog", {{"hog.yaml", yaml + "values: lua:v\n"},
                {"hog.lua",
                 "function v(ctx)\n  rawset(_ENV, 'hog', {})\n  for i = 1, 1e9 do hog[i] = string.rep('x', 1000) .. i end\nend\n"}});
    LoadOptions opts;
    opts.system = opts.user = opts.project = opts.env_path = opts.cache = false;
    opts.dirs = {dir};
    return Summary(LoadRules(opts), std::string(kBroadcast) + "\n" + kMatmul + "\n", 2);
  });
  ExpectBounded(o, "hog");
  EXPECT_NE(o.text.find("hog:lua-"), std::string::npos) << o.text;
  // Both inputs: on the second, the hog's first fill is still reachable from its _ENV.
  size_t first = o.text.find("+linear-in-features");
  ASSERT_NE(first, std::string::npos) << o.text;
  EXPECT_NE(o.text.find("+linear-in-features", first + 1), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("linear-in-features:lua"), std::string::npos) << o.text;
}

TEST(LuaLimits, RulesDoNotSeeEachOthersEditsOfCtx) {
  const std::string lua =
      "function v(ctx)\n  local before = ctx.incident.message .. '/' .. ctx.incidents[1].exception\n"
      "  ctx.incident.message = 'EDITED'\n  ctx.incidents[1].exception = 'EDITED'\n  return { seen = before }\nend\n";
  LoadResult r = LoadRulesFromStrings({{"a.yaml", MatmulRule("a", "values: lua:v\n", "{seen}")},
                                       {"a.lua", lua},
                                       {"b.yaml", MatmulRule("b", "values: lua:v\n", "{seen}")},
                                       {"b.lua", lua}});
  ASSERT_TRUE(r.ok());
  Outcome o = Bounded([&] { return Summary(r, kMatmul); });
  ExpectBounded(o, "ctx edits");
  EXPECT_EQ(o.text.find("EDITED"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("+a mat1"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("+b mat1"), std::string::npos) << o.text;
}

TEST(LuaLimits, NoStateSurvivesIntoTheNextInput) {
  const std::string lua =
      "local calls = 0\n"
      "function v(ctx)\n  calls = calls + 1\n  local n = (rawget(_ENV, 'n') or 0) + 1\n  rawset(_ENV, 'n', n)\n"
      "  return { n = n, calls = calls }\nend\n";
  LoadResult r = LoadRulesFromStrings({{"s.yaml", MatmulRule("s", "values: lua:v\n", "n={n} calls={calls}")},
                                       {"s.lua", lua}});
  ASSERT_TRUE(r.ok());
  Outcome o = Bounded([&] { return Summary(r, kMatmul, 3); });
  ExpectBounded(o, "state");
  EXPECT_EQ(o.text, "+s n=1 calls=1\n+s n=1 calls=1\n+s n=1 calls=1\n");
}

TEST(LuaLimits, AllCallsOfARuleOnOneInputShareABudget) {
  // Note: [Lua input budget]: each call runs ~600 k instructions, under its own limit of 1 M, once per
  // matching incident; 80 incidents would be 48 M, over the 32 M that one input allows the rule.
  const std::string lua = "function s(ctx)\n  local n = 0\n  for i = 1, 300000 do n = n + i end\n  return nil\nend\n";
  LoadResult r = LoadRulesFromStrings({{"s.yaml", MatmulRule("s", "score: lua:s\n")}, {"s.lua", lua}});
  ASSERT_TRUE(r.ok());
  std::string log;
  for (int i = 1; i <= 80; ++i) {
    log += "step " + std::to_string(i) + "\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (4x" +
           std::to_string(i) + " and 64x128)\n\n";
  }
  Outcome o = Bounded([&] { return Summary(r, log, 2); });
  ExpectBounded(o, "input budget");
  // The rule stops partway, says why, and keeps what its earlier calls decided; the next input starts
  // with a full account, so both runs read alike.
  const std::string warning = "s:lua-budget rule disabled for this input: ";
  size_t first = o.text.find(warning);
  ASSERT_NE(first, std::string::npos) << o.text.substr(0, 2000);
  EXPECT_NE(o.text.find("instruction budget of this input exceeded (32000000 instructions, all calls)", first),
            std::string::npos) << o.text.substr(0, 2000);
  size_t second = o.text.find(warning, first + 1);
  ASSERT_NE(second, std::string::npos) << o.text.substr(0, 2000);
  size_t half = o.text.find("+s ", first);
  ASSERT_NE(half, std::string::npos);
  EXPECT_EQ(o.text.substr(0, half), o.text.substr(half));
  EXPECT_EQ(o.text.compare(0, 3, "+s "), 0) << o.text.substr(0, 2000);
}

// Note: [Per-input memo]: triage.per_input's fn runs under what the input has left (32 M instructions
// by default), not the calling function's 1 M: one reading of every incident may take more than a
// call. The rest of the call keeps its own limit, and fn cannot go past the input's.
TEST(LuaLimits, PerInputWorkHasTheInputsBudget) {
  auto run = [](const std::string& fn_loop, const std::string& after) {
    const std::string lua = "local function heavy(incidents)\n  local n = 0\n  for i = 1, " + fn_loop +
                            " do n = n + i end\n  return n\nend\n"
                            "function v(ctx)\n  local n = triage.per_input(ctx, heavy)\n  local m = 0\n  for i = 1, " +
                            after + " do m = m + i end\n  return { got = tostring(n > 0) }\nend\n";
    return Bounded([&] { return RunValues(lua); });
  };
  // ~3 M instructions in fn, a few after: the rule answers.
  Outcome fits = run("1000000", "10");
  ExpectBounded(fits, "fits");
  EXPECT_NE(fits.text.find("+bad got true"), std::string::npos) << fits.text;
  EXPECT_EQ(fits.text.find("lua-budget"), std::string::npos) << fits.text;
  // fn past the input's 32 M.
  Outcome over = run("20000000", "10");
  ExpectBounded(over, "over");
  EXPECT_NE(over.text.find("bad:lua-budget"), std::string::npos) << over.text;
  EXPECT_NE(over.text.find("of this input"), std::string::npos) << over.text;
  // The call's own loop after fn is held to the call's 1 M.
  Outcome after = run("10", "1000000");
  ExpectBounded(after, "after");
  EXPECT_NE(after.text.find("instruction budget exceeded (1000000 instructions per call)"), std::string::npos) << after.text;
}

TEST(LuaLimits, ReturnedTextAndRenderedTemplatesAreCapped) {
  // 7 MB returned and used 50 times in `explain`: refused, not rendered into 350 MB.
  std::string explain;
  for (int i = 0; i < 50; ++i) explain += "{big}";
  Outcome o = Bounded([&] { return RunValues("function v(ctx) return { big = string.rep('x', 7e6) } end\n", explain); });
  ExpectBounded(o, "7 MB value");
  EXPECT_NE(o.text.find("bad:lua-bad-return"), std::string::npos) << o.text.substr(0, 1400);
  EXPECT_LT(o.text.size(), 4096u);
  // A long regex capture (no Lua) used 50 times renders within the template cap.
  std::string big(100000, 'a');
  std::string rendered = RenderTemplate(explain, [&](const std::string&, std::string* v) {
    *v = big;
    return true;
  });
  EXPECT_LE(rendered.size(), kMaxRenderedTemplate + 100);
  EXPECT_NE(rendered.find("bytes cut]"), std::string::npos);
}

TEST(LuaLimits, InlineLuaIsCompiledAsOneExpressionOnly) {
  const std::string yaml = MatmulRule("i", "score: 'lua: nil) end error(\"ran at load\") do local _ = (nil'\n");
  LoadResult r = LoadRulesFromStrings({{"i.yaml", yaml}});
  std::string problems;
  for (const Problem& p : r.problems) problems += p.ToString() + "\n";
  EXPECT_EQ(problems.find("ran at load"), std::string::npos) << problems;
  EXPECT_NE(problems.find("[lua-syntax]"), std::string::npos) << problems;
  EXPECT_NE(problems.find("one expression"), std::string::npos) << problems;
  // A comment cannot swallow the wrapper's end either, and a real expression still works.
  LoadResult ok = LoadRulesFromStrings({{"j.yaml", MatmulRule("j", "score: 'lua: 0.5 -- half'\n")}});
  EXPECT_TRUE(ok.ok()) << (ok.problems.empty() ? "" : ok.problems[0].ToString());
}

// Note: [Expression checks]: the inline expressions of a load are compiled one after another in one
// state per thread; each answer is what the expression gets alone, whatever came before it (errors and
// large texts included), on any thread.
TEST(LuaLimits, ExpressionChecksAnswerAsAloneOneAfterAnother) {
  const std::vector<std::string> expressions = {
      "1 + 2", "ctx.values.x > 3 and incident ~= nil", "1 +", "f(", "(1))", "nil) end error('x') do (nil",
      "'" + std::string(300000, 'x') + "'", "{" + std::string(20000, '{') + std::string(20000, '}') + "}", "x --[[ open",
      "#captures.shape"};
  std::vector<std::string> alone;
  for (const std::string& e : expressions) alone.push_back(LuaExpressionError(e));
  EXPECT_EQ(alone[0], "");
  EXPECT_EQ(alone[1], "");
  EXPECT_NE(alone[2], "");
  EXPECT_NE(alone[5], "");
  EXPECT_EQ(alone[6], "");
  EXPECT_NE(alone[8], "");
  for (int round = 0; round < 40; ++round) {
    for (size_t i = 0; i < expressions.size(); ++i) ASSERT_EQ(LuaExpressionError(expressions[i]), alone[i]) << i;
  }
  std::thread other([&] {
    for (size_t i = expressions.size(); i-- > 0;) EXPECT_EQ(LuaExpressionError(expressions[i]), alone[i]) << i;
  });
  other.join();
}

// The counted pattern functions give stock Lua's results and errors.
std::string RunPatterns(bool counted) {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  if (counted) {
    lua_getglobal(L, "string");
    InstallCountedPatterns(L, [](lua_State*, std::uint64_t) -> const char* { return nullptr; });
    lua_pop(L, 1);
  }
  const char* script = R"lua(
local cases = {
  {"hello world", "o w"}, {"hello world", "l+"}, {"hello world", "(h)(e)"}, {"hello", "()ll()"},
  {"  x = 1, y = 22 ", "(%w+)%s*=%s*(%d+)"}, {"f(a(b)c)d", "%b()"}, {"THE (quick) fox", "%f[%a]%a+"},
  {"abcabc", "(abc)%1"}, {"aaa", "a-b"}, {"aaa", "^a-$"}, {"x]y", "[]]"}, {"a-b", "[a%-]+"},
  {"key=val", "[^=]+"}, {"3.5e-3", "[%d%.eE%-]+"}, {"", ".*"}, {"abc", ""}, {"abc", "$"},
  {"a.b", "%."}, {"a+b", "a+b", 1, true}, {"ab", "b", -1}, {"ab", "a", 10}, {"ab", "a", -10},
  {"a\0b", "%z"}, {"a\0b", "[\0]"}, {"résumé", "[\128-\255]+"}, {"x", "[a"}, {"x", "%"},
  {"x", "(x"}, {"x", "x)"}, {"x", "%1"}, {"x", "%f"}, {"x", "%bx"}, {"aXb", "%u"}, {"a b", "%S+"},
  {"one two  three", "%s*(%S+)"}, {"(())", "%b()"}, {"abc", "()a()b()"}, {"abab", "^(ab)"},
  {"layer=fc1 dead_frac=0.5", "%f[%w_]([%w_]+)=([%d%.]+)"}, {"a,b,,c", "([^,]*)"},
}
local out = {}
local function rec(...)
  local t = table.pack(...)
  for i = 1, t.n do out[#out + 1] = tostring(t[i]) end
  out[#out + 1] = "|"
end
for _, c in ipairs(cases) do
  local s, p, init, plain = c[1], c[2], c[3], c[4]
  rec(pcall(string.find, s, p, init, plain))
  rec(pcall(string.match, s, p, init))
  rec(pcall(string.gsub, s, p, "<%0>"))
  rec(pcall(string.gsub, s, p, function(a) return a and ("[" .. tostring(a) .. "]") end))
  rec(pcall(string.gsub, s, p, { a = "A", x = false }, 2))
  rec(pcall(function() local r = {} for a, b in s:gmatch(p, init) do r[#r + 1] = tostring(a) .. ":" .. tostring(b) end return table.concat(r, ";") end))
end
rec(pcall(string.gsub, "abc", "b", "%2"))
rec(pcall(string.gsub, "abc", "b", "%x"))
rec(pcall(string.gsub, "abc", "(b)", "%1%1%%"))
rec(pcall(string.gsub, "abc", "b", {b = {}}))
return table.concat(out, ",")
)lua";
  std::string result;
  if (luaL_dostring(L, script) == LUA_OK) {
    size_t n = 0;
    const char* text = lua_tolstring(L, -1, &n);
    result.assign(text, n);
  } else {
    result = std::string("script failed: ") + lua_tostring(L, -1);
  }
  lua_close(L);
  return result;
}

TEST(LuaLimits, CountedPatternsAgreeWithStockLua) {
  std::string stock = RunPatterns(false), counted = RunPatterns(true);
  EXPECT_EQ(stock.rfind("script failed", 0), std::string::npos) << stock;
  EXPECT_EQ(counted, stock);
}

}  // namespace
}  // namespace triage
