-- Lua for xformers-no-operator (rules/LUA_API.md, API version 1).
-- score: when the input also shows that xFormers' compiled extension did not load (each kernel's reasons
-- say "xFormers wasn't build with CUDA support"), no kernel could ever run: the cause is the installation
-- (xformers-not-built-for-torch), and this candidate is demoted below it.

local NOT_BUILT = { "xFormers wasn't build with CUDA support" }

-- Read once per input (triage.per_input, rules/LUA_API.md "Reading every incident").
local function not_built(incidents)
  return triage.message_literal(incidents, NOT_BUILT) ~= nil
end

function unless_not_built(ctx)
  if not triage.per_input(ctx, not_built) then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = " Here the kernels' reasons say xFormers' compiled extension did not load, so the installation is the cause." }
end

function test_demoted_when_extension_missing()
  local incidents = { { message = "No operator found for `memory_efficient_attention_forward` with inputs:" },
                      { message = "    xFormers wasn't build with CUDA support" } }
  local r = unless_not_built({ incidents = incidents, confidence = 0.8 })
  assert(type(r) == "table" and r.confidence == 0.4)
  assert(unless_not_built({ incidents = { incidents[1] }, confidence = 0.8 }) == nil)
end
