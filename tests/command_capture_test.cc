// Log text never runs as code from a suggested command (issue 14 item 1, Note: [Command captures]):
// every bundled rule whose checks or hypothesis tests use a capture is fed its own examples with the
// captured text replaced by shell and Python breakouts, and every command it then suggests is run by
// sh in an empty sandbox directory (PATH leads nowhere, so only the shell itself could act).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iterator>
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

// Runs `line` with sh -c in dir, with PATH pointing nowhere and stdin, stdout and stderr on /dev/null,
// killed after 10 s; returns whether PWNED appeared. posix_spawn, not fork: the test process holds every
// bundled rule, and copying its page tables for each of the thousands of commands cost more than the
// commands (under AddressSanitizer's shadow memory, many times more).
bool RunsCode(const std::string& line, const fs::path& dir) {
  fs::remove(dir / "PWNED");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string path = "PATH=" + (dir / "empty-path").string();
  char* const argv[] = {const_cast<char*>("timeout"), const_cast<char*>("-s"), const_cast<char*>("KILL"),
                        const_cast<char*>("10"),      const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                        const_cast<char*>(line.c_str()), nullptr};
  char* const envp[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, "/usr/bin/timeout", &fa, nullptr, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(spawned, 0) << "posix_spawn: " << spawned;
  if (spawned != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return fs::exists(dir / "PWNED");
}

LoadResult BundledRules() {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return LoadRules(o);
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
  EXPECT_EQ(CommandValue("symbol", "-e"), "SYMBOL");
  EXPECT_EQ(CommandValue("name", "\x1b[31m"), "NAME");
  EXPECT_EQ(CommandValue("name", "caf\xc3\xa9"), "NAME");
  // Values with spaces are one quoted word, not a placeholder (they used to be NAME).
  EXPECT_EQ(CommandValue("name", "a b"), "'a b'");
  EXPECT_EQ(CommandValue("requested", "392.00 MiB"), "'392.00 MiB'");
  EXPECT_EQ(CommandValue("location", "data.py:12 in __getitem__: x = d['k']"), "\"data.py:12 in __getitem__: x = d['k']\"");
}

// Every payload, wherever a template puts it, is inert: sh gives the command the payload as one
// argument (printed here with printf), or the reader sees a placeholder.
TEST(CommandCaptures, PayloadsAreQuotedOrPlaceholders) {
  fs::path dir = fs::path(::testing::TempDir()) / ("cmd_sandbox_" + std::to_string(getpid()));
  fs::create_directories(dir / "empty-path");
  std::vector<std::string> payloads(std::begin(kPayloads), std::end(kPayloads));
  payloads.push_back("a; echo>PWNED");
  payloads.push_back("$(echo>PWNED) in 'q'");
  payloads.push_back("line one\necho>PWNED");
  payloads.push_back("x\recho>PWNED");
  payloads.push_back("it's \"$(echo>PWNED)\"");
  const char* const templates[] = {
      "echo {v}", "echo {v} | cat", "echo '{v}'", "echo \"{v}\"", "python -c \"print(sd[\\\"{v}\\\"])\"",
      "echo x{v}y", "look at {v}'s log; echo {v}", "echo {v}   # a comment {v}"};
  for (const std::string& p : payloads) {
    for (const char* t : templates) {
      std::string line = RenderCommand(
          t, [&](const std::string&, std::string* v) { *v = p; return true; }, nullptr);
      EXPECT_FALSE(RunsCode(line, dir)) << t << " with " << p << "\n" << line;
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    }
  }
  // Outside quotes the shell sees exactly the value, as one word.
  std::string line = RenderCommand(
      "printf %s {v} > OUT", [](const std::string&, std::string* v) { *v = "a; $(b) `c` \"d\""; return true; }, nullptr);
  EXPECT_EQ(line, "printf %s 'a; $(b) `c` \"d\"' > OUT");
  // Inside the template's own quotes only letters, digits, _.,:/@+=- and spaces are placed.
  auto fill = [](const char* t, const char* value) {
    return RenderCommand(t, [&](const std::string&, std::string* v) { *v = value; return true; }, nullptr);
  };
  EXPECT_EQ(fill("grep \"{v}\" f", "two words"), "grep \"two words\" f");
  EXPECT_EQ(fill("grep \"{v}\" f", "a'b"), "grep \"V\" f");
  EXPECT_EQ(fill("grep '{v}' f", "a\"b"), "grep 'V' f");
  // A value the rule wrote itself goes in as written.
  EXPECT_EQ(RenderCommand(
                "{smi}", [](const std::string&, std::string* v) { *v = "nvidia-smi --query-gpu=index --format=csv"; return true; },
                [](const std::string&, const std::string&) { return true; }),
            "nvidia-smi --query-gpu=index --format=csv");
}

// A command the rule's own Lua writes as a string literal is shown whole: the 1.x OOM report's check is
// the vendor's memory query, not the bare tool name (the query has spaces, so it used to be cut to one
// word); a value read from the log, such as the requested size, is quoted in a command.
TEST(CommandCaptures, VendorCommandsTheRuleWritesStayWhole) {
  LoadResult loaded = BundledRules();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  auto diagnosis = [&](const std::string& log) {
    for (const Diagnosis& d : engine.DiagnoseText(log).diagnoses) {
      if (d.rule == "cuda-oom-reserved-1x") return d;
    }
    return Diagnosis();
  };
  Diagnosis cuda = diagnosis(
      "RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 15.78 GiB total capacity; 13.92 GiB "
      "already allocated; 265.75 MiB free; 14.33 GiB reserved in total by PyTorch)");
  ASSERT_FALSE(cuda.checks.empty());
  EXPECT_EQ(cuda.checks[0], "nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv");
  Diagnosis hip = diagnosis(
      "torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total "
      "capacity; 150.39 MiB already allocated; 312.00 MiB free; 168.00 MiB reserved in total by PyTorch)");
  ASSERT_FALSE(hip.checks.empty());
  EXPECT_EQ(hip.checks[0], "rocm-smi --showmeminfo vram --csv");
  DiagnoseOptions cxx;
  cxx.audience = Audience::kCxx;
  Report report = engine.DiagnoseText(
      "RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 15.78 GiB total capacity; 13.92 GiB "
      "already allocated; 265.75 MiB free; 14.33 GiB reserved in total by PyTorch)", cxx);
  ASSERT_FALSE(report.diagnoses.empty());
  bool quoted = false;
  for (const Hypothesis& h : report.diagnoses[0].hypotheses) {
    quoted = quoted || h.test.find("Compare reserved ('14.33 GiB') with allocated ('13.92 GiB')") != std::string::npos;
  }
  EXPECT_TRUE(quoted);
}

TEST(CommandCaptures, NoBundledRuleCommandRunsLogText) {
  LoadResult loaded = BundledRules();
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
