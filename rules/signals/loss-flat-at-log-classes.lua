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

-- score: demoted when the window opens late and the loss still moves in it; the prior otherwise.
function unless_late_window(ctx)
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

function test_positions_keep_prior()
  local steps, values = {}, {}
  for i = 1, 12 do steps[i] = i - 1; values[i] = (i % 2 == 0) and 2.4 or 2.2 end
  assert(unless_late_window(ctx_with(steps, values)) == nil)
  assert(unless_late_window({ confidence = 0.8, metrics = {} }) == nil)
end
