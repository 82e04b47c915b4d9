// The rule-set cache (Note: [Rule cache]): a hit must give exactly what a fresh load gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "rules/rule_cache.h"
#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("triage_cache_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

LoadResult LoadBundled(bool cache, const std::string& dir) {
  LoadOptions o;
  o.env_path = false;
  o.system = o.user = o.project = false;
  o.cache = cache;
  o.cache_dir = dir;
  return LoadRules(o);
}

// Everything observable about a load: its rules (as serialised), its problems, and what it says
// about a few real logs.
std::string Observe(const LoadResult& r) {
  std::string out;
  ParsedRules p;
  p.rules = r.rules->rules;
  p.disabled = r.rules->disabled;
  p.problems = r.problems;
  out += SerializeParsedRules(p);
  Engine engine(r.rules);
  for (const char* log : {"corpus/shape/linear-flattened-conv/log.txt", "corpus/cuda/oom-torchrun-rank-prefixed-formatted/log.txt",
                          "corpus/signals/nan-lr-too-high-kv/log.txt", "tests/fixtures/dataloader_reraise/log.txt"}) {
    std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/" + log, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(text.empty()) << log;
    out += ToJson(engine.DiagnoseText(text));
  }
  return out;
}

TEST(RuleCache, ColdAndWarmLoadsEqualAFreshLoad) {
  std::string dir = TempDir("equal");
  std::string fresh = Observe(LoadBundled(false, ""));
  EXPECT_TRUE(fs::is_empty(dir));
  std::string cold = Observe(LoadBundled(true, dir));
  ASSERT_FALSE(fs::is_empty(dir)) << "the first load writes an entry";
  std::string warm = Observe(LoadBundled(true, dir));
  EXPECT_TRUE(fresh == cold) << "a cold cached load differs from a fresh one";
  EXPECT_TRUE(fresh == warm) << "a load from the cache differs from a fresh one";
  fs::remove_all(dir);
}

TEST(RuleCache, WarmLoadAnswersLikeAFreshOneOnTheCorpus) {
  std::string dir = TempDir("corpus");
  LoadBundled(true, dir);  // fill
  EvalReport fresh = EvaluateCorpus(Engine(LoadBundled(false, "").rules), std::string(TRIAGE_SOURCE_DIR) + "/corpus");
  EvalReport warm = EvaluateCorpus(Engine(LoadBundled(true, dir).rules), std::string(TRIAGE_SOURCE_DIR) + "/corpus");
  EXPECT_EQ(fresh.ToText(), warm.ToText());
  fs::remove_all(dir);
}

TEST(RuleCache, BadEntriesAreMisses) {
  std::string dir = TempDir("bad");
  std::string fresh = Observe(LoadBundled(false, ""));
  LoadBundled(true, dir);
  fs::path entry = fs::directory_iterator(dir)->path();
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  // Truncated, garbage, and one flipped length byte near the start: each must be ignored.
  const std::vector<std::string> corruptions = {bytes.substr(0, bytes.size() / 2), std::string(4096, '\x7f'),
                                                bytes.substr(0, 24) + '\xff' + bytes.substr(25), ""};
  for (const std::string& c : corruptions) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << c;
    ParsedRules parsed;
    EXPECT_FALSE(ParseParsedRules(c, &parsed)) << c.size();
    EXPECT_TRUE(fresh == Observe(LoadBundled(true, dir))) << "a corrupt entry changed the result (" << c.size() << " bytes)";
  }
  fs::remove_all(dir);
}

TEST(RuleCache, EditedRuleFilesAreNotServedStale) {
  std::string cache = TempDir("edit_cache");
  std::string rules = TempDir("edit_rules");
  auto write = [&](const std::string& title) {
    std::ofstream(rules + "/my-rule.yaml") << "id: my-rule\ncategory: cuda.oom\ntitle: " << title
                                           << "\nmatch:\n  message: 'my failure'\nexplain: e\nhypotheses:\n"
                                              "  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
                                              "examples:\n  - match: 'my failure'\n";
  };
  LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = false;
  o.dirs = {rules};
  o.cache_dir = cache;
  write("first title");
  EXPECT_EQ(LoadRules(o).rules->rules.at(0).title, "first title");
  EXPECT_EQ(LoadRules(o).rules->rules.at(0).title, "first title");
  write("second title");
  EXPECT_EQ(LoadRules(o).rules->rules.at(0).title, "second title");
  fs::remove_all(cache);
  fs::remove_all(rules);
}

TEST(RuleCache, SerialisationRoundTrips) {
  LoadResult r = LoadBundled(false, "");
  ParsedRules p;
  p.rules = r.rules->rules;
  p.disabled = r.rules->disabled;
  p.problems = r.problems;
  p.problems.push_back({Problem::Severity::kWarning, "code", "f.yaml", 3, 4, "rule", "message"});
  p.atoms = {std::vector<std::string>{"cuda", "memory"}, std::nullopt, std::vector<std::string>{}};
  std::string once = SerializeParsedRules(p);
  ParsedRules back;
  ASSERT_TRUE(ParseParsedRules(once, &back));
  EXPECT_EQ(back.rules.size(), p.rules.size());
  EXPECT_EQ(back.atoms, p.atoms);
  EXPECT_TRUE(SerializeParsedRules(back) == once);
}

TEST(CacheKey, DependsOnEveryByteAndOnBoundaries) {
  CacheKey a, b, c;
  a.Add("ab");
  a.Add("c");
  b.Add("a");
  b.Add("bc");
  c.Add("ab");
  c.Add("c");
  EXPECT_NE(a.Hex(), b.Hex());
  EXPECT_EQ(a.Hex(), c.Hex());
  EXPECT_EQ(a.Hex().size(), 16u);
}

}  // namespace
}  // namespace triage
