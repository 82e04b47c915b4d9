-- Lua for deepspeed-steps-skipped (rules/LUA_API.md, API version 1).
-- DeepSpeed's progress line counts the optimizer steps taken and skipped so far. A run skips steps at the
-- start while the dynamic loss scale comes down (one halving per skipped step, from 2^16 or 2^32: at most
-- about 32 steps, a few more with hysteresis), so the rule keeps the candidate only when, on the newest
-- line of the incident, more than WARMUP steps were skipped and they are at least half of all steps.

local WARMUP = 32

-- The newest (largest) step and its skipped count among the progress lines of the incident's message.
local function newest(ctx)
  local msg = (ctx.incident and ctx.incident.message) or ""
  local step, skipped
  for s, k in msg:gmatch("step=(%d+), skipped=(%d+), lr=") do
    s, k = tonumber(s), tonumber(k)
    if not step or s >= step then step, skipped = s, k end
  end
  return step, skipped
end

function skip_counts(ctx)
  local step, skipped = newest(ctx)
  return { step = tostring(step or "?"), skipped = tostring(skipped or "?") }
end

function most_steps_skipped(ctx)
  local step, skipped = newest(ctx)
  if not step or not skipped then return false end
  if skipped > WARMUP and 2 * skipped >= step then return nil end
  return false
end

local function ctx_of(msg) return { incident = { message = msg } } end

function test_newest_line_decides()
  local ctx = ctx_of("[Rank 0] step=10, skipped=10, lr=[0.0]\n[Rank 0] step=1000, skipped=18, lr=[2e-05]")
  assert(skip_counts(ctx).step == "1000" and skip_counts(ctx).skipped == "18")
  assert(most_steps_skipped(ctx) == false)
end

function test_every_step_skipped()
  assert(most_steps_skipped(ctx_of("[Rank 0] step=100, skipped=100, lr=[0.0]")) == nil)
  assert(most_steps_skipped(ctx_of("[Rank 0] step=30, skipped=30, lr=[0.0]")) == false)
end
