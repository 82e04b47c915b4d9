-- Lua for autocast-half-float-mix (rules/LUA_API.md, API version 1).
-- The patterns admit float on either side; the rule is about a half/float pair, so a pair of two half
-- types or two float32 names is vetoed (dtype.mismatch rules cover the rest).

local function is_half(s) return s == "Half" or s == "BFloat16" or s == "c10::Half" or s == "c10::BFloat16" end

-- score: keep the prior when exactly one side is half precision, veto otherwise.
function half_and_float(ctx)
  local a, b = ctx.captures.got or "", ctx.captures.want or ""
  if is_half(a) ~= is_half(b) then return nil end
  return false
end

function test_pairs()
  assert(half_and_float({ captures = { got = "c10::Half", want = "float" } }) == nil)
  assert(half_and_float({ captures = { got = "Float", want = "BFloat16" } }) == nil)
  assert(half_and_float({ captures = { got = "c10::Half", want = "c10::BFloat16" } }) == false)
  assert(half_and_float({ captures = { got = "float", want = "float" } }) == false)
end
