// Helpers shared by the tests that take a log apart line by line (paste_forms_test.cc: whole-log
// transformations of a paste; cut_paste_test.cc: pastes of part of a log; cli_report_test.cc): a log as
// lines and back, a trimmed line, the bundled rules.
#ifndef TRIAGE_TESTS_PASTE_FORMS_H_
#define TRIAGE_TESTS_PASTE_FORMS_H_

#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage_test {

// The lines of `text` without their '\n' (a '\r' before it stays); no empty line after a final '\n'.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

inline std::string Join(const std::vector<std::string>& lines, const char* eol = "\n") {
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += eol;
  }
  return out;
}

inline std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") + 1 - b);
}

// The bundled rules only: no user, project, environment or cached rules.
inline triage::LoadResult Bundled() {
  triage::LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return triage::LoadRules(o);
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_PASTE_FORMS_H_
