-- Lua for fp16-loss-scale-collapse (rules/LUA_API.md, API version 1).
-- Overflow lines close together are one incident whose message holds all of them; the diagnosis is in
-- how low the scale went, not in any one line: a scale that is still large is ordinary dynamic scaling.

-- Below this the scale has collapsed: healthy fp16 runs settle in the thousands (they start at 2^16).
local COLLAPSED = 128
-- fairseq's scaler starts at 128 (--fp16-init-scale) and stops at 1e-4 (--min-loss-scale), so its healthy
-- runs live far lower: a scale under 1e-2 has been halved at least 14 times from the start.
local COLLAPSED_FAIRSEQ = 0.01

-- The scale each overflow line of the message leaves, in order: the value it reduces (or sets) the
-- scale to, else, for a line that names only the scale it tried (apex's old FP16_Optimizer, DeepSpeed's
-- hysteresis form, which keeps the scale), that one.
local AFTER = {
  "reducing to ([%d.]+)", "dynamic loss scale from [%d.]+ to ([%d.]+)", "reducing loss scale to ([%d.e+-]+)",
  "setting loss scale to: ([%d.e+-]+)", "downscale loss scale to ([%d.e+-]+)",
  "loss scale is adjusted to ([%d.e+-]+)", "| loss scale: ([%d.]+) |",
}
local function scales(message)
  local out = {}
  for line in message:gmatch("[^\n]+") do
    local v
    for _, pattern in ipairs(AFTER) do
      v = v or line:match(pattern)
    end
    v = v or line:match("Attempted loss scale: ([%d.]+)")
    v = v or line:match("Using dynamic loss scale of ([%d.e+-]+)")
    if v then out[#out + 1] = tonumber(v) end
  end
  return out
end

-- The collapse threshold for the scaler that wrote the message.
local function collapsed_below(message)
  if message:find("setting loss scale to: ", 1, true) then return COLLAPSED_FAIRSEQ end
  return COLLAPSED
end

local function lowest(list)
  local low
  for _, s in ipairs(list) do if s and (low == nil or s < low) then low = s end end
  return low
end

local function fmt(n)
  if n == math.floor(n) then return string.format("%d", n) end
  return string.format("%g", n)
end

-- The scales of every incident of this input: overflow lines separated by progress bars are several
-- incidents, and the history is in all of them. The engine calls this rule once per matching incident
-- with the same ctx.incidents table, so the list is read once per input (triage.per_input,
-- rules/LUA_API.md "Reading every incident"): reading it on every call made a log of a thousand
-- overflow incidents cost a thousand times the whole list. Its lowest scale is found once too (every
-- call looking through thousands of scales used up the input's budget). Callers must not change the
-- list they get.
local scans = 0  -- how often the incidents were read (test_incidents_read_once)

-- The number of skipped steps an incident stands for: a run of repeated overflow lines is one incident
-- whose message keeps its first lines and its newest one, with the run's length as its count.
local function steps_of(inc, found)
  if found == 0 then return 0 end
  return math.max(found, inc.count or 0)
end

local function incidents_scales(incidents)
  local list, steps = {}, 0
  for _, inc in ipairs(incidents) do
    local found = scales(inc.message or "")
    for _, s in ipairs(found) do list[#list + 1] = s end
    steps = steps + steps_of(inc, #found)
  end
  scans = scans + 1
  return list, steps, lowest(list)
end

-- The scales the input printed, how many skipped steps they stand for, and the lowest of them.
local function all_scales(ctx)
  local list, steps, low = {}, 0, nil
  if ctx.incidents then list, steps, low = triage.per_input(ctx, incidents_scales) end
  if #list == 0 then
    list = scales(ctx.incident.message or "")
    steps = steps_of(ctx.incident, #list)
    low = lowest(list)
  end
  return list, steps, low
end

-- Note: [Megatron's skipped intervals]. Megatron's iteration line (training_log) prints the scale the scaler is at
-- now, how many iterations of the interval were skipped, and a loss (`lm loss`, gpt-neox's `lm_loss`, ...) only
-- when at least one iteration of the interval advanced: a line with skipped iterations and no loss is an interval
-- in which the optimizer never stepped. Two readings follow from that.
--   Stalled: three or more such lines in a row at the same scale. A dynamic scaler halves its scale after
--   `hysteresis` overflows in a row (2 by default), so its calibration at the start of a healthy fp16 run changes
--   the scale at least every second fully skipped iteration; a scale that stays put while every iteration is
--   skipped is a static scale (--loss-scale) or a floor, and every update is lost whatever its size
--   (NVIDIA/Megatron-LM#602: iterations 1-4 at 16384, each skipped, the optimizer state never created). Kept
--   however large the scale.
--   Skipped to the end: the newest such line has no loss, so the loss the input printed comes from earlier
--   intervals, before the collapse. A loss that fell then says nothing about training going on now, and the
--   `loss_falls` veto below is not asked (it used to set aside a collapse to 1 whose earlier lm loss had fallen).
local MEGATRON_LINE = "| loss scale: ([%d.]+) |"
local function megatron_lines(incidents)
  local out = {}
  for _, inc in ipairs(incidents) do
    for line in (inc.message or ""):gmatch("[^\n]+") do
      local scale = line:match(MEGATRON_LINE)
      local skipped = line:match("| number of skipped iterations: +(%d+) |")
      if scale and skipped then
        local rest = line:gsub("loss scale:", "")
        out[#out + 1] = { scale = tonumber(scale), skipped = tonumber(skipped), loss = rest:find("loss: ", 1, true) ~= nil }
      end
    end
  end
  return out
end

local STALLED_LINES = 3
local function megatron_reading(lines)
  local last = lines[#lines]
  if not last or last.skipped == 0 or last.loss then return nil end
  local run = 0
  for i = #lines, 1, -1 do
    local l = lines[i]
    if l.skipped == 0 or l.loss or l.scale ~= last.scale then break end
    run = run + 1
  end
  if run >= STALLED_LINES then return "stalled" end
  return "skipped"
end

local function megatron_of(incidents)
  return megatron_reading(megatron_lines(incidents))
end

local function megatron(ctx)
  if (ctx.captures.skipped or "") == "" then return nil end
  if ctx.incidents then return triage.per_input(ctx, megatron_of) end
  return megatron_reading(megatron_lines({ ctx.incident }))
end

-- values: {history}, a clause telling how many overflows the log reported (each rank and each scaler
-- line reports one; a skipped step may be reported more than once) and where the scale ended.
function scale_history(ctx)
  local list, steps, low = all_scales(ctx)
  if ctx.captures.minimum and ctx.captures.minimum ~= "" then
    return { history = " until it reached the minimum the scaler allows" }
  end
  -- Megatron prints the scale it is at, not the one an overflow reduced: say what its iteration line counts
  if megatron(ctx) == "stalled" then
    return { history = string.format(" (Megatron's iteration lines skip every iteration at a scale of %s that no longer changes, so no update is ever taken)", fmt(list[#list])) }
  end
  if (ctx.captures.skipped or "") ~= "" and low then
    return { history = string.format(" (Megatron's iteration lines count skipped iterations with the scale down at %s)", fmt(low)) }
  end
  if not low then return { history = "" } end
  if steps <= 1 then return { history = string.format(" (the last skipped step left it at %s)", fmt(low)) } end
  return { history = string.format(" (%d overflow reports in this log, from %s down to %s)", steps, fmt(list[1] * 2), fmt(low)) }
end

-- score: veto while the scale is still large; keep the prior once it has collapsed.
-- Megatron skips a step in bf16 too when its grad-norm threshold is set, and says so.
local THRESHOLD_SKIP = { "skipping grad norm because it's too large" }
local function threshold_skips(incidents)
  return triage.message_literal(incidents, THRESHOLD_SKIP) ~= nil
end

-- Note: [A low scale while training goes on]. How low the scale went is not enough: a fairseq run on a large
-- batch lives at a scale of 0.004 for whole epochs while its loss falls (fairseq#515's log), and a scaler that
-- dropped far for a few steps grows back once the overflows stop. The scale has collapsed only when the
-- training stopped progressing, so a low scale is set aside when the same input shows it going on:
--   the loss it prints is finite at every print (three or more) and ends at least 5% below where it began; or
--   the last scale it printed (an overflow line, or a loss_scale column) is back above the collapse line.
-- A NaN loss anywhere, or the scaler's own minimum (the `minimum` capture), keeps the diagnosis, and so does
-- evidence that the optimizer is not stepping whatever the loss does: the scale pinned at a floor of 1 or less
-- (three reports of the same lowest scale, DeepSpeed's "Attempted loss scale: 1, reducing to 1"), or a learning
-- rate printed as 0 at every print (the scheduler advances only on steps taken). The loss of a run whose every
-- step is skipped still moves from batch to batch (transformers#14531's T5 printed 6.07, 0.19, 0.04 at a scale of
-- 1 and a learning rate of 0).
local FALLEN = 0.95
local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

local function pinned_at_floor(list, low)
  if low == nil or low > 1 then return false end
  local n = 0
  for _, s in ipairs(list) do if s == low then n = n + 1 end end
  return n >= 3
end

local function lr_never_moved(metrics)
  local s = metrics and metrics.lr
  if not s or (s.count or 0) < 2 then return false end
  for _, v in ipairs(s.values or {}) do
    if v ~= 0 then return false end
  end
  return true
end

local function loss_falls(metrics)
  local s = metrics and metrics.loss
  if not s or (s.count or 0) < 3 or (s.nonfinite or 0) > 0 then return false end
  local vals = s.values or {}
  local first, last = vals[1], vals[#vals]
  if not first or not last or not finite(first) or not finite(last) or first <= 0 then return false end
  return last <= FALLEN * first
end

-- Note: [A summary column printed before the collapse]. The metric series carry no line numbers, so a
-- loss_scale column cannot be ordered against the overflow lines. Its last value stands for the scale now
-- only when the column itself went below the threshold (it was printed while the scale was down, so a
-- later, higher value is a recovery); a column that never went low was printed before the overflow run
-- (fairseq#512: an epoch summary at loss_scale 0.500, then twelve halvings to 0.000122 and the cut-off
-- traceback). fairseq and DeepSpeed double the scale only after a window of hundreds of clean updates, longer
-- than a log interval, so a scale that fell low and came back shows its low values in the column.
local function scale_recovered(list, metrics, below)
  local last = list[#list]
  local col = metrics and metrics.loss_scale
  if col and (col.count or 0) > 0 and (col.nonfinite or 0) == 0 then
    local vals = col.values or {}
    local v = vals[#vals]
    local went_low = false
    for _, x in ipairs(vals) do
      if finite(x) and x < below then went_low = true end
    end
    if v and finite(v) and went_low then last = v end
  end
  return last ~= nil and last >= below
end

function collapse_only(ctx)
  if ctx.captures.minimum and ctx.captures.minimum ~= "" then return nil end
  if (ctx.captures.threshold or "") ~= "" then return false end
  if (ctx.captures.skipped or "") ~= "" and ctx.incidents and triage.per_input(ctx, threshold_skips) then return false end
  local stalled = megatron(ctx)   -- Note: [Megatron's skipped intervals]
  if stalled == "stalled" then return nil end
  local list, _, low = all_scales(ctx)
  if low == nil then
    low = triage.number(ctx.captures.scale or "")
  end
  local below = collapsed_below(ctx.incident.message or "")
  if low ~= nil and low >= below then return false end
  if stalled == "skipped" then return nil end
  if pinned_at_floor(list, low) or lr_never_moved(ctx.metrics) then return nil end
  if loss_falls(ctx.metrics) or scale_recovered(list, ctx.metrics, below) then return false end
  return nil
end

local function ctx_of(message, captures)
  return { incident = { message = message }, captures = captures or {} }
end

function test_collapse_over_several_lines()
  local msg = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 64, reducing to 32\n"
           .. "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4, reducing to 2"
  assert(collapse_only(ctx_of(msg)) == nil)
  local h = scale_history(ctx_of(msg)).history
  assert(h == " (2 overflow reports in this log, from 64 down to 2)", h)
end

function test_history_across_incidents()
  local a = { message = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 64, reducing to 32" }
  local b = { message = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4, reducing to 2" }
  local ctx = { incident = a, incidents = { a, { message = "14%|#| 380/2724" }, b }, captures = {} }
  assert(collapse_only(ctx) == nil)
  assert(scale_history(ctx).history == " (2 overflow reports in this log, from 64 down to 2)")
end

function test_incidents_read_once()
  local a = { message = "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 64.0" }
  local b = { message = "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32.0" }
  local incidents = { a, { message = "14%|#| 380/2724" }, b }
  local before = scans
  for _, inc in ipairs(incidents) do
    local ctx = { incident = inc, incidents = incidents, captures = {} }
    scale_history(ctx)
    collapse_only(ctx)
  end
  assert(scans == before + 1, "the incidents of one input are read once, not per call: " .. (scans - before))
  local h = scale_history({ incident = a, incidents = { a }, captures = {} }).history
  assert(scans == before + 2 and h == " (the last skipped step left it at 64)", h)
end

function test_repeated_lines_count_every_step()
  -- seventeen apex lines from 32768 down to 0.5, one incident: its first eight lines and the newest
  local msg = ""
  for i = 0, 7 do msg = msg .. "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to " .. fmt(32768 / 2 ^ i) .. ".0\n" end
  msg = msg .. "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5"
  local inc = { message = msg, count = 17 }
  local ctx = { incident = inc, incidents = { inc }, captures = {} }
  assert(collapse_only(ctx) == nil)
  local h = scale_history(ctx).history
  assert(h == " (17 overflow reports in this log, from 65536 down to 0.5)", h)
end

function test_every_wording_one_scale_per_line()
  local msg = "OVERFLOW! Skipping step. Attempted loss scale: 4294967296\n"
           .. "[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 8.0, reducing to 4.0\n"
           .. "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, but hysteresis is 2. Reducing hysteresis to 1\n"
           .. "Reducing dynamic loss scale from 2.0 to 1.0"
  local list = scales(msg)
  assert(#list == 4 and list[1] == 4294967296 and list[2] == 4 and list[3] == 2 and list[4] == 1)
  assert(collapse_only(ctx_of("OVERFLOW! Skipping step. Attempted loss scale: 4294967296")) == false)
end

function test_healthy_scaling_is_vetoed()
  assert(collapse_only(ctx_of("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")) == false)
end

function test_column_printed_before_the_run_is_no_recovery()
  local msg = ""
  for i = 2, 13 do msg = msg .. "| WARNING: overflow detected, setting loss scale to: " .. fmt(1 / 2 ^ i) .. "\n" end
  local inc = { message = msg }
  local before = { loss_scale = { values = { 0.5 }, count = 1, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = before }) == nil)
  local after = { loss_scale = { values = { 0.5, 0.004, 0.008, 2.0 }, count = 4, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = after }) == false)
end

function test_minimum()
  local c = ctx_of("Current loss scale already at minimum - cannot decrease scale anymore.", { minimum = "Current loss scale already at minimum" })
  assert(collapse_only(c) == nil)
  assert(scale_history(c).history == " until it reached the minimum the scaler allows")
end

function test_fairseq_scales()
  local msg = "NOTE: overflow detected, setting loss scale to: 0.00048828125\n"
           .. "NOTE: overflow detected, setting loss scale to: 0.000244140625"
  assert(collapse_only(ctx_of(msg)) == nil)
  assert(collapse_only(ctx_of("NOTE: overflow detected, setting loss scale to: 64.0")) == false)
end

function test_megatron_iteration_lines()
  local line = " iteration      300/  500000 | lm loss: 1.012307E+01 | loss scale: 1.0 | grad norm: 0.000 | number of skipped iterations:  10 | number of nan iterations:   0 |"
  local inc = { message = line }
  local ctx = { incident = inc, incidents = { inc }, captures = { skipped = "10", scale = "1.0" } }
  assert(collapse_only(ctx) == nil)
  local h = scale_history(ctx).history
  assert(h == " (Megatron's iteration lines count skipped iterations with the scale down at 1)", h)
  -- the same line after Megatron's own grad-norm threshold skipped the step (a bf16 run)
  local note = { message = "skipping grad norm because it's too large 1523.7" }
  local skipped = { incident = inc, incidents = { note, inc }, captures = { skipped = "10", scale = "1.0" } }
  assert(collapse_only(skipped) == false)
end

local function megatron_line(it, scale, skipped, loss)
  return string.format(" iteration %8d/  500000 | learning rate: 4.000E-05 | global batch size:   128 |%s loss scale: %s |%s number of skipped iterations: %3d | number of nan iterations:   0 |",
    it, loss and string.format(" lm loss: %.6E |", loss) or "", scale, loss and " grad norm: 2.110 |" or "", skipped)
end

function test_megatron_every_iteration_skipped_at_a_static_scale()
  -- Megatron-LM#602: iterations 1-4 skipped at 16384, no loss printed: kept however large the scale
  local msg = ""
  for i = 1, 4 do msg = msg .. megatron_line(i, "16384.0", 1) .. "\n" end
  local inc = { message = msg }
  local ctx = { incident = inc, incidents = { inc }, captures = { skipped = "1", scale = "16384.0" } }
  assert(collapse_only(ctx) == nil)
  local h = scale_history(ctx).history
  assert(h:find("skip every iteration at a scale of 16384", 1, true), h)
  -- a healthy start: the scale halves every second skipped iteration (hysteresis 2): vetoed by its size
  local start = megatron_line(1, "4294967296.0", 1) .. "\n" .. megatron_line(2, "2147483648.0", 1) .. "\n"
             .. megatron_line(3, "2147483648.0", 1) .. "\n" .. megatron_line(4, "1073741824.0", 1)
  local s = { message = start }
  assert(collapse_only({ incident = s, incidents = { s }, captures = { skipped = "1", scale = "1073741824.0" } }) == false)
end

function test_megatron_collapse_after_a_falling_loss()
  -- the lm loss fell while the run still stepped; the newest intervals skip every iteration at a scale of 1 and
  -- print no loss, so the falling loss does not veto
  local msg = megatron_line(200, "1024.0", 6, 8.01) .. "\n" .. megatron_line(300, "8.0", 14, 7.31) .. "\n"
           .. megatron_line(400, "1.0", 100) .. "\n" .. megatron_line(500, "1.0", 100)
  local inc = { message = msg }
  local falling = { loss = { values = { 9.51, 8.01, 7.31 }, count = 3, nonfinite = 0 } }
  local ctx = { incident = inc, incidents = { inc }, captures = { skipped = "100", scale = "1.0" }, metrics = falling }
  assert(collapse_only(ctx) == nil)
  -- the same run whose newest interval advanced again and printed a lower loss: the loss decides (vetoed)
  local back = { message = msg .. "\n" .. megatron_line(600, "2.0", 3, 6.90) }
  local later = { loss = { values = { 9.51, 8.01, 7.31, 6.90 }, count = 4, nonfinite = 0 } }
  assert(collapse_only({ incident = back, incidents = { back }, captures = { skipped = "3", scale = "2.0" }, metrics = later }) == false)
end

function test_low_scale_while_the_loss_falls()
  local msg = "| WARNING: overflow detected, setting loss scale to: 0.0078125\n"
           .. "| WARNING: overflow detected, setting loss scale to: 0.00390625"
  local inc = { message = msg }
  local falling = { loss = { values = { 14.351, 13.689, 13.137, 12.636, 12.165 }, count = 5, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = falling }) == false)
  -- the same scale with the loss flat, or NaN once, or printed only twice: kept
  local flat = { loss = { values = { 7.12, 7.09, 7.15, 7.11 }, count = 4, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = flat }) == nil)
  local nan = { loss = { values = { 14.3, 13.1, 0 / 0 }, count = 3, nonfinite = 1 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = nan }) == nil)
  local two = { loss = { values = { 14.3, 12.1 }, count = 2, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = two }) == nil)
  -- a falling loss beside a learning rate that never left 0, or beside a scale pinned at 1: kept
  local lr0 = { loss = falling.loss, lr = { values = { 0, 0, 0, 0, 0 }, count = 5, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = lr0 }) == nil)
  local floor = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n"
  local pinned = { message = floor .. floor .. floor }
  assert(collapse_only({ incident = pinned, incidents = { pinned }, captures = {}, metrics = falling }) == nil)
end

function test_scale_grew_back()
  local msg = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 64, reducing to 32\n"
           .. "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4096, reducing to 2048"
  assert(collapse_only(ctx_of(msg)) == false)
  -- a loss_scale column back above the line decides too; one still under it does not
  local low = "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4, reducing to 2"
  local inc = { message = low }
  local back = { loss_scale = { values = { 2, 256, 512 }, count = 3, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = back }) == false)
  local still = { loss_scale = { values = { 8, 4, 2 }, count = 3, nonfinite = 0 } }
  assert(collapse_only({ incident = inc, incidents = { inc }, captures = {}, metrics = still }) == nil)
  -- the scaler's own minimum keeps the diagnosis whatever the loss did
  local m = ctx_of("Current loss scale already at minimum - cannot decrease scale anymore.", { minimum = "Current loss scale already at minimum" })
  m.metrics = { loss = { values = { 3, 2, 1 }, count = 3, nonfinite = 0 } }
  assert(collapse_only(m) == nil)
end
