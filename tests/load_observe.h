// Everything observable about a rule load, as one string two loads can be compared by: the rules and
// problems as the rule cache serialises them, the line prefilter's plan, and what the rules say about
// a few real logs. For the tests that check that a load gives what another gives (the rule cache,
// concurrent loads).
#ifndef TRIAGE_TESTS_LOAD_OBSERVE_H_
#define TRIAGE_TESTS_LOAD_OBSERVE_H_

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "log/line_scanner.h"
#include "rules/rule.h"
#include "rules/rule_cache.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage_test {

// The logs ObserveLoad diagnoses: a Python traceback, a rank-prefixed OOM, a metric signature, a
// DataLoader re-raise.
inline const char* const kObservedLogs[] = {"corpus/shape/linear-flattened-conv/log.txt",
                                             "corpus/cuda/oom-torchrun-rank-prefixed-formatted/log.txt",
                                             "corpus/signals/nan-lr-too-high-kv/log.txt",
                                             "tests/fixtures/dataloader_reraise/log.txt"};

inline std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Broken rule files of every kind a load reports (a Lua syntax error, an orphan Lua file, a rule past
// its Lua memory cap, bad YAML, an empty file, a tab), written into `dir`. The memory hog asks for too
// much at once: one that fills the cap a string at a time took ~60 ms of CPU in a release build and
// ~225-260 ms under ASan, so under a sanitizer and a busy machine it met the 250 ms time limit first,
// and a load's problems then depended on the machine's speed (what failed the parallel-reading test of
// 2026-11-28, engine/README "Threads").
inline void WriteBrokenRuleFiles(const std::string& dir) {
  auto put = [&](const char* name, const char* text) { std::ofstream(dir + "/" + name) << text; };
  put("syntax.lua", "rule = {\n");
  put("orphan.lua", "function f() end\n");
  put("memory.lua", "local s = string.rep('x', 1 << 25)\n");
  put("bad.yaml", "id: bad\nmatch: [\n");
  put("empty.yaml", "");
  put("tabs.yaml", "id: tabs\n\tcategory: x\n");
}

inline std::string ObserveLoad(const triage::LoadResult& r) {
  std::string out;
  triage::ParsedRules p;
  p.rules = r.rules->rules;
  p.disabled = r.rules->disabled;
  p.problems = r.problems;
  out += triage::SerializeParsedRules(p);
  // The line prefilter (its plan comes from the cache on a warm load).
  if (const triage::LinePrefilter* pf = r.rules->prefilter.get()) {
    for (size_t k = 0; k < pf->Scanner().keywords().size(); ++k) {
      out += "keyword " + pf->Scanner().keywords()[k] + ":";
      for (int i : pf->keyword_patterns[k]) out += " " + std::to_string(i);
      out += "\n";
    }
    for (int i : pf->unfiltered_patterns) out += "unfiltered " + std::to_string(i) + "\n";
  } else {
    out += "no prefilter\n";
  }
  triage::Engine engine(r.rules);
  for (const char* log : kObservedLogs) {
    const std::string text = ReadSourceFile(log);
    EXPECT_FALSE(text.empty()) << log;
    out += triage::ToJson(engine.DiagnoseText(text));
  }
  return out;
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_LOAD_OBSERVE_H_
