-- Lua for triton-gpu-too-old (rules/LUA_API.md, API version 1).
-- Turns the two compute capabilities into the GPU generations they stand for, so the explanation
-- says how far the card is from what Triton needs.

local GENERATIONS = { [3] = "Kepler", [5] = "Maxwell", [6] = "Pascal", [7] = "Volta/Turing", [8] = "Ampere/Ada",
                      [9] = "Hopper", [10] = "Blackwell", [12] = "Blackwell" }

-- values: {gap}, a clause naming the card's generation and the sm_ numbers (empty when the log was cut
-- before the capability).
function capability_gap(ctx)
  local have = triage.number(ctx.captures.have or "")
  local need = triage.number(ctx.captures.need or "")
  if not have or not need then
    -- The log was cut before the numbers; Triton's minimum is 7.0 in every release that prints this.
    local floor = (ctx.captures.need and ctx.captures.need ~= "") and ctx.captures.need or "7.0"
    return { gap = "", need = floor, have = "below " .. floor .. " (the number is cut from this log)" }
  end
  local major = math.floor(have)
  local gen = GENERATIONS[major]
  local sm_have = string.format("sm_%d", math.floor(have * 10 + 0.5))
  local sm_need = string.format("sm_%d", math.floor(need * 10 + 0.5))
  return { gap = string.format(" (%s, a %s card; Triton's minimum is %s)", sm_have, gen or "pre-Volta", sm_need) }
end

function test_pascal()
  local v = capability_gap({ captures = { have = "6.1", need = "7.0" } })
  assert(v.gap == " (sm_61, a Pascal card; Triton's minimum is sm_70)", v.gap)
end

function test_cut_log()
  local v = capability_gap({ captures = { gpu = "NVIDIA GeForce GTX TITAN X" } })
  assert(v.gap == "" and v.need == "7.0" and v.have == "below 7.0 (the number is cut from this log)", v.have)
end
