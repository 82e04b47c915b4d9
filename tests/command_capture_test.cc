// Log text never runs as code from a suggested command (issue 14 item 1, Note: [Command captures]):
// every bundled rule whose checks or hypothesis tests use a capture is fed its own examples with the
// captured text replaced by shell and Python breakouts, and every command it then suggests is run by
// sh in an empty sandbox directory (PATH leads nowhere, so only the shell itself could act).
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rules/rule.h"
#include "rules/template.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// Each writes the file PWNED if the shell runs any part of it.
const char* const kPayloads[] = {
    "$(echo>PWNED)", "`echo>PWNED`", "x;echo>PWNED;", "\";echo>PWNED;\"", "';echo>PWNED;'",
    "x|echo>PWNED", "x&&echo>PWNED", "\\\"$(echo>PWNED)\\\"",
};

// Runs `line` with sh -c in dir, with PATH pointing nowhere; returns whether PWNED appeared.
bool RunsCode(const std::string& line, const fs::path& dir) {
  fs::remove(dir / "PWNED");
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(127);
    alarm(10);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::string path = "PATH=" + (dir / "empty-path").string();
    char* const argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(line.c_str()), nullptr};
    char* const envp[] = {const_cast<char*>(path.c_str()), nullptr};
    execve("/bin/sh", argv, envp);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return fs::exists(dir / "PWNED");
}

bool UsesCaptures(const Text& t) {
  std::string error;
  return !TemplateNames(t.value, &error).empty();
}

TEST(CommandCaptures, TheSandboxSeesAnInjection) {
  fs::path dir = fs::path(::testing::TempDir()) / ("cmd_sandbox_" + std::to_string(getpid()));
  fs::create_directories(dir / "empty-path");
  EXPECT_TRUE(RunsCode("python -c \"print(sd[\\\"$(echo>PWNED)\\\"])\"", dir));  // what main suggested
  EXPECT_FALSE(RunsCode("python -c \"print(sd[\\\"PARAM\\\"])\"", dir));
}

TEST(CommandCaptures, ValuesAreInertOrPlaceholders) {
  EXPECT_EQ(CommandValue("got", "57600"), "57600");
  EXPECT_EQ(CommandValue("param", "fc.weight"), "fc.weight");
  EXPECT_EQ(CommandValue("host", "10.0.0.1:29500"), "10.0.0.1:29500");
  for (const char* p : kPayloads) EXPECT_EQ(CommandValue("param", p), "PARAM") << p;
  EXPECT_EQ(CommandValue("symbol", "-e"), "SYMBOL");
  EXPECT_EQ(CommandValue("name", "a b"), "NAME");
  EXPECT_EQ(CommandValue("name", "\x1b[31m"), "NAME");
  EXPECT_EQ(CommandValue("name", "caf\xc3\xa9"), "NAME");
}

TEST(CommandCaptures, NoBundledRuleCommandRunsLogText) {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  LoadResult loaded = LoadRules(o);
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  fs::path dir = fs::path(::testing::TempDir()) / ("cmd_sandbox_" + std::to_string(getpid()));
  fs::create_directories(dir / "empty-path");
  std::set<std::string> carried;  // rule/capture pairs whose capture took a payload
  int commands = 0;
  for (const Rule& rule : loaded.rules->rules) {
    bool builds = false;
    for (const Text& t : rule.checks) builds = builds || UsesCaptures(t);
    for (const HypothesisSpec& h : rule.hypotheses) builds = builds || UsesCaptures(h.test);
    if (!builds) continue;
    for (const Example& ex : rule.examples) {
      if (ex.kind != ExampleKind::kMatch) continue;
      std::map<std::string, std::string> captures;
      for (const Diagnosis& d : engine.DiagnoseText(ex.text).diagnoses) {
        if (d.rule == rule.id) captures = d.captures;
      }
      for (const auto& [name, value] : captures) {
        size_t at = ex.text.find(value);
        if (value.empty() || at == std::string::npos) continue;
        for (const char* payload : kPayloads) {
          std::string log = ex.text;
          log.replace(at, value.size(), payload);
          for (const Diagnosis& d : engine.DiagnoseText(log).diagnoses) {
            if (d.rule != rule.id) continue;
            auto cap = d.captures.find(name);
            if (cap == d.captures.end() || cap->second.find(payload) == std::string::npos) continue;
            carried.insert(rule.id + "/" + name);
            std::vector<std::string> lines = d.checks;
            for (const Hypothesis& h : d.hypotheses) lines.push_back(h.test);
            for (const std::string& line : lines) {
              ++commands;
              EXPECT_FALSE(RunsCode(line, dir)) << rule.id << " {" << name << "} = " << payload << "\n" << line;
            }
          }
        }
      }
    }
  }
  // The attacks of the issue reach their captures: the test is not vacuous.
  EXPECT_TRUE(carried.count("state-dict-size-mismatch/param")) << carried.size();
  EXPECT_TRUE(carried.count("pickle-main-attribute/name")) << carried.size();
  std::printf("%zu rule/capture pairs carried a payload; %d suggested commands run in the sandbox\n",
              carried.size(), commands);
}

}  // namespace
}  // namespace triage
