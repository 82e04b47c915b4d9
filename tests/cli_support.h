// Helpers for the end-to-end tests of the `triage` binary (cli_test.cc, cli_follow_test.cc, ...).
#ifndef TRIAGE_TESTS_CLI_SUPPORT_H_
#define TRIAGE_TESTS_CLI_SUPPORT_H_

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "triage/triage.h"
#include "source_paths.h"

namespace triage_test {

struct ShellResult {
  int status = -1;
  std::string out;
};

// Runs a shell command line; returns its exit status and stdout (stderr goes to stdout when asked).
inline ShellResult Shell(const std::string& cmd) {
  ShellResult r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

inline const std::string kBin = TRIAGE_BINARY;
inline const std::string kSrc = TRIAGE_SOURCE_DIR;
inline const std::string kFixture = kSrc + "/tests/fixtures/chained_direct_cause/log.txt";

// A private rule directory so these tests do not depend on the bundled knowledge base.
inline std::string RuleDir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    fs::path d = fs::temp_directory_path() / ("triage_cli_rules_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "linear-features.yaml") << R"(id: linear-features
category: shape.matmul_mismatch
title: Linear layer gets a different number of features than it was built for
match:
  message: 'mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x(?P<got>\d+) and (?P<want>\d+)x(?P<out>\d+)\)'
  exception: [RuntimeError]
explain: 'The layer expects {want} input features but receives {got}.'
hypotheses:
  - id: flattened
    text: 'A feature map flattened to {got} features.'
    test: 'print(x.shape) before the layer'
    fix: 'Linear({got}, {out})'
verify: 'one step runs'
examples:
  - match: 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)'
  - no_match: 'RuntimeError: shape ''[4, 2]'' is invalid for input of size 6'
)";
    return d.string();
  }();
  return dir;
}

inline std::string Triage(const std::string& args) {
  return "NO_COLOR=1 TRIAGE_RULES_PATH= " + kBin + " --no-bundled --rules " + RuleDir() + " " + args;
}

// The rules every default load gives (bundled, user, project, cache; not TRIAGE_RULES_PATH), loaded
// once a process.
inline std::shared_ptr<const triage::RuleSet> DefaultRulesOnce() {
  static const triage::LoadResult kLoaded = [] {
    triage::LoadOptions o;
    o.env_path = false;
    return triage::LoadRules(o);
  }();
  return kLoaded.rules;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Options that keep the similar-case answer (Note: [Similar known case] in
// engine/src/diagnose/similar_case.cc) from reading a corpus log's own case or its thread: the log's
// folder and its label's `source:`.
inline triage::DiagnoseOptions LeaveOut(const std::filesystem::path& log) {
  triage::DiagnoseOptions options;
  const std::filesystem::path dir = std::filesystem::absolute(log).parent_path().lexically_normal();
  options.similar_leave_out.push_back(dir.generic_string());
  std::istringstream label(ReadFile((dir / "label.yaml").string()));
  for (std::string line; std::getline(label, line);) {
    if (line.rfind("source:", 0) != 0) continue;
    std::string v = line.substr(7);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    if (v.size() >= 2 && (v[0] == '\'' || v[0] == '"') && v.back() == v[0]) v = v.substr(1, v.size() - 2);
    options.similar_leave_out.push_back(v);
  }
  return options;
}

// Every corpus log, ours and the wild tuning split; corpus/heldout is never entered.
inline std::vector<std::filesystem::path> CorpusLogs() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  for (auto it = fs::recursive_directory_iterator(corpus); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == "heldout") {
      it.disable_recursion_pending();
    } else if (it->path().filename() == "log.txt") {
      out.push_back(it->path());
    }
  }
  return out;
}

// Note: [One-encoding text]. A log whose bytes hold a NUL is not text in one encoding:
// corpus/formats/utf16-appended-stderr is UTF-8 with UTF-16LE appended, as Windows PowerShell's `>>`
// leaves a file. A person copies text through a decoder that has already chosen one encoding, so the
// forms that rewrite a log line by line, or join several logs, are forms of one-encoding text only; the
// appended file has its own form (utf16_appended in tests/cut_paste_test.cc) and its own case.
inline bool OneEncodingText(const std::string& bytes) { return bytes.find('\0') == std::string::npos; }

// CorpusLogs() without the logs that are not one-encoding text (Note: [One-encoding text]).
inline std::vector<std::filesystem::path> TextCorpusLogs() {
  std::vector<std::filesystem::path> out;
  for (const std::filesystem::path& log : CorpusLogs()) {
    if (OneEncodingText(ReadFile(log.string()))) out.push_back(log);
  }
  return out;
}

// A fresh scratch directory under the system's temporary directory, removed by the destructor.
struct TempDir {
  explicit TempDir(const std::string& tag)
      : path((std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()))).string()) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

// Starts `sh -c 'exec env CMD'` as a child of the test with default signal dispositions (SIGPIPE and
// SIGINT included, whatever the test runner set); stdout goes to `stdout_fd` when it is >= 0.
inline pid_t Spawn(const std::string& cmd, int stdout_fd = -1) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigdefault(&attr, &all);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdout_fd, STDOUT_FILENO);
  std::string line = "exec env " + cmd;  // env: CMD may start with VAR=value assignments
  const char* argv[] = {"sh", "-c", line.c_str(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", &fa, &attr, const_cast<char* const*>(argv), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return pid;
}

// Waits for a spawned child; returns its exit status, or 128 + the signal that ended it.
inline int Wait(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_CLI_SUPPORT_H_
