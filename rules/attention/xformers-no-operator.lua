-- Lua for xformers-no-operator (rules/LUA_API.md, API version 1).
-- score: the kernels' reasons can name a cause another rule reads more precisely, and then this candidate is
-- demoted below it: "xFormers wasn't build with CUDA support" (the compiled extension did not load, so no
-- kernel could ever run: the installation, xformers-not-built-for-torch), and "bf16 is only supported on
-- A100+ GPUs" (bf16 inputs on a card below sm_80, where the same kernels take float16: bf16-unsupported-device).

local NOT_BUILT = { "xFormers wasn't build with CUDA support" }
local BF16_REFUSED = { "bf16 is only supported on A100+ GPUs" }

-- Which of the two reasons the input shows, read once per input (triage.per_input, rules/LUA_API.md
-- "Reading every incident"); the installation first, since nothing runs without it.
local function named_cause(incidents)
  if triage.message_literal(incidents, NOT_BUILT) then return "not-built" end
  if triage.message_literal(incidents, BF16_REFUSED) then return "bf16" end
  return false
end

local NOTES = {
  ["not-built"] = " Here the kernels' reasons say xFormers' compiled extension did not load, so the installation is the cause.",
  bf16 = " Here the kernels' reasons say their bf16 versions need an A100-class GPU (compute capability 8.0): the inputs are bfloat16 on an older card, where the same kernels accept float16.",
}

function unless_reasons_name_a_cause(ctx)
  local cause = triage.per_input(ctx, named_cause)
  if not cause then return nil end
  return { confidence = ctx.confidence * 0.5, note = NOTES[cause] }
end

function test_demoted_when_extension_missing()
  local incidents = { { message = "No operator found for `memory_efficient_attention_forward` with inputs:" },
                      { message = "    xFormers wasn't build with CUDA support" } }
  local r = unless_reasons_name_a_cause({ incidents = incidents, confidence = 0.8 })
  assert(type(r) == "table" and r.confidence == 0.4)
  assert(unless_reasons_name_a_cause({ incidents = { incidents[1] }, confidence = 0.8 }) == nil)
end

function test_demoted_when_bf16_refused()
  local incidents = { { message = "No operator found for `memory_efficient_attention_forward` with inputs:" },
                      { message = "    bf16 is only supported on A100+ GPUs" } }
  local r = unless_reasons_name_a_cause({ incidents = incidents, confidence = 0.8 })
  assert(type(r) == "table" and r.confidence == 0.4 and r.note:find("float16", 1, true), "not demoted")
  -- float32 inputs on the same card: no kernel reason names another rule's cause
  local fp32 = { { message = "No operator found for `memory_efficient_attention_forward` with inputs:" },
                 { message = "    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})" } }
  assert(unless_reasons_name_a_cause({ incidents = fp32, confidence = 0.8 }) == nil)
end
