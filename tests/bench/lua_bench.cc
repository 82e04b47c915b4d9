// Benchmark: the cost of rule loading and of Lua calls. Prints figures; asserts nothing.
//
//   cmake --build build --target lua_bench && build/tests/lua_bench [runs]
//
// Figures: loading all bundled rules (median of runs; reading the files, parsing their YAML as the loader
// does and with YAML::Load for comparison),
// creating one Lua state with every bundled Lua rule, one `when` predicate call through the engine's
// Lua path, and one whole diagnosis of a one-line log with and without a Lua rule matching.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rules/lua_runtime.h"
#include "rules/rule.h"
#include "rules/yaml_tree.h"
#include "triage/triage.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace triage;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 20;
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = false;

  // 1. Loading everything, end to end.
  // Wall time on a shared machine is noisy; CPU time (std::clock) says what the work costs.
  std::vector<double> load, load_cpu;
  LoadResult last;
  for (int i = 0; i < runs; ++i) {
    auto a = Clock::now();
    std::clock_t c = std::clock();
    last = LoadRules(o);
    load_cpu.push_back(1000.0 * (std::clock() - c) / CLOCKS_PER_SEC);
    load.push_back(Ms(a, Clock::now()));
  }
  int lua_rules = 0;
  for (const Rule& r : last.rules->rules) lua_rules += r.has_lua();
  std::printf("bundled rules: %zu (%d with Lua), %zu patterns\n", last.rules->rules.size(), lua_rules,
              last.rules->patterns.size());
  std::printf("LoadRules (read, parse, validate, compile Set, check Lua): median %.2f ms wall, %.2f ms CPU over %d runs\n",
              Median(load), Median(load_cpu), runs);

  // 2. The YAML part alone: read every file and parse it as the loader does (LoadYamlTree, Note:
  // [Rule file YAML]), and with YAML::Load for comparison.
  std::vector<std::string> files, texts;
  for (auto& e : std::filesystem::recursive_directory_iterator(BundledRulesDir())) {
    if (e.path().extension() == ".yaml" && e.path().filename() != "taxonomy.yaml") files.push_back(e.path().string());
  }
  size_t bytes = 0;
  std::vector<double> reading;
  for (int i = 0; i < runs; ++i) {
    texts.clear();
    bytes = 0;
    std::clock_t a = std::clock();
    for (const std::string& f : files) {
      std::ifstream in(f);
      std::stringstream ss;
      ss << in.rdbuf();
      texts.push_back(ss.str());
      bytes += texts.back().size();
    }
    reading.push_back(1000.0 * (std::clock() - a) / CLOCKS_PER_SEC);
  }
  std::vector<double> tree, yaml;
  for (int i = 0; i < runs; ++i) {
    std::clock_t a = std::clock();
    for (const std::string& t : texts) {
      triage::YamlTree parsed;
      triage::LoadYamlTree(t, &parsed);
    }
    tree.push_back(1000.0 * (std::clock() - a) / CLOCKS_PER_SEC);
    a = std::clock();
    for (const std::string& t : texts) {
      YAML::Node n = YAML::Load(t);
      (void)n;
    }
    yaml.push_back(1000.0 * (std::clock() - a) / CLOCKS_PER_SEC);
  }
  std::printf("  of which reading %zu files (%zu KB): median %.2f ms CPU; parsing them (LoadYamlTree): median %.2f ms CPU"
              " (YAML::Load: %.2f ms)\n", files.size(), bytes / 1024, Median(reading), Median(tree), Median(yaml));

  // 3. One Lua state with every Lua rule of the set loaded (what a new thread pays once).
  std::vector<double> state;
  for (int i = 0; i < runs; ++i) {
    auto a = Clock::now();
    std::unique_ptr<LuaState> s = LuaState::Create(LuaLimits());
    for (size_t r = 0; r < last.rules->rules.size(); ++r) {
      LuaError e;
      if (last.rules->rules[r].has_lua()) s->LoadRule(static_cast<int>(r), last.rules->rules[r].lua_chunks, &e);
    }
    state.push_back(Ms(a, Clock::now()));
  }
  std::printf("Lua state with %d rule chunks: median %.3f ms\n", lua_rules, Median(state));

  // 4. A predicate call: a trivial `when` through LuaState::Call with a full ctx.
  std::unique_ptr<LuaState> s = LuaState::Create(LuaLimits());
  LuaError e;
  s->LoadRule(0, {{"bench.lua", "function when(ctx) return ctx.captures.got ~= nil end\n"}}, &e);
  std::vector<Incident> incidents(1);
  incidents[0].exception = "RuntimeError";
  incidents[0].message = "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)";
  std::map<std::string, std::string> captures = {{"got", "57600"}, {"want", "64"}};
  LuaCallInput in;
  in.incidents = &incidents;
  in.incident = 0;
  in.captures = &captures;
  const int calls = 200000;
  LuaValue v;
  auto a = Clock::now();
  for (int i = 0; i < calls; ++i) s->Call(0, "when", &in, &v, &e);
  double per_call = Ms(a, Clock::now()) * 1e6 / calls;
  std::printf("Lua predicate call (ctx with captures, incident cached): %.0f ns\n", per_call);

  // 5. A whole diagnosis of one line, with the bundled rules (Lua rules included when they match).
  Engine engine(last.rules);
  const std::string log = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  const int diagnoses = 2000;
  a = Clock::now();
  for (int i = 0; i < diagnoses; ++i) engine.DiagnoseText(log);
  std::printf("DiagnoseText of that line with all bundled rules: %.1f us\n", Ms(a, Clock::now()) * 1e3 / diagnoses);
  return 0;
}
