// triage rules list|lint|test, triage explain, triage eval.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli.h"
#include "triage/locale_free.h"
#include "triage/tools.h"

namespace triage::cli {
namespace {

bool UnderDir(const std::string& file, const std::string& dir) {
  std::error_code ec;
  auto f = std::filesystem::weakly_canonical(file, ec).string();
  auto d = std::filesystem::weakly_canonical(dir, ec).string();
  return f == d || f.rfind(d + "/", 0) == 0;
}

int Lint(int argc, char** argv) {
  RuleFlags flags;
  bool json = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (a == "--format=json" || (a == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "json")) {
      json = true;
      if (a == "--format") ++i;
    } else if (a == "--format=text" || (a == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "text")) {
      if (a == "--format") ++i;
    } else if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (!a.empty() && a[0] == '-') {
      PrintError("rules lint: unknown option '" + a + "'");
      return kExitUsage;
    } else {
      dirs.push_back(a);
    }
  }
  LoadOptions o;
  o.strict = flags.strict;
  if (!dirs.empty()) {  // lint exactly what was named
    o.bundled = false;
    o.env_path = false;
    o.system = o.user = o.project = false;
    o.dirs = dirs;
  } else {
    o.bundled = flags.bundled;
    o.dirs = flags.dirs;
  }
  LoadResult r = LoadRules(o);
  if (json) {
    std::fputs(ToJson(r).c_str(), stdout);
  } else {
    for (const Problem& p : r.problems) std::printf("%s\n", p.ToString().c_str());
    std::printf("rules lint: %zu rules loaded, %d errors, %d warnings\n", CountRules(*r.rules), r.errors(),
                r.warnings());
  }
  return r.errors() ? kExitNone : kExitFound;
}

int Test(int argc, char** argv) {
  RuleFlags flags;
  bool verbose = false;
  std::string only;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (a == "--rule" && i + 1 < argc) {
      only = argv[++i];
    } else if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (!a.empty() && a[0] == '-') {
      PrintError("rules test: unknown option '" + a + "'");
      return kExitUsage;
    } else {
      dirs.push_back(a);
    }
  }
  for (const std::string& d : dirs) flags.dirs.push_back(d);
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  RuleTestReport total;
  for (const RuleInfo& info : ListRules(*loaded.rules)) {
    if (!only.empty() && info.id != only) continue;
    bool selected = dirs.empty();
    for (const std::string& d : dirs) selected = selected || UnderDir(info.file, d);
    if (!selected) continue;
    RuleTestReport one = RunRuleExamples(*loaded.rules, info.id);
    total.rules += one.rules;
    total.failed += one.failed;
    total.gaps += one.gaps;
    total.gaps_closed += one.gaps_closed;
    for (auto& r : one.results) total.results.push_back(std::move(r));
  }
  std::fputs(total.ToText(verbose).c_str(), stdout);
  if (loaded.errors()) {
    std::printf("rules test: %d rule file error(s): the rules they hold were not tested\n", loaded.errors());
    return kExitNone;
  }
  if (!only.empty() && total.rules == 0) {
    std::vector<std::string> ids;
    for (const RuleInfo& r : ListRules(*loaded.rules)) ids.push_back(r.id);
    PrintError("rules test: no rule '" + only + "'" + DidYouMean(only, ids));
    return kExitUsage;
  }
  return total.failed ? kExitNone : kExitFound;
}

int List(int argc, char** argv) {
  RuleFlags flags;
  bool origin = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (a == "--origin") origin = true;
    else if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else {
      PrintError("rules list: unknown argument '" + a + "'");
      return kExitUsage;
    }
  }
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  for (const RuleInfo& r : ListRules(*loaded.rules)) {
    if (origin) {
      std::string extra = r.lua.empty() ? "" : " + " + r.lua;
      if (!r.overrides.empty()) extra += " (overrides " + r.overrides + ")";
      std::printf("%-40s %-8s %s%s\n", r.id.c_str(), r.origin.c_str(), r.file.c_str(), extra.c_str());
    } else {
      std::printf("%-40s %-34s %s\n", r.id.c_str(), r.category.c_str(), r.title.c_str());
    }
  }
  if (origin) {
    for (const DisabledRule& d : ListDisabledRules(*loaded.rules)) {
      std::printf("%-40s %-8s %s (disabled by %s)\n", d.id.c_str(), "off", d.file.c_str(), d.by.c_str());
    }
  }
  return loaded.errors() ? kExitUsage : kExitFound;
}

// triage rules new FAMILY/ID [--lua] [--dir DIR]: writes a rule (and Lua) scaffold that passes lint
// and test as written, and refuses an id any loaded source already defines.
int New(int argc, char** argv) {
  RuleFlags flags;
  bool lua = false;
  std::string name, dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (a == "--lua") {
      lua = true;
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (name.empty() && !a.empty() && a[0] != '-') {
      name = a;
    } else {
      PrintError("usage: triage rules new FAMILY/ID [--lua] [--dir DIR]");
      return kExitUsage;
    }
  }
  size_t slash = name.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == name.size()) {
    PrintError("usage: triage rules new FAMILY/ID [--lua] [--dir DIR]   (e.g. shape/cat-size-mismatch)");
    return kExitUsage;
  }
  std::string family = name.substr(0, slash), id = name.substr(slash + 1);
  RuleScaffold scaffold = ScaffoldRule(family, id, lua);
  if (!scaffold.error.empty()) {
    PrintError("rules new: " + scaffold.error);
    return kExitUsage;
  }
  if (dir.empty()) dir = UserRulesDir();
  if (dir.empty()) {
    PrintError("rules new: no user rule directory (set HOME or XDG_CONFIG_HOME, or pass --dir DIR)");
    return kExitUsage;
  }
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  for (const RuleInfo& r : ListRules(*loaded.rules)) {
    if (r.id == id) {
      PrintError("rules new: rule '" + id + "' already exists in " + r.file + " (pick another id)");
      return kExitUsage;
    }
  }
  namespace fs = std::filesystem;
  fs::path yaml = fs::path(dir) / family / (id + ".yaml");
  fs::path lua_path = fs::path(dir) / family / (id + ".lua");
  std::error_code ec;
  if (fs::exists(yaml, ec) || (lua && fs::exists(lua_path, ec))) {
    PrintError("rules new: " + (fs::exists(yaml, ec) ? yaml : lua_path).string() + " already exists");
    return kExitUsage;
  }
  fs::create_directories(yaml.parent_path(), ec);
  auto write = [](const fs::path& p, const std::string& text) {
    std::FILE* f = std::fopen(p.string().c_str(), "wx");
    if (!f) return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return std::fclose(f) == 0 && ok;
  };
  if (!write(yaml, scaffold.yaml) || (lua && !write(lua_path, scaffold.lua))) {
    PrintError("rules new: cannot write " + yaml.string());
    return kExitUsage;
  }
  std::printf("created %s\n", yaml.string().c_str());
  if (lua) std::printf("created %s\n", lua_path.string().c_str());
  std::printf("next: edit the FIXMEs, then run\n  triage rules lint %s\n  triage rules test --rule %s\n",
              yaml.parent_path().string().c_str(), id.c_str());
  return kExitFound;
}

// `triage rules allow [DIR]`: lets a project rule directory load (Note: [Rule trust]).
int Allow(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    PrintError("usage: triage rules allow [DIR]   (default: the .triage/rules found from here)");
    return kExitUsage;
  }
  std::string dir = argc == 2 ? argv[1] : ProjectRulesDir();
  if (dir.empty()) {
    PrintError("rules allow: no .triage/rules in this directory or above (name the directory)");
    return kExitUsage;
  }
  if (std::string why = AllowRulesDir(dir); !why.empty()) {
    PrintError("rules allow: " + why);
    return kExitUsage;
  }
  std::printf("allowed %s (recorded in %s; after any change to its files, allow it again)\n", dir.c_str(),
              AllowFilePath().c_str());
  return kExitFound;
}

}  // namespace

namespace {

// `triage rules similar-index CORPUS`: prints the similar-case index of the corpus (Note: [Similar known
// case] in engine/src/diagnose/similar_case.cc), for rules/similar/cases.tsv.
int SimilarIndexCommand(int argc, char** argv) {
  RuleFlags flags;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (dir.empty() && !a.empty() && a[0] != '-') {
      dir = a;
    } else {
      PrintError("usage: triage rules similar-index CORPUS_DIR");
      return kExitUsage;
    }
  }
  if (dir.empty() || !std::filesystem::is_directory(dir)) {
    PrintError("rules similar-index needs a corpus directory");
    return kExitUsage;
  }
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  std::string error;
  const std::string index = BuildSimilarIndex(Engine(loaded.rules), dir, &error);
  if (!error.empty()) {
    PrintError(error);
    return kExitUsage;
  }
  std::fputs(index.c_str(), stdout);
  return kExitFound;
}

}  // namespace

int RunRules(int argc, char** argv) {
  if (argc < 2) {
    PrintError("usage: triage rules list|lint|test|new|allow|similar-index [ARGS]");
    return kExitUsage;
  }
  std::string sub = argv[1];
  if (sub == "list") return List(argc - 1, argv + 1);
  if (sub == "lint") return Lint(argc - 1, argv + 1);
  if (sub == "test") return Test(argc - 1, argv + 1);
  if (sub == "new") return New(argc - 1, argv + 1);
  if (sub == "allow") return Allow(argc - 1, argv + 1);
  if (sub == "similar-index") return SimilarIndexCommand(argc - 1, argv + 1);
  PrintError("unknown rules command '" + sub + "' (list, lint, test, new, allow, similar-index)" +
             DidYouMean(sub, {"list", "lint", "test", "new", "allow", "similar-index"}, "triage rules "));
  return kExitUsage;
}

int RunExplain(int argc, char** argv) {
  RuleFlags flags;
  std::string id;
  int width = -1;  // -1: COLUMNS, the terminal's width, or 80
  for (int i = 1; i < argc; ++i) {
    std::string error;
    if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (std::string(argv[i]) == "--width") {
      char* end = nullptr;
      long n = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || *end != '\0' || end == argv[i + 1] || n < 0 || n > 100000) {
        PrintError("--width needs a whole number of columns (0: no wrapping)");
        return kExitUsage;
      }
      width = static_cast<int>(n);
      ++i;
    } else if (id.empty()) {
      id = argv[i];
    } else {
      PrintError("explain takes one rule id");
      return kExitUsage;
    }
  }
  if (id.empty()) {
    PrintError("usage: triage explain RULE_ID|CATEGORY");
    return kExitUsage;
  }
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  bool found = false;
  std::string text = ExplainRule(*loaded.rules, id, &found, TextWidth(width, fileno(stdout)));
  if (found) {
    std::fputs(text.c_str(), stdout);
    return kExitFound;
  }
  const std::vector<std::string>& categories = TaxonomyCategories();
  std::vector<RuleInfo> rules = ListRules(*loaded.rules);
  if (std::find(categories.begin(), categories.end(), id) != categories.end()) {
    // A category: the rules that diagnose it, each explained by `triage explain RULE_ID`.
    std::string out = id + ": a category of rules/taxonomy.yaml, diagnosed by\n";
    int n = 0;
    for (const RuleInfo& r : rules) {
      if (r.category != id) continue;
      out += "  " + r.id + std::string(r.id.size() < 38 ? 38 - r.id.size() : 1, ' ') + r.title + "\n";
      ++n;
    }
    if (n == 0) out += "  (no loaded rule)\n";
    out += "triage explain RULE_ID shows one rule's reasoning.\n";
    std::fputs(out.c_str(), stdout);
    return kExitFound;
  }
  std::vector<std::string> names = categories;
  for (const RuleInfo& r : rules) names.push_back(r.id);
  PrintError("no rule or category '" + id + "' (see triage rules list)" + DidYouMean(id, names, "triage explain "));
  return kExitUsage;
}

int RunEval(int argc, char** argv) {
  RuleFlags flags;
  std::string dir;
  double min_top1 = -1, min_top3 = -1;
  bool list_heldout = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string error;
    if (a == "--list-heldout") {
      list_heldout = true;
    } else if ((a == "--min-top1" || a == "--min-top3") && i + 1 < argc) {
      if (!ParseNumber(argv[++i], a == "--min-top1" ? &min_top1 : &min_top3)) {
        PrintError(a + " needs a percentage, not '" + argv[i] + "'");
        return kExitUsage;
      }
    } else if (ParseRuleFlag(argc, argv, &i, &flags, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
    } else if (dir.empty() && !a.empty() && a[0] != '-') {
      dir = a;
    } else {
      PrintError("usage: triage eval DIR [--min-top1 PCT] [--min-top3 PCT] [--list-heldout]");
      return kExitUsage;
    }
  }
  if (dir.empty() || !std::filesystem::is_directory(dir)) {
    PrintError("eval needs a corpus directory");
    return kExitUsage;
  }
  LoadResult loaded = LoadWithFlags(flags, /*quiet_warnings=*/true);
  EvalReport report = EvaluateCorpus(Engine(loaded.rules), dir);
  std::fputs(report.ToText(list_heldout).c_str(), stdout);
  if (report.errors) return kExitUsage;
  bool pass = report.negatives_flagged == 0 && (min_top1 < 0 || 100 * report.Top1Rate() >= min_top1) &&
              (min_top3 < 0 || 100 * report.Top3Rate() >= min_top3);
  return pass ? kExitFound : kExitNone;
}

}  // namespace triage::cli
