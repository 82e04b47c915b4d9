// Loading rules on several threads at once, and loading while other threads diagnose (engine/README.md
// "Threads"): every result must be the one a load on one thread alone gives, and so must every load
// after them (nothing process-wide may be spoiled by concurrent work): Note: [Thread safety] in
// engine/src/rules/rule_loader.h. Run under ThreadSanitizer too (engine/README.md "Threads").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <locale>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "load_observe.h"
#include "rules/rule.h"
#include "rules/rule_trust.h"
#include "triage/triage.h"
#include "../bindings/c/triage_c.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The logs ObserveLoad diagnoses, read once.
const std::vector<std::string>& Logs() {
  static const std::vector<std::string> logs = [] {
    std::vector<std::string> out;
    for (const char* log : triage_test::kObservedLogs) out.push_back(triage_test::ReadSourceFile(log));
    return out;
  }();
  return logs;
}

// A copy of the bundled rules with broken files of every kind added (WriteBrokenRuleFiles), made once
// per process.
// Removed when the process ends.
struct TempRules {
  std::string dir;
  ~TempRules() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

const std::string& RulesDir() {
  static const TempRules rules{[] {
    const fs::path p = fs::temp_directory_path() / ("triage_concurrent_rules_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::copy(std::string(TRIAGE_SOURCE_DIR) + "/rules", p, fs::copy_options::recursive);
    fs::create_directories(p / "zz");
    triage_test::WriteBrokenRuleFiles((p / "zz").string());
    return p.string();
  }()};
  return rules.dir;
}

LoadOptions Options(bool cache, const std::string& cache_dir) {
  LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = false;
  o.dirs = {RulesDir()};
  o.cache = cache;
  o.cache_dir = cache_dir;
  return o;
}

// What a diagnosis of each log says (the JSON contract), as ObserveLoad ends with it.
std::string Diagnoses(const std::shared_ptr<const RuleSet>& rules) {
  std::string out;
  Engine engine(rules);
  for (const std::string& log : Logs()) out += ToJson(engine.DiagnoseText(log));
  return out;
}

// Everything observable about a load: the rule ids, then load_observe.h's ObserveLoad (the parsed
// rules and problems as the cache serialises them, the line prefilter's plan, the logs' diagnoses).
std::string Observe(const LoadResult& r) {
  std::string out;
  for (const Rule& rule : r.rules->rules) out += rule.id + "\n";
  return out + triage_test::ObserveLoad(r);
}

// The reference: one load on this thread, no cache, before any other test of this file loads.
const std::string& Reference() {
  static const std::string ref = Observe(LoadRules(Options(false, "")));
  return ref;
}

// Runs fn(0) ... fn(n - 1) on n threads released together, and waits for them.
void OnThreads(int n, const std::function<void(int)>& fn) {
  std::mutex mu;
  std::condition_variable cv;
  int ready = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      {
        std::unique_lock<std::mutex> lock(mu);
        if (++ready == n) cv.notify_all();
        cv.wait(lock, [&] { return ready == n; });
      }
      fn(t);
    });
  }
  for (std::thread& th : threads) th.join();
}

std::string TempDir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("triage_concurrent_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  fs::permissions(p, fs::perms::owner_all);  // a cache directory others may write is not used
  return p.string();
}

constexpr int kThreads = 4;

TEST(ConcurrentLoad, LoadsOnManyThreadsGiveWhatOneThreadGives) {
  const std::string& ref = Reference();
  ASSERT_GT(ref.size(), 100000u);
  std::vector<std::string> got(kThreads);
  OnThreads(kThreads, [&](int t) { got[t] = Observe(LoadRules(Options(false, ""))); });
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(got[t] == ref) << "thread " << t;
  // Nothing process-wide was spoiled: a load on one thread after them still gives the reference.
  EXPECT_TRUE(Observe(LoadRules(Options(false, ""))) == ref) << "a one-thread load after the concurrent ones";
}

// Loads into one cache directory at once: each writes the same entry, parts file and plan; none may
// read another's half-written file, and a warm load afterwards reads what they left.
TEST(ConcurrentLoad, LoadsSharingACacheDirectoryGiveWhatOneThreadGives) {
  const std::string& ref = Reference();
  const std::string dir = TempDir("shared_cache");
  std::vector<std::string> got(kThreads);
  OnThreads(kThreads, [&](int t) { got[t] = Observe(LoadRules(Options(true, dir))); });
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(got[t] == ref) << "cold, thread " << t;
  ASSERT_TRUE(fs::exists(dir + "/" + kRulePartsFile)) << "the cold loads wrote no cache";
  // Warm loads at once (entry hits), then, without the whole-set entry, loads from the parts file.
  OnThreads(kThreads, [&](int t) { got[t] = Observe(LoadRules(Options(true, dir))); });
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(got[t] == ref) << "warm, thread " << t;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) fs::remove(e.path());
  }
  OnThreads(kThreads, [&](int t) { got[t] = Observe(LoadRules(Options(true, dir))); });
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(got[t] == ref) << "from parts, thread " << t;
  EXPECT_TRUE(Observe(LoadRules(Options(true, dir))) == ref) << "a one-thread warm load after them";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_NE(name.rfind(".rules-", 0), 0u) << "a temporary file left behind: " << name;
  }
  fs::remove_all(dir);
}

// Loads while other threads diagnose with a rule set loaded before: the diagnoses never change, nor
// do the loads.
TEST(ConcurrentLoad, LoadingWhileOtherThreadsDiagnose) {
  const std::string& ref = Reference();
  const LoadResult loaded = LoadRules(Options(false, ""));
  const std::string diagnoses = Diagnoses(loaded.rules);
  ASSERT_NE(ref.find(diagnoses), std::string::npos);
  std::atomic<int> loads_left{kThreads / 2};
  std::vector<std::string> got(kThreads);
  std::vector<int> rounds(kThreads, 0);
  OnThreads(kThreads, [&](int t) {
    if (t % 2 == 0) {
      got[t] = Observe(LoadRules(Options(false, "")));
      loads_left.fetch_sub(1);
      return;
    }
    // Diagnose until every load is done, at least twice.
    do {
      const std::string now = Diagnoses(loaded.rules);
      if (now != diagnoses) got[t] = now;
      ++rounds[t];
    } while (loads_left.load() > 0 || rounds[t] < 2);
  });
  for (int t = 0; t < kThreads; ++t) {
    if (t % 2 == 0) EXPECT_TRUE(got[t] == ref) << "load on thread " << t;
    else EXPECT_TRUE(got[t].empty()) << "a diagnosis on thread " << t << " changed during the loads: " << got[t];
  }
}

// The C API's load and diagnose on several threads at once give what one thread gives.
TEST(ConcurrentLoad, CApiLoadsOnManyThreads) {
  const char* dirs[] = {RulesDir().c_str()};
  const unsigned flags = TRIAGE_LOAD_NO_BUNDLED | TRIAGE_LOAD_ONLY_DIRS | TRIAGE_LOAD_NO_CACHE;
  auto load = [&] {
    std::string out;
    triage_rules* rules = nullptr;
    char* problems = nullptr;
    const triage_status st = triage_rules_load(dirs, 1, flags, &rules, &problems);
    out += std::string(triage_status_name(st)) + " " + std::to_string(triage_rules_count(rules)) + "\n";
    if (problems != nullptr) out += problems;
    triage_string_free(problems);
    for (const std::string& log : Logs()) {
      char* json = nullptr;
      char* error = nullptr;
      if (triage_diagnose(rules, nullptr, log.data(), log.size(), &json, &error) == TRIAGE_OK) out += json;
      else out += std::string("error: ") + (error ? error : "");
      triage_string_free(json);
      triage_string_free(error);
    }
    triage_rules_free(rules);
    return out;
  };
  const std::string one = load();
  ASSERT_GT(one.size(), 1000u);
  std::vector<std::string> got(kThreads);
  OnThreads(kThreads, [&](int t) { got[t] = load(); });
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(got[t] == one) << "thread " << t;
}


// Note: [Numbers in the C locale] in yaml_tree.cc: the process's global C++ locale is process-wide
// state an embedder (or one of its threads) may set; with a comma for the decimal point, loads still
// give the reference, on several threads too.
struct CommaDecimals : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

TEST(ConcurrentLoad, LoadsUnderAGlobalLocaleWithADecimalComma) {
  const std::string& ref = Reference();
  const std::locale before = std::locale::global(std::locale(std::locale::classic(), new CommaDecimals));
  std::vector<std::string> got(2);
  OnThreads(2, [&](int t) { got[t] = Observe(LoadRules(Options(false, ""))); });
  std::locale::global(before);
  for (int t = 0; t < 2; ++t) EXPECT_TRUE(got[t] == ref) << "thread " << t << ":\n" << got[t].substr(0, 2000);
}

// Note: [Allow file updates]: directories allowed on several threads at once are all in the allow
// file afterwards (an update never drops another's line), and no temporary file is left beside it.
TEST(ConcurrentLoad, AllowingDirectoriesOnManyThreads) {
  const fs::path root = TempDir("allow");
  const fs::path allow = root / "config" / "allowed-rules";
  const char* old = std::getenv("TRIAGE_ALLOW_FILE");
  const std::string saved = old ? old : "";
  ::setenv("TRIAGE_ALLOW_FILE", allow.c_str(), 1);
  constexpr int kDirs = 8;
  std::vector<fs::path> dirs;
  for (int i = 0; i < kDirs; ++i) {
    dirs.push_back(root / ("p" + std::to_string(i)) / ".triage" / "rules");
    fs::create_directories(dirs.back());
    std::ofstream(dirs.back() / "r.yaml") << "# project rules " << i << "\n";
    ::chmod(dirs.back().parent_path().c_str(), 0755);
    ::chmod(dirs.back().c_str(), 0755);
  }
  for (int round = 0; round < 4; ++round) {
    fs::remove(allow);
    std::vector<std::string> why(kDirs);
    OnThreads(kDirs, [&](int t) { why[t] = AllowRulesDir(dirs[t].string()); });
    const std::string text = Slurp(allow.string());
    for (int t = 0; t < kDirs; ++t) {
      EXPECT_EQ(why[t], "") << "round " << round << ", directory " << t;
      const std::string entry = RulesDirDigest(dirs[t].string()) + " " + fs::canonical(dirs[t]).string() + "\n";
      EXPECT_NE(text.find(entry), std::string::npos) << "round " << round << ": directory " << t << " lost:\n" << text;
      EXPECT_EQ(UntrustedRulesDir(dirs[t].string()), "") << "round " << round << ", directory " << t;
    }
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), kDirs) << text;
  }
  for (const auto& e : fs::directory_iterator(allow.parent_path())) {
    EXPECT_EQ(e.path(), allow) << "left beside the allow file: " << e.path();
  }
  if (old) ::setenv("TRIAGE_ALLOW_FILE", saved.c_str(), 1);
  else ::unsetenv("TRIAGE_ALLOW_FILE");
  fs::remove_all(root);
}

}  // namespace
}  // namespace triage
