-- Lua for loss-flat-at-log-classes (rules/LUA_API.md, API version 1).
-- Note: [Plateau without its start]. The rule's reading is a loss that sits at ln C from the first step:
-- weights that never moved. A paste that begins far into a run cannot show that. Its first printed loss
-- comes many print intervals after step 0, and a loss that is level there is also what a healthy run
-- shows once its curve has flattened (a language model hovering around 3.3 at step 1200), while ln C
-- names no class count there: above ln 9 every value lies within the detector's 3% of some ln C. So when
-- the window opens at least LATE print intervals after step 0 and the loss still moves within it (its
-- 10-90% range wider than STILL of its level), the candidate is demoted under the abstention threshold
-- with the reason. A loss printed to the same digits value after value (a run whose weights do not
-- move, pasted from the middle) keeps the prior, and so does a window that starts near step 0 or has no
-- printed step (the x is then the value's position).

local DEMOTED = 0.2   -- under the default abstention threshold (0.35): shown with --min-confidence 0
local LATE = 20       -- print intervals before the first printed value
local STILL = 0.01    -- 10-90% range of a loss that does not move, as a share of its level

local function median(xs)
  local t = {}
  for i, x in ipairs(xs) do t[i] = x end
  table.sort(t)
  if #t == 0 then return nil end
  local m = (#t + 1) // 2
  if #t % 2 == 1 then return t[m] end
  return (t[m] + t[m + 1]) / 2
end

local function quantile(sorted, q)
  local i = math.max(1, math.min(#sorted, math.floor(q * (#sorted - 1) + 1.5)))
  return sorted[i]
end

local function fmt(x) return string.format("%.4g", x) end

-- How many print intervals come before the first printed value: its x over the median gap between
-- consecutive x (nil when the x do not rise or the first is not past 0).
local function intervals_before(steps)
  if not steps or #steps < 3 or not (steps[1] > 0) then return nil end
  local gaps = {}
  for i = 2, #steps do
    local g = steps[i] - steps[i - 1]
    if g > 0 then gaps[#gaps + 1] = g end
  end
  local g = median(gaps)
  if not g or not (g > 0) then return nil end
  return steps[1] / g
end

-- Note: [Accuracy above chance]. A classifier whose scores are the same for every class has a loss of
-- ln C and picks one class for everything, so its accuracy is the share of that class: 1/C on balanced
-- data. When the same input prints an accuracy far above that, the loss near ln C is a coincidence of its
-- value (above ln 9 every loss lies within the detector's 3% of some ln C), not a model stuck at uniform
-- scores: a DeiT-style ImageNet run pasted at epochs 98-109 sits at a training loss of 3.75 (ln 42, mixup
-- and label smoothing keep it high) beside a test top-1 of 71% (yuhuan-wu/P2T#13, a healthy run). The last
-- accuracy the input printed (the evaluation's or the training's, whichever is higher; a value above 1
-- makes its series a percentage) demotes the reading under the abstention threshold with the reason when
-- it is at least ACC_LEARNED and at least ACC_TIMES_CHANCE times 1/C. Half is kept as the floor so that a
-- few classes with one large one (uniform scores pick one class, whose share can be large) never veto.
local ACC_LEARNED = 0.5
local ACC_TIMES_CHANCE = 3

local function accuracy_above_chance(ctx)
  local m = ctx.metrics
  if not m then return nil end
  local classes = triage.number(ctx.captures and ctx.captures.classes or "")
  if not classes or classes < 2 then return nil end
  local acc = triage.last_accuracy(m)   -- Note: [Last accuracy] in lua_setup.inc
  if not acc then return nil end
  local floor = math.max(ACC_LEARNED, ACC_TIMES_CHANCE / classes)
  if acc < floor then return nil end
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = string.format("Demoted: the input also prints an accuracy of %.1f%% (its last value), far above the %.1f%% " ..
                                "that uniform guessing over %d classes scores; a model stuck at ln %d would not reach it, " ..
                                "so the loss near ln %d is a coincidence of its value.", 100 * acc, 100 / classes,
                                classes, classes, classes) }
end

-- score: demoted when the input prints an accuracy far above chance (Note: [Accuracy above chance]), or
-- when the window opens late and the loss still moves in it; the prior otherwise.
function unless_late_window(ctx)
  local learned = accuracy_above_chance(ctx)
  if learned then return learned end
  local s = ctx.metrics and ctx.metrics.loss
  if not s or not s.steps then return nil end
  local n = intervals_before(s.steps)
  if not n or n < LATE then return nil end
  local v = triage.finite(s.values)
  if #v < 3 then return nil end
  table.sort(v)
  local level = median(v)
  local lo, hi = quantile(v, 0.1), quantile(v, 0.9)
  if not (level > 0) or (hi - lo) <= STILL * level then return nil end
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = "Demoted: the printed loss starts at step " .. fmt(s.steps[1]) .. ", " .. math.floor(n) ..
                  " print intervals into the run, and still moves between " .. fmt(lo) .. " and " .. fmt(hi) ..
                  "; a level loss that late is also a healthy run's flattened curve, and the log does not show the start the reading needs." }
end

local function ctx_with(steps, values)
  return { confidence = 0.8, metrics = { loss = { steps = steps, values = values } } }
end

function test_late_moving_window_demotes()
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = 1210 + 10 * i; values[i] = (i % 3 == 0) and 3.45 or 3.2 end
  local r = unless_late_window(ctx_with(steps, values))
  assert(r and r.confidence < 0.35 and r.note:find("starts at step 1220", 1, true), r and r.note)
end

function test_window_from_the_start_keeps_prior()
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = 10 * i; values[i] = (i % 2 == 0) and 2.35 or 2.28 end
  assert(unless_late_window(ctx_with(steps, values)) == nil)
end

function test_late_but_unmoving_keeps_prior()
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = 99 + i; values[i] = 4.6 end
  assert(unless_late_window(ctx_with(steps, values)) == nil)
end

local function ctx_acc(classes, acc_name, acc_values)
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = 97 + i; values[i] = (i % 2 == 0) and 3.75 or 3.73 end
  local m = { loss = { steps = steps, values = values } }
  m[acc_name] = { steps = { 100 }, values = acc_values }
  return { confidence = 0.8, captures = { classes = tostring(classes) }, metrics = m }
end

function test_accuracy_far_above_chance_demotes()
  -- yuhuan-wu/P2T#13: a training loss at ln 42 beside a test top-1 of 71.28 (percent).
  local r = unless_late_window(ctx_acc(42, "val_acc", { 71.27800225585938 }))
  assert(r and r.confidence < 0.35 and r.note:find("71.3%", 1, true), r and r.note)
  -- a fraction works the same
  assert(unless_late_window(ctx_acc(42, "acc", { 0.2, 0.7 })))
end

function test_accuracy_at_chance_keeps_prior()
  -- ln 10 with 10% accuracy is the reading itself, as a percent or a fraction
  assert(unless_late_window(ctx_acc(10, "val_acc", { 10.0, 9.8 })) == nil)
  assert(unless_late_window(ctx_acc(10, "acc", { 0.1 })) == nil)
  -- two classes: uniform scores can score any share of the class they pick, so no veto below 1.5
  assert(unless_late_window(ctx_acc(2, "acc", { 0.9 })) == nil)
  -- a NaN accuracy is no evidence
  assert(unless_late_window(ctx_acc(42, "val_acc", { 0 / 0 })) == nil)
end

function test_positions_keep_prior()
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = i - 1; values[i] = (i % 2 == 0) and 2.4 or 2.2 end
  assert(unless_late_window(ctx_with(steps, values)) == nil)
  assert(unless_late_window({ confidence = 0.8, metrics = {} }) == nil)
end
