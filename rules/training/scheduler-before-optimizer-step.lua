-- The warning is harmful only when optimizer.step() never runs, and then the printed loss stays level.
-- Note: [Scheduler warning evidence]. The warning alone cannot tell a misordered loop (harmless: one
-- learning-rate value skipped) from a missing step, so the loss the log prints decides:
--   falls by 10% or more (of its first value's size, so a negative loss falls too) -> the weights are updated: demoted under the abstention threshold, with why;
--   stays level (within 1%) -> the harmful reading holds: confidence raised;
--   no loss printed         -> nothing supports the harmful reading: demoted (abstain rather than guess).
-- Anything in between (a noisy loss that does not fall) keeps the prior.

local DEMOTED = 0.2   -- under the default abstention threshold (0.35): shown only with --min-confidence
local SUPPORTED = 0.8

local function finite_values(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  return triage.finite(s and s.values)
end

local function fmt(x) return string.format("%.4g", x) end

function loss_evidence(ctx)
  local v = finite_values(ctx)
  if #v < 3 then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = "Demoted: the log prints no loss after the warning, and the warning alone is also printed by a loop that only calls the two steps in the other order." }
  end
  local first, lo, hi = v[1], v[1], v[1]
  for _, x in ipairs(v) do lo = math.min(lo, x); hi = math.max(hi, x) end
  local scale = math.max(math.abs(first), 1e-12)
  local tail_lo = math.huge
  for i = math.floor(#v / 2) + 1, #v do tail_lo = math.min(tail_lo, v[i]) end
  -- Falling by a tenth of its first value's size: a loss that can go negative (Dice, log-likelihood)
  -- falls below zero, and falls all the same.
  if tail_lo <= first - 0.1 * scale then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = "Demoted: the printed loss falls from " .. fmt(first) .. " to " .. fmt(v[#v]) ..
                    ", so optimizer.step() runs; the warning then only means the first learning-rate value was skipped." }
  end
  if (hi - lo) / scale <= 0.01 then
    return { confidence = math.max(ctx.confidence, SUPPORTED),
             note = "The printed loss stays at " .. fmt(first) .. " over " .. #v .. " values, so the weights are not being updated." }
  end
  return nil
end

local function ctx_with(values)
  local steps = {}
  for i = 1, #values do steps[i] = i end
  return { confidence = 0.6, metrics = { loss = { steps = steps, values = values } } }
end

function test_falling_loss_demotes()
  local r = loss_evidence(ctx_with({ 0.45, 0.30, 0.12, 0.05, 0.02 }))
  assert(r.confidence < 0.35 and r.note:find("falls from 0.45 to 0.02", 1, true), r.note)
end

-- The first losses of corpus/wild/loss/pytorch-unet-78-masks-0-255-negative-bce-loss (BCE on 0-255 masks).
function test_negative_falling_loss_demotes()
  local r = loss_evidence(ctx_with({ -1086.891846, -2474.710449, -2207.034180, -1271.199463, -2474.710449, -1237.979980 }))
  assert(r.confidence < 0.35 and r.note:find("falls from -1087 to -1238", 1, true), r.note)
end

function test_flat_loss_supports()
  local r = loss_evidence(ctx_with({ 2.3027, 2.3027, 2.3027, 2.3027 }))
  assert(r.confidence == SUPPORTED and r.note:find("stays at 2.303", 1, true), r.note)
end

function test_no_loss_abstains()
  local r = loss_evidence({ confidence = 0.6, metrics = {} })
  assert(r.confidence < 0.35 and r.note:find("no loss", 1, true))
end

function test_noisy_level_loss_keeps_prior()
  assert(loss_evidence(ctx_with({ 1.0, 1.2, 0.95, 1.15, 1.05, 1.1 })) == nil)
end

function test_nan_values_ignored()
  assert(loss_evidence(ctx_with({ 0 / 0, 0 / 0 })).confidence < 0.35)
end
