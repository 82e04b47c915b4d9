-- Lua for cuda-oom (rules/LUA_API.md, API version 1).
-- One allocator message, three vendors: CUDA builds, ROCm builds (hipified, "HIP out of memory") and
-- Intel GPU builds ("XPU out of memory"). The checks name the vendor's own tools and torch namespace.

local TOOLS = {
  CUDA = { smi = "nvidia-smi", smi_sub = "", api = "torch.cuda", backend_name = "CUDA",
           frag_fix = "for fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (2.1+) or max_split_size_mb." },
  HIP = { smi = "rocm-smi", smi_sub = "", api = "torch.cuda", backend_name = "ROCm (HIP)",
          frag_fix = "for fragmentation set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True or max_split_size_mb (ROCm builds also read PYTORCH_CUDA_ALLOC_CONF)." },
  XPU = { smi = "xpu-smi", smi_sub = "ps", api = "torch.xpu", backend_name = "XPU",
          frag_fix = "for fragmentation release cached blocks with torch.xpu.empty_cache() between phases (evaluation, generation) and keep tensor sizes steady from step to step." },
}

-- values: {smi}, {smi_sub}, {api}, {backend_name}, {frag_fix}.
function gpu_tools(ctx)
  local backend = string.upper(ctx.captures.backend or "CUDA")
  return TOOLS[backend] or TOOLS.CUDA
end
