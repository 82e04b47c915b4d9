-- Note: [NaN logged as zero] (nan-loss-logged-as-zero.yaml). The detector found a gradient norm that is
-- non-finite to the end; this keeps the signature only when the loss printed beside it reads exactly 0
-- at least once and its last printed value is 0 or non-finite: what a trainer that filters NaN losses
-- out of its logged average prints. A finite, non-zero loss next to a nan gradient norm is a loss
-- scaler's skipped step or a metric that is not computed, and is left to the other rules.

function loss_reads_zero(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  if not s or #s.values == 0 then return false end
  local zeros = 0
  for _, v in ipairs(s.values) do
    if v == 0 then zeros = zeros + 1 end
  end
  local last = s.values[#s.values]
  local last_zero_or_nonfinite = last == 0 or last ~= last or last == math.huge or last == -math.huge
  if zeros == 0 or not last_zero_or_nonfinite then return false end
  return nil
end

local function ctx_with(values)
  local steps = {}
  for i = 1, #values do steps[i] = i end
  return { confidence = 0.9, metrics = { loss = { steps = steps, values = values } } }
end

function test_zero_loss_keeps()
  assert(loss_reads_zero(ctx_with({ 1.0446, 0.0 })) == nil)
  assert(loss_reads_zero(ctx_with({ 0.0, 0.0, 0 / 0 })) == nil)
end

function test_finite_loss_vetoes()
  assert(loss_reads_zero(ctx_with({ 4.6758, 4.5615, 4.6769 })) == false)
end

function test_recovered_loss_vetoes()
  assert(loss_reads_zero(ctx_with({ 2.3, 0.0, 2.1 })) == false)
end

function test_no_loss_vetoes()
  assert(loss_reads_zero({ confidence = 0.9, metrics = {} }) == false)
end
