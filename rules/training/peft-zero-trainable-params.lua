-- Lua for peft-zero-trainable-params (rules/LUA_API.md, API version 1).
-- Note: [Zero trainable count evidence]. PEFT's count of 0 trainable parameters is harmful only when the
-- model it describes is the one trained: then nothing moves and the printed loss stays where the loaded
-- weights put it. A count printed for another stage of the script (a model frozen by a preparation helper
-- before get_peft_model adds the adapter, a copy loaded for inference beside the trained one) or made
-- from numel() on parameters DeepSpeed ZeRO-3 partitioned is no evidence of that. So when the input's
-- loss falls by 10% or more (its lowest value in the second half of the printed values against the
-- first), weights are being updated and the candidate is demoted under the abstention threshold, with
-- why. A log with no loss, or a loss that does not fall, keeps the prior.

local DEMOTED = 0.2   -- under the default abstention threshold (0.35): shown with --min-confidence 0

local function fmt(x) return string.format("%.4g", x) end

-- score: demoted when the printed loss falls; the prior otherwise.
function count_evidence(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  local v = triage.finite(s and s.values)
  local n = #v
  if n < 3 or not (v[1] > 0) then return nil end
  local lowest_late = math.huge
  for i = n // 2 + 1, n do
    if v[i] < lowest_late then lowest_late = v[i] end
  end
  if lowest_late > 0.9 * v[1] then return nil end
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = "Demoted: the printed loss goes from " .. fmt(v[1]) .. " down to " .. fmt(lowest_late) ..
                  ", so some weights are being updated; the count of 0 describes a model that is not the one trained (counted before the adapter was added, or from parameters DeepSpeed ZeRO-3 partitioned)." }
end

local function with_losses(values)
  local steps = {}
  for i = 1, #values do steps[i] = 10 * i end
  return { confidence = 0.85, metrics = { loss = { steps = steps, values = values } } }
end

function test_falling_loss_demotes()
  local r = count_evidence(with_losses({ 1.9, 1.6, 1.3, 1.1 }))
  assert(r and r.confidence < 0.35 and r.note:find("from 1.9 down to 1.1", 1, true), r and r.note)
end

function test_level_loss_keeps_prior()
  assert(count_evidence(with_losses({ 2.31, 2.30, 2.32, 2.31, 2.30 })) == nil)
end

function test_no_loss_keeps_prior()
  assert(count_evidence({ confidence = 0.85, metrics = {} }) == nil)
  assert(count_evidence(with_losses({ 0 / 0, 0 / 0, 0 / 0 })) == nil)
end
