// The rule search path's directories (rules/README.md "Search path").
#include <cstdlib>
#include <filesystem>

#include "triage/triage.h"

namespace triage {
namespace fs = std::filesystem;

std::string SystemRulesDir() {
  if (const char* env = std::getenv("TRIAGE_SYSTEM_RULES"); env && *env) return env;
  return TRIAGE_SYSTEM_RULES_DIR;
}

std::string UserRulesDir() {
  // XDG Base Directory: an empty or relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && xdg[0] == '/') {
    return (fs::path(xdg) / "triage" / "rules").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (fs::path(home) / ".config" / "triage" / "rules").string();
  }
  return "";
}

std::string ProjectRulesDir(const std::string& start) {
  std::error_code ec;
  fs::path dir = start.empty() ? fs::current_path(ec) : fs::absolute(start, ec);
  if (ec) return "";
  for (int depth = 0; depth < 256; ++depth) {
    fs::path candidate = dir / ".triage" / "rules";
    if (fs::is_directory(candidate, ec)) return candidate.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return "";
}

}  // namespace triage
