// Collecting rule files from the search path (rule_sources.h).
#include "rules/rule_sources.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "rules/problem_codes.h"
#include "rules/rule_trust.h"

namespace triage {
namespace fs = std::filesystem;

namespace {

// Reads a directory's triage.yaml: `disable: [rule-id, ...]` (rules/README.md "Search path").
void ReadConfig(const fs::path& f, DisableList* disable, std::vector<Problem>* problems) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(f.string());
  } catch (const YAML::Exception& e) {
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), e.mark.line + 1, e.mark.column + 1, "",
               e.msg);
    return;
  }
  if (!root || root.IsNull()) return;
  if (!root.IsMap()) {
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), 1, 1, "",
               "triage.yaml must be a mapping (disable: [rule-id, ...])");
    return;
  }
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    YAML::Mark m = kv.first.Mark();
    if (key != "disable") {
      AddProblem(problems, Problem::Severity::kWarning, ProblemCode::kUnknownKey, f.string(), m.line + 1, m.column + 1, "",
                 "unknown key '" + key + "' in triage.yaml");
      continue;
    }
    const YAML::Node& list = kv.second;
    if (list.IsScalar()) {
      disable->push_back({list.Scalar(), f.string()});
    } else if (list.IsSequence()) {
      for (const YAML::Node& id : list) {
        if (id.IsScalar()) disable->push_back({id.Scalar(), f.string()});
      }
    } else if (!list.IsNull()) {
      AddProblem(problems, Problem::Severity::kError, ProblemCode::kBadConfig, f.string(), m.line + 1, m.column + 1, "",
                 "'disable' must be a list of rule ids");
    }
  }
}

// Reads the rule files (.yaml, .yml, .lua) under `root`, a directory or a single file, appending them
// to `out` with `layer` and `origin`, its triage.yaml's `disable` list to `disable` and its
// calibration.yaml to `calibration`. A missing `root` is a problem only when `must_exist`.
FileStamp StampOf(const struct stat& st) {
  FileStamp s;
  s.dev = static_cast<std::uint64_t>(st.st_dev);
  s.ino = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return s;
}

// A listed file's stamp (Note: [Rule file stamps]), taken while its directory is open; `stamped`
// false when it could not be stat'ed.
struct ListedStamp {
  bool stamped = false;
  FileStamp stamp = {};
};

// Sorts paths as std::filesystem::path orders them (element by element), comparing strings: with
// '/' mapped to a byte below any a name can hold, the string order is the element order. `stamps`,
// when given, is parallel to `files` and moves with it.
void SortPaths(std::vector<std::string>* files, std::vector<ListedStamp>* stamps) {
  std::vector<std::pair<std::string, size_t>> keys;
  keys.reserve(files->size());
  for (size_t i = 0; i < files->size(); ++i) {
    std::string k = (*files)[i];
    std::replace(k.begin(), k.end(), '/', '\0');
    keys.emplace_back(std::move(k), i);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> sorted;
  sorted.reserve(files->size());
  for (const auto& k : keys) sorted.push_back(std::move((*files)[k.second]));
  *files = std::move(sorted);
  if (stamps != nullptr) {
    std::vector<ListedStamp> moved;
    moved.reserve(stamps->size());
    for (const auto& k : keys) moved.push_back((*stamps)[k.second]);
    *stamps = std::move(moved);
  }
}

// `dir` / `name` as std::filesystem::path's operator/ joins them (a separator unless `dir` is empty
// or ends with one).
std::string JoinPath(const std::string& dir, const char* name) {
  std::string p = dir;
  if (!p.empty() && p.back() != '/') p += '/';
  p += name;
  return p;
}

// Note: [Rule directory walk]
// Listing the rule directories with std::filesystem::recursive_directory_iterator cost a warm start
// ~1.9 M instructions for ~420 entries (its path objects parsed into components, each entry's path
// copied several times), a third of collecting the sources. The walk is readdir(3)'s, with the
// iterator's rules: entries named `dir/name` (JoinPath) from the directory path as given, the type
// from the directory entry (lstat(2) where the file system gives none), subdirectories entered but
// not through symlinks, a file taken when it is a regular file or a symlink to one, a subdirectory
// that may not be opened skipped (EACCES), any other error ending the walk with what it found. The
// files are sorted afterwards (SortPaths), so the order readdir gives does not matter. Appends the
// rule files (.yaml, .yml, .lua; not taxonomy.yaml, triage.yaml, calibration.yaml) to `files`;
// false after an error. With `stamps`, each file is also stat'ed there, by its name in the open
// directory (fstatat(2) on the directory's descriptor: the kernel walks one name, not the whole
// path; ~500 stat calls a warm start), its stamp appended to `stamps`.
bool WalkRuleFiles(const std::string& dir, std::vector<std::string>* files, std::vector<ListedStamp>* stamps) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return errno == EACCES;
  bool ok = true;
  while (ok) {
    errno = 0;
    const struct dirent* e = ::readdir(d);
    if (e == nullptr) {
      ok = errno == 0;
      break;
    }
    const char* name = e->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    std::string path = JoinPath(dir, name);
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (::lstat(path.c_str(), &st) != 0) continue;
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : DT_FIFO;
    }
    if (type == DT_DIR) {
      ok = WalkRuleFiles(path, files, stamps);
      continue;
    }
    struct stat st;
    bool have_st = false;
    if (type == DT_LNK) {
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      have_st = true;
    } else if (type != DT_REG) {
      continue;
    }
    // The extension as std::filesystem::path::extension() gives it: none for a name whose only dot
    // leads it.
    const std::string_view n(name);
    const size_t dot = n.rfind('.');
    const std::string_view ext = dot == std::string_view::npos || dot == 0 ? std::string_view() : n.substr(dot);
    if (ext != ".yaml" && ext != ".yml" && ext != ".lua") continue;
    if (n == "taxonomy.yaml" || n == "triage.yaml" || n == "calibration.yaml") continue;
    files->push_back(std::move(path));
    if (stamps != nullptr) {
      ListedStamp ls;
      ls.stamped = have_st || ::fstatat(::dirfd(d), name, &st, 0) == 0;
      if (ls.stamped) ls.stamp = StampOf(st);
      stamps->push_back(ls);
    }
  }
  ::closedir(d);
  return ok;
}

// `root_st`: what stat(2) said of `root` (null: it could not be stat'ed).
void CollectFiles(const std::string& root, const struct stat* root_st, int layer, const std::string& origin,
                  bool must_exist, std::vector<SourceFile>* out, DisableList* disable,
                  std::vector<SourceFile>* calibration, std::vector<Problem>* problems, bool contents) {
  std::error_code ec;
  fs::path p(root);
  // `listed`: the file's stamp from the walk, when it took one.
  auto read = [&](const std::string& f, std::vector<SourceFile>* into, bool content_too,
                  const ListedStamp* listed = nullptr) {
    if (!content_too) {  // Note: [Rule file stamps]
      SourceFile sf{f, std::string(), layer, origin, root};
      if (listed != nullptr) {
        sf.stamped = listed->stamped;
        sf.stamp = listed->stamp;
      } else {
        struct stat st;
        sf.stamped = ::stat(f.c_str(), &st) == 0;
        if (sf.stamped) sf.stamp = StampOf(st);
      }
      into->push_back(std::move(sf));
      return;
    }
    // Plain read(2): an ifstream's set-up costs more than reading a small file.
    int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      AddProblem(problems, Problem::Severity::kError, ProblemCode::kUnreadable, f, 0, 0, "",
                 "cannot read rule file");
      return;
    }
    SourceFile sf{f, std::string(), layer, origin, root};
    struct stat st;
    sf.stamped = ::fstat(fd, &st) == 0;  // before reading: a later change shows in the next stamp
    if (sf.stamped) sf.stamp = StampOf(st);
    // Up to one byte past the limit: enough to see that a file is too large. Read straight into the
    // string (no buffer on the stack: its 64 KiB were fresh stack pages, faulted in one by one).
    std::string& content = sf.content;
    size_t size = size_t{1} << 16;
    if (sf.stamped && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= kMaxRuleFileBytes) {
      size = static_cast<size_t>(st.st_size) + 1;  // the bytes and room to see the end
    }
    content.resize(size);
    size_t got = 0;
    while (got <= kMaxRuleFileBytes) {
      if (got == content.size()) content.resize(std::min(2 * content.size(), kMaxRuleFileBytes + 1));
      ssize_t n = ::read(fd, &content[got], content.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ::close(fd);
    content.resize(got);
    into->push_back(std::move(sf));
  };
  if (root_st != nullptr && S_ISREG(root_st->st_mode)) {
    read(p.string(), out, contents);
    // A single rule file brings its Lua sibling along.
    fs::path lua = p;
    lua.replace_extension(".lua");
    if (p.extension() != ".lua" && fs::is_regular_file(lua, ec)) read(lua.string(), out, contents);
    return;
  }
  if (root_st == nullptr || !S_ISDIR(root_st->st_mode)) {
    if (!must_exist) return;
    AddProblem(problems, Problem::Severity::kError, ProblemCode::kMissingDir, root, 0, 0, "",
               "rule directory does not exist");
    return;
  }
  if (fs::is_regular_file(p / "triage.yaml", ec)) ReadConfig(p / "triage.yaml", disable, problems);
  // Note: [Calibration map] (rules/README.md): parsed by the loader after compiling.
  if (fs::is_regular_file(p / "calibration.yaml", ec)) read((p / "calibration.yaml").string(), calibration, true);
  std::vector<std::string> files;
  std::vector<ListedStamp> stamps;  // taken in the walk when only the stamps are wanted
  WalkRuleFiles(p.string(), &files, contents ? nullptr : &stamps);  // Note: [Rule directory walk]
  SortPaths(&files, contents ? nullptr : &stamps);
  out->reserve(out->size() + files.size());
  for (size_t i = 0; i < files.size(); ++i) read(files[i], out, contents, contents ? nullptr : &stamps[i]);
}

}  // namespace

void CollectSources(const LoadOptions& options, std::vector<SourceFile>* out, DisableList* disable,
                    std::vector<SourceFile>* calibration, std::vector<Problem>* problems, bool contents) {
  int layer = 0;
  // One directory reached twice (e.g. user == project) is read once.
  // Note: [Start-up system calls]: an entry is known by what stat(2) says of it (device and inode: the same directory or file
  // whatever path reaches it, through symlinks or not), one call where its canonical name took a
  // readlink(2) or stat(2) for each component of the path (~25 calls a start), and the stat then
  // tells CollectFiles whether it is a file or a directory. An entry that cannot be stat'ed (most
  // often one that does not exist: the system, user and project directories) is known by its
  // canonical name, as before. One difference: a directory reached through two bind mounts was two
  // names and read twice; now it is read once.
  std::set<std::string> seen;
  auto add = [&](const std::string& dir, const std::string& origin, bool must_exist) {
    if (dir.empty()) return;
    struct stat st;
    const bool found = ::stat(dir.c_str(), &st) == 0;
    std::string key;
    if (found) {
      key = std::string(1, '\0') + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);  // no path begins so
    } else {
      std::error_code ec;
      key = fs::weakly_canonical(dir, ec).string();
      if (ec) key = dir;
    }
    if (!seen.insert(key).second) return;
    CollectFiles(dir, found ? &st : nullptr, layer++, origin, must_exist, out, disable, calibration, problems,
                 contents);
  };
  if (options.bundled) add(BundledRulesDir(), "bundled", true);
  if (options.system) add(SystemRulesDir(), "system", false);
  if (options.user) add(UserRulesDir(), "user", false);
  if (options.project) {
    std::string dir = ProjectRulesDir(options.working_dir);
    if (std::string why = dir.empty() ? "" : UntrustedRulesDir(dir); why.empty()) {
      add(dir, "project", false);
    } else {  // Note: [Rule trust]
      AddProblem(problems, Problem::Severity::kWarning, ProblemCode::kUntrustedRules, dir, 0, 0, "",
                 "project rules skipped: " + why + " (to load them: triage rules allow " + dir + ")");
    }
  }
  if (options.env_path) {
    if (const char* env = std::getenv("TRIAGE_RULES_PATH"); env && *env) {
      std::stringstream ss(env);
      std::string dir;
      while (std::getline(ss, dir, ':')) add(dir, "env", true);
    }
    if (const char* env = std::getenv("TRIAGE_DISABLE"); env && *env) {
      std::string list = env;
      for (char& c : list) if (c == ',' || c == ':' || c == ';') c = ' ';
      std::stringstream ss(list);
      std::string id;
      while (ss >> id) disable->push_back({id, "TRIAGE_DISABLE"});
    }
  }
  for (const std::string& dir : options.dirs) add(dir, "cli", true);
  for (const std::string& id : options.disable) disable->push_back({id, "LoadOptions"});
}

}  // namespace triage
