// The text report people read: wrapped to the width (every corpus log), --brief, the --tee header,
// colour and width on a real terminal (a pseudo-terminal), the stdin hints, "did you mean", explain
// of a category, and log text that cannot drive the terminal.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.h"
#include "corpus_reports.h"
#include "paste_forms.h"
#include "triage/triage.h"

namespace {

using namespace triage_test;
namespace fs = std::filesystem;

// Code points: the columns a line of plain (uncoloured) text takes.
size_t Columns(const std::string& line) {
  return std::count_if(line.begin(), line.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

size_t Widest(const std::string& text) {
  size_t w = 0;
  for (const std::string& l : Lines(text)) w = std::max(w, Columns(l));
  return w;
}

std::string WithoutSpaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n') out += c;
  }
  return out;
}

TEST(TextReport, EveryCorpusReportFitsTheWidthAndKeepsEveryWord) {
  ASSERT_GE(CorpusReports().size(), 300u);
  int had_long_lines = 0;
  for (const triage::Report& r : CorpusReports()) {
    for (bool verbose : {false, true}) {
      triage::TextOptions o;
      o.verbose = verbose;
      std::string full = triage::ToText(r, o);
      if (Widest(full) > 80) ++had_long_lines;
      for (int width : {40, 80, 120}) {
        o.width = width;
        std::string wrapped = triage::ToText(r, o);
        EXPECT_LE(Widest(wrapped), static_cast<size_t>(width)) << r.source << " at " << width << ":\n" << wrapped;
        // Wrapping only moves words to the next line and indents them: no character is lost or added.
        EXPECT_EQ(WithoutSpaces(wrapped), WithoutSpaces(full)) << r.source << " at " << width;
      }
    }
  }
  EXPECT_GT(had_long_lines, 100) << "the corpus no longer exercises wrapping";
}

TEST(TextReport, ContinuationLinesHangUnderTheirFirstWord) {
  // A numbered hypothesis wraps under its text, not under its number; "fix:" text under the fix.
  triage::Report r;
  r.source = "train.log";
  triage::Diagnosis d;
  d.rule = "r";
  d.category = "shape.matmul_mismatch";
  d.confidence = 0.8;
  d.title = "t";
  d.explanation = "e";
  d.hypotheses.push_back({"h", "one two three four five six seven eight nine ten eleven twelve", triage::HypothesisStatus::kUntested,
                          "print(x.shape)", "", "alpha beta gamma delta epsilon zeta eta theta iota kappa", ""});
  r.diagnoses.push_back(d);
  triage::TextOptions o;
  o.width = 40;
  std::vector<std::string> lines = Lines(triage::ToText(r, o));
  auto at = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("  1. one", 0) == 0; });
  ASSERT_NE(at, lines.end());
  EXPECT_EQ((at + 1)->rfind("     ", 0), 0u) << *(at + 1);
  EXPECT_NE((at + 1)->substr(5, 1), " ") << *(at + 1);
  auto fix = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find("fix:  alpha") != std::string::npos; });
  ASSERT_NE(fix, lines.end());
  size_t text_at = fix->find("alpha");
  EXPECT_EQ((fix + 1)->find_first_not_of(' '), text_at) << *fix << "\n" << *(fix + 1);
}

TEST(TextReport, BriefIsOneScreenWithWhatToDoNext) {
  int checked = 0;
  for (const triage::Report& r : CorpusReports()) {
    if (r.diagnoses.empty()) continue;
    triage::TextOptions o;
    o.brief = true;
    std::string brief = triage::ToText(r, o);
    const triage::Diagnosis& d = r.diagnoses.front();
    std::vector<std::string> lines = Lines(brief);
    EXPECT_LE(lines.size(), 14u) << r.source << ":\n" << brief;
    EXPECT_EQ(brief.rfind(d.category + " (", 0), 0u) << brief;
    if (d.incident >= 0) {
      const triage::Incident& inc = r.incidents[d.incident];
      if (!inc.CulpritText().empty()) {
        EXPECT_NE(brief.find(inc.CulpritText()), std::string::npos) << brief;
      }
      std::string span = inc.line_end > inc.line_start
                             ? "lines " + std::to_string(inc.line_start) + "-" + std::to_string(inc.line_end)
                             : "line " + std::to_string(inc.line_start);
      EXPECT_NE(brief.find(span + " of " + r.source), std::string::npos) << brief;
    }
    if (!d.hypotheses.empty()) {
      const triage::Hypothesis& h = d.hypotheses.front();
      EXPECT_NE(brief.find("cause: " + h.text.substr(0, h.text.find('\n'))), std::string::npos) << brief;
      if (!h.fix.empty()) {
        EXPECT_NE(brief.find("fix:   " + h.fix.substr(0, h.fix.find('\n'))), std::string::npos) << brief;
      }
    }
    // The full report has more to say than the brief one.
    EXPECT_GT(triage::ToText(r, {}).size(), brief.size()) << r.source;
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST(TextReport, LogTextCannotDriveTheTerminal) {
  // An exception message carrying a bell, a backspace, a C1 CSI (U+009B, which starts an escape
  // sequence on many terminals), DEL, a screen-clearing CSI and invalid UTF-8. The line scanner drops
  // whole ANSI sequences; every other control character is shown visibly, never sent.
  std::string log = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
                    "ZorkError: a\x07" "b\x08" "c\xc2\x9b" "31m d\x7f" "e \x1b[2J f \xff end\n";
  TempDir dir("triage_escape");
  std::ofstream(dir.path + "/log.txt", std::ios::binary) << log;
  ShellResult text = Shell(Triage("--color never --width 0 " + dir.path + "/log.txt"));
  for (const char* raw : {"\x1b", "\x07", "\x08", "\x7f", "\xc2\x9b"}) {
    EXPECT_EQ(text.out.find(raw), std::string::npos) << text.out;
  }
  EXPECT_NE(text.out.find("unrecognised: ZorkError: a\\x07b\\x08c\\u009b31m d\\x7fe  f \xef\xbf\xbd end (line 1)"),
            std::string::npos) << text.out;
  // JSON keeps the text, escaped the JSON way.
  ShellResult json = Shell(Triage("--format json " + dir.path + "/log.txt"));
  EXPECT_NE(json.out.find("\"message\":\"a\\u0007b\\u0008c\xc2\x9b" "31m d\\u007fe  f \\ufffd end\""), std::string::npos)
      << json.out;
}

const std::string kCase = "corpus/shape/attention-bmm-untransposed/log.txt";

TEST(CliText, WidthFromTheFlagColumnsOrEighty) {
  std::string log = kSrc + "/" + kCase;
  std::string unwrapped = Shell(Triage("--width 0 " + log)).out;
  ASSERT_GT(Widest(unwrapped), 120u) << unwrapped;
  std::string piped = Shell("unset COLUMNS; " + Triage(log)).out;
  EXPECT_LE(Widest(piped), 80u) << piped;
  EXPECT_GT(Widest(piped), 70u) << piped;
  std::string columns = Shell("COLUMNS=50 " + Triage(log)).out;
  EXPECT_LE(Widest(columns), 50u) << columns;
  EXPECT_GT(Widest(columns), 44u) << columns;
  std::string flag = Shell("COLUMNS=50 " + Triage("--width 100 " + log)).out;  // the flag wins
  EXPECT_LE(Widest(flag), 100u);
  EXPECT_GT(Widest(flag), 90u);
  EXPECT_EQ(WithoutSpaces(flag), WithoutSpaces(unwrapped));
  for (const char* bad : {"-1", "x", "1.5"}) {
    EXPECT_EQ(Shell(Triage(std::string("--width ") + bad + " " + log + " 2>/dev/null")).status, 2) << bad;
  }
}

TEST(CliText, BriefFromTheCommandLine) {
  ShellResult r = Shell(Triage("--brief --width 0 " + kFixture));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "shape.matmul_mismatch (80%)  Linear layer gets a different number of features than it was built for\n"
            "  at:    RuntimeError in program.py:12 in train_step: return model(x), lines 1-11 of " + kFixture + "\n"
            "  error: RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n"
            "  cause: A feature map flattened to 57600 features.\n"
            "  fix:   Linear(57600, 128)\n"
            "  check: print(x.shape) before the layer\n"
            "  (the full report: without --brief)\n"
            "  note: rules besides the bundled ones: " + RuleDir() + " (--rules)\n");
}

TEST(CliText, TeeHeaderSpansTheWidth) {
  ShellResult r = Shell("COLUMNS=60 " + Triage("--tee < " + kFixture + " 2>&1 >/dev/null"));
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("\u2500\u2500 triage: diagnosis of stdin (20 lines) \u2500", 0), 0u) << lines[0];
  EXPECT_EQ(Columns(lines[0]), 60u) << lines[0];
  EXPECT_EQ(lines[1].rfind("shape.matmul_mismatch", 0), 0u) << lines[1];
  // Without --tee there is no header, and JSON never has one.
  EXPECT_EQ(Shell(Triage(kFixture)).out.rfind("shape.matmul_mismatch", 0), 0u);
  EXPECT_EQ(Shell(Triage("--tee --format json < " + kFixture + " 2>&1 >/dev/null")).out.rfind("{\"source\"", 0), 0u);
}

// Runs `cmd` (through sh) with a pseudo-terminal as its stdin, stdout and stderr, `cols` columns
// wide; writes `input` to the terminal once `prompt` has appeared in the output (right away when
// empty); returns everything it printed and its exit status.
struct PtyResult {
  int status = -1;
  std::string out;
};

PtyResult RunOnTerminal(const std::string& cmd, int cols, const std::string& prompt = "", const std::string& input = "") {
  PtyResult result;
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return result;
  struct winsize ws {};
  ws.ws_col = static_cast<unsigned short>(cols);
  ws.ws_row = 40;
  ioctl(master, TIOCSWINSZ, &ws);
  std::string slave = ptsname(master);
  pid_t pid = fork();
  if (pid == 0) {
    setsid();
    int fd = open(slave.c_str(), O_RDWR);  // the controlling terminal of the new session
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(master);
    execl("/bin/sh", "sh", "-c", ("exec env " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool sent = input.empty();
  if (!sent && prompt.empty()) {
    sent = write(master, input.data(), input.size()) == static_cast<ssize_t>(input.size());
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    struct pollfd p {master, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO: every process holding the terminal is gone
    result.out.append(buf, static_cast<size_t>(n));
    if (!sent && result.out.find(prompt) != std::string::npos) {
      sent = write(master, input.data(), input.size()) == static_cast<ssize_t>(input.size());
    }
  }
  if (std::chrono::steady_clock::now() >= deadline) kill(pid, SIGKILL);
  close(master);
  result.status = Wait(pid);
  // The terminal turns "\n" into "\r\n".
  std::string plain;
  for (char c : result.out) {
    if (c != '\r') plain += c;
  }
  result.out = plain;
  return result;
}

std::string OnTerminal(const std::string& env_and_args) {
  return "TRIAGE_RULES_PATH= " + env_and_args;
}

TEST(CliTerminal, ColourAndWidthFollowTheTerminal) {
  std::string log = kSrc + "/" + kCase;
  std::string args = kBin + " --no-bundled --rules " + RuleDir() + " --rules " + kSrc + "/rules/shape " + log;
  PtyResult colour = RunOnTerminal("-u NO_COLOR -u COLUMNS TERM=xterm " + OnTerminal(args), 100);
  EXPECT_EQ(colour.status, 0) << colour.out;
  EXPECT_NE(colour.out.find("\x1b[1;31mshape.matmul_mismatch\x1b[0m"), std::string::npos) << colour.out;
  // The terminal's width (100 columns), measured on the text without its colour codes.
  std::string plain;
  for (size_t i = 0; i < colour.out.size(); ++i) {
    if (colour.out[i] == '\x1b') {
      while (i < colour.out.size() && colour.out[i] != 'm') ++i;
      continue;
    }
    plain += colour.out[i];
  }
  EXPECT_LE(Widest(plain), 100u) << plain;
  EXPECT_GT(Widest(plain), 90u) << plain;
  PtyResult no_color = RunOnTerminal("-u COLUMNS NO_COLOR=1 TERM=xterm " + OnTerminal(args), 100);
  EXPECT_EQ(no_color.out.find('\x1b'), std::string::npos) << no_color.out;
  EXPECT_EQ(WithoutSpaces(no_color.out), WithoutSpaces(plain));
  PtyResult dumb = RunOnTerminal("-u NO_COLOR -u COLUMNS TERM=dumb " + OnTerminal(args), 100);
  EXPECT_EQ(dumb.out.find('\x1b'), std::string::npos) << dumb.out;
}

TEST(CliTerminal, StdinOnATerminalSaysWhatItWaitsFor) {
  std::string args = "NO_COLOR=1 " + OnTerminal(kBin + " --no-bundled --rules " + RuleDir());
  // Ctrl-D at the prompt: nothing was pasted, nothing found.
  PtyResult r = RunOnTerminal(args, 80, "press Ctrl-D", "\x04");
  EXPECT_NE(r.out.find("triage: reading a log from the terminal: paste it and press Ctrl-D"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no PyTorch failure recognised in stdin"), std::string::npos) << r.out;
  EXPECT_EQ(r.status, 1) << r.out;
}

TEST(CliText, HintWhenStdinHoldsNoError) {
  // Forgetting 2>&1: only the program's stdout arrives.
  ShellResult r = Shell("printf 'epoch 1 loss 0.5\\nepoch 2 loss 0.4\\n' | " + Triage("2>&1"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("hint: no error arrived on stdin (2 lines). Python prints tracebacks to stderr: "
                       "python train.py 2>&1 | triage"), std::string::npos) << r.out;
  // A file, or stdin with an error in it, gets no hint.
  EXPECT_EQ(Shell(Triage("< " + kFixture + " 2>&1")).out.find("hint:"), std::string::npos);
}

TEST(CliText, HelpAndDidYouMean) {
  ShellResult help = Shell(kBin + " help");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out, Shell(kBin + " --help").out);
  EXPECT_EQ(Shell(kBin + " explian 2>&1").out,
            "triage: cannot read explian: No such file or directory (did you mean 'triage explain'?)\n");
  ShellResult rules = Shell(kBin + " rules lsit 2>&1");
  EXPECT_EQ(rules.status, 2);
  EXPECT_EQ(rules.out, "triage: unknown rules command 'lsit' (list, lint, test, new, allow, similar-index) (did you mean 'triage rules list'?)\n");
  // A file name far from any subcommand gets no suggestion.
  EXPECT_EQ(Shell(kBin + " zzzzzz.log 2>&1").out, "triage: cannot read zzzzzz.log: No such file or directory\n");
  ShellResult id = Shell("TRIAGE_RULES_PATH= " + kBin + " rules test --rule linear-featurse --no-bundled --rules " +
                         RuleDir() + " 2>&1");
  EXPECT_NE(id.out.find("no rule 'linear-featurse' (did you mean 'linear-features'?)"), std::string::npos) << id.out;
}

TEST(CliText, ExplainAcceptsACategory) {
  std::string rules = " --no-bundled --rules " + kSrc + "/rules/shape";
  ShellResult r = Shell("TRIAGE_RULES_PATH= " + kBin + " explain shape.matmul_mismatch" + rules);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("shape.matmul_mismatch: a category of rules/taxonomy.yaml, diagnosed by\n", 0), 0u) << r.out;
  // Every rule of the category, by id, and none of another category.
  ShellResult list = Shell("TRIAGE_RULES_PATH= " + kBin + " rules list" + rules);
  int listed = 0;
  for (const std::string& line : Lines(list.out)) {
    if (line.find("shape.matmul_mismatch") == std::string::npos) continue;
    std::string id = line.substr(0, line.find(' '));
    EXPECT_NE(r.out.find("\n  " + id + " "), std::string::npos) << id << "\n" << r.out;
    ++listed;
  }
  EXPECT_GE(listed, 3) << list.out;
  EXPECT_EQ(Lines(r.out).size(), static_cast<size_t>(listed) + 2) << r.out;
  ShellResult typo = Shell("TRIAGE_RULES_PATH= " + kBin + " explain shape.matmul" + rules + " 2>&1");
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.out.find("(did you mean 'triage explain shape.matmul_mismatch'?)"), std::string::npos) << typo.out;
}

// explain wraps its prose like the report (--width, else COLUMNS, else 80) and leaves what a person copies
// whole: the patterns, the check commands and the examples.
TEST(CliText, ExplainWrapsProseAndKeepsPatternsAndCommandsWhole) {
  std::string rules = " --no-bundled --rules " + kSrc + "/rules/shape";
  ShellResult whole = Shell("TRIAGE_RULES_PATH= " + kBin + " explain linear-in-features --width 0" + rules);
  ASSERT_EQ(whole.status, 0) << whole.out;
  ASSERT_GT(Widest(whole.out), 100u) << "the rule's prose is long enough to need wrapping";
  ShellResult wrapped = Shell("TRIAGE_RULES_PATH= COLUMNS=60 " + kBin + " explain linear-in-features" + rules);
  ASSERT_EQ(wrapped.status, 0) << wrapped.out;
  EXPECT_EQ(Shell("TRIAGE_RULES_PATH= COLUMNS=60 " + kBin + " explain linear-in-features --width 70" + rules).out,
            Shell("TRIAGE_RULES_PATH= " + kBin + " explain linear-in-features --width 70" + rules).out);
  EXPECT_EQ(Shell("env -u COLUMNS TRIAGE_RULES_PATH= " + kBin + " explain linear-in-features" + rules).out,
            Shell("TRIAGE_RULES_PATH= " + kBin + " explain linear-in-features --width 80" + rules).out)
      << "80 columns when not a terminal and COLUMNS is unset";
  // Every line over 60 columns is one kept whole, and is in the unwrapped text as it is.
  std::string section;
  int long_lines = 0;
  for (const std::string& line : Lines(wrapped.out)) {
    if (!line.empty() && line[0] != ' ') section = line;
    if (Columns(line) <= 60) continue;
    ++long_lines;
    // The rule file's path is copied, not read: it stays whole however long the checkout's path is.
    bool verbatim = section == "Matches messages like:" || section == "Checks:" || section == "Examples:" ||
                    line.rfind("file: ", 0) == 0;
    EXPECT_TRUE(verbatim) << "prose line over 60 columns in '" << section << "': " << line;
    EXPECT_NE(whole.out.find(line + "\n"), std::string::npos) << line;
  }
  EXPECT_GT(long_lines, 0) << "patterns and commands longer than 60 columns stay whole";
  // The wrapped prose holds the same words.
  auto words = [](const std::string& text) {
    std::istringstream in(text);
    std::string w, all;
    while (in >> w) all += w + " ";
    return all;
  };
  EXPECT_EQ(words(wrapped.out), words(whole.out));
  EXPECT_EQ(Shell(kBin + " explain linear-in-features --width x" + rules + " 2>&1").status, 2);
}

}  // namespace
