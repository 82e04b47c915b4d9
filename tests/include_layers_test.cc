// The engine's source is laid out by pipeline stage (engine/README.md): a file may include headers of
// its own layer or of a lower one, never of a higher one. Layers, lowest first:
//   0 log/                              reading and segmenting
//   1 rules/rule.h, rules/template.h    the rule model (no other rules/ header)
//   2 rules/                            loader, cache, Lua, signal specs
//   3 diagnose/                         matching, ranking, output
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include "source_paths.h"

namespace {
namespace fs = std::filesystem;

int Layer(const std::string& path) {  // path relative to engine/src, e.g. "rules/rule.h"
  if (path.rfind("log/", 0) == 0) return 0;
  if (path == "rules/rule.h" || path == "rules/template.h") return 1;
  if (path.rfind("rules/", 0) == 0) return 2;
  if (path.rfind("diagnose/", 0) == 0) return 3;
  return -1;
}

TEST(IncludeLayers, EveryEngineIncludePointsDownward) {
  const fs::path src = fs::path(TRIAGE_SOURCE_DIR) / "engine" / "src";
  const std::regex include_re("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    const std::string self = fs::relative(entry.path(), src).generic_string();
    const int own = Layer(self);
    ASSERT_GE(own, 0) << self << " lies in no stage folder";
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const int target = Layer(m[1]);
      if (target < 0) continue;  // triage/*.h (the public API) and generated files
      EXPECT_LE(target, own) << self << ":" << n << " includes " << m[1]
                             << ", a header of a higher stage (engine/README.md)";
    }
  }
  EXPECT_GT(files, 20);
}

}  // namespace
