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
-- Note: [Writer warning with a finite loss]. tensorboard(X)'s "NaN or Inf found in input tensor" says
-- only that some scalar written to the event file was not finite: often a gradient norm on a loss
-- scaler's skipped step, or a metric of an empty batch. When the loss the log prints has at least
-- MIN_FINITE values and none of them is non-finite, the loss is not the non-finite value: the
-- diagnosis is demoted under the abstention threshold, with why.
local MIN_FINITE = 3
local DEMOTED = 0.2

local function loss_stays_finite(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  if not s then return nil end
  if (s.nonfinite or 0) > 0 then return nil end
  local v = triage.finite(s.values)
  if (s.count or #v) < MIN_FINITE then return nil end
  return v
end

function unless_recurring(ctx)
  if (ctx.captures or {}).value == "NaN or Inf" then
    local v = loss_stays_finite(ctx)
    if v then
      return { confidence = math.min(ctx.confidence, DEMOTED),
               note = string.format(" Demoted: the warning is TensorBoard's, about some scalar it was given, while the loss the log prints stays finite (%d values, from %.4g to %.4g); a gradient norm logged on a skipped fp16 step or a metric of an empty batch prints it too.",
                                    ctx.metrics.loss.count or #v, v[1], v[#v]) }
    end
  end
  local n = recoveries(ctx)
  if n < RECURRING then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = string.format(" The printed loss came back to finite values %d times after non-finite ones, so those steps were skipped rather than applied (a loss scaler's doing): see the fp16 overflow reading.", n) }
end

function test_writer_warning_with_finite_loss_demotes()
  local ctx = { confidence = 0.6, captures = { value = "NaN or Inf" },
                metrics = { loss = { count = 4, nonfinite = 0, values = { 0.035, 0.0041, 0.0028, 0.0023 } } } }
  local r = unless_recurring(ctx)
  assert(r.confidence < 0.35 and r.note:find("from 0.035 to 0.0023", 1, true), r.note)
end

function test_writer_warning_with_nan_loss_keeps()
  local ctx = { confidence = 0.6, captures = { value = "NaN or Inf" },
                metrics = { loss = { count = 5, nonfinite = 2, recoveries = 0, values = { 3.2, 3.1, 2.9, 0 / 0, 0 / 0 } } } }
  assert(unless_recurring(ctx) == nil)
  assert(unless_recurring({ confidence = 0.6, captures = { value = "NaN or Inf" }, metrics = {} }) == nil)
end

function test_stayed_nan()
  assert(unless_recurring({ confidence = 0.9, metrics = { loss = { recoveries = 1 } } }) == nil)
  assert(unless_recurring({ confidence = 0.9, metrics = {} }) == nil)
end

function test_recurring()
  local r = unless_recurring({ confidence = 0.9, metrics = { loss = { recoveries = 4 } } })
  assert(r.confidence == 0.45 and r.note:find("4 times", 1, true))
end

-- Note: [NaN before any update]. "The learning rate is too high" explains a loss that was finite and
-- diverged. A loss whose first printed value is already non-finite, printed at step 0 or 1 or with a
-- learning rate of 0, was NaN before any update could move the weights: the forward pass itself (the
-- data, an unsafe op, an fp16 overflow) made it, so that hypothesis is left out.
function updates_could_diverge(ctx)
  local m = ctx.metrics or {}
  local s = m.loss
  if not s or not s.values or #s.values == 0 then return true end
  local first = s.values[1]
  if first == first and first ~= math.huge and first ~= -math.huge then return true end
  local step = s.steps and s.steps[1]
  local lr = m.lr and m.lr.values and m.lr.values[1]
  if (step ~= nil and step <= 1) or lr == 0 then return false end
  return true
end

function test_nan_before_any_update()
  local nan = 0 / 0
  assert(updates_could_diverge({ metrics = { loss = { steps = { 0, 100 }, values = { nan, nan } } } }) == false)
  assert(updates_could_diverge({ metrics = { loss = { steps = { 500, 600 }, values = { nan, nan } },
                                             lr = { values = { 0, 2e-08 } } } }) == false)
  assert(updates_could_diverge({ metrics = { loss = { steps = { 500, 600 }, values = { nan, nan } } } }) == true)
  assert(updates_could_diverge({ metrics = { loss = { steps = { 0, 100 }, values = { 2.3, nan } } } }) == true)
  assert(updates_could_diverge({ metrics = {} }) == true)
end
