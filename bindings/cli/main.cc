// triage: diagnose PyTorch failures in logs. See `triage --help` and bindings/cli/README.md.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "triage/locale_free.h"

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

namespace {

// Edit distance counting a swap of two neighbouring letters as one edit ("lsit" is 1 from "list"):
// optimal string alignment. Small words only (subcommands, rule ids).
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates, const std::string& prefix) {
  if (word.empty() || word.size() > 200) return "";
  const std::string* best = nullptr;
  size_t best_d = word.size() / 3 + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d || (!best && c.find(word) != std::string::npos && word.size() >= 4)) {
      best = &c;
      best_d = std::min(d, best_d);
    }
  }
  return best ? " (did you mean '" + prefix + *best + "'?)" : "";
}

namespace {

// `word` as one word of an sh command line: as is when it holds only characters sh reads as
// themselves, else in single quotes.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return IsAsciiAlnum(c) || std::strchr("_./-+:=,@%", c) != nullptr;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

LoadResult LoadWithFlags(const RuleFlags& flags, bool quiet_warnings, bool diagnosing) {
  LoadOptions o;
  o.examples = !diagnosing;
  o.texts_on_demand = diagnosing;
  o.bundled = flags.bundled;
  o.dirs = flags.dirs;
  o.strict = flags.strict;
  LoadResult r = LoadRules(o);
  for (const Problem& p : r.problems) {
    // A skipped project directory is always named (Note: [Rule trust]).
    if (quiet_warnings && p.severity == Problem::Severity::kWarning && p.code != "untrusted-rules") continue;
    std::fprintf(stderr, "%s\n", p.ToString().c_str());
  }
  // Note: [Load notice]
  // A quiet load prints errors but no warnings, so a rule set that fell back to one regex per pattern
  // (compile-failed) or kept a broken file's last good version would say nothing, and a few error
  // lines before a long report are easy to miss. One line says what the problems cost and which
  // command shows them all (with the same rule flags); a load without such problems prints nothing.
  if (std::string notice = r.Notice(); quiet_warnings && !notice.empty()) {
    std::string lint = "triage rules lint";
    if (!flags.bundled) lint += " --no-bundled";
    if (flags.strict) lint += " --strict";
    for (const std::string& dir : flags.dirs) lint += " --rules " + ShellWord(dir);
    PrintError("note: " + notice + "; every problem: " + lint);
  }
  return r;
}

namespace {

const char kUsage[] = R"(usage: triage [OPTIONS] [FILE...]      diagnose logs (stdin when no FILE or FILE is -)
       triage rules list [--origin]       list the loaded rules
       triage rules lint [DIR...]         check rule files: schema, regexes, references
       triage rules test [DIR...]         run every rule's own examples and Lua test_ functions
       triage rules new FAMILY/ID [--lua] scaffold a rule (default dir: ~/.config/triage/rules)
       triage rules allow [DIR]           let a project's .triage/rules load (default: the one found from here)
       triage rules similar-index CORPUS  print the similar-case index (rules/similar/cases.tsv) of a corpus
       triage explain RULE_ID|CATEGORY [--width N]
                                          show a rule's full reasoning (or a category's rules)
       triage eval DIR                    accuracy on a labelled corpus
       triage --version

options:
  --format FORMAT         text (default), json (the output contract), markdown (to paste into a
                          GitHub issue), github (GitHub Actions ::error annotations at the failing
                          line), html (one self-contained page for every input, with plots)
  --brief                 one screen: category, culprit line, top cause, its fix, the check to run
  --width N               wrap text at N columns (default: COLUMNS, else the terminal's width, else 80;
                          0: no wrapping)
  --top N                 show at most N diagnoses (default: all above the threshold)
  --min-confidence X      abstain below this confidence (default 0.35)
  --audience WHO          who reads the checks and fixes: auto (default) the program the log shows, a
                          LibTorch C++ program when its own backtrace reaches main and nothing in the
                          log is Python's, else a Python script; python; cpp (the rules' C++ advice,
                          Python commands left out)
  --tee                   copy the input to stdout unchanged; print the diagnosis to stderr at the end
  --follow FILE           like tail -f: print each diagnosis as soon as its incident is complete,
                          an incident still open once the file is quiet, and the rest on Ctrl-C
  --settle SECONDS        with --follow: how long the file stays quiet before an open incident is
                          reported (default 1)
  --idle-exit SECONDS     with --follow: stop after this long without new data (default: never)
  --fail-on WHAT          CI mode: exit 1 when the input shows a failure, 0 when it does not; WHAT is a
                          confidence in [0, 1] (a diagnosis at least that sure), 'any' (any diagnosis)
                          or 'error' (any diagnosis or any unrecognised uncaught error)
  --rules DIR             also load rules from DIR (repeatable; after TRIAGE_RULES_PATH)
  --no-bundled            do not load the bundled rules
  --strict                rule warnings are errors
  --color auto|always|never   colour in text output (default auto: only on a terminal, never with NO_COLOR)
  --threads N             1: read on one thread; 2 (the default on two cores or more): a large log's metric
                          series are read on a second thread beside the scan (the same report, sooner)
  -v, --verbose           show hypotheses and checks for every diagnosis, not only the first
  -h, --help              this text

exit status: 0 a diagnosis was found, 1 none was found, 2 usage, input or rule error (like grep);
with --fail-on: 1 a failure was found, 0 none, 2 error (so 'cmd 2>&1 | triage --fail-on any' fails
a CI job on a crash and passes a healthy run, with or without pipefail).
)";

enum class Format { kText, kJson, kMarkdown, kGithub, kHtml };

bool ParseFormat(const std::string& v, Format* f) {
  static const std::pair<const char*, Format> kNames[] = {{"text", Format::kText}, {"json", Format::kJson},
                                                          {"markdown", Format::kMarkdown}, {"github", Format::kGithub},
                                                          {"html", Format::kHtml}};
  for (const auto& [name, format] : kNames) {
    if (v == name) {
      *f = format;
      return true;
    }
  }
  return false;
}

// --fail-on: which findings make the exit status say "failed" (README "Exit status").
struct FailOn {
  enum class Mode { kOff, kConfidence, kAny, kError };
  Mode mode = Mode::kOff;
  double confidence = 0;
};

struct Options {
  Format format = Format::kText;
  FailOn fail_on;
  DiagnoseOptions diagnose = [] {
    DiagnoseOptions d;
    d.audience = Audience::kAuto;  // Note: [Audience detection]
    return d;
  }();
  RuleFlags rules;
  std::string color = "auto";
  bool verbose = false;
  bool brief = false;
  int width = -1;  // -1: COLUMNS, the terminal's width, or 80
  bool tee = false;
  std::string follow;
  FollowTiming timing;
  std::vector<std::string> files;
};

// What the printed reports say, for the exit status.
struct Verdict {
  bool found = false;    // a diagnosis was printed
  bool failure = false;  // a finding at the --fail-on level

  void Add(const Report& r, const FailOn& f) {
    found = found || !r.diagnoses.empty();
    switch (f.mode) {
      case FailOn::Mode::kOff: break;
      case FailOn::Mode::kAny: failure = failure || !r.diagnoses.empty(); break;
      case FailOn::Mode::kConfidence:
        for (const Diagnosis& d : r.diagnoses) failure = failure || d.confidence >= f.confidence;
        break;
      case FailOn::Mode::kError:
        failure = failure || !r.diagnoses.empty();
        for (const Incident& inc : r.incidents) {
          bool error = inc.kind == Incident::Kind::kTraceback || inc.kind == Incident::Kind::kErrorLine ||
                       inc.kind == Incident::Kind::kCxxError;
          failure = failure || (error && !inc.handled);
        }
        break;
    }
  }

  int ExitStatus(const FailOn& f) const {
    if (f.mode != FailOn::Mode::kOff) return failure ? kExitNone : kExitFound;
    return found ? kExitFound : kExitNone;
  }
};

bool ParseFailOn(const std::string& v, FailOn* f) {
  if (v == "any") { f->mode = FailOn::Mode::kAny; return true; }
  if (v == "error") { f->mode = FailOn::Mode::kError; return true; }
  double x = 0;
  if (!ParseNumber(v, &x) || !(x >= 0 && x <= 1)) return false;
  f->mode = FailOn::Mode::kConfidence;
  f->confidence = x;
  return true;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
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
      if (!value("--format", &v) || !ParseFormat(v, &o->format)) {
        PrintError("--format must be text, json, markdown, github or html");
        return kExitUsage;
      }
    } else if (is("--top")) {
      double n;
      if (!value("--top", &v) || !ParseNumber(v, &n) || n < 1 || n != static_cast<int>(n)) {
        PrintError("--top needs a positive whole number");
        return kExitUsage;
      }
      o->diagnose.top = static_cast<int>(n);
    } else if (is("--min-confidence")) {
      double x;
      if (!value("--min-confidence", &v) || !ParseNumber(v, &x) || x < 0 || x > 1) {
        PrintError("--min-confidence needs a number in [0, 1]");
        return kExitUsage;
      }
      o->diagnose.min_confidence = x;
    } else if (is("--audience")) {
      if (!value("--audience", &v) || !AudienceFromName(v, &o->diagnose.audience)) {
        PrintError("--audience must be python, cpp or auto");
        return kExitUsage;
      }
    } else if (is("--color")) {
      if (!value("--color", &v) || (v != "auto" && v != "always" && v != "never")) {
        PrintError("--color must be auto, always or never");
        return kExitUsage;
      }
      o->color = v;
    } else if (is("--threads")) {
      double n = 0;
      if (!value("--threads", &v) || !ParseNumber(v, &n) || n < 1 || n > 4096 || n != static_cast<int>(n)) {
        PrintError("--threads needs a positive whole number (1: one thread; 2 or more: metric series beside the scan)");
        return kExitUsage;
      }
      o->diagnose.threads = n >= 2 ? 0 : 1;
    } else if (a == "--tee") {
      o->tee = true;
    } else if (is("--follow")) {
      if (!value("--follow", &v) || v.empty()) { PrintError("--follow needs a file"); return kExitUsage; }
      o->follow = v;
    } else if (is("--idle-exit")) {
      if (!value("--idle-exit", &v) || !ParseNumber(v, &o->timing.idle_exit) || !(o->timing.idle_exit >= 0)) {
        PrintError("--idle-exit needs a number of seconds");
        return kExitUsage;
      }
    } else if (is("--settle")) {
      if (!value("--settle", &v) || !ParseNumber(v, &o->timing.settle) || !(o->timing.settle >= 0) ||
          o->timing.settle > 86400) {
        PrintError("--settle needs a number of seconds");
        return kExitUsage;
      }
    } else if (is("--fail-on")) {
      if (!value("--fail-on", &v) || !ParseFailOn(v, &o->fail_on)) {
        PrintError("--fail-on needs a confidence in [0, 1], 'any' or 'error'");
        return kExitUsage;
      }
    } else if (a == "--brief") {
      o->brief = true;
    } else if (is("--width")) {
      double n;
      if (!value("--width", &v) || !ParseNumber(v, &n) || n < 0 || n > 100000 || n != static_cast<int>(n)) {
        PrintError("--width needs a whole number of columns (0: no wrapping)");
        return kExitUsage;
      }
      o->width = static_cast<int>(n);
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
  if (!o->follow.empty() && (!o->files.empty() || o->tee)) {
    PrintError("--follow takes one file and no other inputs or --tee");
    return kExitUsage;
  }
  if (o->files.empty()) o->files.push_back("-");
  return -1;
}

// Note: [Read input]
// Every input, a regular file too, is read with read(2) into one buffer of kReadBuffer bytes and fed
// to the session a buffer at a time. Until 2026-12-02 a regular file of a MiB or more was read through
// 4 MiB windows of a shared read-only mapping instead (no copy out of the page cache: ~7 ms against
// ~12 ms a 64 MiB log when it was measured). On this project's VM (Firecracker, Linux 6.18 with DAMON
// watching physical memory) reading mapped page-cache pages came to cost several times a copy:
// memchr over a 512 MiB log ran at 1.35-1.5 GB/s mapped and 6.6 GB/s read(2) into a 1 MiB buffer, and
// triage took 0.6-0.9 s mapped against 0.25-0.34 s read on the bench's metric logs (tests/bench/README.md,
// 2026-12-02). A copy costs about the same on every machine; what a mapping costs depends on the kernel
// and the hypervisor. A file cut shorter while it is read (a log rotated with copytruncate) ends where
// read(2) meets its new end; when that is before the size the file had when opened, the report covers
// what was read and a note says so.
constexpr size_t kReadBuffer = size_t{1} << 20;

// Reads one input through a Session in pieces as they arrive (read(2), so a pipe is forwarded
// promptly with --tee; Note: [Read input]). Returns false (with *error) when it cannot be read.
bool DiagnoseInput(const std::string& name, const std::shared_ptr<const RuleSet>& rules,
                   const DiagnoseOptions& options, bool tee, Report* report, std::string* error) {
  int fd = name == "-" ? STDIN_FILENO : open(name.c_str(), O_RDONLY);
  if (fd < 0) {
    *error = "cannot read " + name + ": " + std::strerror(errno);
    if (name == "rules" || name == "explain" || name == "eval") {
      *error += " (subcommands come first: triage " + name + " ... [--rules DIR])";
    } else if (errno == ENOENT && name.find('/') == std::string::npos) {
      *error += DidYouMean(name, {"rules", "explain", "eval", "help"}, "triage ");
    }
    return false;
  }
  Session session(rules, options, name);
  bool ok = true;
  struct stat st;
  const bool regular = fd != STDIN_FILENO && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  // Not zeroed: a short log touches the pages it reads into, not 1 MiB of them (~256 page faults).
  // A short regular file's buffer holds it and one byte more (at least 4 KiB, in case it grows): a
  // 1 MiB block for a 20-line log took the heap's top past its third huge window, whose 2 MiB the
  // kernel then zeroed for a few pages (Note: [Heap on huge pages]; tests/bench/README.md, thirtieth pass).
  const size_t buffer = regular && st.st_size < static_cast<off_t>(kReadBuffer)
                            ? std::max<size_t>(static_cast<size_t>(st.st_size) + 1, 4096)
                            : kReadBuffer;
  std::unique_ptr<char[]> buf(new char[buffer]);
  off_t got = 0;
  while (ok) {
    ssize_t n = read(fd, buf.get(), buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "error reading " + name + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (n == 0) break;
    got += n;
    if (tee && !WriteAll(STDOUT_FILENO, buf.get(), static_cast<size_t>(n))) tee = false;  // reader went away
    session.Feed(std::string_view(buf.get(), static_cast<size_t>(n)));
  }
  if (ok && regular && got < st.st_size) {  // Note: [Read input]
    std::fprintf(stderr, "triage: note: %s was cut shorter while it was read (a rotated log?); the diagnosis covers what was read before the cut\n", name.c_str());
  }
  if (fd != STDIN_FILENO) close(fd);
  if (!ok) return false;
  *report = session.Finish();
  return true;
}

}  // namespace

int TextWidth(int asked, int fd) {
  if (asked >= 0) return asked;
  if (const char* c = std::getenv("COLUMNS")) {
    double n;
    if (ParseNumber(c, &n) && n >= 1 && n <= 100000) return static_cast<int>(n);
  }
  struct winsize ws;
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

namespace {

int Diagnose(int argc, char** argv) {
  Options o;
  if (int rc = ParseArgs(argc, argv, &o); rc >= 0) return rc;
  if (o.follow.empty() && o.files.size() == 1 && o.files[0] == "-" && isatty(STDIN_FILENO)) {
    PrintError("reading a log from the terminal: paste it and press Ctrl-D, or pipe one in: "
               "python train.py 2>&1 | triage   (triage --help for more)");
  }
  // Diagnosing reads no rule's examples (Note: [Examples left out]) and the texts of the rules that
  // fire only (Note: [Texts on demand]).
  LoadResult loaded = LoadWithFlags(o.rules, /*quiet_warnings=*/true, /*diagnosing=*/true);
  // The process ends after this command: freeing ~200 rules, their regexes and Lua states took ~1.5 M
  // instructions of a warm start (issue 15 item 4), work exiting does by dropping the address space.
  // A never-destroyed static holds them, so leak checkers see them reachable, not leaked.
  static auto* const kept_until_exit = new std::shared_ptr<const RuleSet>();
  *kept_until_exit = loaded.rules;
  if (loaded.rules && CountRules(*loaded.rules) == 0) {
    PrintError("no rules loaded (check --rules and TRIAGE_RULES_PATH)");
    return kExitUsage;
  }
  // With --tee the input goes to stdout unchanged and the diagnosis to stderr.
  std::FILE* out = o.tee ? stderr : stdout;
  const bool no_color = std::getenv("NO_COLOR") != nullptr ||
                        (std::getenv("TERM") && std::string(std::getenv("TERM")) == "dumb");
  TextOptions text;
  text.color = o.color == "always" || (o.color == "auto" && isatty(fileno(out)) && !no_color);
  text.verbose = o.verbose;
  text.brief = o.brief;
  text.header = o.tee;  // under --tee, where the program's own output ends
  text.width = TextWidth(o.width, fileno(out));
  Verdict verdict;
  int printed = 0;
  const char* workspace = std::getenv("GITHUB_WORKSPACE");
  std::vector<Report> page;  // --format html: one page for every input, written at the end
  ReportPrinter print = [&](const Report& report) {
    verdict.Add(report, o.fail_on);
    switch (o.format) {
      case Format::kJson: std::fputs(ToJson(report).c_str(), out); break;  // one object per line per input (JSON Lines)
      case Format::kGithub: std::fputs(ToGithubAnnotations(report, workspace ? workspace : "").c_str(), out); break;
      case Format::kHtml: page.push_back(report); break;
      case Format::kMarkdown:
        if (printed > 0) std::fputs("\n", out);
        std::fputs(ToMarkdown(report).c_str(), out);
        break;
      case Format::kText:
        if (printed > 0) std::fputs("\n", out);
        if (o.files.size() > 1) std::fprintf(out, "== %s ==\n", report.source.c_str());
        std::fputs(ToText(report, text).c_str(), out);
        break;
    }
    std::fflush(out);
    ++printed;
  };
  if (!o.follow.empty()) {
    if (o.format == Format::kHtml) {
      PrintError("--format html writes one page at the end: not with --follow (use text, json or markdown)");
      return kExitUsage;
    }
    if (int rc = Follow(o.follow, loaded.rules, o.diagnose, o.timing, print); rc != 0) return rc;
    return verdict.ExitStatus(o.fail_on);
  }
  bool input_error = false;
  for (const std::string& file : o.files) {
    Report report;
    std::string error;
    if (!DiagnoseInput(file, loaded.rules, o.diagnose, o.tee, &report, &error)) {
      PrintError(error);
      input_error = true;
      continue;
    }
    print(report);
    if (file == "-" && report.incidents.empty()) {
      PrintError("hint: no error arrived on stdin (" + std::to_string(report.lines) +
                 " lines). Python prints tracebacks to stderr: python train.py 2>&1 | triage");
    }
  }
  if (!page.empty()) std::fputs(ToHtml(page).c_str(), out);
  if (input_error) return kExitUsage;
  return verdict.ExitStatus(o.fail_on);
}

}  // namespace
}  // namespace triage::cli

namespace triage::cli {
namespace {

// Note: [Heap on huge pages]
// A warm start's heap grows to ~2.4 MiB (the rules read from the cache entry, the patterns' literals,
// the prefilter's tables): ~600 of its ~930 page faults were first touches of fresh heap pages, each a
// trap into the kernel that maps and zeroes one 4 KiB page. On the VMs of tests/bench/README.md (a
// paravirtual MMU) a fault costs ~10-30 us: a third to a half of the start's CPU time. So before
// anything else the command has glibc's malloc extend its heap by kHeapPad at once (M_TOP_PAD; a few
// 64 KiB blocks taken to make it extend now), fills the stretch up to the first 2 MiB boundary in it
// with one block that is never written (so what malloc hands out next lies past the boundary), and
// asks the kernel for transparent huge pages from there on (MADV_HUGEPAGE, honoured where
// /sys/kernel/mm/transparent_hugepage/enabled is `always` or `madvise`): each 2 MiB window is then one
// fault, its page zeroed at once, when something is first written in it; windows nothing writes cost
// nothing. Where the kernel has no huge page at hand, or THP is off, the faults are the 4 KiB ones, as
// before. Blocks under kHuge * 2 come from the heap (M_MMAP_THRESHOLD; the fill block is one), and
// free() keeps the pad (M_TRIM_THRESHOLD), so the heap does not shrink and grow again. Peak RSS grows
// by the windows' untouched parts (~3 MiB on a warm start). The command only: a library leaves its
// host's malloc alone. Under a sanitizer or valgrind (their own malloc) nothing here takes effect.
// PrepareHeap's blocks, never freed (the fill must stay): reachable, so no leak to a checker.
// Volatile: blocks only stored would be dead to the compiler, which could then drop the mallocs.
void* volatile held[12];

void PrepareHeap() {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD) && !defined(__SANITIZE_ADDRESS__)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  // Six windows' worth: past the fill below the first boundary (up to ~2.5 MiB), at least four whole
  // windows, more than a warm start's heap takes (~5.5-6.5 MiB past the boundary on a no-rule log).
  // With four (8 MiB) the third window came out cut short where the heap began just above a boundary
  // (its pages then 4 KiB ones, ~130 more faults, ~1 start in 30), and the heap's next extension
  // (not advised: 4 KiB pages) was reached on every no-rule start (tests/bench/README.md, thirtieth pass).
  constexpr size_t kHeapPad = 6 * kHuge;
  constexpr size_t kBlock = size_t{64} << 10;  // what the heap's top (~132 KiB at first) gives at once
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(2 * kHuge)) == 0 || mallopt(M_TOP_PAD, static_cast<int>(kHeapPad)) == 0) {
    return;
  }
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kHeapPad));
  const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
  std::uintptr_t after = before;
  size_t n = 0;
  while (n < 8 && after == before) {
    void* const block = std::malloc(kBlock);
    held[n++] = block;
    if (block == nullptr) return;
    after = reinterpret_cast<std::uintptr_t>(sbrk(0));
  }
  if (after == before) return;  // not extended (another malloc)
  // A block is cut from the start of the heap's top: the next one shows where that is. The windows
  // begin at the first boundary past it: the blocks above may have crossed the first one past
  // `before` (a heap that began a few 64 KiB blocks below a boundary, ~1 start in 20 by ASLR: those
  // starts had no huge window at all, ~1,000 page faults; tests/bench/README.md, thirtieth pass).
  void* const next = std::malloc(kBlock);
  held[n++] = next;
  if (next == nullptr) return;
  const std::uintptr_t top = reinterpret_cast<std::uintptr_t>(next) + kBlock;
  const std::uintptr_t window = (top + kHuge - 1) & ~(kHuge - 1);
  if (after < window + kHuge) return;  // no whole window
  if (window - top > 4096) held[n++] = std::malloc(window - top - 64);  // ends just below the window
  madvise(reinterpret_cast<void*>(window), after - window, MADV_HUGEPAGE);
#endif
}

}  // namespace
}  // namespace triage::cli

int main(int argc, char** argv) {
  using namespace triage::cli;
  PrepareHeap();
  StartStartupArena();
  // A reader that goes away (triage --tee | head -1) is an EPIPE on write, not the end of the process:
  // the diagnosis still goes to stderr at the end.
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2) {
    std::string cmd = argv[1];
    if (cmd == "rules") return RunRules(argc - 1, argv + 1);
    if (cmd == "explain") return RunExplain(argc - 1, argv + 1);
    if (cmd == "eval") return RunEval(argc - 1, argv + 1);
    if (cmd == "help") {  // not a file called help (./help is)
      std::fputs(kUsage, stdout);
      return kExitFound;
    }
  }
  return Diagnose(argc, argv);
}
