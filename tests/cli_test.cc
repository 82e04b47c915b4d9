// End-to-end: the built `triage` binary on files and stdin; JSON, text and exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>
#include <fstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "cli_support.h"

namespace {

using namespace triage_test;

TEST(Cli, JsonFollowsTheOutputContract) {
  ShellResult r = Shell(Triage("--format json " + kFixture));
  ASSERT_EQ(r.status, 0) << r.out;
  YAML::Node j = YAML::Load(r.out);  // JSON is YAML: parse it with what we have
  ASSERT_TRUE(j["diagnoses"].IsSequence()) << r.out;
  ASSERT_EQ(j["diagnoses"].size(), 1u) << r.out;
  YAML::Node d = j["diagnoses"][0];
  EXPECT_EQ(d["rule"].as<std::string>(), "linear-features");
  EXPECT_EQ(d["category"].as<std::string>(), "shape.matmul_mismatch");
  double c = d["confidence"].as<double>();
  EXPECT_GT(c, 0.35);
  EXPECT_LE(c, 1.0);
  EXPECT_EQ(d["explanation"].as<std::string>(), "The layer expects 64 input features but receives 57600.");
  ASSERT_TRUE(d["hypotheses"].IsSequence());
  EXPECT_EQ(d["hypotheses"][0]["status"].as<std::string>(), "untested");
  EXPECT_EQ(d["hypotheses"][0]["fix"].as<std::string>(), "Linear(57600, 128)");
  EXPECT_TRUE(d["checks"].IsSequence());
  EXPECT_EQ(d["incident"].as<int>(), 0);
  YAML::Node inc = j["incidents"][d["incident"].as<int>()];
  EXPECT_EQ(inc["exception"].as<std::string>(), "RuntimeError");
  EXPECT_EQ(inc["line_start"].as<int>(), 1);
  EXPECT_EQ(inc["line_end"].as<int>(), 11);
  EXPECT_EQ(j["incidents"].size(), 2u);
}

TEST(Cli, ReadsStdinAndFiles) {
  ShellResult file = Shell(Triage("--format json " + kFixture));
  ShellResult in = Shell(Triage("--format json < " + kFixture));
  ShellResult dash = Shell("cat " + kFixture + " | " + Triage("--format json -"));
  EXPECT_EQ(in.status, 0);
  EXPECT_EQ(dash.status, 0);
  // Identical apart from the source name.
  auto strip = [](std::string s) { return s.substr(s.find(",\"diagnoses\"")); };
  EXPECT_EQ(strip(file.out), strip(in.out));
  EXPECT_EQ(strip(in.out), strip(dash.out));
}

TEST(Cli, TextPutsTheVerdictFirst) {
  ShellResult r = Shell(Triage(kFixture));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("shape.matmul_mismatch  Linear layer gets", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("The layer expects 64 input features but receives 57600."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("program.py:12 in train_step: return model(x)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no colour when not a terminal";
}

// Ray's "(pid=909597) " tag names a process, not a rank (Note: [Process tags]): the report says
// "pid 909597"; a launcher's "[rank4]:" prefix names a rank. Both lines are from posted logs.
TEST(Cli, AProcessTagIsAPidAndARankPrefixARank) {
  // The bundled rules: a diagnosis prints where its incident is, the rank or process with it.
  const auto Triage = [](const std::string& args) { return "NO_COLOR=1 TRIAGE_RULES_PATH= " + kBin + " " + args; };
  const std::string ray = kSrc + "/corpus/wild/distributed/ray-lightning-nccl-ipc-handle-217-peer-access/log.txt";
  ShellResult text = Shell("head -1 " + ray + " | " + Triage("-"));
  EXPECT_NE(text.out.find(", line 1 of stdin, pid 909597\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("rank 909597"), std::string::npos) << text.out;
  ShellResult json = Shell("head -1 " + ray + " | " + Triage("--format json -"));
  YAML::Node j = YAML::Load(json.out);
  ASSERT_TRUE(j["incidents"].IsSequence()) << json.out;
  ASSERT_GE(j["incidents"].size(), 1u) << json.out;
  EXPECT_EQ(j["incidents"][0]["rank"].as<std::string>(), "pid 909597");
  const std::string grpo = kSrc + "/corpus/wild/shape/video-r1-grpo-last-iter-rank4/log.txt";
  ShellResult rank = Shell("grep -m1 '^\\[rank4\\]: RuntimeError' " + grpo + " | " + Triage("-"));
  EXPECT_NE(rank.out.find(", line 1 of stdin, rank 4\n"), std::string::npos) << rank.out;
}

TEST(Cli, ColourOnlyWhenAskedAndNeverWithNoColor) {
  EXPECT_NE(Shell(Triage("--color always " + kFixture)).out.find('\x1b'), std::string::npos);
  // NO_COLOR wins over auto (Triage() sets it); --color never always wins.
  EXPECT_EQ(Shell(Triage("--color never " + kFixture)).out.find('\x1b'), std::string::npos);
}

TEST(Cli, ExitCodes) {
  EXPECT_EQ(Shell(Triage(kFixture + " > /dev/null")).status, 0);
  EXPECT_EQ(Shell("echo 'epoch 1 loss 0.3' | " + Triage("> /dev/null")).status, 1);
  EXPECT_EQ(Shell(Triage("--frobnicate 2>/dev/null")).status, 2);
  EXPECT_EQ(Shell(Triage("--format xml 2>/dev/null")).status, 2);
  EXPECT_EQ(Shell(Triage("--top 0 2>/dev/null")).status, 2);
  EXPECT_EQ(Shell(Triage("/nonexistent/file.log 2>/dev/null")).status, 2);
}

TEST(Cli, ErrorsAreOneClearLine) {
  ShellResult r = Shell(Triage("/nonexistent/file.log 2>&1 >/dev/null"));
  EXPECT_EQ(r.out, "triage: cannot read /nonexistent/file.log: No such file or directory\n");
  r = Shell(Triage("--frobnicate 2>&1 >/dev/null"));
  EXPECT_EQ(r.out, "triage: unknown option '--frobnicate' (see triage --help)\n");
}

TEST(Cli, EmptyDiagnosesWhenNothingIsFound) {
  ShellResult r = Shell("printf 'epoch 1 loss 0.31\\nepoch 2 loss 0.29\\n' | " + Triage("--format json"));
  EXPECT_EQ(r.status, 1);
  YAML::Node j = YAML::Load(r.out);
  ASSERT_TRUE(j["diagnoses"].IsSequence()) << r.out;
  EXPECT_EQ(j["diagnoses"].size(), 0u);
}

TEST(Cli, SeveralFilesGiveJsonLines) {
  ShellResult r = Shell(Triage("--format json " + kFixture + " " + kFixture));
  ASSERT_EQ(r.status, 0);
  size_t first = r.out.find('\n');
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(r.out.find('\n', first + 1), r.out.size() - 1) << "two lines, one object each";
}

// Note: [Load notice] in bindings/cli/main.cc: a plain run with a broken rule file prints its errors,
// then one line that says what they cost and the lint command with the same rule flags; a clean load
// prints nothing on stderr, and `rules lint`, which prints every problem, adds no such line.
TEST(Cli, APlainRunWithBrokenRulesEndsItsErrorsWithOneNotice) {
  namespace fs = std::filesystem;
  EXPECT_EQ(Shell(Triage(kFixture + " 2>&1 >/dev/null")).out, "");
  fs::path d = fs::temp_directory_path() / ("triage_cli_notice " + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "three.yaml") << "id: three\ncategory: cuda.oom\ntitle: t\nmatch:\n  message: '(unclosed'\n";
  std::ofstream(d / "four.yaml") << "id: four\ncategory: [\n";
  ShellResult r = Shell(Triage("--rules '" + d.string() + "' " + kFixture + " 2>&1 >/dev/null"));
  EXPECT_NE(r.out.find("three.yaml:5:12: error: match.message: missing ): (unclosed [bad-regex]"), std::string::npos)
      << r.out;
  const std::string notice = "triage: note: errors in 2 rule files: what they hold did not load; every problem: "
                             "triage rules lint --no-bundled --rules " + RuleDir() + " --rules '" + d.string() + "'\n";
  ASSERT_GE(r.out.size(), notice.size()) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - notice.size()), notice) << r.out;
  EXPECT_EQ(r.out.find("note:"), r.out.rfind("note:")) << "one notice:\n" << r.out;
  // The diagnosis itself is not disturbed: the good rules still load and match.
  EXPECT_EQ(Shell(Triage("--rules '" + d.string() + "' " + kFixture + " 2>/dev/null | grep -c linear-features")).out, "1\n");
  ShellResult lint = Shell(kBin + " rules lint --no-bundled --rules '" + d.string() + "' 2>&1");
  EXPECT_EQ(lint.out.find("note:"), std::string::npos) << lint.out;
  fs::remove_all(d);
}

TEST(Cli, RulesTestLintListExplain) {
  EXPECT_EQ(Shell(Triage("> /dev/null; " + kBin + " rules test --no-bundled --rules " + RuleDir() + " > /dev/null")).status, 0);
  ShellResult list = Shell(kBin + " rules list --no-bundled --rules " + RuleDir());
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("linear-features"), std::string::npos);
  ShellResult explain = Shell(kBin + " explain --no-bundled --rules " + RuleDir() + " linear-features");
  EXPECT_EQ(explain.status, 0);
  EXPECT_NE(explain.out.find("Linear({got}, {out})"), std::string::npos) << explain.out;
  EXPECT_EQ(Shell(kBin + " explain --no-bundled --rules " + RuleDir() + " no-such-rule 2>/dev/null").status, 2);
}

TEST(Cli, LintListsEveryProblemWithPositions) {
  namespace fs = std::filesystem;
  fs::path d = fs::temp_directory_path() / ("triage_cli_broken_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "one.yaml") << "id: one\ncategory: shape.nope\ntitle: t\n";
  std::ofstream(d / "two.yaml") << "id: two\ncategory: [\n";
  std::ofstream(d / "three.yaml") << "id: three\ncategory: cuda.oom\ntitle: t\nmatch:\n  message: '(unclosed'\n";
  ShellResult r = Shell(kBin + " rules lint " + d.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("one.yaml:2:11: error: unknown category 'shape.nope'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("two.yaml:3:1: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("three.yaml:5:12: error: match.message: missing ): (unclosed [bad-regex] (rule three)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("three.yaml:1:1: error: missing required key 'explain'"), std::string::npos) << r.out;
  ShellResult json = Shell(kBin + " rules lint --format json " + d.string());
  YAML::Node j = YAML::Load(json.out);
  EXPECT_GE(j["errors"].as<int>(), 6) << json.out;
  fs::remove_all(d);
}

TEST(Cli, TeeCopiesInputUnchangedAndReportsOnStderr) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / ("triage_tee_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  // Bytes a console must get back exactly: CRLF, a progress bar's \r, invalid UTF-8, no final newline.
  std::string input = ReadFile(kFixture) + "epoch 2\r\n 50%|##   |\r100%|#####|\n\xff\xfe bad bytes\nlast line";
  std::ofstream(dir + "/in.log", std::ios::binary) << input;
  ShellResult r = Shell(Triage("--tee < " + dir + "/in.log > " + dir + "/out.log 2> " + dir + "/err.log"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(ReadFile(dir + "/out.log"), input);
  // stderr: a header line that ends the program's own output, then the diagnosis.
  std::string err = ReadFile(dir + "/err.log");
  EXPECT_EQ(err.rfind("\u2500\u2500 triage: diagnosis of stdin (24 lines) \u2500", 0), 0u) << err;
  EXPECT_EQ(err.find("\nshape.matmul_mismatch  "), err.find('\n')) << err;
  fs::remove_all(dir);
}

// A file and a pipe are read in pieces of different sizes (a file 1 MiB a read, Note: [Read input] in
// bindings/cli/main.cc; a pipe as its writer fills it). The same bytes must give the same report either
// way: a file of ~9.6 MiB whose progress lines (metric points) end at no round offset, with a traceback
// across every MiB boundary (lines and incidents straddle the pieces) and one in the last, partial piece.
TEST(Cli, AFileReadsAsTheSameBytesFromAPipe) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / ("triage_mapped_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  const std::string failure = ReadFile(kFixture);
  const size_t mib = size_t{1} << 20;
  std::string input;
  size_t boundary = 1;
  for (long step = 1; input.size() < 9 * mib + mib / 2 + 12345; ++step) {
    if (boundary <= 9 && input.size() + failure.size() / 2 >= boundary * mib) {
      input += failure;
      ++boundary;
      continue;
    }
    input += "epoch " + std::to_string(step / 1000) + " step " + std::to_string(step) + " loss " +
             std::to_string(2.0 / (1.0 + static_cast<double>(step) * 1e-4)) + " lr 0.001\n";
  }
  input += failure + "epoch 99 step 1 loss 0.5 lr 0.001";  // a last line without '\n'
  ASSERT_EQ(boundary, 10u);
  std::ofstream(dir + "/in.log", std::ios::binary) << input;
  ShellResult file = Shell(Triage("--format json " + dir + "/in.log"));
  ShellResult pipe = Shell("cat " + dir + "/in.log | " + Triage("--format json -"));
  EXPECT_EQ(file.status, 0) << file.out.substr(0, 2000);
  auto strip = [](const std::string& s) { return s.substr(std::min(s.size(), s.find(",\"diagnoses\""))); };
  EXPECT_EQ(strip(file.out), strip(pipe.out));
  YAML::Node j = YAML::Load(file.out);
  ASSERT_EQ(j["diagnoses"].size(), 1u) << file.out.substr(0, 2000);
  EXPECT_EQ(j["diagnoses"][0]["occurrences"].as<int>(), 10) << file.out.substr(0, 2000);
  // --tee copies a file byte for byte too.
  ShellResult tee = Shell(Triage("--tee " + dir + "/in.log > " + dir + "/out.log 2> /dev/null"));
  EXPECT_EQ(tee.status, 0);
  EXPECT_TRUE(ReadFile(dir + "/out.log") == input);
  fs::remove_all(dir);
}

// Note: [Read input]: a file cut shorter while triage reads it (a log rotated with copytruncate) is
// diagnosed as far as it was read, with a note, and exit 0. The cut is made while triage is known to be
// inside the file: with --tee it copies each piece to stdout before reading it, so a reader of that pipe
// that stops taking bytes holds triage in its write(2) of the piece after the bytes read so far (the
// pipe holds at most a MiB). Two cuts: well past that piece (read(2) meets the new end there) and just
// after the bytes taken (the piece being copied was read before the cut: it is read whole, and read(2)
// meets the new end after it). Either way the copy is the file's start, the failures in the bytes read
// are diagnosed and those after them are not.
TEST(Cli, AFileCutWhileReadIsDiagnosedAsFarAsItWasRead) {
  namespace fs = std::filesystem;
  const std::string dir = (fs::temp_directory_path() / ("triage_cut_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  const std::string failure = ReadFile(kFixture);
  const size_t mib = size_t{1} << 20;
  const size_t taken = 5 * mib;  // what the test reads of triage's copy before it cuts the file
  std::string input;
  int before = 0;  // copies of the failure that end before `taken`
  for (long step = 1; input.size() < 16 * mib; ++step) {
    if (step % 20000 == 0) {
      input += failure;
      before += input.size() < taken;
      continue;
    }
    input += "epoch " + std::to_string(step / 1000) + " step " + std::to_string(step) + " loss " +
             std::to_string(2.0 / (1.0 + static_cast<double>(step) * 1e-4)) + " lr 0.001\n";
  }
  ASSERT_GE(before, 2);
  for (const size_t cut_at : {7 * mib + 12345, taken + 1}) {
    SCOPED_TRACE("cut at " + std::to_string(cut_at));
    const std::string log = dir + "/train.log", err = dir + "/err.txt";
    std::ofstream(log, std::ios::binary | std::ios::trunc) << input;
    std::FILE* p = popen(Triage("--format json --tee " + log + " 2> " + err).c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out(taken, '\0');
    ASSERT_EQ(std::fread(&out[0], 1, taken, p), taken);
    // The pipe fills up behind the bytes taken and triage waits in write(2) (a cut before it got that
    // far would be met by the size check instead: the same outcome).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fs::resize_file(log, cut_at);
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int st = pclose(p);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0);
    const std::string report = ReadFile(err);
    EXPECT_NE(report.find("was cut shorter while it was read"), std::string::npos) << report.substr(0, 2000);
    // The copy is the file's start, up to the cut or past it (pieces read before the cut), nothing else.
    size_t same = 0;
    while (same < out.size() && out[same] == input[same]) ++same;
    EXPECT_EQ(same, out.size());
    EXPECT_GE(same, std::min(cut_at, out.size()));
    EXPECT_LT(same, input.size());
    // The failures read: every copy in the bytes read, none after them.
    int read = 0, all = 0;
    for (size_t at = input.find(failure); at != std::string::npos; at = input.find(failure, at + 1)) {
      ++all;
      read += at + failure.size() <= same;
    }
    const size_t json = report.find("{\"source\"");
    ASSERT_NE(json, std::string::npos) << report.substr(0, 2000);
    YAML::Node j = YAML::Load(report.substr(json));
    ASSERT_EQ(j["diagnoses"].size(), 1u) << report.substr(0, 2000);
    EXPECT_EQ(j["diagnoses"][0]["occurrences"].as<int>(), read);
    EXPECT_LT(read, all);
  }
  fs::remove_all(dir);
}

TEST(Cli, FollowPrintsEachIncidentWhenComplete) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / ("triage_follow_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  std::string log = dir + "/train.log", out = dir + "/out.txt";
  std::ofstream(log) << "epoch 1 loss 0.5\n";
  // Runs in the background until 2 s pass without new data.
  std::string cmd = Triage("--width 0 --follow " + log + " --idle-exit 2 > " + out + " 2>&1 &");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ofstream(log, std::ios::app) << ReadFile(kFixture);
  // Wait for the diagnosis: the condition is polled, with a generous deadline for slow machines.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string got;
  while (std::chrono::steady_clock::now() < deadline) {
    got = ReadFile(out);
    if (got.find("shape.matmul_mismatch") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(got.find("shape.matmul_mismatch"), std::string::npos) << got;
  EXPECT_NE(got.find("lines 2-12 of " + log), std::string::npos) << got;
  fs::remove_all(dir);
}

}  // namespace
