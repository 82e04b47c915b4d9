// Every corpus log of our own and the wild tuning cases (never the frozen held-out ones), diagnosed
// with the bundled rules: the inputs the report-format tests check every output on.
#ifndef TRIAGE_TESTS_CORPUS_REPORTS_H_
#define TRIAGE_TESTS_CORPUS_REPORTS_H_

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.h"
#include "triage/triage.h"

namespace triage_test {

inline const std::vector<triage::Report>& CorpusReports() {
  static const std::vector<triage::Report> reports = [] {
    namespace fs = std::filesystem;
    triage::LoadOptions o;
    o.env_path = false;
    triage::Engine engine(triage::LoadRules(o).rules);
    std::vector<fs::path> logs;
    for (const auto& e : fs::recursive_directory_iterator(kSrc + "/corpus")) {
      if (e.path().filename() == "log.txt" && e.path().string().find("/corpus/heldout/") == std::string::npos) {
        logs.push_back(e.path());
      }
    }
    std::sort(logs.begin(), logs.end());
    std::vector<triage::Report> out;
    for (const fs::path& p : logs) {
      triage::Report r = engine.DiagnoseText(ReadFile(p.string()));
      r.source = fs::relative(p, kSrc).string();
      out.push_back(std::move(r));
    }
    return out;
  }();
  return reports;
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_CORPUS_REPORTS_H_
