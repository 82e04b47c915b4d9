// triage-probe, the command: reads the command line, answers --help, --version and usage errors
// itself, and only then runs the program that loads LibTorch, triage-probe-torch (main.cc), with the
// same arguments.
//
// Note: [Probe front] A program linked to LibTorch pays ~0.3 s, ~160 MB and ~290 shared objects
// before main, which `triage-probe --help` or a mistyped option should not. This front links neither
// LibTorch nor the engine; it replaces itself (execv) with triage-probe-torch, found relative to its
// own executable: PREFIX/libexec/triage/ beside an installed PREFIX/bin/triage-probe, or the same
// directory in the build tree. Exit status, output and environment are the torch program's own.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"

namespace {

constexpr char kBackend[] = "triage-probe-torch";

// The directory of this executable ("" when /proc/self/exe cannot be read).
std::string SelfDir() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  std::string path(buf.data(), static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

int main(int argc, char** argv) {
  triage::probe_cli::ProbeArgs args;
  int status = triage::probe_cli::ParseArgs(argc, argv, &args, std::cout, std::cerr);
  if (status >= 0) return status;
  std::cout.flush();
  const std::string dir = SelfDir();
  const std::string candidates[] = {dir + "/" TRIAGE_PROBE_LIBEXEC_FROM_BIN "/" + kBackend, dir + "/" + kBackend};
  int error = ENOENT;
  for (const std::string& path : candidates) {
    if (dir.empty() || ::access(path.c_str(), X_OK) != 0) continue;
    ::execv(path.c_str(), argv);
    error = errno;  // only reached when exec failed
  }
  std::cerr << "triage-probe: cannot run " << kBackend << " (looked in " << dir << "/" TRIAGE_PROBE_LIBEXEC_FROM_BIN
            << " and " << dir << "): " << std::strerror(error) << "\n";
  return 2;
}
