// Writes the bundled rules' build-time image (Note: [Bundled rule image] in
// engine/src/rules/rule_cache.h): what a load of RULES_DIR alone makes with no cache, and each file's
// part, for the `triage` command to embed. An empty file when the directory's load cannot be served
// by one (no rule file). Usage: triage_rule_image RULES_DIR OUT
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rules/rule_loader.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RULES_DIR OUT\n", argv[0]);
    return 2;
  }
  ::setenv("TRIAGE_BUNDLED_RULES", argv[1], 1);
  const std::string image = triage::MakeBundledRuleImage();
  const std::string tmp = std::string(argv[2]) + ".tmp";
  FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) {
    std::perror(tmp.c_str());
    return 1;
  }
  const bool written = std::fwrite(image.data(), 1, image.size(), out) == image.size();
  if (std::fclose(out) != 0 || !written || std::rename(tmp.c_str(), argv[2]) != 0) {
    std::perror(argv[2]);
    return 1;
  }
  std::fprintf(stderr, "bundled rule image: %zu bytes%s\n", image.size(), image.empty() ? " (none: the rules cannot be served by one)" : "");
  return 0;
}
