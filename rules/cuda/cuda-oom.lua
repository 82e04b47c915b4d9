-- Lua for cuda-oom (rules/LUA_API.md, API version 1).
-- One allocator message, four vendors: CUDA builds, ROCm builds (hipified, "HIP out of memory"), Intel GPU
-- builds ("XPU out of memory") and Ascend's torch_npu plugin ("NPU out of memory"). The checks name the vendor's own tools and torch namespace.

local TOOLS = {
  CUDA = { smi = "nvidia-smi", smi_sub = "", api = "torch.cuda", backend_name = "CUDA",
           frag_fix = "for fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (2.1+) or max_split_size_mb." },
  HIP = { smi = "rocm-smi", smi_sub = "", api = "torch.cuda", backend_name = "ROCm (HIP)",
          frag_fix = "for fragmentation set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True or max_split_size_mb (ROCm builds also read PYTORCH_CUDA_ALLOC_CONF)." },
  XPU = { smi = "xpu-smi", smi_sub = "ps", api = "torch.xpu", backend_name = "XPU",
          frag_fix = "for fragmentation release cached blocks with torch.xpu.empty_cache() between phases (evaluation, generation) and keep tensor sizes steady from step to step." },
  -- Huawei Ascend through the torch_npu plugin, whose caching allocator words its report like the CUDA one
  NPU = { smi = "npu-smi", smi_sub = "info", api = "torch.npu", backend_name = "Ascend NPU (torch_npu)",
          frag_fix = "for fragmentation set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True or max_split_size_mb (torch_npu's allocator settings)." },
}

-- values: {smi}, {smi_sub}, {api}, {backend_name}, {frag_fix}.
local BLOCK_LIMIT = "Current platform can NOT allocate memory block with size larger than 4GB"

local function backend_of(ctx)
  if (ctx.incident and ctx.incident.message or ""):find(BLOCK_LIMIT, 1, true) then return "XPU" end
  return string.upper(ctx.captures.backend or "CUDA")
end

function gpu_tools(ctx)
  return TOOLS[backend_of(ctx)] or TOOLS.CUDA
end

-- GiB in "4.00 GiB", "334.79 MiB", "1024 bytes".
local UNIT = { bytes = 1 / 2^30, KiB = 1 / 2^20, MiB = 1 / 1024, GiB = 1, TiB = 1024 }
local function gib(number, unit)
  local n, u = tonumber(number), UNIT[unit or ""]
  if not n or not u then return nil end
  return n * u
end

-- when (xpu-block-over-4gb): an Intel GPU refused one block of 4 GiB or more that fitted in what was
-- free (the 2.x message says what is free; IPEX's 1.x layout says what PyTorch already held).
function xpu_block_limit(ctx)
  if backend_of(ctx) ~= "XPU" then return false end
  local msg = (ctx.incident and ctx.incident.message) or ""
  local want = gib(msg:match("[Tt]ried to allocate ([%d.]+) (%a+)"))
  if not want or want < 4 then return false end
  local free = gib(msg:match("of which ([%d.]+) (%a+) is free"))
  if not free then
    local total = gib(msg:match("([%d.]+) (%a+) total capacity"))
    local held = gib(msg:match("([%d.]+) (%a+) reserved in total by PyTorch")) or 0
    if total then free = total - held end
  end
  if not free or free < want then return false end
  return string.format("%.2f GiB asked for in one block, %.2f GiB free", want, free)
end

function test_block_over_4gb()
  local ctx = { captures = { backend = "XPU" }, incident = { message = "XPU out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 15.11 GiB of which 15.11 GiB is free." } }
  assert(xpu_block_limit(ctx) == "4.00 GiB asked for in one block, 15.11 GiB free")
  ctx.incident.message = BLOCK_LIMIT .. "! Tried to allocate 7.62 GiB (GPU  0; 15.11 GiB total capacity; 334.79 MiB already allocated; 474.00 MiB reserved in total by PyTorch)"
  ctx.captures = {}
  assert(xpu_block_limit(ctx):find("7.62 GiB asked for", 1, true))
end

function test_not_block_limit()
  -- a full GPU, a small request, another vendor
  assert(xpu_block_limit({ captures = { backend = "XPU" }, incident = { message = "XPU out of memory. Tried to allocate 6.00 GiB. GPU 0 has a total capacity of 15.11 GiB of which 2.10 GiB is free." } }) == false)
  assert(xpu_block_limit({ captures = { backend = "XPU" }, incident = { message = "XPU out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 11.93 GiB of which 5.62 MiB is free." } }) == false)
  assert(xpu_block_limit({ captures = { backend = "CUDA" }, incident = { message = "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 70.00 GiB is free." } }) == false)
end
