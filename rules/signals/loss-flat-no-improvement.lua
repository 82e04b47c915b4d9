-- Lua for loss-flat-no-improvement (rules/LUA_API.md, API version 1).
-- Note: [A late plateau beside a learned accuracy]. The rule's reading is a loss that does not change over
-- the run: weights that were never updated. A paste that opens far into a run (its first printed value
-- LATE or more print intervals after step or epoch 0) cannot show the run's start, and a healthy run's
-- epoch means move by well under a percent once its curve has flattened: a DeiT-style ImageNet log pasted
-- at epochs 98-109 holds its training loss within 3.72-3.76 (yuhuan-wu/P2T#13, the author's own run). When
-- such a late window comes with an accuracy the input printed (the evaluation's or the training's, its
-- last value; a value above 1 makes its series a percentage) of at least ACC_LEARNED, the weights did
-- move at some point, and the reading is demoted under the abstention threshold with the reason. A flat
-- loss from the start keeps the prior whatever the accuracy (a two-class run with one large class scores
-- well while stuck), and so does a late window with no accuracy or a low one.

local DEMOTED = 0.2     -- under the default abstention threshold (0.35): shown with --min-confidence 0
local LATE = 20         -- print intervals before the first printed value
local ACC_LEARNED = 0.5

-- How many print intervals come before the first printed value: its x over the mean gap of the window
-- (nil when the x do not rise or start at 0).
local function intervals_before(steps)
  if not steps or #steps < 3 or not (steps[1] > 0) then return nil end
  local gap = (steps[#steps] - steps[1]) / (#steps - 1)
  if not (gap > 0) then return nil end
  return steps[1] / gap
end

-- score: demoted for a late window beside a learned accuracy; the prior otherwise.
function unless_learned_late(ctx)
  local m = ctx.metrics
  local s = m and m.loss
  if not s or not s.steps then return nil end
  local n = intervals_before(s.steps)
  if not n or n < LATE then return nil end
  local acc = triage.last_accuracy(m)   -- Note: [Last accuracy] in lua_setup.inc
  if not acc or acc < ACC_LEARNED then return nil end
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = string.format("Demoted: the printed loss starts %d print intervals into the run, so the log does not show " ..
                                "whether it ever moved, and the input also prints an accuracy of %.1f%% (its last value): " ..
                                "a model whose weights were never updated does not reach it.", math.floor(n), 100 * acc) }
end

local function ctx_with(first, acc_name, acc_values)
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = first + i - 1; values[i] = 3.76 - 0.003 * i end
  local m = { loss = { steps = steps, values = values } }
  if acc_name then m[acc_name] = { steps = { first + 2 }, values = acc_values } end
  return { confidence = 0.6, metrics = m }
end

function test_late_window_with_learned_accuracy_demotes()
  -- yuhuan-wu/P2T#13: epochs 98-109, a test top-1 of 71.28 (percent)
  local r = unless_learned_late(ctx_with(98, "val_acc", { 71.27800225585938 }))
  assert(r and r.confidence < 0.35 and r.note:find("71.3%", 1, true), r and r.note)
  assert(unless_learned_late(ctx_with(98, "acc", { 0.83 })))
end

function test_keeps_prior_otherwise()
  -- from the start, whatever the accuracy
  assert(unless_learned_late(ctx_with(1, "val_acc", { 91.0 })) == nil)
  -- late, but no accuracy, a low one, or a NaN one
  assert(unless_learned_late(ctx_with(98)) == nil)
  assert(unless_learned_late(ctx_with(98, "val_acc", { 10.2 })) == nil)
  assert(unless_learned_late(ctx_with(98, "acc", { 0 / 0 })) == nil)
end
