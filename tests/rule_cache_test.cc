// The rule-set cache (Note: [Rule cache]): a hit must give exactly what a fresh load gives.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "load_observe.h"
#include "rules/rule_cache.h"
#include "rules/signal_rules.h"
#include "scoped_env.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("triage_cache_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The bundled rules alone, cached in `dir`.
LoadOptions BundledOnly(const std::string& dir) {
  LoadOptions o;
  o.env_path = false;
  o.system = o.user = o.project = false;
  o.cache_dir = dir;
  return o;
}

LoadResult LoadBundled(bool cache, const std::string& dir) {
  LoadOptions o = BundledOnly(dir);
  o.cache = cache;
  return LoadRules(o);
}

// Flips the case of the first byte of `text` in `dir`'s whole-set entry, a change only the entry's
// checksum can tell; returns the entry's key, "" when there is no entry or it does not hold `text`.
std::string DamageEntryText(const std::string& dir, const std::string& text) {
  std::string entry;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) entry = e.path().string();
  }
  if (entry.empty()) return "";
  std::string bytes = ReadText(entry);
  const size_t at = bytes.find(text);
  if (at == std::string::npos) return "";
  bytes[at] ^= 0x20;
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  return fs::path(entry).filename().string().substr(6, 64);
}

// Everything observable about a load (load_observe.h).
std::string Observe(const LoadResult& r) { return triage_test::ObserveLoad(r); }

// Note: [Entry on huge pages]: a whole read (into huge pages where the kernel offers them, else a
// mapping) and a mapping give the file's bytes, for sizes below, at and past a 2 MiB window, and
// neither holds a byte past the file's end in its view.
TEST(RuleCache, AWholeReadGivesTheFilesBytes) {
  const std::string dir = TempDir("whole_read");
  const size_t window = size_t{2} << 20;
  for (size_t size : {size_t{1}, size_t{4095}, window - 1, window, window + 1, 2 * window + 12345}) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
    const std::string path = dir + "/f" + std::to_string(size);
    std::ofstream(path, std::ios::binary) << bytes;
    for (bool whole : {true, false}) {
      MappedCacheFile file;
      ASSERT_TRUE(file.Map(path, CacheOwner::kUser, whole)) << size << " " << whole;
      EXPECT_EQ(file.view().size(), size) << whole;
      EXPECT_TRUE(file.view() == bytes) << size << " " << whole;
      EXPECT_FALSE(file.Map(path, CacheOwner::kUser, whole));  // one file at most
    }
  }
  const std::string empty = dir + "/empty";
  std::ofstream(empty, std::ios::binary).flush();
  MappedCacheFile none;
  EXPECT_FALSE(none.Map(empty, CacheOwner::kUser, /*whole=*/true));
  fs::remove_all(dir);
}

// Note: [Shared huge windows]: a whole read that fits in what the last read's windows left lies
// there (where the kernel offers huge pages), and its bytes outlive the first file's.
TEST(RuleCache, AWholeReadSharesTheLastReadsWindows) {
  const std::string dir = TempDir("shared_windows");
  auto make = [&](const std::string& name, size_t size, unsigned seed) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(((i + seed) * 2654435761u) >> 13);
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return bytes;
  };
  const size_t a_size = (size_t{3} << 20) + 5, b_size = 300001, c_size = 800000;
  const std::string a = make("a", a_size, 1), b = make("b", b_size, 2), c = make("c", c_size, 3);
  std::string thp;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), thp);
  const bool offered = thp.find("[always]") != std::string::npos || thp.find("[madvise]") != std::string::npos;
  auto first = std::make_unique<MappedCacheFile>();
  ASSERT_TRUE(first->Map(dir + "/a", CacheOwner::kUser, /*whole=*/true));
  MappedCacheFile second, third;
  ASSERT_TRUE(second.Map(dir + "/b", CacheOwner::kUser, /*whole=*/true));
  ASSERT_TRUE(third.Map(dir + "/c", CacheOwner::kUser, /*whole=*/true));  // too big for what is left
  if (offered) {
    EXPECT_EQ(second.view().data(), first->view().data() + ((a_size + 63) & ~size_t{63}));
    EXPECT_NE(third.view().data(), second.view().data() + ((b_size + 63) & ~size_t{63}));
  }
  EXPECT_TRUE(first->view() == a);
  first.reset();
  EXPECT_TRUE(second.view() == b) << "the windows went with the first file";
  EXPECT_TRUE(third.view() == c);
  fs::remove_all(dir);
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
  // Without the whole-set entry, every file's part comes from the parts file (Note: [Rule parts]).
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) fs::remove(e.path());
  }
  ASSERT_TRUE(fs::exists(dir + "/" + kRulePartsFile));
  std::string from_parts = Observe(LoadBundled(true, dir));
  EXPECT_TRUE(fresh == from_parts) << "a load from the rule files' parts differs from a fresh one";
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
  fs::path entry;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) entry = e.path();
  }
  ASSERT_FALSE(entry.empty());
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
  // The same corruptions of the parts file, read when the whole-set entry misses (Note: [Rule parts]).
  const std::string parts_file = dir + "/" + kRulePartsFile;
  std::string parts;
  {
    std::ifstream in(parts_file, std::ios::binary);
    parts.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(parts.empty());
  for (const std::string& c : {parts.substr(0, parts.size() / 2), std::string(4096, '\x7f'),
                               parts.substr(0, 40) + '\xff' + parts.substr(41), std::string()}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().rfind("rules-", 0) == 0) fs::remove(e.path());
    }
    std::ofstream(parts_file, std::ios::binary | std::ios::trunc) << c;
    std::vector<RulePart> back;
    EXPECT_FALSE(ParseRuleParts(c.size() > 20 ? c.substr(20) : c, &back)) << c.size();
    EXPECT_TRUE(fresh == Observe(LoadBundled(true, dir))) << "a corrupt parts file changed the result (" << c.size() << " bytes)";
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

// A load that misses the whole-set entry takes each unchanged file's part from the parts file and
// reads only the edited file (Note: [Rule parts]); a part whose key is not the file's is never used.
// Note: [Cache checksums]: one changed letter inside a rule's title keeps the entry's structure, so only
// the checksum can tell; the damaged entry is a miss and is written again as it was, and the same
// damage to a part in the parts file costs that file a reading and drops the part.
TEST(RuleCache, DamageInsideATextIsAMissAndTheEntryIsRebuilt) {
  std::string dir = TempDir("damage");
  std::string fresh = Observe(LoadBundled(false, ""));
  const LoadResult loaded = LoadBundled(true, dir);
  const std::string title = loaded.rules->rules.at(0).title;
  ASSERT_GE(title.size(), 8u);
  fs::path entry;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) entry = e.path();
  }
  ASSERT_FALSE(entry.empty());
  const std::string good = ReadText(entry.string());
  const size_t at = good.find(title);
  ASSERT_NE(at, std::string::npos);
  std::string bad = good;
  bad[at + 3] ^= 0x20;  // a letter's case
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bad;
  const size_t header = bad.find('\n', bad.find('\n') + 1) + 1;  // the magic line, then the key's
  ParsedRules parsed;
  EXPECT_TRUE(ParseParsedRules(std::string_view(good).substr(header), &parsed));
  EXPECT_FALSE(ParseParsedRules(std::string_view(bad).substr(header), &parsed));
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, dir))) << "a damaged entry changed the result";
  EXPECT_TRUE(ReadText(entry.string()) == good) << "the damaged entry was not written again";
  // The parts file: its part of that rule's file damaged the same way, the whole-set entry gone.
  const std::string parts_file = dir + "/" + kRulePartsFile;
  const std::string parts = ReadText(parts_file);
  const size_t in_parts = parts.find(title);
  ASSERT_NE(in_parts, std::string::npos);
  std::string damaged = parts;
  damaged[in_parts + 3] ^= 0x20;
  fs::remove(entry);
  std::ofstream(parts_file, std::ios::binary | std::ios::trunc) << damaged;
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, dir))) << "a damaged part changed the result";
  const std::string rewritten = ReadText(parts_file);
  EXPECT_NE(rewritten.find(title), std::string::npos);
  std::string lowered = title;
  lowered[3] ^= 0x20;
  EXPECT_EQ(rewritten.find(lowered), std::string::npos) << "the damaged part was kept";
  fs::remove_all(dir);
}

TEST(RuleCache, EditingOneFileReadsOnlyThatFile) {
  std::string cache = TempDir("parts_cache");
  std::string rules = TempDir("parts_rules");
  auto write = [&](const std::string& id, const std::string& title) {
    std::ofstream(rules + "/" + id + ".yaml") << "id: " << id << "\ncategory: cuda.oom\ntitle: " << title
                                              << "\nmatch:\n  message: '" << id << " failed'\nexplain: e\nhypotheses:\n"
                                                 "  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
                                                 "examples:\n  - match: '" << id << " failed'\n";
  };
  LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = false;
  o.dirs = {rules};
  o.cache_dir = cache;
  auto titles = [&] {
    std::string out;
    const LoadResult loaded = LoadRules(o);
    for (const Rule& r : loaded.rules->rules) out += r.id + "=" + r.title + " ";
    return out;
  };
  write("rule-a", "a1");
  write("rule-b", "b1");
  EXPECT_EQ(titles(), "rule-a=a1 rule-b=b1 ");
  // Mark rule-b's part, so that its use shows.
  const std::string parts_file = cache + "/" + kRulePartsFile;
  const std::string magic = "triage-rule-parts 2\n";
  auto plant = [&](bool keep_key) {
    std::ifstream in(parts_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.compare(0, magic.size(), magic), 0);
    std::vector<RulePart> parts;
    ASSERT_TRUE(ParseRuleParts(std::string_view(bytes).substr(magic.size()), &parts));
    bool found = false;
    for (RulePart& p : parts) {
      if (p.rule.id != "rule-b") continue;
      found = true;
      p.rule.title = "b from its part";
      if (!keep_key) p.key[0] = p.key[0] == '0' ? '1' : '0';
    }
    ASSERT_TRUE(found);
    std::ofstream(parts_file, std::ios::binary | std::ios::trunc) << magic << SerializeRuleParts(parts);
  };
  plant(true);
  write("rule-a", "a2");  // a new whole-set key: rule-a is read, rule-b comes from its part
  EXPECT_EQ(titles(), "rule-a=a2 rule-b=b from its part ");
  plant(false);
  write("rule-a", "a3");  // rule-b's part no longer carries its key: rule-b is read again
  EXPECT_EQ(titles(), "rule-a=a3 rule-b=b1 ");
  // Parts are parsed only when used (Note: [Parts file layout]): one part's damaged bytes cost only
  // its file a reading; the others are still used, and the file written after holds good parts only.
  plant(true);
  {
    std::ifstream in(parts_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<StoredPart> index;
    ASSERT_TRUE(IndexRuleParts(std::string_view(bytes).substr(magic.size()), &index));
    bool damaged = false;
    for (const StoredPart& p : index) {
      RulePart part;
      ASSERT_TRUE(ParseRulePart(p, &part));
      if (part.rule.id != "rule-a" || damaged) continue;  // the first is this load's (older ones follow)
      bytes[p.bytes.data() - bytes.data() + 7] = '\x7f';  // its key's length: far past the end
      damaged = true;
    }
    ASSERT_TRUE(damaged);
    std::ofstream(parts_file, std::ios::binary | std::ios::trunc) << bytes;
    std::vector<RulePart> all;
    EXPECT_FALSE(ParseRuleParts(std::string_view(bytes).substr(magic.size()), &all));
  }
  for (const auto& e : fs::directory_iterator(cache)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) fs::remove(e.path());
  }
  EXPECT_EQ(titles(), "rule-a=a3 rule-b=b from its part ");
  {
    std::ifstream in(parts_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<RulePart> all;
    EXPECT_TRUE(ParseRuleParts(std::string_view(bytes).substr(magic.size()), &all));
  }
  fs::remove_all(cache);
  fs::remove_all(rules);
}

// Every file of a cache directory (name and bytes), sorted by name, but the stamp indexes: whether a
// load writes one depends on how long ago the files were written (Note: [Rule file stamps]).
std::map<std::string, std::string> CacheFiles(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("stamps-", 0) != 0) out[name] = ReadText(e.path().string());
  }
  return out;
}

// Note: [Parallel rule reading]: a load that reads its files on several threads gives the rules,
// problems, parts file and entry that reading them on one thread gives, byte for byte, with a cache
// or none, every file read or some of them from the parts file, broken files among them
// (WriteBrokenRuleFiles); the prefilter and the diagnoses of a few logs too (ObserveLoad). Fails when
// the parts are kept in the order the threads finish them.
TEST(RuleCache, ReadingOnManyThreadsGivesWhatOneThreadGives) {
  const std::string rules = TempDir("threads_rules");
  fs::remove_all(rules);
  fs::copy(std::string(TRIAGE_SOURCE_DIR) + "/rules", rules, fs::copy_options::recursive);
  fs::create_directories(rules + "/zz");
  triage_test::WriteBrokenRuleFiles(rules + "/zz");
  auto load = [&](int threads, bool cache, const std::string& cache_dir) {
    LoadOptions o;
    o.bundled = o.env_path = o.system = o.user = o.project = false;
    o.dirs = {rules};
    o.cache = cache;
    o.cache_dir = cache_dir;
    o.threads = threads;
    return triage_test::ObserveLoad(LoadRules(o));
  };
  const std::string one = load(1, false, "");
  EXPECT_GT(one.size(), 100000u);
  EXPECT_NE(one.find("lua-memory"), std::string::npos);
  std::map<int, std::string> caches;
  for (int threads : {1, 2, 4}) {
    EXPECT_TRUE(load(threads, false, "") == one) << threads << " threads, no cache";
    caches[threads] = TempDir("threads_cache_" + std::to_string(threads));
    EXPECT_TRUE(load(threads, true, caches[threads]) == one) << threads << " threads, a cache";
  }
  const auto files = CacheFiles(caches[1]);
  EXPECT_EQ(files.count(kRulePartsFile), 1u);
  for (int threads : {2, 4}) EXPECT_TRUE(CacheFiles(caches[threads]) == files) << threads << " threads wrote another cache";
  // Some files edited: those are read, the others come from the parts file.
  int edited = 0;
  for (const auto& e : fs::recursive_directory_iterator(rules)) {
    if (e.path().extension() == ".yaml" && edited++ % 7 == 0) std::ofstream(e.path(), std::ios::app) << "# edited\n";
  }
  ASSERT_GT(edited / 7, 40);
  for (int threads : {1, 4}) {
    for (const auto& e : fs::directory_iterator(caches[threads])) {
      if (e.path().filename().string().rfind("rules-", 0) == 0) fs::remove(e.path());
    }
  }
  const std::string edited_one = load(1, true, caches[1]);
  EXPECT_TRUE(load(4, true, caches[4]) == edited_one) << "4 threads, some parts cached";
  EXPECT_TRUE(CacheFiles(caches[4]) == CacheFiles(caches[1])) << "4 threads wrote another cache after the edits";
  EXPECT_TRUE(load(1, false, "") == edited_one);
  for (const auto& [threads, dir] : caches) fs::remove_all(dir);
  fs::remove_all(rules);
}

// One rule file, my-rule.yaml, in a directory of its own, loaded with a cache directory of its own.
struct OneRule {
  std::string cache, rules;
  LoadOptions options;
  explicit OneRule(const std::string& tag) : cache(TempDir(tag + "_cache")), rules(TempDir(tag + "_rules")) {
    options.bundled = options.env_path = options.system = options.user = options.project = false;
    options.dirs = {rules};
    options.cache_dir = cache;
  }
  ~OneRule() {
    fs::remove_all(cache);
    fs::remove_all(rules);
  }
  // A second rule whose kLargePatterns patterns of ~4,800 RE2 instructions each (four Unicode letter runs)
  // make a set over the size below which a load leaves it for its first need (Note: [Set size bound]:
  // 300,000 since 2026-11-30, so 70 patterns, ~336,000; 45 were enough under 200,000).
  static constexpr int kLargePatterns = 70;
  void WriteLarge() const {
    std::ofstream out(rules + "/large-rule.yaml");
    out << "id: large-rule\ncategory: cuda.oom\ntitle: t\nmatch:\n  message:\n";
    for (int i = 0; i < kLargePatterns; ++i) {
      out << "    - 'large" << i << " \\pL+ one \\pL+ two \\pL+ three \\pL+ end'\n";
    }
    out << "explain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
           "examples:\n  - match: 'large7 x one y two z three w end'\n";
  }
  void Write(const std::string& pattern, const std::string& title) const {
    std::ofstream(rules + "/my-rule.yaml") << "id: my-rule\ncategory: cuda.oom\ntitle: " << title
                                           << "\nmatch:\n  message: '" << pattern << "'\nexplain: e\nhypotheses:\n"
                                              "  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
                                              "examples:\n  - match: '" << pattern << "'\n";
  }
};

// Note: [Reused prefilter plan]: after an edit that keeps every pattern's required literals, the load
// takes the plan kept for those literals (a planted anchor shows it was used, not made again); an
// edit of a literal, or a damaged plan file, has the plan made afresh.
TEST(RuleCache, AnEditThatKeepsEveryLiteralReusesThePrefilterPlan) {
  OneRule one("plan");
  const std::string& cache = one.cache;
  const LoadOptions& o = one.options;
  auto write = [&](const std::string& pattern, const std::string& title) { one.Write(pattern, title); };
  auto plans = [&] {
    std::vector<std::string> keys;
    for (const auto& e : fs::directory_iterator(cache)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("plan-", 0) == 0) keys.push_back(name.substr(5, 64));
    }
    return keys;
  };
  write("spectacular failure (\\d+)", "first");
  const LoadResult first = LoadRules(o);
  const LineScanner::Layout made = first.rules->prefilter->Scanner().layout();
  ASSERT_EQ(plans().size(), 1u);
  const std::string key = plans()[0];
  // Plant another valid anchor for the rule's keyword: a load that uses the kept plan has it.
  PrefilterPlan plan;
  ASSERT_TRUE(ReadPrefilterPlan(cache, key, &plan));
  const auto at = std::find_if(plan.keywords.begin(), plan.keywords.end(), [](const std::string& w) { return w.size() >= 6; });
  ASSERT_NE(at, plan.keywords.end());
  const size_t k = static_cast<size_t>(at - plan.keywords.begin());
  ASSERT_EQ(plan.layout.offsets.size(), plan.keywords.size());
  plan.layout.offsets[k] = plan.layout.offsets[k] == 0 ? 1 : 0;
  WritePrefilterPlan(cache, key, plan);
  write("spectacular failure (\\d+)", "second");  // the text only
  const LoadResult text_edit = LoadRules(o);
  EXPECT_EQ(text_edit.rules->rules.at(0).title, "second");
  EXPECT_EQ(text_edit.rules->prefilter->Scanner().layout().offsets, plan.layout.offsets);
  EXPECT_EQ(plans().size(), 1u);
  EXPECT_EQ(Engine(text_edit.rules).DiagnoseText("RuntimeError: spectacular failure 12\n").diagnoses.size(), 1u);
  write("spectacular failure (?:code )?(\\d+)", "third");  // a pattern edit that keeps its literals
  EXPECT_EQ(LoadRules(o).rules->prefilter->Scanner().layout().offsets, plan.layout.offsets);
  // A damaged plan is made again, as is the plan of other literals.
  std::string bytes = ReadText(cache + "/plan-" + key + ".bin");
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(cache + "/plan-" + key + ".bin", std::ios::binary | std::ios::trunc) << bytes;
  PrefilterPlan damaged;
  EXPECT_FALSE(ReadPrefilterPlan(cache, key, &damaged));
  write("spectacular failure (\\d+)", "fourth");
  EXPECT_EQ(LoadRules(o).rules->prefilter->Scanner().layout().offsets, made.offsets);
  write("remarkable failure (\\d+)", "fifth");
  LoadRules(o);
  EXPECT_EQ(plans().size(), 2u);
}

// Note: [Examples left out]: a load that lets the examples go has them from a miss (the files are
// parsed) and not from the cache, where everything else is what a load that keeps them gives; an
// entry damaged inside an example is still a miss for a load that reads them, and is not read by one
// that leaves them out (Note: [Examples apart]).
TEST(RuleCache, ALoadWithoutExamplesLeavesThemOutOnlyFromTheCache) {
  const std::string dir = TempDir("examples");
  LoadOptions o = BundledOnly(dir);
  o.examples = false;
  auto count = [](const LoadResult& r) {
    size_t n = 0;
    for (const Rule& rule : r.rules->rules) n += rule.examples.size();
    return n;
  };
  // Everything a load gives but the examples (ObserveLoad's serialisation and diagnoses).
  auto observe = [](const LoadResult& r) {
    ParsedRules p;
    p.rules = r.rules->rules;
    for (Rule& rule : p.rules) rule.examples.clear();
    p.disabled = r.rules->disabled;
    p.problems = r.problems;
    std::string out = SerializeParsedRules(p);
    Engine engine(r.rules);
    for (const char* log : triage_test::kObservedLogs) {
      out += ToJson(engine.DiagnoseText(triage_test::ReadSourceFile(log)));
    }
    return out;
  };
  const LoadResult missed = LoadRules(o);
  EXPECT_GT(count(missed), 1000u);
  const LoadResult kept = LoadBundled(true, dir);
  EXPECT_EQ(count(kept), count(missed));
  const LoadResult left = LoadRules(o);
  EXPECT_EQ(left.rules->rules.size(), kept.rules->rules.size());
  EXPECT_EQ(count(left), 0u);
  EXPECT_TRUE(observe(left) == observe(kept)) << "a load without examples differs in more than them";
  EXPECT_TRUE(Observe(LoadBundled(true, dir)) == Observe(kept)) << "the entry lost its examples";
  // A byte of an example's text changed in the entry (Note: [Examples apart]): a load that reads the
  // examples finds its section's checksum failing and parses again; one that leaves them out never
  // reads that section, and is served by the rest, whose checksum still agrees.
  const Rule& first = kept.rules->rules.at(0);
  ASSERT_FALSE(first.examples.empty());
  const std::string key = DamageEntryText(dir, first.examples[0].text);
  ASSERT_FALSE(key.empty());
  ParsedRules damaged;
  EXPECT_FALSE(ReadRuleCache(dir, key, &damaged, CacheOwner::kUser, /*examples=*/true));
  EXPECT_FALSE(ReadRuleCache(dir, key, &damaged, CacheOwner::kUser, /*examples=*/true, /*texts_on_demand=*/true));
  ParsedRules lean;
  EXPECT_TRUE(ReadRuleCache(dir, key, &lean, CacheOwner::kUser, /*examples=*/false));
  const LoadResult still = LoadRules(o);
  EXPECT_EQ(count(still), 0u);
  EXPECT_TRUE(observe(still) == observe(kept));
  const LoadResult again = LoadBundled(true, dir);
  EXPECT_EQ(count(again), count(kept));
  EXPECT_TRUE(observe(again) == observe(kept));
  // Cut short inside the examples section: a miss for both loads (the sections' sizes no longer add up).
  const std::string entry = dir + "/rules-" + key + ".bin";
  std::string bytes = ReadText(entry);
  ASSERT_GT(bytes.size(), 100u);
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 100);
  EXPECT_FALSE(ReadRuleCache(dir, key, &lean, CacheOwner::kUser, /*examples=*/false));
  EXPECT_FALSE(ReadRuleCache(dir, key, &lean, CacheOwner::kUser, /*examples=*/false, /*texts_on_demand=*/true));
  EXPECT_FALSE(ReadRuleCache(dir, key, &damaged, CacheOwner::kUser, /*examples=*/true));
  fs::remove_all(dir);
}

// Note: [Texts on demand]: a load from the cache that leaves the rules' texts in the entry gives, rule
// by rule through RuleSet::Full, what a full load gives, and the same reports; the texts are really
// left out of the rules it holds, read only once per rule (from any thread), and a damaged or
// malformed text is a miss as when texts are kept.
TEST(RuleCache, TextsOnDemandGiveTheFullRulesAndTheSameReports) {
  const std::string dir = TempDir("texts");
  LoadOptions o = BundledOnly(dir);
  const LoadResult full = LoadRules(o);  // a miss: parses, writes the entry
  ASSERT_FALSE(full.rules->texts_deferred());
  o.texts_on_demand = true;
  const LoadResult lazy = LoadRules(o);
  ASSERT_TRUE(lazy.rules->texts_deferred());
  const RuleSet& set = *lazy.rules;
  ASSERT_EQ(set.rules.size(), full.rules->rules.size());
  auto texts = [](const Rule& r) {
    size_t n = r.explain.value.size() + r.hypotheses.size() + r.checks.size() + r.verify.value.size() + r.refs.size() +
               r.examples.size() + r.cpp_checks.size() + r.cpp_verify.value.size();
    for (const LuaChunk& c : r.lua_chunks) n += c.code.size();
    return n;
  };
  size_t left = 0, had = 0;
  for (size_t i = 0; i < set.rules.size(); ++i) {
    left += texts(set.rules[i]);
    had += texts(full.rules->rules[i]);
  }
  EXPECT_EQ(left, 0u) << "texts were copied into the rules";
  // Whether a rule has Lua is known without its code (the runtime is made for the set).
  EXPECT_TRUE(set.lua != nullptr);
  for (size_t i = 0; i < set.rules.size(); ++i) EXPECT_EQ(set.rules[i].has_lua(), full.rules->rules[i].has_lua());
  EXPECT_GT(had, 10000u);
  // Every rule, its texts read on demand, serialises as the full load's, examples included.
  auto serialise = [](std::vector<Rule> rules) {
    ParsedRules p;
    p.rules = std::move(rules);
    return SerializeParsedRules(p);
  };
  std::vector<Rule> read;
  for (size_t i = 0; i < set.rules.size(); ++i) read.push_back(set.Full(static_cast<int>(i)));
  EXPECT_TRUE(serialise(read) == serialise(full.rules->rules)) << "a rule read on demand differs";
  // The same copy every time, from any thread.
  std::vector<std::vector<const Rule*>> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      for (size_t k = 0; k < set.rules.size(); ++k) {
        const size_t i = (k * (2 * t + 1) + t) % set.rules.size();
        seen[t].push_back(&set.Full(static_cast<int>(i)));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (size_t t = 0; t < seen.size(); ++t) {
    for (size_t k = 0; k < set.rules.size(); ++k) {
      const size_t i = (k * (2 * t + 1) + t) % set.rules.size();
      ASSERT_EQ(seen[t][k], &set.Full(static_cast<int>(i)));
    }
  }
  // The tools read them too: a rule's explanation, its examples run.
  bool found = false;
  EXPECT_EQ(ExplainRule(set, "linear-in-features", &found, 100), ExplainRule(*full.rules, "linear-in-features", &found, 100));
  EXPECT_TRUE(found);
  const RuleTestReport ran = RunRuleExamples(set, "linear-in-features");
  EXPECT_GT(ran.results.size(), 0u);
  EXPECT_EQ(ran.results.size(), RunRuleExamples(*full.rules, "linear-in-features").results.size());
  EXPECT_EQ(ran.failed, 0);
  // Without examples (as `triage` loads): the same rules less their examples, and the same reports on
  // the observed logs and the corpus, each from a fresh load whose texts are all still in the entry.
  o.examples = false;
  std::vector<Rule> without = full.rules->rules;
  for (Rule& r : without) r.examples.clear();
  const LoadResult lean = LoadRules(o);
  ASSERT_TRUE(lean.rules->texts_deferred());
  std::vector<Rule> lean_read;
  for (size_t i = 0; i < lean.rules->rules.size(); ++i) lean_read.push_back(lean.rules->Full(static_cast<int>(i)));
  EXPECT_TRUE(serialise(lean_read) == serialise(without));
  auto reports = [](const LoadResult& r) {
    std::string out;
    Engine engine(r.rules);
    for (const char* log : triage_test::kObservedLogs) out += ToJson(engine.DiagnoseText(triage_test::ReadSourceFile(log)));
    return out;
  };
  EXPECT_TRUE(reports(LoadRules(o)) == reports(full));
  EXPECT_EQ(EvaluateCorpus(Engine(LoadRules(o).rules), std::string(TRIAGE_SOURCE_DIR) + "/corpus").ToText(),
            EvaluateCorpus(Engine(full.rules), std::string(TRIAGE_SOURCE_DIR) + "/corpus").ToText());
  // A byte of a hypothesis' text flipped in the entry: the checksum fails, the load parses again.
  const Rule& first = full.rules->rules.at(0);
  ASSERT_FALSE(first.hypotheses.empty());
  const std::string key = DamageEntryText(dir, first.hypotheses[0].text.value);
  ASSERT_FALSE(key.empty());
  ParsedRules damaged;
  EXPECT_FALSE(ReadRuleCache(dir, key, &damaged, CacheOwner::kUser, false, /*texts_on_demand=*/true));
  const LoadResult again = LoadRules(o);
  EXPECT_TRUE(reports(again) == reports(full));
  // A text that does not read (an example's kind out of range, under a checksum that agrees) is a
  // miss too, though the load reads over it.
  Rule odd = first;
  ASSERT_FALSE(odd.examples.empty());
  odd.examples[0].kind = static_cast<ExampleKind>(7);
  const std::string malformed = serialise({odd});
  auto keep = std::make_shared<std::string>(malformed);
  ParsedRules back;
  // (A load that leaves the examples out never reads their section: Note: [Examples apart].)
  EXPECT_TRUE(ParseParsedRules(*keep, &back, /*examples=*/false, keep));
  EXPECT_FALSE(ParseParsedRules(*keep, &back, /*examples=*/true, keep));
  EXPECT_FALSE(ParseParsedRules(*keep, &back, /*examples=*/true));
  odd = first;  // a text outside the examples, read over by every load
  ASSERT_FALSE(odd.hypotheses.empty());
  odd.hypotheses[0].when_if.emplace_back().pos.line = 1;
  odd.hypotheses[0].when_if.back().facts["x"] = {"y"};
  {
    std::string bad = serialise({odd});
    // The fact's one value "y" (length 1) made to claim 2^40 more bytes: a length past the end, in the
    // entry's first section, which every load reads over.
    const std::string needle = std::string("\x01\0\0\0\0\0\0\0y", 9);
    const size_t at = bad.find(needle);
    ASSERT_NE(at, std::string::npos);
    bad[at + 5] = 1;
    keep = std::make_shared<std::string>(bad);
    EXPECT_FALSE(ParseParsedRules(*keep, &back, /*examples=*/false, keep));
    EXPECT_FALSE(ParseParsedRules(*keep, &back, /*examples=*/true, keep));
  }
  const std::string good = serialise({first});
  keep = std::make_shared<std::string>(good);
  ASSERT_TRUE(ParseParsedRules(*keep, &back, /*examples=*/true, keep));
  ASSERT_TRUE(back.deferred);
  ASSERT_EQ(back.deferred->spans.size(), 1u);
  Rule one = back.rules[0];
  EXPECT_TRUE(one.hypotheses.empty());
  ASSERT_TRUE(ReadDeferredTexts(*back.deferred, 0, &one));
  EXPECT_TRUE(serialise({one}) == good);
  EXPECT_FALSE(ReadDeferredTexts(*back.deferred, 1, &one));
  fs::remove_all(dir);
}

// Note: [Cached mix]: the plan a load makes, kept apart and in the entry, carries the mix its
// scanner's hash stage chose; a load from the entry builds its scanner with that mix, one that is a
// seed is used as it is (any seed gives a correct scanner), and one that is no seed is chosen again.
TEST(RuleCache, TheScannersMixComesWithThePlan) {
  OneRule one("mix");
  one.Write("spectacular failure (\\d+)", "first");
  const LoadResult first = LoadRules(one.options);
  ASSERT_TRUE(first.rules->prefilter);
  const int made = first.rules->prefilter->Scanner().layout().mix;
  ASSERT_GE(made, 0);
  ASSERT_LT(made, LineScanner::kMixSeeds);
  std::string entry_key, plan_key;
  for (const auto& e : fs::directory_iterator(one.cache)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rules-", 0) == 0) entry_key = name.substr(6, 64);
    if (name.rfind("plan-", 0) == 0) plan_key = name.substr(5, 64);
  }
  PrefilterPlan plan;
  ASSERT_TRUE(ReadPrefilterPlan(one.cache, plan_key, &plan));
  EXPECT_EQ(plan.layout.mix, made);
  ParsedRules parsed;
  ASSERT_TRUE(ReadRuleCache(one.cache, entry_key, &parsed));
  EXPECT_EQ(parsed.plan.layout.mix, made);
  EXPECT_EQ(LoadRules(one.options).rules->prefilter->Scanner().layout().mix, made);
  const std::string line = "RuntimeError: spectacular failure 12\n";
  const int other = (made + 5) % LineScanner::kMixSeeds;
  parsed.plan.layout.mix = other;
  WriteRuleCache(one.cache, entry_key, parsed);
  const LoadResult planted = LoadRules(one.options);
  EXPECT_EQ(planted.rules->prefilter->Scanner().layout().mix, other);
  EXPECT_EQ(Engine(planted.rules).DiagnoseText(line).diagnoses.size(), 1u);
  for (int bad : {-1, -7, LineScanner::kMixSeeds, 1 << 30}) {
    parsed.plan.layout.mix = bad;
    WriteRuleCache(one.cache, entry_key, parsed);
    const LoadResult again = LoadRules(one.options);
    EXPECT_EQ(again.rules->prefilter->Scanner().layout().mix, made) << bad;
    EXPECT_EQ(Engine(again.rules).DiagnoseText(line).diagnoses.size(), 1u) << bad;
  }
}

// Note: [Compiled pattern sets]: a load that misses the whole-set entry compiles the set at once,
// unless the same patterns compiled before (an edit of a rule's text only); an edited pattern is
// compiled at once again, and a bad record is no record.
TEST(RuleCache, AnEditThatKeepsEveryPatternDoesNotCompileTheSetAgain) {
  OneRule one("sets");
  const std::string& cache = one.cache;
  const LoadOptions& o = one.options;
  auto write = [&](const std::string& pattern, const std::string& title) { one.Write(pattern, title); };
  one.WriteLarge();  // a set too large for the size bound to leave it (Note: [Set size bound])
  write("my failure", "first");
  EXPECT_TRUE(LoadRules(o).rules->set_compiled());
  ASSERT_TRUE(fs::exists(cache + "/" + kPatternSetsFile));
  write("my failure", "second");  // the same pattern: the set waits for its first need
  LoadResult text_edit = LoadRules(o);
  EXPECT_EQ(text_edit.rules->rules.at(1).title, "second");  // after large-rule
  EXPECT_FALSE(text_edit.rules->set_compiled());
  EXPECT_EQ(text_edit.rules->MatchWithSet("a line with my failure in it"), std::vector<int>{OneRule::kLargePatterns});  // its patterns first
  write("my other failure", "third");  // a new pattern: compiled at once
  EXPECT_TRUE(LoadRules(o).rules->set_compiled());
  write("my other failure", "fourth");
  EXPECT_FALSE(LoadRules(o).rules->set_compiled());
  // A malformed record is no record.
  std::ofstream(cache + "/" + kPatternSetsFile, std::ios::trunc) << "triage-pattern-sets 1\nnot a key\n";
  write("my other failure", "fifth");
  EXPECT_TRUE(LoadRules(o).rules->set_compiled());
}

// Note: [Set size bound]: a load that parses rule files leaves the set for its first need when the
// patterns' program sizes bound it far below what RE2 refuses, with a cache and without one, and
// compiles it at once (so that a refusal is reported) when they do not; the matches are the same.
TEST(RuleCache, ASmallSetWaitsForItsFirstNeedALargeOneIsCompiledAtOnce) {
  OneRule one("bound");
  one.Write("my failure", "first");
  LoadOptions no_cache = one.options;
  no_cache.cache = false;
  for (const LoadOptions& o : {one.options, no_cache}) {
    LoadResult small = LoadRules(o);
    ASSERT_TRUE(small.ok()) << (small.problems.empty() ? "" : small.problems[0].ToString());
    EXPECT_EQ(small.rules->rules.at(0).pattern_programs.size(), 1u);
    EXPECT_GT(small.rules->rules.at(0).pattern_programs.at(0), 0);
    EXPECT_FALSE(small.rules->set_compiled());
    EXPECT_EQ(small.rules->MatchWithSet("a line with my failure in it"), std::vector<int>{0});
  }
  one.WriteLarge();
  for (const LoadOptions& o : {one.options, no_cache}) {
    LoadResult large = LoadRules(o);
    ASSERT_TRUE(large.ok()) << (large.problems.empty() ? "" : large.problems[0].ToString());
    EXPECT_TRUE(large.rules->set_compiled());
    const std::vector<int> hits = large.rules->MatchWithSet("large7 x one y two z three w end");
    EXPECT_EQ(hits.size(), 1u);
  }
}

// Note: [Rule file stamps]: once the rule files are older than the settle time, a start reads none of
// them: the stamp index names the entry. Any change of a stamp (here an edit of the same size whose
// modification time is put back) is a miss; an index is never written for files edited just now; a
// bad index, a FIFO or a symlink in its place is a miss.
TEST(RuleCache, StampsSkipReadingUnchangedFilesAndMissOnAnyChange) {
  std::string cache = TempDir("stamp_cache");
  std::string rules = TempDir("stamp_rules");
  std::string other = TempDir("stamp_other");
  auto write = [&](const std::string& dir, const std::string& id, const std::string& title) {
    std::ofstream(dir + "/" + id + ".yaml") << "id: " << id << "\ncategory: cuda.oom\ntitle: " << title
                                            << "\nmatch:\n  message: '" << id << " failed'\nexplain: e\nhypotheses:\n"
                                               "  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
                                               "examples:\n  - match: '" << id << " failed'\n";
  };
  auto titles = [&](const std::string& dir) {
    LoadOptions o;
    o.bundled = o.env_path = o.system = o.user = o.project = false;
    o.dirs = {dir};
    o.cache_dir = cache;
    const LoadResult loaded = LoadRules(o);
    std::string out;
    for (const Rule& r : loaded.rules->rules) out += r.id + "=" + r.title + " ";
    return out;
  };
  auto named = [&](const std::string& prefix) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(cache)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
    }
    return out;
  };
  write(rules, "rule-a", "a1");
  write(rules, "rule-b", "b1");
  EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  EXPECT_TRUE(named("stamps-").empty()) << "files edited just now get no stamp index";
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));  // kSettleNs
  EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  std::vector<fs::path> index = named("stamps-");
  ASSERT_EQ(index.size(), 1u);
  const std::string stamp_key = index[0].stem().string().substr(7);
  // The index is what a start uses: pointed at the entry of other rules, it loads those (only a
  // writer of this private directory could do that: Note: [Cache hardening]).
  write(other, "rule-c", "c1");
  std::vector<fs::path> before = named("rules-");
  EXPECT_EQ(titles(other), "rule-c=c1 ");
  std::string other_key;
  for (const fs::path& e : named("rules-")) {
    if (std::find(before.begin(), before.end(), e) == before.end()) other_key = e.stem().string().substr(6);
  }
  ASSERT_EQ(other_key.size(), 64u);
  const std::string good = ReadText(index[0].string());
  // The index: its magic line, the stamp key, the content key, then the stamp records it was written
  // for (Note: [Stamp records compared]), which a start compares with its own.
  const std::string magic = "triage-rule-stamps 2\n";
  ASSERT_GT(good.size(), magic.size() + 130);
  ASSERT_EQ(good.substr(0, magic.size() + 65), magic + stamp_key + "\n");
  const std::string records = good.substr(magic.size() + 130);
  std::ofstream(index[0], std::ios::trunc | std::ios::binary) << magic << stamp_key << "\n" << other_key << "\n" << records;
  EXPECT_EQ(titles(rules), "rule-c=c1 ");
  // Bad indexes are misses: a short key, another stamp key, records that are not this start's (a byte
  // changed, one missing, one more, none: version 1's form), garbage, nothing.
  std::string changed = records;
  changed[changed.size() / 2] = static_cast<char>(changed[changed.size() / 2] ^ 1);
  const std::string planted = magic + stamp_key + "\n" + other_key + "\n";
  for (const std::string& bad : {magic + stamp_key + "\n" + other_key.substr(1) + "\n" + records,
                                 magic + other_key + "\n" + other_key + "\n" + records, planted + changed,
                                 planted + records.substr(1), planted + records + "x", planted,
                                 std::string("triage-rule-stamps 1\n") + stamp_key + "\n" + other_key + "\n",
                                 std::string(4096, 'x'), std::string()}) {
    std::ofstream(index[0], std::ios::trunc | std::ios::binary) << bad;
    EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  }
  fs::remove(index[0]);
  ASSERT_EQ(mkfifo(index[0].c_str(), 0600), 0);
  EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  fs::remove(index[0]);
  fs::create_symlink("/dev/zero", index[0]);
  EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  fs::remove(index[0]);
  std::ofstream(index[0], std::ios::trunc) << good;
  EXPECT_EQ(titles(rules), "rule-a=a1 rule-b=b1 ");
  // An edit of the same size with the modification time put back still moves the status-change time.
  const std::string a = rules + "/rule-a.yaml";
  struct stat st;
  ASSERT_EQ(stat(a.c_str(), &st), 0);
  write(rules, "rule-a", "a2");
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, a.c_str(), times, 0), 0);
  const size_t indexes = named("stamps-").size();
  EXPECT_EQ(titles(rules), "rule-a=a2 rule-b=b1 ");
  EXPECT_EQ(named("stamps-").size(), indexes) << "no index for a file edited just now";
  fs::remove_all(cache);
  fs::remove_all(rules);
  fs::remove_all(other);
}

using triage_test::ScopedEnv;

// Note: [Shipped rule cache]: the entry and parts `cmake --install` leaves beside the bundled rules
// serve a user's first load (with no cache of their own), unless others may write them.
TEST(RuleCache, ShippedCacheServesAFirstLoad) {
  const std::string root = TempDir("shipped");
  fs::copy(std::string(TRIAGE_SOURCE_DIR) + "/rules", root + "/rules", fs::copy_options::recursive);
  ScopedEnv bundled("TRIAGE_BUNDLED_RULES", root + "/rules");
  const std::string shipped = root + "/rule-cache";
  ASSERT_EQ(ShippedRuleCacheDir(), shipped);
  const std::string fresh = Observe(LoadBundled(false, ""));
  LoadBundled(true, shipped);  // what the install runs
  const std::string mine = root + "/user-cache";
  auto entries = [&](const std::string& dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().filename().string().rfind("rules-", 0) == 0;
    return n;
  };
  // Served by the shipped entry: nothing parsed (no parts written), the entry not copied (the
  // user's stamp index, when the files are settled, names the shipped entry).
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, mine)));
  EXPECT_FALSE(fs::exists(mine + "/" + kRulePartsFile)) << "the shipped entry was not used";
  EXPECT_EQ(entries(mine), 0u);
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, mine)));
  EXPECT_FALSE(fs::exists(mine + "/" + kRulePartsFile)) << "the shipped entry was not used again";
  // A shipped directory, or entry, that others may write is not used: the load parses.
  std::string shipped_entry;
  for (const auto& e : fs::directory_iterator(shipped)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) shipped_entry = e.path().string();
  }
  ASSERT_FALSE(shipped_entry.empty());
  // (The shipped parts are set aside for the entry's case, or they would serve the load.)
  const std::string shipped_parts = shipped + "/" + kRulePartsFile;
  for (const std::string& loose : {shipped, shipped_entry}) {
    fs::remove_all(mine);
    if (loose == shipped_entry) fs::rename(shipped_parts, shipped_parts + ".aside");
    fs::permissions(loose, fs::perms::group_write, fs::perm_options::add);
    EXPECT_TRUE(fresh == Observe(LoadBundled(true, mine)));
    EXPECT_TRUE(fs::exists(mine + "/" + kRulePartsFile)) << loose << ": a group-writable shipped cache was used";
    fs::permissions(loose, fs::perms::group_write, fs::perm_options::remove);
    if (loose == shipped_entry) fs::rename(shipped_parts + ".aside", shipped_parts);
  }
  // Once the installed files are settled (Note: [Rule file stamps]), the install's run leaves a stamp
  // index too, and a first load reads no rule file: it writes nothing to its own cache (a load that
  // read the files would write its own stamp index there).
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));  // kSettleNs
  fs::remove_all(shipped);
  LoadBundled(true, shipped);
  fs::remove_all(mine);
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, mine)));
  EXPECT_FALSE(fs::exists(mine)) << "the rule files were read: the shipped stamp index was not used";
  // A shipped stamp index naming an entry the install does not hold is a miss: the files are read.
  for (const auto& e : fs::directory_iterator(shipped)) {
    if (e.path().filename().string().rfind("rules-", 0) == 0) fs::rename(e.path(), e.path().string() + ".aside");
  }
  EXPECT_TRUE(fresh == Observe(LoadBundled(true, mine)));
  EXPECT_EQ(entries(mine), 1u) << "the files were not read (a load that reads them writes the set's entry)";
  // With rules of the user's own, the bundled files' parts come from the shipped parts file: a
  // marked part shows.
  const std::string parts_file = shipped + "/" + kRulePartsFile;
  const std::string magic = "triage-rule-parts 2\n";
  std::string bytes = ReadText(parts_file);
  std::vector<RulePart> parts;
  ASSERT_TRUE(ParseRuleParts(std::string_view(bytes).substr(magic.size()), &parts));
  ASSERT_FALSE(parts.empty());
  const std::string marked_id = parts[0].rule.id;
  parts[0].rule.title = "from the shipped part";
  std::ofstream(parts_file, std::ios::binary | std::ios::trunc) << magic << SerializeRuleParts(parts);
  const std::string own = root + "/own-rules";
  fs::create_directories(own);
  std::ofstream(own + "/own-rule.yaml") << "id: own-rule\ncategory: cuda.oom\ntitle: own\nmatch:\n  message: 'own failed'\n"
                                           "explain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n    fix: f\n"
                                           "verify: v\nexamples:\n  - match: 'own failed'\n";
  fs::remove_all(mine);
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.dirs = {own};
  o.cache_dir = mine;
  const LoadResult with_own = LoadRules(o);
  std::string title;
  for (const Rule& r : with_own.rules->rules) {
    if (r.id == marked_id) title = r.title;
  }
  EXPECT_EQ(title, "from the shipped part");
  fs::remove_all(root);
}

// A count claiming more elements than the entry holds is a miss, found without allocating for the
// claim first: the bundled rules' entry (~1 MB) with its rule count set to the bytes left would
// have asked for ~800 MB of Rules before reading the first missing one.
TEST(RuleCache, AnInflatedCountIsAMissWithoutAllocatingForIt) {
  LoadResult r = LoadBundled(false, "");
  ParsedRules p;
  p.rules = r.rules->rules;
  std::string bytes = SerializeParsedRules(p);
  const std::uint64_t claim = bytes.size() - 24;  // after magic, format and the count itself
  std::memcpy(&bytes[16], &claim, sizeof claim);
  struct rusage before;
  getrusage(RUSAGE_SELF, &before);
  ParsedRules back;
  EXPECT_FALSE(ParseParsedRules(bytes, &back));
  struct rusage after;
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LE(after.ru_maxrss, std::max<long>(before.ru_maxrss, 300 * 1024)) << "peak RSS (KiB) grew for the claimed count";
}

TEST(RuleCache, SerialisationRoundTrips) {
  LoadResult r = LoadBundled(false, "");
  ParsedRules p;
  p.rules = r.rules->rules;
  p.disabled = r.rules->disabled;
  p.problems = r.problems;
  p.problems.push_back({Problem::Severity::kWarning, "code", "f.yaml", 3, 4, "rule", "message"});
  p.atoms = {std::vector<std::string>{"cuda", "memory"}, std::nullopt, std::vector<std::string>{}};
  p.calibrated = true;
  p.calibration = {0, 0, 0.5, 0.25, 1, 1};
  std::string once = SerializeParsedRules(p);
  ParsedRules back;
  ASSERT_TRUE(ParseParsedRules(once, &back));
  EXPECT_EQ(back.rules.size(), p.rules.size());
  EXPECT_EQ(back.atoms, p.atoms);
  EXPECT_TRUE(back.calibrated);
  EXPECT_EQ(back.calibration, p.calibration);
  // Knots that are no calibration map make the entry a miss.
  for (const std::vector<double>& bad : std::vector<std::vector<double>>{{0, 0.5, 1}, {0, 0.5, 1, 0.25}, {0.1, 0, 1, 1}, {}}) {
    ParsedRules odd = p;
    odd.calibration = bad;
    EXPECT_FALSE(ParseParsedRules(SerializeParsedRules(odd), &back)) << bad.size();
  }
  EXPECT_TRUE(SerializeParsedRules(back) == once);
  // A list of rule files' parts (Note: [Rule parts]), every field set.
  RulePart part;
  part.key = "0123abcd";
  part.ok = true;
  part.rule = p.rules.at(0);
  part.problems = {p.problems.back()};
  part.atoms = p.atoms;
  std::vector<RulePart> parts = {part, RulePart()};
  std::string bytes = SerializeRuleParts(parts);
  std::vector<RulePart> parts_back;
  ASSERT_TRUE(ParseRuleParts(bytes, &parts_back));
  ASSERT_EQ(parts_back.size(), 2u);
  EXPECT_EQ(parts_back[0].key, part.key);
  EXPECT_TRUE(parts_back[0].ok);
  EXPECT_FALSE(parts_back[1].ok);
  EXPECT_EQ(parts_back[0].rule.id, part.rule.id);
  EXPECT_EQ(parts_back[0].problems.size(), 1u);
  EXPECT_EQ(parts_back[0].atoms, part.atoms);
  EXPECT_TRUE(SerializeRuleParts(parts_back) == bytes);
}

// Every field of every struct the cache holds, set to a value other than its default, comes back
// (Note: [Cache fields]: a field missing from a Fields list would come back empty).
TEST(RuleCache, EveryFieldRoundTrips) {
  Rule r;
  r.id = "id";
  r.file = "dir/id.yaml";
  r.category = "shape.matmul_mismatch";
  r.title = "title";
  r.prior = 0.625;
  r.patterns = {{"p1", {5, 7}}, {"p2", {6, 9}}};
  r.exceptions = {"RuntimeError"};
  r.context = {"ctx", {8, 3}};
  r.frames_none = true;
  r.specificity = 42;
  r.explain = {"explain {x}", {9, 10}};
  HypothesisSpec h;
  h.id = "h";
  h.text = {"text", {11, 1}};
  h.test = {"test", {12, 2}};
  h.probe = "shape-trace";
  h.probe_args = {{"arg", "value"}};
  h.fix = {"fix", {13, 3}};
  h.cpp_test = {"cpp test", {20, 1}};
  h.cpp_fix = {"cpp fix", {21, 2}};
  h.when = {"when_fn", 14, 4};
  r.hypotheses = {h};
  r.checks = {{"check", {15, 5}}};
  r.verify = {"verify", {16, 6}};
  r.verify_probe = "device-audit";
  r.cpp_checks = {{"cpp check", {22, 3}}};
  r.cpp_verify = {"cpp verify", {23, 4}};
  r.refs = {"https://example.org"};
  Example e;
  e.kind = ExampleKind::kKnownGap;
  e.text = "log text";
  e.captures = {{"x", "1"}};
  e.why = "why";
  e.pos = {17, 7};
  e.hypotheses = {"h"};
  e.check_hypotheses = true;
  r.examples = {e};
  r.overrides = "other/id.yaml";
  auto signal = std::make_shared<SignalSpec>();
  signal->detector = "spike";
  signal->series = {SeriesId::kValLoss, SeriesId::kLoss};
  signal->params = {{"factor", 20.5}};
  signal->evidence_for = {"numerics.nan"};
  r.signal = signal;
  r.origin = "user";
  r.lua_file = "dir/id.lua";
  r.lua_chunks = {{"dir/id.lua", "function v() end"}};
  r.values_fn = {"v", 18, 8};
  r.score_fn = {"s", 19, 9};
  r.lua_tests = {"test_one"};
  ParsedRules p;
  p.rules = {r};
  p.disabled = {{"off", "dir/off.yaml", "triage.yaml"}};
  p.problems = {{Problem::Severity::kWarning, "unknown-key", "f.yaml", 3, 4, "rule", "message"}};
  p.atoms = {std::vector<std::string>{"mat1"}, std::nullopt};

  ParsedRules back;
  ASSERT_TRUE(ParseParsedRules(SerializeParsedRules(p), &back));
  ASSERT_EQ(back.rules.size(), 1u);
  const Rule& b = back.rules[0];
  auto same_text = [](const Text& x, const Text& y) {
    return x.value == y.value && x.pos.line == y.pos.line && x.pos.column == y.pos.column;
  };
  auto same_ref = [](const LuaRef& x, const LuaRef& y) {
    return x.name == y.name && x.line == y.line && x.column == y.column;
  };
  EXPECT_EQ(b.id, r.id);
  EXPECT_EQ(b.file, r.file);
  EXPECT_EQ(b.category, r.category);
  EXPECT_EQ(b.title, r.title);
  EXPECT_EQ(b.prior, r.prior);
  ASSERT_EQ(b.patterns.size(), 2u);
  EXPECT_TRUE(same_text(b.patterns[0], r.patterns[0]) && same_text(b.patterns[1], r.patterns[1]));
  EXPECT_EQ(b.exceptions, r.exceptions);
  EXPECT_TRUE(same_text(b.context, r.context));
  EXPECT_EQ(b.frames_none, r.frames_none);
  EXPECT_EQ(b.specificity, r.specificity);
  EXPECT_TRUE(same_text(b.explain, r.explain));
  ASSERT_EQ(b.hypotheses.size(), 1u);
  const HypothesisSpec& bh = b.hypotheses[0];
  EXPECT_EQ(bh.id, h.id);
  EXPECT_TRUE(same_text(bh.text, h.text));
  EXPECT_TRUE(same_text(bh.test, h.test));
  EXPECT_EQ(bh.probe, h.probe);
  EXPECT_EQ(bh.probe_args, h.probe_args);
  EXPECT_TRUE(same_text(bh.fix, h.fix));
  EXPECT_TRUE(same_text(bh.cpp_test, h.cpp_test));
  EXPECT_TRUE(same_text(bh.cpp_fix, h.cpp_fix));
  EXPECT_TRUE(same_ref(bh.when, h.when));
  ASSERT_EQ(b.checks.size(), 1u);
  EXPECT_TRUE(same_text(b.checks[0], r.checks[0]));
  EXPECT_TRUE(same_text(b.verify, r.verify));
  EXPECT_EQ(b.verify_probe, r.verify_probe);
  ASSERT_EQ(b.cpp_checks.size(), 1u);
  EXPECT_TRUE(same_text(b.cpp_checks[0], r.cpp_checks[0]));
  EXPECT_TRUE(same_text(b.cpp_verify, r.cpp_verify));
  EXPECT_EQ(b.refs, r.refs);
  ASSERT_EQ(b.examples.size(), 1u);
  const Example& be = b.examples[0];
  EXPECT_EQ(be.kind, e.kind);
  EXPECT_EQ(be.text, e.text);
  EXPECT_EQ(be.captures, e.captures);
  EXPECT_EQ(be.why, e.why);
  EXPECT_EQ(be.pos.line, e.pos.line);
  EXPECT_EQ(be.pos.column, e.pos.column);
  EXPECT_EQ(be.hypotheses, e.hypotheses);
  EXPECT_EQ(be.check_hypotheses, e.check_hypotheses);
  EXPECT_EQ(b.overrides, r.overrides);
  ASSERT_NE(b.signal, nullptr);
  EXPECT_EQ(b.signal->detector, signal->detector);
  EXPECT_EQ(b.signal->series, signal->series);
  EXPECT_EQ(b.signal->params, signal->params);
  EXPECT_EQ(b.signal->evidence_for, signal->evidence_for);
  EXPECT_EQ(b.origin, r.origin);
  EXPECT_EQ(b.lua_file, r.lua_file);
  ASSERT_EQ(b.lua_chunks.size(), 1u);
  EXPECT_EQ(b.lua_chunks[0].file, r.lua_chunks[0].file);
  EXPECT_EQ(b.lua_chunks[0].code, r.lua_chunks[0].code);
  EXPECT_TRUE(same_ref(b.values_fn, r.values_fn));
  EXPECT_TRUE(same_ref(b.score_fn, r.score_fn));
  EXPECT_EQ(b.lua_tests, r.lua_tests);
  ASSERT_EQ(back.disabled.size(), 1u);
  EXPECT_EQ(back.disabled[0].id, "off");
  EXPECT_EQ(back.disabled[0].file, "dir/off.yaml");
  EXPECT_EQ(back.disabled[0].by, "triage.yaml");
  ASSERT_EQ(back.problems.size(), 1u);
  EXPECT_EQ(back.problems[0].ToString(), p.problems[0].ToString());
  EXPECT_EQ(back.problems[0].severity, Problem::Severity::kWarning);
  EXPECT_EQ(back.atoms, p.atoms);
}

// An enum value the build does not have (a corrupt or foreign entry) is a miss, not a cast.
TEST(RuleCache, OutOfRangeEnumsAreMisses) {
  ParsedRules p;
  p.problems = {{Problem::Severity::kWarning, "c", "f", 1, 2, "r", "m"}};
  std::string bytes = SerializeParsedRules(p);
  ParsedRules back;
  ASSERT_TRUE(ParseParsedRules(bytes, &back));
  // The severity is the first field after the magic, the format, the two sections' sizes (Note:
  // [Examples apart]) and three counts (rules, disabled, problems).
  const size_t at = 8 * 7;
  ASSERT_EQ(bytes[at], static_cast<char>(Problem::Severity::kWarning));
  bytes[at] = 7;
  EXPECT_FALSE(ParseParsedRules(bytes, &back));
}

// Note: [Cache checksums]: the AVX2 rounds give the portable rounds' sums (a cache directory may be
// shared by machines of different CPUs), at every length and alignment; a flipped bit anywhere, two
// flips of the same bit in one lane, or a cut byte, changes the sum.
TEST(RuleCache, ChecksumSameOnEveryPath) {
  std::string bytes(4096 + 64, '\0');
  std::uint64_t x = 0x243F6A8885A308D3ull;
  for (char& c : bytes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x >> 56);
  }
  for (size_t at = 0; at < 8; ++at) {
    for (size_t n = 0; n <= 300; ++n) {
      const std::string_view v(bytes.data() + at, n);
      ASSERT_EQ(CacheChecksum(v), CacheChecksum(v, true)) << "at " << at << ", " << n << " bytes";
    }
  }
  const std::string_view all(bytes.data(), 4096);
  ASSERT_EQ(CacheChecksum(all), CacheChecksum(all, true));
  // The sums since format 14 (32 lanes, 128-byte stripes): a change of the checksum must bump the
  // format (kFormat).
  EXPECT_EQ(CacheChecksum(""), 0x6cf92554a72906cfull);
  EXPECT_EQ(CacheChecksum(std::string_view(bytes.data(), 100)), 0x3418588db1e5c428ull);
  EXPECT_EQ(CacheChecksum(std::string_view(bytes.data(), 300)), 0x9848a4e3c3ecb0f2ull);
  const std::uint64_t sum = CacheChecksum(std::string_view(bytes.data(), 256));
  for (size_t bit = 0; bit < 256 * 8; ++bit) {
    std::string damaged = bytes.substr(0, 256);
    damaged[bit / 8] = static_cast<char>(damaged[bit / 8] ^ (1 << (bit % 8)));
    ASSERT_NE(CacheChecksum(damaged), sum) << "bit " << bit;
    char& again = damaged[bit / 8 < 128 ? bit / 8 + 128 : bit / 8 - 128];  // the same bit, a stripe on or back
    again = static_cast<char>(again ^ (1 << (bit % 8)));
    ASSERT_NE(CacheChecksum(damaged), sum) << "bits " << bit << " and a stripe on";
  }
  EXPECT_NE(CacheChecksum(std::string_view(bytes.data(), 255)), sum);
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
  EXPECT_EQ(a.Hex().size(), 64u);
}

}  // namespace
}  // namespace triage
