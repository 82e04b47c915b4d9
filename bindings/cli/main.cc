// triage: diagnose PyTorch failures in logs. See `triage --help` and bindings/cli/README.md.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"

namespace triage::cli {

void PrintError(const std::string& message) { std::fprintf(stderr, "triage: %s\n", message.c_str()); }

bool ParseRuleFlag(int argc, char** argv, int* i, RuleFlags* flags, std::string* error) {
  std::string a = argv[*i];
  if (a == "--rules" || a.rfind("--rules=", 0) == 0) {
    std::string v;
    if (a == "--rules") {
      if (*i + 1 >= argc) { *error = "--rules needs a directory"; return true; }
      v = argv[++*i];
    } else {
      v = a.substr(8);
    }
    flags->dirs.push_back(v);
    return true;
  }
  if (a == "--no-bundled") { flags->bundled = false; return true; }
  if (a == "--strict") { flags->strict = true; return true; }
  return false;
}

LoadResult LoadWithFlags(const RuleFlags& flags, bool quiet_warnings) {
  LoadOptions o;
  o.bundled = flags.bundled;
  o.dirs = flags.dirs;
  o.strict = flags.strict;
  LoadResult r = LoadRules(o);
  for (const Problem& p : r.problems) {
    if (quiet_warnings && p.severity == Problem::Severity::kWarning) continue;
    std::fprintf(stderr, "%s\n", p.ToString().c_str());
  }
  return r;
}

namespace {

const char kUsage[] = R"(usage: triage [OPTIONS] [FILE...]      diagnose logs (stdin when no FILE or FILE is -)
       triage rules list [--origin]       list the loaded rules
       triage rules lint [DIR...]         check rule files: schema, regexes, references
       triage rules test [DIR...]         run every rule's own examples
       triage explain RULE_ID             show a rule's full reasoning
       triage eval DIR                    accuracy on a labelled corpus
       triage --version

options:
  --format text|json      output format (default text; json follows the output contract)
  --top N                 show at most N diagnoses (default: all above the threshold)
  --min-confidence X      abstain below this confidence (default 0.35)
  --rules DIR             also load rules from DIR (repeatable; after TRIAGE_RULES_PATH)
  --no-bundled            do not load the bundled rules
  --strict                rule warnings are errors
  --color auto|always|never   colour in text output (default auto: only on a terminal, never with NO_COLOR)
  -v, --verbose           show hypotheses and checks for every diagnosis, not only the first
  -h, --help              this text

exit status: 0 a diagnosis was found, 1 none was found, 2 usage, input or rule error.
)";

struct Options {
  bool json = false;
  DiagnoseOptions diagnose;
  RuleFlags rules;
  std::string color = "auto";
  bool verbose = false;
  std::vector<std::string> files;
};

bool ParseDouble(const std::string& s, double* out) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno || end == s.c_str() || *end) return false;
  *out = v;
  return true;
}

int ParseArgs(int argc, char** argv, Options* o) {
  bool only_files = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (only_files || a == "-" || a.empty() || a[0] != '-') { o->files.push_back(a); continue; }
    if (a == "--") { only_files = true; continue; }
    std::string error;
    if (ParseRuleFlag(argc, argv, &i, &o->rules, &error)) {
      if (!error.empty()) { PrintError(error); return kExitUsage; }
      continue;
    }
    auto value = [&](const std::string& name, std::string* v) {
      if (a == name) {
        if (i + 1 >= argc) return false;
        *v = argv[++i];
        return true;
      }
      *v = a.substr(name.size() + 1);
      return true;
    };
    auto is = [&](const std::string& name) { return a == name || a.rfind(name + "=", 0) == 0; };
    std::string v;
    if (is("--format")) {
      if (!value("--format", &v) || (v != "text" && v != "json")) { PrintError("--format must be text or json"); return kExitUsage; }
      o->json = v == "json";
    } else if (is("--top")) {
      double n;
      if (!value("--top", &v) || !ParseDouble(v, &n) || n < 1 || n != static_cast<int>(n)) {
        PrintError("--top needs a positive whole number");
        return kExitUsage;
      }
      o->diagnose.top = static_cast<int>(n);
    } else if (is("--min-confidence")) {
      double x;
      if (!value("--min-confidence", &v) || !ParseDouble(v, &x) || x < 0 || x > 1) {
        PrintError("--min-confidence needs a number in [0, 1]");
        return kExitUsage;
      }
      o->diagnose.min_confidence = x;
    } else if (is("--color")) {
      if (!value("--color", &v) || (v != "auto" && v != "always" && v != "never")) {
        PrintError("--color must be auto, always or never");
        return kExitUsage;
      }
      o->color = v;
    } else if (a == "-v" || a == "--verbose") {
      o->verbose = true;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(kExitFound);
    } else if (a == "--version") {
      std::printf("triage %s\n", Version());
      std::exit(kExitFound);
    } else {
      PrintError("unknown option '" + a + "' (see triage --help)");
      return kExitUsage;
    }
  }
  if (o->files.empty()) o->files.push_back("-");
  return -1;
}

// Streams one input through a Session. Returns false (with *error) when it cannot be read.
bool DiagnoseInput(const std::string& name, const std::shared_ptr<const RuleSet>& rules,
                   const DiagnoseOptions& options, Report* report, std::string* error) {
  std::FILE* f = name == "-" ? stdin : std::fopen(name.c_str(), "rb");
  if (!f) {
    *error = "cannot read " + name + ": " + std::strerror(errno);
    if (name == "rules" || name == "explain" || name == "eval") {
      *error += " (subcommands come first: triage " + name + " ... [--rules DIR])";
    }
    return false;
  }
  Session session(rules, options, name);
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) session.Feed(std::string_view(buf.data(), n));
  bool failed = std::ferror(f);
  if (failed) *error = "error reading " + name + ": " + std::strerror(errno);
  if (f != stdin) std::fclose(f);
  if (failed) return false;
  *report = session.Finish();
  return true;
}

int Diagnose(int argc, char** argv) {
  Options o;
  if (int rc = ParseArgs(argc, argv, &o); rc >= 0) return rc;
  LoadResult loaded = LoadWithFlags(o.rules, /*quiet_warnings=*/true);
  if (loaded.rules && ListRules(*loaded.rules).empty()) {
    PrintError("no rules loaded (check --rules and TRIAGE_RULES_PATH)");
    return kExitUsage;
  }
  bool color = o.color == "always" ||
               (o.color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR") &&
                !(std::getenv("TERM") && std::string(std::getenv("TERM")) == "dumb"));
  if (std::getenv("NO_COLOR") && o.color != "always") color = false;
  bool found = false;
  bool input_error = false;
  for (size_t i = 0; i < o.files.size(); ++i) {
    Report report;
    std::string error;
    if (!DiagnoseInput(o.files[i], loaded.rules, o.diagnose, &report, &error)) {
      PrintError(error);
      input_error = true;
      continue;
    }
    found = found || !report.diagnoses.empty();
    if (o.json) {
      std::fputs(ToJson(report).c_str(), stdout);  // one object per line per input (JSON Lines)
    } else {
      if (o.files.size() > 1) std::printf("%s== %s ==\n", i ? "\n" : "", o.files[i].c_str());
      TextOptions t;
      t.color = color;
      t.verbose = o.verbose;
      std::fputs(ToText(report, t).c_str(), stdout);
    }
  }
  std::fflush(stdout);
  if (input_error) return kExitUsage;
  return found ? kExitFound : kExitNone;
}

}  // namespace
}  // namespace triage::cli

int main(int argc, char** argv) {
  using namespace triage::cli;
  if (argc >= 2) {
    std::string cmd = argv[1];
    if (cmd == "rules") return RunRules(argc - 1, argv + 1);
    if (cmd == "explain") return RunExplain(argc - 1, argv + 1);
    if (cmd == "eval") return RunEval(argc - 1, argv + 1);
  }
  return Diagnose(argc, argv);
}
