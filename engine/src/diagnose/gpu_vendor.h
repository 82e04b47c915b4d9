// Note: [ROCm advice]
// PyTorch's ROCm builds are hipified: the same torch.cuda API, but an AMD GPU whose tools are not
// NVIDIA's. A rule's checks and tests name NVIDIA's (nvidia-smi, CUDA_VISIBLE_DEVICES), which a reader
// on ROCm cannot run. When the input shows a ROCm build (a HIP error or hipError name, "HIP out of
// memory", HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES, ROCm, MIOpen, rocBLAS, hipBLAS, RCCL, amdgpu,
// HSA_STATUS in an incident's message, context or frames; not ROCm named as one of an op's platforms in a
// message every build prints, as the fp8 matmul check's "or ROCm MI300+"), the advice of every diagnosis (checks,
// hypothesis tests and fixes, the verification) names the ROCm counterparts instead: each nvidia-smi
// command the bundled rules use becomes the rocm-smi or rocminfo command that shows the same thing,
// any other nvidia-smi becomes rocm-smi, CUDA_VISIBLE_DEVICES becomes HIP_VISIBLE_DEVICES,
// torch.version.cuda (None there) torch.version.hip, docker --gpus all the AMD devices. Titles and
// explanations are left as the rule wrote them. A rule that already names the vendor's tools itself
// (a Lua `values` reading "HIP" in the message, as cuda/cuda-oom.lua) is left as it is: nothing
// NVIDIA's is left in it to replace.
#ifndef TRIAGE_ENGINE_DIAGNOSE_GPU_VENDOR_H_
#define TRIAGE_ENGINE_DIAGNOSE_GPU_VENDOR_H_

#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage {

// True when the incidents show a ROCm (HIP) build of PyTorch.
bool ShowsRocm(const std::vector<Incident>& incidents);

// Rewrites one text of advice for a ROCm reader: NVIDIA's commands and variables become ROCm's.
std::string ForRocm(const std::string& advice);

}  // namespace triage

#endif  // TRIAGE_ENGINE_DIAGNOSE_GPU_VENDOR_H_
