#include "diagnose/gpu_vendor.h"

#include <string_view>
#include <utility>

namespace triage {
namespace {

// Text that only a ROCm build prints (Note: [ROCm advice]).
const char* const kRocmMarks[] = {
    "HIP error", "hipError", "HIP out of memory", "No HIP GPUs", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "ROCm", "rocm", "MIOpen", "miopen", "rocBLAS", "rocblas", "hipBLAS", "hipblas", "RCCL", "rccl", "amdgpu",
    "HSA_STATUS"};

// Phrases that every build prints, CUDA's too, naming ROCm only as one of the platforms an op supports: ATen's
// fp8 matmul check "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or
// ROCm MI300+" (2.3+). A mark inside one of them says nothing about the build.
const char* const kBothVendorsPhrases[] = {"or ROCm MI300"};

bool InBothVendorsPhrase(std::string_view text, size_t pos) {
  for (const char* p : kBothVendorsPhrases) {
    const std::string_view phrase(p);
    const size_t from = pos >= phrase.size() ? pos - phrase.size() : 0;
    const size_t at = text.find(phrase, from);
    if (at != std::string_view::npos && at <= pos && pos < at + phrase.size()) return true;
  }
  return false;
}

bool Marked(std::string_view text) {
  for (const char* m : kRocmMarks) {
    for (size_t at = text.find(m); at != std::string_view::npos; at = text.find(m, at + 1)) {
      if (!InBothVendorsPhrase(text, at)) return true;
    }
  }
  return false;
}

// The nvidia-smi commands the bundled rules use and the ROCm command that shows the same, longest first
// where one starts another; then the tool and the variable themselves.
const std::pair<const char*, const char*> kRocmCommands[] = {
    {"nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv", "rocm-smi --showmeminfo vram --csv"},
    {"nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv", "rocm-smi --showpids"},
    {"nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "rocm-smi --showpids"},
    {"nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv",
     "rocm-smi --showproductname --showdriverversion; rocminfo | grep gfx"},
    {"nvidia-smi --query-gpu=name,compute_cap --format=csv", "rocminfo | grep -E \"Marketing Name|gfx\""},
    {"nvidia-smi --query-gpu=compute_cap --format=csv", "rocminfo | grep gfx"},
    {"nvidia-smi topo -m", "rocm-smi --showtopo"},
    {"nvidia-smi -L", "rocm-smi --showproductname"},
    {"nvidia-smi", "rocm-smi"},
    {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"},
    {"torch.version.cuda", "torch.version.hip"},  // None on a ROCm build
    {"docker --gpus all", "docker --device=/dev/kfd --device=/dev/dri"},
};

}  // namespace

bool ShowsRocm(const std::vector<Incident>& incidents) {
  for (const Incident& inc : incidents) {
    if (Marked(inc.exception) || Marked(inc.message)) return true;
    for (const std::string& c : inc.context) {
      if (Marked(c)) return true;
    }
    for (const Frame& f : inc.frames) {
      if (Marked(f.file)) return true;
    }
  }
  return false;
}

std::string ForRocm(const std::string& advice) {
  std::string out;
  out.reserve(advice.size());
  for (size_t i = 0; i < advice.size();) {
    bool replaced = false;
    for (const auto& [from, to] : kRocmCommands) {
      const std::string_view f(from);
      if (advice.compare(i, f.size(), f) == 0) {
        out += to;
        i += f.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += advice[i++];
  }
  return out;
}

}  // namespace triage
