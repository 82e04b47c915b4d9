-- Note: [Training and validation both non-finite] (nan-train-and-val-loss.yaml). The detector found a
-- training loss that is non-finite to its end and never came back; this keeps the signature only when
-- the validation loss was printed too, holds a non-finite value, never came back to a finite one after
-- it, and ends non-finite: the two losses broke together.

local function nonfinite(v)
  return v ~= v or v == math.huge or v == -math.huge
end

function validation_loss_also_nonfinite(ctx)
  local s = ctx.metrics and ctx.metrics.val_loss
  if not s or #s.values == 0 then return false end
  if (s.nonfinite or 0) == 0 or (s.recoveries or 0) > 0 then return false end
  if not nonfinite(s.values[#s.values]) then return false end
  return nil
end

local function ctx_with(values, nonfinite_count, recoveries)
  local steps = {}
  for i = 1, #values do steps[i] = i end
  return { confidence = 0.85, metrics = { val_loss = { steps = steps, values = values, count = #values,
    nonfinite = nonfinite_count, recoveries = recoveries } } }
end

function test_both_nonfinite_keeps()
  assert(validation_loss_also_nonfinite(ctx_with({ 0 / 0 }, 1, 0)) == nil)
  assert(validation_loss_also_nonfinite(ctx_with({ 0.36, 0 / 0 }, 1, 0)) == nil)
end

function test_finite_validation_vetoes()
  assert(validation_loss_also_nonfinite(ctx_with({ 0.36 }, 0, 0)) == false)
end

function test_recovered_validation_vetoes()
  assert(validation_loss_also_nonfinite(ctx_with({ 0 / 0, 0.35, 0 / 0 }, 2, 1)) == false)
end

function test_no_validation_vetoes()
  assert(validation_loss_also_nonfinite({ confidence = 0.85, metrics = {} }) == false)
end
