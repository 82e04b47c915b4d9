-- Note: [Negative losses] (engine/src/rules/signal_rules.cc). The detector found printed loss values
-- under zero. A loss bounded below by 0 that went under it either went deep (binary cross-entropy on
-- 0/255 targets falls without limit: -10 and far below) or was under zero from its first printed value
-- to its last (a Dice loss on 0/255 masks sits between -1 and 0 from the first steps on). A loss that
-- started positive and crossed zero a little is what a log-likelihood objective does by design, and is
-- left alone. Deep values keep the prior; a shallow loss that is negative throughout keeps a lower
-- confidence, since an objective written as -dice or a log-likelihood prints the same.

local DEEP = -10

function outside_any_bounded_loss(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  if not s then return false end
  local values = triage.finite(s.values)
  if #values < 2 then return false end
  local low, negative = math.huge, 0
  for _, v in ipairs(values) do
    if v < low then low = v end
    if v < 0 then negative = negative + 1 end
  end
  if low <= DEEP then return nil end
  if negative == #values and #values >= 3 then return 0.5 end
  return false
end

local function ctx_with(values)
  local steps = {}
  for i = 1, #values do steps[i] = i end
  return { confidence = 0.7, metrics = { loss = { steps = steps, values = values } } }
end

function test_deep_keeps_prior()
  assert(outside_any_bounded_loss(ctx_with({ 0.69, -1086.9, -2474.7 })) == nil)
end

function test_shallow_throughout_is_lower()
  assert(outside_any_bounded_loss(ctx_with({ -0.91, -0.93, -0.94 })) == 0.5)
end

function test_crossing_zero_vetoes()
  assert(outside_any_bounded_loss(ctx_with({ 3.89, 1.4, 0.01, -0.5, -2.3 })) == false)
end

function test_two_shallow_values_veto()
  assert(outside_any_bounded_loss(ctx_with({ -0.5, -0.6 })) == false)
end
