// locale_embed: an embedding program that sets the C locale before it uses the engine, for
// tests/bench/locale_check.sh (the unit tests cannot: a machine need not have a locale with a decimal
// comma installed). Prints, for the logs given, every report format, then `explain` of every rule and
// the rule examples' results, all read from RULES_DIR alone with no rule cache.
//
// usage: locale_embed LOCALE RULES_DIR LOG...   (LOCALE "-": the locale is left as the program starts)
#include <clocale>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "triage/tools.h"
#include "triage/triage.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: locale_embed LOCALE RULES_DIR LOG...\n");
    return 2;
  }
  const std::string name = argv[1];
  if (name != "-" && std::setlocale(LC_ALL, name.c_str()) == nullptr) {
    std::fprintf(stderr, "locale_embed: no locale %s\n", name.c_str());
    return 2;
  }
  std::fprintf(stderr, "locale_embed: LC_NUMERIC %s, decimal point '%s'\n", std::setlocale(LC_NUMERIC, nullptr),
               std::localeconv()->decimal_point);
  triage::LoadOptions o;
  o.bundled = o.env_path = o.system = o.user = o.project = o.cache = false;
  o.dirs = {argv[2]};
  triage::LoadResult rules = triage::LoadRules(o);
  std::string out;
  for (const triage::Problem& p : rules.problems) out += p.ToString() + "\n";
  triage::Engine engine(rules.rules);
  std::vector<triage::Report> reports;
  for (int i = 3; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    reports.push_back(engine.DiagnoseText(text));
    const triage::Report& r = reports.back();
    out += triage::ToJson(r) + "\n" + triage::ToText(r, triage::TextOptions()) + triage::ToMarkdown(r);
  }
  out += triage::ToHtml(reports);
  for (const triage::RuleInfo& r : triage::ListRules(*rules.rules)) {
    bool found = false;
    out += triage::ExplainRule(*rules.rules, r.id, &found, 100);
  }
  out += triage::RunRuleExamples(*rules.rules).ToText(false);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
