// Note: [ROCm advice] (engine/src/diagnose/gpu_vendor.h): a log from a ROCm build gets ROCm's tools in
// its checks and tests, a CUDA log keeps NVIDIA's. The logs are the bundled rules' real examples.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/gpu_vendor.h"
#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {
namespace {

// A real ROCm 4.0 run (aieater/rocm_pytorch_informations#13), as in device/cuda-no-gpu-visible.yaml.
const char kNoHipGpus[] =
    "Traceback (most recent call last):\n"
    "  File \"<string>\", line 1, in <module>\n"
    "  File \"/home/bryan/.local/lib/python3.6/site-packages/torch/cuda/__init__.py\", line 388, in current_device\n"
    "    _lazy_init()\n"
    "  File \"/home/bryan/.local/lib/python3.6/site-packages/torch/cuda/__init__.py\", line 170, in _lazy_init\n"
    "    torch._C._cuda_init()\n"
    "RuntimeError: No HIP GPUs are available\n";

std::vector<std::string> Advice(const Diagnosis& d) {
  std::vector<std::string> out = d.checks;
  for (const Hypothesis& h : d.hypotheses) {
    out.push_back(h.test);
    out.push_back(h.fix);
  }
  out.push_back(d.verify);
  return out;
}

Engine Bundled() {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return Engine(LoadRules(o).rules);
}

TEST(RuleAdviceRocm, NvidiaCommandsBecomeRocmOnes) {
  EXPECT_EQ(ForRocm("nvidia-smi -L"), "rocm-smi --showproductname");
  EXPECT_EQ(ForRocm("nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv"), "rocm-smi --showmeminfo vram --csv");
  EXPECT_EQ(ForRocm("nvidia-smi --query-compute-apps=pid,used_memory --format=csv"), "rocm-smi --showpids");
  EXPECT_EQ(ForRocm("nvidia-smi topo -m"), "rocm-smi --showtopo");
  EXPECT_EQ(ForRocm("echo \"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"; nvidia-smi -L"),
            "echo \"HIP_VISIBLE_DEVICES=$HIP_VISIBLE_DEVICES\"; rocm-smi --showproductname");
  EXPECT_EQ(ForRocm("nvidia-smi shows only this job on GPU 0"), "rocm-smi shows only this job on GPU 0");
  EXPECT_EQ(ForRocm("print(torch.cuda.memory_summary())"), "print(torch.cuda.memory_summary())");
}

TEST(RuleAdviceRocm, RocmLogsGetRocmToolsAndCudaLogsKeepNvidias) {
  Engine engine = Bundled();
  const Report rocm = engine.DiagnoseText(kNoHipGpus);
  ASSERT_FALSE(rocm.diagnoses.empty());
  EXPECT_EQ(rocm.diagnoses[0].rule, "cuda-no-gpu-visible");
  EXPECT_TRUE(ShowsRocm(rocm.incidents));
  bool rocm_smi = false, hip_visible = false;
  for (const Diagnosis& d : rocm.diagnoses) {
    for (const std::string& a : Advice(d)) {
      EXPECT_EQ(a.find("nvidia-smi"), std::string::npos) << d.rule << ": " << a;
      EXPECT_EQ(a.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << d.rule << ": " << a;
      rocm_smi = rocm_smi || a.find("rocm-smi") != std::string::npos;
      hip_visible = hip_visible || a.find("HIP_VISIBLE_DEVICES") != std::string::npos;
    }
  }
  EXPECT_TRUE(rocm_smi);
  EXPECT_TRUE(hip_visible);

  const Report cuda = engine.DiagnoseText("RuntimeError: No CUDA GPUs are available\n");
  ASSERT_FALSE(cuda.diagnoses.empty());
  EXPECT_FALSE(ShowsRocm(cuda.incidents));
  bool nvidia = false, driver_sign = false;
  for (const std::string& a : Advice(cuda.diagnoses[0])) {
    nvidia = nvidia || a.find("nvidia-smi -L") != std::string::npos;
    // The rule's own Lua long string, shown as written (not the NO_DRIVER placeholder).
    driver_sign = driver_sign || a == "nvidia-smi  # \"command not found\" or \"couldn't communicate with the NVIDIA "
                                      "driver\" confirms it";
  }
  EXPECT_TRUE(nvidia);
  EXPECT_TRUE(driver_sign);
}

// ATen's fp8 matmul check names ROCm as one of its platforms in every build: a CUDA user's log that shows it
// keeps NVIDIA's tools, and a ROCm sign elsewhere in the input still counts.
TEST(RuleAdviceRocm, RocmNamedAsAnAlternativeIsNoRocmBuild) {
  Engine engine = Bundled();
  const std::string scaled_mm =
      "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or "
      "ROCm MI300+\n";
  const Report cuda = engine.DiagnoseText(scaled_mm);
  ASSERT_FALSE(cuda.diagnoses.empty());
  EXPECT_EQ(cuda.diagnoses[0].rule, "fp8-unsupported-device");
  EXPECT_FALSE(ShowsRocm(cuda.incidents));
  bool nvidia = false;
  for (const std::string& a : Advice(cuda.diagnoses[0])) {
    EXPECT_EQ(a.find("rocminfo"), std::string::npos) << a;
    nvidia = nvidia || a.find("nvidia-smi --query-gpu=name,compute_cap") != std::string::npos;
  }
  EXPECT_TRUE(nvidia);

  const Report rocm = engine.DiagnoseText(std::string(kNoHipGpus) + scaled_mm);
  EXPECT_TRUE(ShowsRocm(rocm.incidents));
}

// Every nvidia-smi command a bundled rule writes has its ROCm twin: none keeps NVIDIA's options.
TEST(RuleAdviceRocm, EveryBundledNvidiaSmiCommandHasARocmTwin) {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  LoadResult loaded = LoadRules(o);
  ASSERT_TRUE(loaded.ok());
  int commands = 0;
  for (const Rule& rule : loaded.rules->rules) {
    std::vector<std::string> texts;
    for (const Text& t : rule.checks) texts.push_back(t.value);
    for (const Text& t : rule.cpp_checks) texts.push_back(t.value);
    for (const HypothesisSpec& h : rule.hypotheses) {
      for (const Text* t : {&h.test, &h.fix, &h.cpp_test, &h.cpp_fix}) texts.push_back(t->value);
    }
    for (const std::string& t : texts) {
      if (t.find("nvidia-smi") == std::string::npos) continue;
      ++commands;
      const std::string rocm = ForRocm(t);
      for (const char* nvidia_only : {"nvidia-smi", "--query-", "--format=csv", "topo -m", "compute_cap"}) {
        EXPECT_EQ(rocm.find(nvidia_only), std::string::npos) << rule.id << ": " << t << "\n-> " << rocm;
      }
    }
  }
  EXPECT_GT(commands, 20);
}

// The allocator's HIP report (a real ROCm thread, cuda/cuda-oom.yaml's example): no NVIDIA tool anywhere.
TEST(RuleAdviceRocm, HipOutOfMemoryAdviceNamesNoNvidiaTool) {
  Engine engine = Bundled();
  const Report r = engine.DiagnoseText(
      "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 287.98 GiB "
      "of which 0 bytes is free. Of the allocated memory 47.66 GiB is allocated by PyTorch, and 3.12 GiB is reserved by "
      "PyTorch but unallocated.\n");
  ASSERT_FALSE(r.diagnoses.empty());
  for (const Diagnosis& d : r.diagnoses) {
    for (const std::string& a : Advice(d)) EXPECT_EQ(a.find("nvidia-smi"), std::string::npos) << d.rule << ": " << a;
  }
}

}  // namespace
}  // namespace triage
