-- Lua for loss-is-nan (rules/LUA_API.md, API version 1).
-- A printed NaN loss is a NaN loss, but where the run keeps coming back to finite losses (ctx.metrics'
-- exact recovery count), the non-finite steps were skipped, not applied: the loss scaler's shape, which
-- nan-loss-recurs-and-recovers (amp.fp16_overflow) reads. This rule then steps back to an alternative.

-- The run came back to finite values this often before the rule gives way.
local RECURRING = 2

local function recoveries(ctx)
  local m = ctx.metrics or {}
  local best = 0
  for _, name in ipairs({ "loss", "val_loss" }) do
    local s = m[name]
    if s and (s.recoveries or 0) > best then best = s.recoveries end
  end
  return best
end

-- score: unchanged, unless the printed loss recovered from non-finite values RECURRING times or more.
function unless_recurring(ctx)
  local n = recoveries(ctx)
  if n < RECURRING then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = string.format(" The printed loss came back to finite values %d times after non-finite ones, so those steps were skipped rather than applied (a loss scaler's doing): see the fp16 overflow reading.", n) }
end

function test_stayed_nan()
  assert(unless_recurring({ confidence = 0.9, metrics = { loss = { recoveries = 1 } } }) == nil)
  assert(unless_recurring({ confidence = 0.9, metrics = {} }) == nil)
end

function test_recurring()
  local r = unless_recurring({ confidence = 0.9, metrics = { loss = { recoveries = 4 } } })
  assert(r.confidence == 0.45 and r.note:find("4 times", 1, true))
end
