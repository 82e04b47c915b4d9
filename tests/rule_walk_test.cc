// The rule directory walk (Note: [Rule directory walk] in engine/src/rules/rule_sources.cc) against
// std::filesystem::recursive_directory_iterator, which it replaced: on a tree with nested and hidden
// directories, dotfiles, .yml and non-rule files, a FIFO, symlinks to a file, to a directory and to
// nothing, and the search-path entry spelled several ways, the files collected (paths as strings,
// in order) are those the iterator's walk gives.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rules/rule_sources.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// What the walk gave before it was readdir's: the iterator's entries, filtered and sorted alike.
std::vector<std::string> IteratorWalk(const std::string& root) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const fs::path& f = it->path();
    const std::string ext = f.extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".lua") continue;
    if (f.filename() == "taxonomy.yaml" || f.filename() == "triage.yaml" || f.filename() == "calibration.yaml") continue;
    files.push_back(f.string());
  }
  auto key = [](std::string s) {
    std::replace(s.begin(), s.end(), '/', '\0');
    return s;
  };
  std::sort(files.begin(), files.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return files;
}

std::vector<std::string> Collected(const std::string& root) {
  LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = false;
  o.dirs = {root};
  std::vector<SourceFile> out, calibration;
  DisableList disable;
  std::vector<Problem> problems;
  CollectSources(o, &out, &disable, &calibration, &problems, /*contents=*/false);
  std::vector<std::string> paths;
  for (const SourceFile& f : out) paths.push_back(f.path);
  return paths;
}

TEST(RuleWalk, CollectsWhatTheFilesystemIteratorCollected) {
  const fs::path dir = fs::temp_directory_path() / ("triage-walk-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const char* d : {"a/b", ".hidden", "c", "d-e", "d.e"}) fs::create_directories(dir / d);
  for (const char* f : {"a/x.yaml", "a/x.lua", "a/b/y.yml", "a/b/z.yaml", ".hidden/h.yaml", ".dot.yaml", ".yaml",
                        "a/notes.txt", "a/taxonomy.yaml", "a/triage.yaml", "c/calibration.yaml", "d-e/q.yaml",
                        "d.e/r.yaml", "top.lua", "a/b/UPPER.YAML"}) {
    std::ofstream(dir / f) << "id: x\n";
  }
  fs::create_symlink("../a/b/z.yaml", dir / "c/link.yaml");
  fs::create_symlink("/nonexistent-triage-walk", dir / "c/dangling.yaml");
  fs::create_symlink("../a", dir / "c/dirlink");
  ASSERT_EQ(::mkfifo((dir / "a/fifo.yaml").c_str(), 0600), 0);
  const std::string root = dir.string();
  for (const std::string& spelling : {root, root + "/", root + "//", root + "/./"}) {
    const std::vector<std::string> expected = IteratorWalk(spelling);
    EXPECT_EQ(Collected(spelling), expected) << spelling;
    EXPECT_EQ(expected.size(), 10u) << spelling;  // the tree's rule files, the linked one included
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace triage
