// Trusted project rule directories: Note: [Rule trust] in rule_trust.h.
#include "rules/rule_trust.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "rules/sha256.h"
#include "triage/triage.h"

namespace triage {
namespace fs = std::filesystem;
namespace {

constexpr std::uintmax_t kMaxDigestBytes = 256u << 20;  // a rule directory larger than this is refused

std::string Canonical(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::canonical(dir, ec);
  return ec ? "" : p.string();
}

// One allow-file line: "<sha256 hex> <canonical path>".
bool ParseEntry(const std::string& line, std::string* digest, std::string* path) {
  if (line.size() < 66 || line[64] != ' ') return false;
  *digest = line.substr(0, 64);
  *path = line.substr(65);
  return true;
}

}  // namespace

std::string AllowFilePath() {
  if (const char* env = std::getenv("TRIAGE_ALLOW_FILE"); env && *env) return env;
  const std::string rules = UserRulesDir();  // <config>/triage/rules
  return rules.empty() ? "" : (fs::path(rules).parent_path() / "allowed-rules").string();
}

std::string RulesDirDigest(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(fs::relative(it->path(), dir, ec).generic_string());
  }
  if (ec) return "";
  std::sort(files.begin(), files.end());
  Sha256 sha;
  std::uintmax_t total = 0;
  for (const std::string& rel : files) {
    std::ifstream in(fs::path(dir) / rel, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return "";
    std::string body = text.str();
    if ((total += body.size()) > kMaxDigestBytes) return "";
    sha.Add(std::to_string(rel.size()) + ":" + rel + std::to_string(body.size()) + ":");
    sha.Add(body);
  }
  return sha.HexDigest();
}

std::string UnsafeRulesDir(const std::string& dir) {
  fs::path rules = fs::path(dir);
  for (const fs::path& p : {rules, rules.parent_path()}) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) return "cannot stat " + p.string();
    if (S_ISLNK(st.st_mode)) return p.string() + " is a symbolic link";
    if (st.st_uid != geteuid()) return p.string() + " is not owned by you";
    if (st.st_mode & S_IWOTH) return p.string() + " is writable by others";
  }
  return "";
}

std::string UntrustedRulesDir(const std::string& dir) {
  if (std::string why = UnsafeRulesDir(dir); !why.empty()) return why;
  const std::string path = Canonical(dir), file = AllowFilePath();
  std::ifstream in(file);
  std::string line, digest, allowed;
  bool listed = false;
  while (std::getline(in, line)) {
    if (ParseEntry(line, &digest, &allowed) && allowed == path) {
      listed = true;
      if (digest == RulesDirDigest(dir)) return "";
    }
  }
  return listed ? "its files changed since it was allowed" : "it has not been allowed";
}

std::string AllowRulesDir(const std::string& dir) {
  const std::string path = Canonical(dir);
  if (path.empty()) return "no such directory: " + dir;
  if (path.find('\n') != std::string::npos) return "a path with a newline cannot be allowed";
  if (std::string why = UnsafeRulesDir(dir); !why.empty()) return why;
  const std::string digest = RulesDirDigest(path);
  if (digest.empty()) return "cannot read every file under " + path;
  const std::string file = AllowFilePath();
  if (file.empty()) return "no allow file (set HOME, XDG_CONFIG_HOME or TRIAGE_ALLOW_FILE)";
  std::error_code ec;
  const fs::path parent = fs::path(file).parent_path();
  fs::create_directories(parent, ec);
  // Note: [Allow file updates]
  // The allow file is read, changed and written whole. Two updates at once (two threads of an
  // embedder, two `triage rules allow` commands) wrote the same temporary name (the process id alone
  // named it: one thread could rename the other's half-written file over the allow file) and the
  // later rename dropped the other's line. Now one update runs at a time (this process's threads by
  // a mutex, other processes by flock on the file's directory), its new file made by mkstemp, so a
  // reader (UntrustedRulesDir) sees one whole file and every update keeps the others' lines.
  static std::mutex mu;
  std::lock_guard<std::mutex> one_thread(mu);
  const int dir_fd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    while (::flock(dir_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  std::string kept, line, d, p;
  {
    std::ifstream in(file);
    while (std::getline(in, line)) {
      if (!ParseEntry(line, &d, &p) || p != path) kept += line + "\n";
    }
  }
  kept += digest + ' ' + path + '\n';
  std::string tmp = file + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  bool ok = fd >= 0;
  for (size_t at = 0; ok && at < kept.size();) {
    const ssize_t n = ::write(fd, kept.data() + at, kept.size() - at);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    at += ok ? static_cast<size_t>(n) : 0;
  }
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(tmp.c_str(), file.c_str()) == 0;
  if (!ok && fd >= 0) ::unlink(tmp.c_str());
  if (dir_fd >= 0) ::close(dir_fd);  // and the lock with it
  if (fd < 0) return "cannot write " + tmp;
  if (!ok) return "cannot write " + file;
  return "";
}

}  // namespace triage
