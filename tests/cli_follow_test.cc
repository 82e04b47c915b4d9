// End-to-end: `triage --follow` (Note: [Follow] in bindings/cli/follow.cc), --tee with a reader that
// goes away, and the --fail-on exit status in shell pipelines with and without pipefail.
#include <gtest/gtest.h>
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli_support.h"

namespace {

using namespace triage_test;
namespace fs = std::filesystem;

// Polls `path` until it contains `needle` or 20 s pass (a generous bound for a loaded machine);
// returns what the file held last.
std::string WaitForText(const std::string& path, const std::string& needle) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string got;
  while (std::chrono::steady_clock::now() < deadline) {
    got = ReadFile(path);
    if (got.find(needle) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return got;
}

// True once process `pid` is triage and catches `sig` (its handler is installed), per /proc/PID/status;
// polled. Spawn's `sh -c 'exec env ...'` catches SIGINT itself before the exec: the name tells them apart.
bool WaitUntilCatching(pid_t pid, int sig) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
    if (status.rfind("Name:\ttriage\n", 0) != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    size_t at = status.find("SigCgt:\t");
    if (at != std::string::npos) {
      unsigned long long mask = std::stoull(status.substr(at + 8, 16), nullptr, 16);
      if (mask & (1ull << (sig - 1))) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int Count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

TEST(CliFollow, ReportsTheCrashOfAWriterThatDiesMidRun) {
  TempDir dir("triage_follow_dies");
  std::string log = dir.path + "/train.log", out = dir.path + "/out.txt";
  std::ofstream(log) << "";
  pid_t triage = Spawn(Triage("--width 0 --follow " + log + " --settle 0.2 > " + out + " 2>&1"));
  ASSERT_GT(triage, 0);
  ASSERT_TRUE(WaitUntilCatching(triage, SIGINT));
  // The writer prints progress and a traceback, then is killed: no line ever follows the crash, so
  // the incident is still open when the file goes quiet.
  pid_t writer = Spawn("sh -c 'echo \"epoch 1 loss 0.5\" >> " + log + "; head -n 11 " + kFixture + " >> " + log +
                       "; kill -KILL $$; echo never >> " + log + "'");
  ASSERT_GT(writer, 0);
  EXPECT_EQ(Wait(writer), 128 + SIGKILL);
  std::string got = WaitForText(out, "lines 2-12 of " + log);
  EXPECT_NE(got.find("shape.matmul_mismatch"), std::string::npos) << got;
  EXPECT_NE(got.find("lines 2-12 of " + log), std::string::npos) << got;
  kill(triage, SIGINT);
  EXPECT_EQ(Wait(triage), 0);
  got = ReadFile(out);
  EXPECT_EQ(Count(got, "shape.matmul_mismatch"), 1) << "reported once, not again at the interrupt:\n" << got;
}

TEST(CliFollow, ACompleteLogGivesTheSameReportAsWithoutFollow) {
  for (const std::string& args : {std::string(""), std::string("--format json ")}) {
    ShellResult plain = Shell(Triage(args + kFixture));
    ShellResult followed = Shell(Triage(args + "--follow " + kFixture + " --settle 0.1 --idle-exit 0.5"));
    EXPECT_EQ(followed.status, plain.status);
    EXPECT_EQ(followed.out, plain.out);
  }
  // A healthy log says so once, as without --follow, with the same status.
  TempDir dir("triage_follow_healthy");
  std::ofstream(dir.path + "/ok.log") << "epoch 1 loss 0.5\nepoch 2 loss 0.4\n";
  ShellResult plain = Shell(Triage(dir.path + "/ok.log"));
  ShellResult followed = Shell(Triage("--follow " + dir.path + "/ok.log --settle 0.1 --idle-exit 0.3"));
  EXPECT_EQ(plain.status, 1);
  EXPECT_EQ(followed.status, 1);
  EXPECT_EQ(followed.out, plain.out);
}

TEST(CliFollow, CtrlCReportsTheIncidentStillOpen) {
  TempDir dir("triage_follow_int");
  std::string log = dir.path + "/train.log", out = dir.path + "/out.txt";
  std::ofstream(log) << "epoch 1 loss 0.5\n" << ReadFile(kFixture);
  // The file would have to stay quiet for an hour before --follow reported on its own.
  pid_t triage = Spawn(Triage("--width 0 --follow " + log + " --settle 3600 > " + out + " 2>&1"));
  ASSERT_TRUE(WaitUntilCatching(triage, SIGINT));
  kill(triage, SIGINT);
  EXPECT_EQ(Wait(triage), 0);
  std::string got = ReadFile(out);
  EXPECT_NE(got.find("shape.matmul_mismatch"), std::string::npos) << got;
  EXPECT_NE(got.find("lines 2-12 of " + log), std::string::npos) << got;
}

TEST(CliFollow, IdleExitReportsTheIncidentStillOpen) {
  TempDir dir("triage_follow_idle");
  std::string log = dir.path + "/train.log";
  std::ofstream(log) << ReadFile(kFixture);
  // --idle-exit comes before --settle: ending the follow reports what is held.
  ShellResult r = Shell(Triage("--width 0 --follow " + log + " --settle 3600 --idle-exit 0.2"));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("lines 1-11 of " + log), std::string::npos) << r.out;
}

TEST(CliFollow, FollowsTheNewFileAfterRotationByRename) {
  TempDir dir("triage_follow_rotate");
  std::string log = dir.path + "/train.log", out = dir.path + "/out.txt";
  std::ofstream(log) << "epoch 1 loss 0.5\n";
  pid_t triage = Spawn(Triage("--width 0 --follow " + log + " --settle 0.2 > " + out + " 2>&1"));
  ASSERT_TRUE(WaitUntilCatching(triage, SIGINT));
  // logrotate's default: the old file is renamed, a new one is created under the name.
  fs::rename(log, log + ".1");
  std::ofstream(log + ".1", std::ios::app) << "epoch 2 loss 0.4\n";
  std::ofstream(log) << ReadFile(kFixture);
  std::string got = WaitForText(out, "lines 1-11 of " + log);
  EXPECT_NE(got.find("lines 1-11 of " + log), std::string::npos) << got;
  kill(triage, SIGINT);
  EXPECT_EQ(Wait(triage), 0);
}

// The writer keeps its file open across the rename (a shell redirection; logrotate without telling
// the program): its crash lands in the renamed file, after triage has moved on to the new one.
TEST(CliFollow, ReadsTheRenamedFileAWriterStillHoldsOpen) {
  TempDir dir("triage_follow_renamed");
  std::string log = dir.path + "/train.log", out = dir.path + "/out.txt";
  std::ofstream(log) << "epoch 1 loss 0.5\n";
  int writer = open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(writer, 0);
  pid_t triage = Spawn(Triage("--width 0 --follow " + log + " --settle 0.2 > " + out + " 2>&1"));
  ASSERT_TRUE(WaitUntilCatching(triage, SIGINT));
  fs::rename(log, log + ".1");
  // A line in the new file that triage reports shows it has moved on to the new file.
  std::ofstream(log) << "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  std::string got = WaitForText(out, "line 1 of " + log);
  ASSERT_NE(got.find("line 1 of " + log), std::string::npos) << got;
  const std::string crash = ReadFile(kFixture);
  ASSERT_EQ(write(writer, crash.data(), crash.size()), static_cast<ssize_t>(crash.size()));
  close(writer);
  got = WaitForText(out, "lines 2-12 of " + log);
  EXPECT_NE(got.find("lines 2-12 of " + log), std::string::npos) << got;
  kill(triage, SIGINT);
  EXPECT_EQ(Wait(triage), 0);
  EXPECT_EQ(Count(ReadFile(out), "lines 2-12 of " + log), 1) << ReadFile(out);
}

TEST(CliTee, SurvivesAReaderThatWentAway) {
  TempDir dir("triage_tee_pipe");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // no reader: every write to the pipe fails (EPIPE, SIGPIPE by default)
  pid_t triage = Spawn(Triage("--tee < " + kFixture + " 2> " + dir.path + "/err.txt"), fds[1]);
  close(fds[1]);
  EXPECT_EQ(Wait(triage), 0);
  std::string err = ReadFile(dir.path + "/err.txt");
  EXPECT_NE(err.find("shape.matmul_mismatch"), std::string::npos) << err;
  // The shell form from the issue (whether head is gone before a write depends on timing; the pipe
  // above makes sure of it).
  ShellResult r = Shell("bash -c '" + Triage("--tee < " + kFixture + " 2> " + dir.path + "/err2.txt") +
                        " | head -1 > /dev/null; exit ${PIPESTATUS[0]}'");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(ReadFile(dir.path + "/err2.txt").find("shape.matmul_mismatch"), std::string::npos);
}

// `PROGRAM 2>&1 | triage --fail-on any` in bash, with and without pipefail: a crash fails the job, a
// healthy run passes it.
TEST(CliFailOn, PipelineStatusFollowsTheRun) {
  std::string crash = "{ echo 'epoch 1 loss 0.5'; cat " + kFixture + "; exit 1; }";
  std::string healthy = "{ echo 'epoch 1 loss 0.5'; echo 'epoch 2 loss 0.4'; exit 0; }";
  auto status = [](const std::string& program, bool pipefail, const std::string& flags) {
    std::string line = std::string(pipefail ? "set -o pipefail; " : "") + program + " 2>&1 | " +
                       Triage(flags + " > /dev/null 2>&1");
    return Shell("bash -c \"" + line + "\"").status;
  };
  for (const std::string& flags : {std::string("--fail-on any"), std::string("--fail-on 0.5"),
                                   std::string("--fail-on error"), std::string("--tee --fail-on any")}) {
    for (bool pipefail : {false, true}) {
      EXPECT_NE(status(crash, pipefail, flags), 0) << flags << (pipefail ? " with" : " without") << " pipefail";
      EXPECT_EQ(status(healthy, pipefail, flags), 0) << flags << (pipefail ? " with" : " without") << " pipefail";
    }
  }
  // Without --fail-on the status stays grep's: 0 found, 1 nothing found.
  EXPECT_EQ(status(crash, false, ""), 0);
  EXPECT_EQ(status(healthy, false, ""), 1);
}

TEST(CliFailOn, LevelsAndBadValues) {
  // The fixture's diagnosis has a confidence below 0.99: not a failure at that level.
  EXPECT_EQ(Shell(Triage("--fail-on 0.99 " + kFixture + " > /dev/null")).status, 0);
  EXPECT_EQ(Shell(Triage("--fail-on 0.1 " + kFixture + " > /dev/null")).status, 1);
  // An uncaught error no rule recognises: a failure for 'error', not for 'any'.
  std::string unknown = "printf 'Traceback (most recent call last):\\n  File \"a.py\", line 1, in <module>\\n"
                        "ZorkError: the grue\\n' | ";
  EXPECT_EQ(Shell(unknown + Triage("--fail-on error > /dev/null")).status, 1);
  EXPECT_EQ(Shell(unknown + Triage("--fail-on any > /dev/null")).status, 0);
  for (const char* bad : {"2", "-0.1", "nan", "some", ""}) {
    EXPECT_EQ(Shell(Triage("--fail-on '" + std::string(bad) + "' " + kFixture + " 2> /dev/null")).status, 2) << bad;
  }
}

}  // namespace
