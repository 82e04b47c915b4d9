// Trusted project rule directories: Note: [Rule trust] in rule_trust.h.
#include "rules/rule_trust.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  std::string kept, line, d, p;
  {
    std::ifstream in(file);
    while (std::getline(in, line)) {
      if (!ParseEntry(line, &d, &p) || p != path) kept += line + "\n";
    }
  }
  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  // Written beside the file and renamed over it, so a reader never sees half a file.
  const std::string tmp = file + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << kept << digest << ' ' << path << '\n';
    if (!out.flush()) return "cannot write " + tmp;
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "cannot write " + file;
  }
  return "";
}

}  // namespace triage
