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
