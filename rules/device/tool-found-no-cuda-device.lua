-- Lua for tool-found-no-cuda-device (rules/LUA_API.md, API version 1).
-- The tools' checks (Note: [Tools that check for CUDA first] in the YAML) say only that torch has no CUDA
-- device; which of the causes it is shows elsewhere in the paste, and the advice follows it (issue 12, item 7):
--   the message shows CUDA working (Ultralytics prints is_available() True)  -> too many GPUs asked for, alone;
--   the web UI's AMD fork (its folder in the paths, DirectML or ZLUDA named)  -> its backend option first;
--   a machine with no NVIDIA GPU (macOS paths, Apple silicon, Intel or AMD graphics named and no NVIDIA
--   card, nvidia-smi missing)                                                  -> the tool's CPU option first;
--   a ROCm build of torch (+rocm, HIP's own messages)                          -> the CUDA build first;
--   a +cpu torch named (a banner, pip's lines)                                 -> the CUDA build first, with it as evidence;
--   nothing                                                                    -> CPU-only build, then no NVIDIA GPU, then driver.

-- What each tool's own CPU route is, by the wording that matched.
local TOOLS = {
  ["Torch is not able to use GPU"] = {
    "The web UI's start-up check (AUTOMATIC1111 launch.py)",
    "add --skip-torch-cuda-test --use-cpu all --precision full --no-half to COMMANDLINE_ARGS in webui-user.bat (webui-user.sh on Linux)" },
  ["No supported gpu backend found"] = { "Lightning's Trainer", 'build the Trainer with accelerator="cpu" (or accelerator="auto")' },
  ["Failed to infer device type"] = { "vLLM's engine start-up", "use a vLLM build for the CPU (built with VLLM_TARGET_DEVICE=cpu) or an engine that runs on the CPU" },
}
local QUANTIZERS = { "transformers' quantization set-up (bitsandbytes, GPTQ or AWQ)",
  "load the model without quantization (no load_in_8bit, load_in_4bit or quantization_config), in float32 or bfloat16" }
TOOLS["A GPU is needed for quantization"] = QUANTIZERS
TOOLS["GPU is required to quantize or run quantize model"] = QUANTIZERS
TOOLS["GPU is required to run AWQ quantized model"] = QUANTIZERS
TOOLS["CUDA is not availabe on this machine"] = { "Coqui TTS's synthesizer",
  "drop --use_cuda from the tts command (use_cuda=False, or gpu=False, in Python)" }
TOOLS["fp16 mixed precision requires a GPU"] = { "accelerate's mixed-precision set-up",
  "set mixed precision to no (accelerate config, or accelerate launch --mixed_precision no), or bf16 where the device has it" }
TOOLS["fp16 mixed precision requires a device"] = TOOLS["fp16 mixed precision requires a GPU"]
TOOLS["You requested to find"] = { "Lightning's CUDA device lookup (Trainer devices=N)",
  'build the Trainer with accelerator="cpu" (or accelerator="auto")' }
TOOLS["Unable to proceed, no GPU resources available"] = { "DeepSpeed's launcher (the deepspeed command)",
  "start the script with plain python and without the DeepSpeed config; ZeRO and its offload need a GPU" }
-- The device accelerate got instead of a GPU, when it says which.
local NOT_A_GPU = { mps = "Apple's GPU as accelerate's device, 'mps'", xla = "a TPU as accelerate's device, 'xla'" }

-- What the paste shows the machine has instead of an NVIDIA GPU: the input's lines, or the message's device,
-- or the environment facts of lines no rule reads (a script's `Device: mps`, a macOS path; rules/README.md
-- "Environment facts"), unless an NVIDIA card is named.
local function hardware_of(ctx, env)
  local facts = ctx.facts or {}
  local from_facts = nil
  if not env.nvidia then
    if facts.device == "mps" then
      from_facts = "Apple's GPU as the run's device, 'mps'"
    elseif facts.os == "macos" then
      from_facts = "macOS paths"
    end
  end
  return env.hardware or NOT_A_GPU[(ctx.captures or {}).device_type or ""] or from_facts
end

local MAC_PATHS = { "^/Users/", "^/opt/homebrew/", "/Library/Frameworks/Python%.framework/" }
-- Lines that name what the machine has instead of an NVIDIA GPU (checked only when no NVIDIA card is named).
local OTHER_GPU = {
  "Intel%(R%) U?HD Graphics", "Intel%(R%) Iris", "AMD Radeon%(TM%) Graphics", "Radeon RX ?%d+", "Apple M%d",
  "'nvidia%-smi' is not recognized", "nvidia%-smi: command not found",
}
local NVIDIA_CARD = { "GeForce", "RTX ?%d", "GTX ?%d", "Tesla ", "Quadro", "NVIDIA A%d" }

-- torch's own words for why it has no CUDA device (the warning torch.cuda.is_available() prints, its errors):
-- where the input holds one, that message's rule names the cause and this check's reading steps aside.
local TORCH_REASONS = {
  "NVIDIA driver on your system is too old", "CUDA initialization: ", "HIP initialization: ", "Found no NVIDIA driver",
  "no CUDA-capable device is detected", "CUDA driver version is insufficient", "Unexpected error from cudaGetDeviceCount",
}

local reads = 0  -- runs of read_environment, for test_incidents_read_once

local function first_of(text, patterns)
  for _, p in ipairs(patterns) do
    local s, e = text:find(p)
    if s then return text:sub(s, e) end
  end
  return nil
end

-- Everything the paste shows of the environment, read once per input: the text of every incident (message
-- and context lines) and the files of their frames.
local function read_environment(incidents)
  reads = reads + 1
  local texts, files = {}, {}
  for _, inc in ipairs(incidents or {}) do
    texts[#texts + 1] = inc.message or ""
    for _, l in ipairs(inc.context or {}) do texts[#texts + 1] = l end
    for _, f in ipairs(inc.frames or {}) do files[#files + 1] = f.file or "" end
  end
  local text, paths = table.concat(texts, "\n"), table.concat(files, "\n")
  local env = {}
  for _, r in ipairs(TORCH_REASONS) do
    local at = text:find(r, 1, true)
    if at then env.torch_reason = text:match("[^\n]*", at):sub(1, 100); break end
  end
  local fork = (text .. "\n" .. paths):lower()
  env.amd_fork = (fork:find("stable%-diffusion%-webui%-directml") or fork:find("stable%-diffusion%-webui%-amdgpu"))
      and "the web UI's AMD fork (its folder in the paths)"
      or ((fork:find("directml", 1, true) or fork:find("zluda", 1, true)) and "DirectML or ZLUDA named in the paste") or nil
  env.rocm = first_of(text, { "[Tt]orch[%s%-=]+%d+%.%d+[%.%d]*%+rocm[%d.]*", "HIP initialization", "No HIP GPUs" })
  env.cpu = first_of(text, { "[Tt]orch[%s%-=]+%d+%.%d+[%.%d]*%+cpu" })
  env.nvidia = first_of(text, NVIDIA_CARD)
  if not env.nvidia then
    for _, f in ipairs(files) do
      if first_of(f, MAC_PATHS) then env.hardware = "macOS paths"; break end
    end
    env.hardware = env.hardware or first_of(text, OTHER_GPU)
  end
  return env
end

local function environment(ctx) return triage.per_input(ctx, read_environment) end

-- values: the tool's name and CPU option, and what the paste shows.
function tool_and_evidence(ctx)
  local c = ctx.captures or {}
  local msg = (ctx.incident and ctx.incident.message) or ""
  local tool = TOOLS[c.wording or ""]
  if not tool then
    if msg:find("'device=", 1, true) then
      tool = { "Ultralytics' device selection", "pass device='cpu' (device='mps' on Apple silicon)" }
    else
      tool = { "The YOLO script's device selection", "run with --device cpu" }
    end
  end
  local env = environment(ctx)
  return { tool = tool[1], cpu_option = tool[2], hardware = hardware_of(ctx, env) or "", rocm = env.rocm or "",
           held = c.busy or "", wanted = c.requested or "",
           asked = (c.visible and c.visible ~= "") and ("devices=" .. c.requested)
             or ((c.requested and c.requested ~= "") and ("device " .. c.requested) or "a device") }
end

-- score: kept, unless torch's own message in the input says why there is no CUDA device (an old driver, no
-- driver, a failed initialisation): then that diagnosis is the cause and this one only its consequence.
function steps_aside(ctx)
  local reason = environment(ctx).torch_reason
  if not reason then return nil end
  return { confidence = math.min(ctx.confidence or 1, 0.6),
           note = 'torch says why it has no CUDA device ("' .. reason .. '"), so the diagnosis of that message comes first.' }
end

-- when (fewer-gpus-than-requested): the message itself says CUDA works (Ultralytics prints is_available()).
function fewer_gpus(ctx)
  local m = (ctx.incident and ctx.incident.message) or ""
  -- Lightning's lookup counts the GPUs it sees: some, but fewer than devices=N
  local seen = tonumber((ctx.captures or {}).visible or "")
  if seen and seen > 0 then return "the message says the machine has " .. seen .. " GPUs (CUDA works)" end
  if not m:find("is_available(): True", 1, true) then return false end
  return "the message shows torch.cuda.is_available() True and device_count() " .. (m:match("device_count%(%): (%d+)") or "?")
end

-- when (gpus-held-by-other-processes): Lightning's lookup names GPUs that other processes hold.
function gpus_busy(ctx)
  local busy = (ctx.captures or {}).busy
  if not busy or busy == "" then return false end
  return "the message says the devices " .. busy .. " are occupied by other processes"
end

-- Whether the message shows CUDA working: then none of the readings of a missing CUDA device applies.
local function cuda_works(ctx) return fewer_gpus(ctx) ~= false or gpus_busy(ctx) ~= false end

function amd_fork(ctx)
  local env = environment(ctx)
  if cuda_works(ctx) then return false end
  return env.amd_fork and ("the input shows " .. env.amd_fork) or false
end

function no_nvidia_shown(ctx)
  local env = environment(ctx)
  local hw = hardware_of(ctx, env)
  if env.amd_fork or not hw or cuda_works(ctx) then return false end
  return "the input shows " .. hw .. " and no NVIDIA card"
end

function rocm_shown(ctx)
  local env = environment(ctx)
  if env.amd_fork or hardware_of(ctx, env) or not env.rocm or cuda_works(ctx) then return false end
  return "the input shows " .. env.rocm
end

function cpu_build_possible(ctx)
  local env = environment(ctx)
  if env.amd_fork or hardware_of(ctx, env) or env.rocm or cuda_works(ctx) then return false end
  return env.cpu and ("the input shows " .. env.cpu) or true
end

function hardware_unknown(ctx)
  local env = environment(ctx)
  return not (env.amd_fork or hardware_of(ctx, env) or env.rocm or cuda_works(ctx))
end

function nvidia_possible(ctx)
  local env = environment(ctx)
  return not (env.amd_fork or hardware_of(ctx, env) or cuda_works(ctx))
end

local function ctx_of(incs) return { captures = {}, incident = incs[1], incidents = incs } end

function test_plus_cpu_banner()
  local incs = { { message = "Ultralytics YOLOv8.1.3 Python-3.10.11 torch-2.1.0+cpu\nInvalid CUDA 'device=0' requested." } }
  local ctx = ctx_of(incs)
  assert(cpu_build_possible(ctx) == "the input shows torch-2.1.0+cpu")
  assert(tool_and_evidence(ctx).cpu_option:find("device='cpu'", 1, true))
  assert(no_nvidia_shown(ctx) == false and hardware_unknown(ctx) == true)
end

function test_intel_graphics_without_nvidia()
  local incs = { { message = "Torch is not able to use GPU", context = { "GPU 0: Intel(R) UHD Graphics 620" } } }
  local ctx = ctx_of(incs)
  assert(no_nvidia_shown(ctx):find("Intel(R) UHD Graphics", 1, true))
  assert(cpu_build_possible(ctx) == false and nvidia_possible(ctx) == false)
end

function test_intel_graphics_beside_an_nvidia_card()
  local incs = { { message = "Intel(R) UHD Graphics 630\nNVIDIA GeForce RTX 3060\nTorch is not able to use GPU" } }
  local ctx = ctx_of(incs)
  assert(no_nvidia_shown(ctx) == false and cpu_build_possible(ctx) == true)
end

function test_rocm_build()
  local incs = { { message = "UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount()" } }
  assert(rocm_shown(ctx_of(incs)) == "the input shows HIP initialization")
end

function test_mps_device_fact_is_no_nvidia_gpu()
  local incs = { { message = "A GPU is needed for quantization." } }
  local ctx = ctx_of(incs)
  ctx.facts = { device = "mps" }
  assert(no_nvidia_shown(ctx) == "the input shows Apple's GPU as the run's device, 'mps' and no NVIDIA card")
  assert(cpu_build_possible(ctx) == false and nvidia_possible(ctx) == false)
  local card = ctx_of({ { message = "A GPU is needed for quantization.\nNVIDIA GeForce RTX 3060" } })
  card.facts = { device = "mps" }
  assert(no_nvidia_shown(card) == false)
end

function test_windows_users_path_is_no_mac()
  local incs = { { message = "Torch is not able to use GPU", frames = { { file = "C:\\Users\\a\\sd\\launch.py" } } } }
  assert(no_nvidia_shown(ctx_of(incs)) == false)
end

function test_steps_aside_for_torchs_own_reason()
  local incs = {
    { message = "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11070)." },
    { message = "No GPU found. A GPU is needed for quantization." } }
  local ctx = { captures = {}, incident = incs[2], incidents = incs, confidence = 0.9 }
  local r = steps_aside(ctx)
  assert(r.confidence == 0.6 and r.note:find("too old", 1, true))
  assert(steps_aside(ctx_of({ { message = "No GPU found. A GPU is needed for quantization." } })) == nil)
end

function test_cuda_works_but_fewer_gpus()
  local incs = { { message = "Invalid CUDA 'device=0,1' requested.\n\ntorch.cuda.is_available(): True\ntorch.cuda.device_count(): 1" } }
  local ctx = ctx_of(incs)
  assert(fewer_gpus(ctx):find("device_count() 1", 1, true))
  assert(cpu_build_possible(ctx) == false and hardware_unknown(ctx) == false and nvidia_possible(ctx) == false)
  assert(fewer_gpus(ctx_of({ { message = "torch.cuda.is_available(): False" } })) == false)
end

function test_incidents_read_once()
  local ctx = ctx_of({ { message = "Torch is not able to use GPU" } })
  local before = reads
  tool_and_evidence(ctx); steps_aside(ctx); amd_fork(ctx); no_nvidia_shown(ctx); cpu_build_possible(ctx); nvidia_possible(ctx)
  assert(reads == before + 1)
end
