-- Lua for bf16-unsupported-device (rules/LUA_API.md, API version 1).
-- When the message prints both compute capabilities, says how far the card is from bf16 support.

-- values: {gap}, a sentence comparing the two capabilities as sm_ numbers (empty when not printed).
function capability_gap(ctx)
  local have = triage.number(ctx.captures.have or "")
  local need = triage.number(ctx.captures.need or "")
  if not have or not need then return { gap = "" } end
  return { gap = string.format(" Here the %s has compute capability %s (sm_%d) against the %s (sm_%d) bf16 needs.",
                               ctx.captures.gpu or "GPU", ctx.captures.have, math.floor(have * 10 + 0.5),
                               ctx.captures.need, math.floor(need * 10 + 0.5)) }
end

function test_v100()
  local v = capability_gap({ captures = { gpu = "Tesla V100-SXM2-32GB", have = "7.0", need = "8.0" } })
  assert(v.gap == " Here the Tesla V100-SXM2-32GB has compute capability 7.0 (sm_70) against the 8.0 (sm_80) bf16 needs.", v.gap)
end

function test_no_numbers()
  assert(capability_gap({ captures = { setup = "Your setup doesn't support bf16/gpu" } }).gap == "")
end

-- when (pre-ampere-gpu): a refusal that names the device it refused is not about a GPU's generation: the
-- Apple-GPU forms (accelerate's and diffusers' "... MPS ...") and transformers' CPU form ("bf16/(cpu, ...)",
-- "bf16/cpu"). Those leave the non-CUDA reading alone.
function not_a_cpu_or_mps_refusal(ctx)
  local setup = ctx.captures.setup or ""
  return not (setup:find("MPS", 1, true) or setup:find("bf16/(cpu", 1, true) or setup:find("bf16/cpu", 1, true))
end

function test_cpu_and_mps_refusals_are_not_about_the_gpu()
  assert(not_a_cpu_or_mps_refusal({ captures = { setup = "bf16 mixed precision with MPS device requires a Pytorch >= 2.6.0" } }) == false)
  assert(not_a_cpu_or_mps_refusal({ captures = { setup = "Your setup doesn't support bf16/(cpu, tpu, neuroncore)" } }) == false)
  assert(not_a_cpu_or_mps_refusal({ captures = { setup = "Your setup doesn't support bf16/gpu" } }) == true)
  assert(not_a_cpu_or_mps_refusal({ captures = { have = "7.5", need = "8.0" } }) == true)
end

-- score: transformers and accelerate refuse bf16 whenever torch.cuda reports no bf16 GPU, and that is
-- also what they see when CUDA itself could not start (a driver older than the wheel's CUDA, no driver at
-- all). When the input shows torch's CUDA initialisation failing, that failure is the cause and the bf16
-- refusal its consequence: the candidate is demoted below it, with a note saying why. A refusal that names
-- the GPU's compute capability (vLLM's) comes from a working CUDA and is left alone.
local CUDA_DID_NOT_START = {
  "The NVIDIA driver on your system is too old",
  "Found no NVIDIA driver on your system",
  "CUDA initialization: Unexpected error from cudaGetDeviceCount",
  "CUDA driver version is insufficient for CUDA runtime version",
}

-- Read once per input (triage.per_input, rules/LUA_API.md "Reading every incident").
local function cuda_failure(incidents)
  return triage.message_literal(incidents, CUDA_DID_NOT_START)
end

function after_cuda_failure(ctx)
  -- a program's "GPU does not support bfloat16" is a refusal only when it was raised; printed without an
  -- exception type it is a fallback note (the run went on in fp16 or fp32), not a failure
  if (ctx.captures.script_refusal or "") ~= "" and ((ctx.incident or {}).exception or "") == "" then
    return false
  end
  -- axolotl's merge-only form is a warning: merging a LoRA needs no bf16 arithmetic, and the run goes on
  if ((ctx.incident or {}).message or ""):find("Training will fail, but other operations", 1, true) then
    return false
  end
  if (ctx.captures.have or "") ~= "" then return nil end
  local cause = triage.per_input(ctx, cuda_failure)
  if not cause then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = string.format(" The input also shows CUDA failing to start (\"%s\"), so no GPU was usable and the bf16 refusal follows from that failure; fix it first.", cause) }
end

function test_demoted_after_driver_warning()
  local incidents = {
    { message = "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)." },
    { message = "Your setup doesn't support bf16/gpu." },
  }
  local r = after_cuda_failure({ captures = { setup = "Your setup doesn't support bf16/gpu" }, incidents = incidents, confidence = 0.9 })
  assert(type(r) == "table" and r.confidence == 0.45 and r.note:find("too old", 1, true), "not demoted")
end

function test_kept_with_capability_or_alone()
  local incidents = { { message = "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU" } }
  assert(after_cuda_failure({ captures = { have = "7.5", need = "8.0" }, incidents = incidents, confidence = 0.9 }) == nil)
  assert(after_cuda_failure({ captures = { setup = "x" }, incidents = { { message = "Your setup doesn't support bf16/gpu." } }, confidence = 0.9 }) == nil)
end

-- Each pair: the words printed as a note (the run went on) and raised (the run stopped), with their capture.
local NOTES_AND_REFUSALS = {
  { "script_refusal", "GPU does not support bfloat16",
    { exception = "", message = "GPU does not support bfloat16. Using FP16 training." },
    { exception = "ValueError", message = "GPU does not support bfloat16, please use a GPU that supports bfloat16." } },
  { "setup", "AMP is not supported on this GPU",
    { exception = "", message = "bf16 requested, but AMP is not supported on this GPU. Requires Ampere series or above. Training will fail, but other operations (such as merging) are still functional." },
    { exception = "ValueError", message = "bf16 requested, but AMP is not supported on this GPU. Requires Ampere series or above." } },
}

function test_notes_vetoed_refusals_kept()
  for _, case in ipairs(NOTES_AND_REFUSALS) do
    local name, text, note, raised = case[1], case[2], case[3], case[4]
    assert(after_cuda_failure({ captures = { [name] = text }, incident = note, incidents = { note }, confidence = 0.9 }) == false, note.message)
    assert(after_cuda_failure({ captures = { [name] = text }, incident = raised, incidents = { raised }, confidence = 0.9 }) == nil, raised.message)
  end
end
