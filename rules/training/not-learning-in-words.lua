-- Lua for not-learning-in-words (rules/LUA_API.md, API version 1).
-- Note: [A summary the printed losses contradict]. The sentence "the loss does not decrease" is a person's
-- summary; people write it about runs that are learning slowly too (a loss printed from 2.4 down to 2.0 over
-- a few thousand iterations, answered as healthy by a maintainer). Where the same input prints a training
-- loss series, the series decides: one whose last third lies clearly under its first third (median at most
-- 0.9 of it) is a loss that does come down, and the sentence is not taken as a run whose weights never move.
-- A loss printed flat, or not printed, leaves the sentence's reading as it is.

local function median(list)
  local t = {}
  for _, v in ipairs(list) do t[#t + 1] = v end
  if #t == 0 then return nil end
  table.sort(t)
  local n = #t
  if n % 2 == 1 then return t[(n + 1) / 2] end
  return (t[n / 2] + t[n / 2 + 1]) / 2
end

-- true when the finite values fall: median of the last third at most `ratio` times the first third's
local function falls(values, ratio)
  local v = triage.finite(values or {})
  if #v < 3 then return false end
  local k = math.max(1, math.floor(#v / 3))
  local head, tail = {}, {}
  for i = 1, k do head[#head + 1] = v[i] end
  for i = #v - k + 1, #v do tail[#tail + 1] = v[i] end
  local a, b = median(head), median(tail)
  if not a or not b or a <= 0 then return false end
  return b <= ratio * a
end

function unless_printed_loss_falls(ctx)
  local loss = ctx.metrics and ctx.metrics.loss
  if loss and falls(loss.values, 0.9) then return false end
  return nil
end

function test_falling_series_vetoes()
  assert(falls({ 2.4, 2.3, 2.25, 2.1, 2.05, 2.0 }, 0.9))
  assert(falls({ 0.9, 0.7, 0.5 }, 0.9))
end

function test_flat_or_short_series_keeps()
  assert(not falls({ 4.61, 4.60, 4.61, 4.60, 4.61, 4.60 }, 0.9))
  assert(not falls({ 2.3, 2.0 }, 0.9))
  assert(not falls({}, 0.9))
  assert(not falls({ 0 / 0, 0 / 0, 0 / 0 }, 0.9))
end

function test_rising_series_keeps()
  assert(not falls({ 1.0, 1.2, 1.5, 2.0 }, 0.9))
end

-- the veto reads ctx.metrics as the engine passes it (rules/LUA_API.md: `ctx.metrics.loss.values`)
function test_veto_reads_the_loss_series()
  assert(unless_printed_loss_falls({ metrics = { loss = { values = { 2.4, 2.33, 2.25, 2.14, 2.05, 2.0 } } } }) == false)
  assert(unless_printed_loss_falls({ metrics = { loss = { values = { 2.3026, 2.3025, 2.3026, 2.3027 } } } }) == nil)
  assert(unless_printed_loss_falls({ metrics = {} }) == nil)
end
