-- Lua for fsdp-mixed-dtype (rules/LUA_API.md, API version 1).
-- Reads the dtype pair FSDP refused and says what such a pair usually means.

local HALF = { ["torch.float16"] = true, ["torch.bfloat16"] = true }
local FULL = { ["torch.float32"] = true, ["torch.float64"] = true }

-- values: {pair}, a sentence about this particular pair of dtypes.
function dtype_pair(ctx)
  local a, b = ctx.captures.first or "", ctx.captures.second or ""
  local text
  if HALF[a] and HALF[b] then
    text = string.format("Both are half-precision types (%s and %s): typically the model was loaded in one and the "
                         .. "trainer's mixed-precision setting or an adapter created parameters in the other.", a, b)
  elseif (HALF[a] and FULL[b]) or (FULL[a] and HALF[b]) then
    local low = HALF[a] and a or b
    local high = HALF[a] and b or a
    text = string.format("Most of the unit is probably %s with a few %s parameters left over (norm layers or heads "
                         .. "kept in full precision, or newly added adapter weights).", low, high)
  elseif a:find("int") or b:find("int") or a:find("uint8") or b:find("uint8") then
    text = "One side is an integer type: quantised weights cannot be flattened together with floating-point ones."
  else
    text = string.format("The two dtypes are %s and %s.", a, b)
  end
  return { pair = text }
end

function test_pairs()
  assert(dtype_pair({ captures = { first = "torch.bfloat16", second = "torch.float16" } }).pair:find("Both are half", 1, true))
  local p = dtype_pair({ captures = { first = "torch.bfloat16", second = "torch.float32" } }).pair
  assert(p:find("probably torch.bfloat16 with a few torch.float32", 1, true), p)
  assert(dtype_pair({ captures = { first = "torch.uint8", second = "torch.bfloat16" } }).pair:find("integer", 1, true))
end
