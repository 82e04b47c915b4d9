// The collect stage of loading (rule_loader.h): the rule files of every directory of the search path
// (rules/README.md "Search path"), in order, with what each directory's triage.yaml and the environment
// disable. Directories are found by rule_paths.cc.
#ifndef TRIAGE_ENGINE_RULE_SOURCES_H_
#define TRIAGE_ENGINE_RULE_SOURCES_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "triage/triage.h"

namespace triage {

struct SourceFile {
  std::string path;
  std::string content;
  int layer;           // which directory of the search path it came from
  std::string origin;  // bundled | system | user | project | env | cli | memory
  std::string root;    // the search-path entry (directory or single file) it was found under
};

// The largest rule file read (YAML or Lua): the bundled ones are under 40 KiB, and a 60 MB file made
// one load take a minute and a gigabyte. A file is read up to one byte more, and the read stage
// refuses it (file-too-large).
constexpr size_t kMaxRuleFileBytes = 1 << 20;

// Rule ids to leave out, each with what asked for it.
using DisableList = std::vector<std::pair<std::string, std::string>>;

// Collects every source `options` names, in search-path order (each directory read once), with the
// ids disabled by TRIAGE_DISABLE and LoadOptions::disable, and each directory's calibration.yaml
// (Note: [Calibration map]) in `calibration`.
void CollectSources(const LoadOptions& options, std::vector<SourceFile>* out, DisableList* disable,
                    std::vector<SourceFile>* calibration, std::vector<Problem>* problems);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_SOURCES_H_
