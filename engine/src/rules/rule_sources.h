// The collect stage of loading (rule_loader.h): the rule files of every directory of the search path
// (rules/README.md "Search path"), in order, with what each directory's triage.yaml and the environment
// disable. Directories are found by rule_paths.cc.
#ifndef TRIAGE_ENGINE_RULE_SOURCES_H_
#define TRIAGE_ENGINE_RULE_SOURCES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "triage/triage.h"

namespace triage {

// What stat(2) says of a rule file (Note: [Rule file stamps] in rule_loader.cc): when any of it
// changes, the file may have; times in nanoseconds since the epoch.
struct FileStamp {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
};

struct SourceFile {
  std::string path;
  std::string content;  // empty when collected without contents
  int layer;           // which directory of the search path it came from
  std::string origin;  // bundled | system | user | project | env | cli | memory
  std::string root;    // the search-path entry (directory or single file) it was found under
  FileStamp stamp = {};  // taken before reading (fstat of the open file); all 0 when not known
  bool stamped = false;  // `stamp` was taken
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
// With `contents` false, the rule files are listed and stat'ed but not read (their `content` stays
// empty, `stamped` tells which could be stat'ed): what a load checks its stamps against (Note: [Rule
// file stamps]); each directory's triage.yaml and calibration.yaml are read in any case.
void CollectSources(const LoadOptions& options, std::vector<SourceFile>* out, DisableList* disable,
                    std::vector<SourceFile>* calibration, std::vector<Problem>* problems, bool contents = true);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_SOURCES_H_
