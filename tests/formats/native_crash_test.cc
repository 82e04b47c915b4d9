// NativeCrashReader (Note: [Native crash reports] in engine/src/log/formats/native_crash.cc): the import
// command it keeps as a segfault report's context, and the gdb frames it gives the report. The lines are
// real pastes (corpus/wild/env/*segfault*, *gdb*, and the threads the rule's examples name).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "log/formats/native_crash.h"
#include "log/segmenter.h"

namespace triage {
namespace {

TEST(NativeCrash, ReadsImportCommands) {
  for (const char* t : {">>> import torch", "(roma) vgpu@nvlink:~/RoMa$ python -c \"import local_corr\"",
                        "Starting program: /usr/bin/python3 -c \"import torch\"", "(gdb) r -c \"import torch\"",
                        "In [1]: import torch", "import fastText"}) {
    EXPECT_TRUE(NativeCrashReader::IsImportCommand(t)) << t;
  }
  for (const char* t : {"ImportError: cannot import name 'x' from 'y'", "I get Segmentation fault (core dumped) when I import torch",
                        "$ python test.py", "from torch import nn"}) {
    EXPECT_FALSE(NativeCrashReader::IsImportCommand(t)) << t;
  }
}

TEST(NativeCrash, KnowsTheReportLines) {
  bool gdb = true;
  EXPECT_TRUE(NativeCrashReader::IsCrashReport("Segmentation fault (core dumped)", &gdb));
  EXPECT_FALSE(gdb);
  EXPECT_TRUE(NativeCrashReader::IsCrashReport("zsh: segmentation fault  python test.py", &gdb));
  EXPECT_TRUE(NativeCrashReader::IsCrashReport("\xe6\xae\xb5\xe9\x94\x99\xe8\xaf\xaf (\xe6\xa0\xb8\xe5\xbf\x83\xe5\xb7\xb2\xe8\xbd\xac\xe5\x82\xa8)", &gdb));
  EXPECT_TRUE(NativeCrashReader::IsCrashReport("Thread 1 \"python3\" received signal SIGSEGV, Segmentation fault.", &gdb));
  EXPECT_TRUE(gdb);
  EXPECT_TRUE(NativeCrashReader::IsCrashReport("(gdb) bt", &gdb));
  EXPECT_TRUE(gdb);
  EXPECT_FALSE(NativeCrashReader::IsCrashReport("(gdb) r -c \"import torch\"", &gdb));
  EXPECT_FALSE(NativeCrashReader::IsCrashReport("Illegal instruction (core dumped)", &gdb));
}

TEST(NativeCrash, ParsesGdbFrames) {
  Frame f;
  ASSERT_TRUE(NativeCrashReader::ParseGdbFrame(
      "#0  0x00005555556ee8d4 in type_name (type=0x555556fda9b8, context=0x0) at Objects/typeobject.c:411", &f));
  EXPECT_EQ(f.function, "type_name");
  EXPECT_EQ(f.file, "Objects/typeobject.c");
  EXPECT_EQ(f.line, 411);
  ASSERT_TRUE(NativeCrashReader::ParseGdbFrame(
      "#3  0x00007ffff534d45d in pybind11::detail::accessor<pybind11::detail::accessor_policies::str_attr>::get_cache() const () "
      "from /home/fr1511b/lib/libtorch_python.so",
      &f));
  EXPECT_EQ(f.function, "pybind11::detail::accessor<pybind11::detail::accessor_policies::str_attr>::get_cache() const");
  EXPECT_EQ(f.file, "/home/fr1511b/lib/libtorch_python.so");
  EXPECT_EQ(f.line, 0);
  // gdb names no address for an inlined frame
  ASSERT_TRUE(NativeCrashReader::ParseGdbFrame("#3  _dl_init (main_map=main_map@entry=0x555555c17f70, argc=3, ", &f));
  EXPECT_EQ(f.function, "_dl_init");
  EXPECT_TRUE(f.file.empty());
  // a frame cut by the paste
  ASSERT_TRUE(NativeCrashReader::ParseGdbFrame("#5  0x00007ffff79a3621 in PyCFun", &f));
  EXPECT_EQ(f.function, "PyCFun");
  for (const char* t : {"#", "#include <ATen/Allocator.h>", "# IMPORT TORCH", "#0x", "frame #0: c10::Error::Error()"}) {
    EXPECT_FALSE(NativeCrashReader::ParseGdbFrame(t, &f)) << t;
  }
}

std::vector<Incident> Read(const std::vector<std::string>& lines, const std::vector<std::string>& reports) {
  Segmenter seg(SegmenterOptions(), [reports](std::string_view line) {
    for (const std::string& r : reports) {
      if (line.find(r) != std::string_view::npos) return 0;
    }
    return -1;
  });
  for (const std::string& l : lines) seg.AddLine(l);
  seg.Finish();
  return seg.incidents();
}

TEST(NativeCrash, GivesTheReportTheImportCommandBeforeIt) {
  const std::vector<Incident> found =
      Read({"(roma) vgpu@nvlink:~/RoMa$ python -c \"import local_corr\"", "Segmentation fault (core dumped)"},
           {"Segmentation fault"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message, "Segmentation fault (core dumped)");
  ASSERT_EQ(found[0].context.size(), 1u);
  EXPECT_EQ(found[0].context[0], "(roma) vgpu@nvlink:~/RoMa$ python -c \"import local_corr\"");
  // a command that imports nothing is no context
  const std::vector<Incident> plain = Read({"$ python test.py", "zsh: segmentation fault  python test.py"}, {"segmentation fault"});
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_TRUE(plain[0].context.empty());
}

TEST(NativeCrash, GivesGdbsReportItsBacktraceOutermostFirst) {
  // pytorch#4111 (a comment's gdb session), cut after the fourth frame
  const std::vector<Incident> found = Read(
      {"(gdb) r -c \"import torch\"", "Starting program: /usr/bin/python3 -c \"import torch\"",
       "[New Thread 0x7ffff3a6b700 (LWP 9551)]", "", "Thread 1 \"python3\" received signal SIGSEGV, Segmentation fault.",
       "0x0000000000002260 in ?? ()", "(gdb) bt", "#0  0x0000000000002260 in ?? ()",
       "#1  0x00007ffff7de76ba in call_init (l=<optimized out>, argc=argc@entry=3, ",
       "    argv=argv@entry=0x7fffffffd838, env=env@entry=0xbb42d0) at dl-init.c:72",
       "#2  0x00007ffff7de77cb in call_init (env=0xbb42d0, argv=0x7fffffffd838, argc=3, l=<optimized out>)",
       "    at dl-init.c:30", "#3  _dl_init (main_map=main_map@entry=0x555555c17f70, argc=3, ", "Epoch 1"},
      {"received signal SIGSEGV"});
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].context.size(), 1u);
  EXPECT_EQ(found[0].context[0], "Starting program: /usr/bin/python3 -c \"import torch\"");
  ASSERT_EQ(found[0].frames.size(), 4u);
  EXPECT_EQ(found[0].frames[0].function, "_dl_init");
  EXPECT_EQ(found[0].frames[1].function, "call_init");
  EXPECT_EQ(found[0].frames[1].file, "dl-init.c");
  EXPECT_EQ(found[0].frames[1].line, 30);
  EXPECT_EQ(found[0].frames[2].line, 72);
  EXPECT_EQ(found[0].frames[3].function, "??");
}

}  // namespace
}  // namespace triage
