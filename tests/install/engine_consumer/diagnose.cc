// Diagnoses the log named on the command line with the bundled rules of the installed triage and
// prints the top diagnosis's rule id ("none" when there is none). Exit status 2 on an error.
#include <fstream>
#include <iostream>
#include <sstream>

#include "triage/triage.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: diagnose LOG\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();

  triage::LoadOptions load;
  load.system = load.user = load.project = load.env_path = false;  // the bundled rules alone
  triage::LoadResult rules = triage::LoadRules(load);
  for (const triage::Problem& p : rules.problems) std::cerr << p.ToString() << "\n";
  if (!rules.ok()) return 2;
  std::cout << "rules: " << triage::BundledRulesDir() << "\n";
  const triage::Report report = triage::Engine(rules.rules).DiagnoseText(text.str());
  std::cout << "top: " << (report.diagnoses.empty() ? "none" : report.diagnoses[0].rule) << "\n";
  return 0;
}
