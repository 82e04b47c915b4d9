// Note: [Audience detection]: with Audience::kAuto a report is written for the program its input shows.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "diagnose/audience.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

const LoadResult& Bundled() {
  static const LoadResult kRules = [] {
    LoadOptions o;
    o.user = o.project = o.system = false;
    return LoadRules(o);
  }();
  return kRules;
}

std::string ReadCorpus(const std::string& rel) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/corpus/" + rel + "/log.txt", std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Report Auto(const std::string& text) {
  DiagnoseOptions o;
  o.audience = Audience::kAuto;
  return Engine(Bundled().rules).DiagnoseText(text, o);
}

bool AnyCheckContains(const Report& r, const std::string& part) {
  for (const Diagnosis& d : r.diagnoses) {
    for (const std::string& c : d.checks) {
      if (c.find(part) != std::string::npos) return true;
    }
  }
  return false;
}

// A LibTorch trainer's own uncaught c10::Error: its backtrace reaches __libc_start_main of ./program.
TEST(AudienceDetection, CxxProgramsCrashGetsCxxAdvice) {
  for (const char* c : {"formats/cpp-uncaught-c10-error", "formats/cpp-caught-what"}) {
    const Report r = Auto(ReadCorpus(c));
    EXPECT_EQ(r.audience, Audience::kCxx) << c;
    ASSERT_FALSE(r.diagnoses.empty()) << c;
    EXPECT_FALSE(AnyCheckContains(r, "python -c")) << c;
  }
  EXPECT_TRUE(AnyCheckContains(Auto(ReadCorpus("formats/cpp-caught-what")), "--include=*.cpp"));
}

// Python programs: a traceback; LibTorch's C++ report from a Python process's background thread (the
// NCCL watchdog) or destructor, whose backtrace never reaches main; a C++ report with libtorch_python
// frames.
TEST(AudienceDetection, PythonProgramsStayPython) {
  for (const char* c : {"formats/cpp-stacktraces-env", "distributed/nccl-watchdog-timeout",
                        "cuda/iam-terminate-c10-cudaerror-formatted", "formats/rich-handler-traceback"}) {
    EXPECT_EQ(Auto(ReadCorpus(c)).audience, Audience::kPython) << c;
  }
  Incident cxx;
  cxx.kind = Incident::Kind::kCxxError;
  Frame lib;
  lib.file = "/usr/lib/python3/dist-packages/torch/lib/libtorch_python.so";
  lib.function = "torch::autograd::THPVariable_backward";
  Frame start;
  start.file = "/lib/x86_64-linux-gnu/libc.so.6";
  start.function = "__libc_start_main";
  cxx.frames = {lib, start};
  EXPECT_EQ(AudienceOf({cxx}), Audience::kPython);
  cxx.frames = {start};
  EXPECT_EQ(AudienceOf({cxx}), Audience::kCxx);
  EXPECT_EQ(AudienceOf({}), Audience::kPython);  // nothing to go on
}

TEST(AudienceDetection, AnExplicitAudienceIsKept) {
  const std::string cxx_log = ReadCorpus("formats/cpp-uncaught-c10-error");
  DiagnoseOptions o;
  o.audience = Audience::kPython;
  EXPECT_EQ(Engine(Bundled().rules).DiagnoseText(cxx_log, o).audience, Audience::kPython);
  o.audience = Audience::kCxx;
  EXPECT_EQ(Engine(Bundled().rules).DiagnoseText(ReadCorpus("formats/cpp-stacktraces-env"), o).audience, Audience::kCxx);
  Audience a = Audience::kPython;
  EXPECT_TRUE(AudienceFromName("auto", &a));
  EXPECT_EQ(a, Audience::kAuto);
  EXPECT_STREQ(AudienceName(Audience::kAuto), "auto");
}

// Note: [Python command name]
TEST(PythonCommandName, OnlyCommandsBecomePython3) {
  EXPECT_EQ(WithPython3("python -c \"import torch\""), "python3 -c \"import torch\"");
  EXPECT_EQ(WithPython3("CUDA_LAUNCH_BLOCKING=1 python train.py   # then python -m pip list"),
            "CUDA_LAUNCH_BLOCKING=1 python3 train.py   # then python3 -m pip list");
  EXPECT_EQ(WithPython3("(python -X faulthandler run.py)"), "(python3 -X faulthandler run.py)");
  // not a command: prose, other programs, a name already python3
  EXPECT_EQ(WithPython3("the python process holds the GPU"), "the python process holds the GPU");
  EXPECT_EQ(WithPython3("ipython -c x; cpython -m y; python3 -c z"), "ipython -c x; cpython -m y; python3 -c z");
}

TEST(PythonCommandName, CommandsSayPython3OnlyWhereTheLogShowsIt) {
  // Debian's python3-torch (frames in /usr/lib/python3/dist-packages): the program ran as python3.
  const Report debian = Auto(ReadCorpus("formats/rich-traceback"));
  ASSERT_FALSE(debian.diagnoses.empty());
  EXPECT_TRUE(AnyCheckContains(debian, "python3 ")) << ToText(debian, {});
  EXPECT_FALSE(AnyCheckContains(debian, "python -")) << ToText(debian, {});
  // a pasted line that shows no interpreter: the rules' `python`
  const Report plain = Auto(ReadCorpus("wild/data/fastai-course22-df-values-object-array-to-tensor"));
  ASSERT_FALSE(plain.diagnoses.empty());
  EXPECT_TRUE(AnyCheckContains(plain, "python -c")) << ToText(plain, {});
  EXPECT_FALSE(AnyCheckContains(plain, "python3")) << ToText(plain, {});
}

}  // namespace
}  // namespace triage
