// Where the bundled rules are, for a build tree and for an installed prefix.
//
// Note: [Bundled rules]
// The rules ship beside the program, so the directory is found at run time, in this order:
// 1. TRIAGE_BUNDLED_RULES, when set (tests, unusual layouts);
// 2. the module holding this code (the shared library, or the executable it is linked into) in this
//    build tree: the source tree's rules/ it was configured from;
// 3. that module under an install prefix (P/bin/triage, P/lib/libtriage.so): P/share/triage/rules,
//    so a prefix moved after `cmake --install --prefix P` still works;
// 4. otherwise (a program linked statically against an installed libtriage.a lives anywhere): the
//    directory its build named, which find_package(triage) passes to the program's sources as
//    TRIAGE_INSTALLED_RULES_DIR (triage.h notes it before main: internal::NoteInstalledRulesDir);
// 5. else the prefix this build was configured with (CMAKE_INSTALL_PREFIX)/share/triage/rules.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

#include "triage/triage.h"

namespace triage {
namespace {

namespace fs = std::filesystem;

// True when `path` has no "." or ".." component and no doubled '/' (so, when it begins with '/' and
// names no symlink, it is canonical).
bool IsPlainAbsolute(std::string_view path) {
  return path.find("//") == std::string_view::npos && path.find("/./") == std::string_view::npos &&
         path.find("/../") == std::string_view::npos &&
         !(path.size() >= 2 && path.compare(path.size() - 2, 2, "/.") == 0) &&
         !(path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0);
}

// Returns the directory of the file (shared library or executable) this function was loaded from.
fs::path ModuleDir() {
  Dl_info info{};
  std::error_code ec;
  fs::path file;
  if (dladdr(reinterpret_cast<void*>(&ModuleDir), &info) != 0 && info.dli_fname != nullptr) {
    file = fs::canonical(fs::path(info.dli_fname), ec);
  }
  if (file.empty()) {
    // dli_fname of the main program may be a bare name, and a static executable (Note: [Static PIE
    // command] in bindings/cli/CMakeLists.txt) has no loader for dladdr to ask: this code is then the
    // program's, and /proc/self/exe is where it really is.
    // The kernel gives that link's target as a path from the root with no symlink in it, so it is its
    // own canonical form: one readlink(2) where fs::canonical made eight (each component of
    // /proc/PID/exe and of the target). Anything else (" (deleted)" after the name, a path outside
    // this process's root) goes to fs::canonical as before.
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf);
    const std::string_view target(buf, n > 0 ? static_cast<size_t>(n) : 0);
    if (n > 0 && static_cast<size_t>(n) < sizeof buf && target[0] == '/' && IsPlainAbsolute(target) &&
        target.find(" (deleted)") == std::string_view::npos) {
      file = fs::path(std::string(target));
    } else {
      file = fs::canonical("/proc/self/exe", ec);
      if (ec) return {};
    }
  }
  return file.parent_path();
}

// ModuleDir() of this process, found once (BundledRulesDir is asked for the rules and for the
// shipped cache beside them): the module does not move while it runs.
const fs::path& ThisModuleDir() {
  static const fs::path dir = ModuleDir();
  return dir;
}

bool IsUnder(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

// True when the build tree TRIAGE_BUILD_DIR names holds this module's directory `dir` (canonical:
// ModuleDir), found once. When the name, as configured, is a leading part of `dir`, the name is
// canonical too (every leading part of a canonical path is) and `dir` is under it: no system call.
// Otherwise the name is resolved as before (fs::weakly_canonical: a call for each component).
bool InBuildTree() {
  static const bool in_tree = [] {
    const fs::path& dir = ThisModuleDir();
    const std::string_view build = TRIAGE_BUILD_DIR;
    const std::string& d = dir.native();
    if (build.size() > 1 && build[0] == '/' && build.back() != '/' && IsPlainAbsolute(build) &&
        d.compare(0, build.size(), build) == 0 && (d.size() == build.size() || d[build.size()] == '/')) {
      return true;
    }
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(TRIAGE_BUILD_DIR, ec);
    return !ec && IsUnder(dir, canonical);
  }();
  return in_tree;
}

// Returns the install prefix when `dir` is its bin or lib directory, else empty.
fs::path PrefixOf(const fs::path& dir) {
  for (const char* sub_dir : {TRIAGE_INSTALL_BINDIR, TRIAGE_INSTALL_LIBDIR}) {
    const fs::path sub(sub_dir);
    fs::path prefix = dir;
    bool matches = true;
    for (auto it = sub.end(); it != sub.begin();) {
      --it;
      if (it->empty()) continue;
      if (prefix.filename() != *it) {
        matches = false;
        break;
      }
      prefix = prefix.parent_path();
    }
    if (matches) return prefix;
  }
  return {};
}

// The directory NoteInstalledRulesDir recorded (empty: none). Written before main by a statically
// linked program, but triage_note_installed_rules_dir is public and may be called on one thread while
// another loads rules, so the string is read and written under a lock (Note: [Thread safety] in
// rule_loader.h).
std::mutex& NotedRulesMutex() {
  static std::mutex mu;
  return mu;
}

std::string& NotedRulesDirLocked() {
  static std::string dir;
  return dir;
}

std::string NotedRulesDir() {
  std::lock_guard<std::mutex> lock(NotedRulesMutex());
  return NotedRulesDirLocked();
}

std::string LocateBundledRules() {
  const fs::path& module = ThisModuleDir();
  std::error_code ec;
  if (!module.empty()) {
    if (InBuildTree()) return TRIAGE_BUNDLED_RULES_DIR;
    if (const fs::path prefix = PrefixOf(module); !prefix.empty()) {
      const fs::path rules = prefix / TRIAGE_INSTALL_RULESDIR;
      if (fs::is_directory(rules, ec)) return rules.string();
    }
  }
  if (std::string noted = NotedRulesDir(); !noted.empty()) return noted;
  return (fs::path(TRIAGE_INSTALL_PREFIX) / TRIAGE_INSTALL_RULESDIR).string();
}

}  // namespace

std::string BundledRulesDir() {
  if (const char* env = std::getenv("TRIAGE_BUNDLED_RULES"); env && *env) return env;
  return LocateBundledRules();
}

namespace internal {
bool NoteInstalledRulesDir(const char* dir) {
  if (dir == nullptr) return true;
  std::lock_guard<std::mutex> lock(NotedRulesMutex());
  if (NotedRulesDirLocked().empty()) NotedRulesDirLocked() = dir;
  return true;
}
}  // namespace internal

}  // namespace triage
