-- Lua for deepspeed-lr-before-first-step-repeated (rules/LUA_API.md, API version 1).
-- Note: [Learning rate before the first step]. The Trainer's warning says DeepSpeed's scheduler has not
-- stepped yet; under fp16 that means every optimizer step so far was skipped for an overflow. That is
-- normal while the dynamic loss scale comes down at the start (up to a few dozen skipped steps, and
-- the warning is printed once per logging step, or more often by some trainers), and harmful only when
-- it lasts. The rest of the input decides:
--   a learning rate above 0 printed anywhere     -> demoted: the scheduler did start stepping;
--   a progress bar on the warning's lines        -> kept from step 100 on (past any loss-scale warm-up:
--                                                   2^32 halved once a step, with hysteresis, is under 70
--                                                   steps), demoted before;
--   no progress bar                              -> kept from 100 warnings on, demoted below.

local DEMOTED = 0.2       -- under the default abstention threshold (0.35)
local LASTING_STEP = 100
local LASTING_COUNT = 100
local WARNING = "tried to get lr value before scheduler/optimizer started stepping"

local scans = 0  -- runs of read_input, for test_incidents_read_once

-- How many warnings the input prints (a merged run of repeated lines counts as its count) and the
-- largest progress-bar step ("118/10000 [") on a line that holds the warning, or nil.
local function read_input(incidents)
  scans = scans + 1
  local total, at = 0, nil
  for _, inc in ipairs(incidents) do
    local lines = triage.lines_with(inc.message, { WARNING })
    if #lines > 0 then
      for _, line in ipairs(lines) do
        for step in line:gmatch("(%d+)/%d+ %[") do
          local n = tonumber(step)
          if n and (not at or n > at) then at = n end
        end
      end
      total = total + math.max(#lines, inc.count or 0)
    end
  end
  return total, at
end

-- The largest learning rate the input printed, or nil when it printed none.
local function largest_lr(ctx)
  local s = ctx.metrics and ctx.metrics.lr
  local best
  for _, v in ipairs(triage.finite(s and s.values)) do
    if not best or v > best then best = v end
  end
  return best
end

local function evidence(ctx)
  local total, at = triage.per_input(ctx, read_input)
  local lr = largest_lr(ctx)
  local text = string.format(" %d time%s", total, total == 1 and "" or "s")
  if at then text = text .. string.format(", the last at step %d of the progress bar", at) end
  if lr == 0 then text = text .. ", and every learning rate it printed is 0" end
  return total, at, lr, text
end

-- values: {evidence}, how often and how late the warning came.
function skipping_evidence(ctx)
  local _, _, _, text = evidence(ctx)
  return { evidence = text }
end

-- score: kept only when the skipping outlasts the loss scale's warm-up and no learning rate rose.
function skipping_lasts(ctx)
  local total, at, lr = evidence(ctx)
  if lr and lr > 0 then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = string.format(" Demoted: the log later prints a learning rate of %g, so the scheduler did start stepping; the warnings were the loss scale's warm-up.", lr) }
  end
  if at then
    if at < LASTING_STEP then
      return { confidence = math.min(ctx.confidence, DEMOTED),
               note = string.format(" Demoted: the last warning is at step %d, within the first steps a dynamic loss scale skips while it comes down.", at) }
    end
    return nil
  end
  if total < LASTING_COUNT then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = string.format(" Demoted: %d warnings, no more than the first steps of a dynamic loss scale print while it comes down.", total) }
  end
  return nil
end

local function ctx_with(lines, lr, count)
  return { confidence = 0.75, incident = { message = lines[1] },
           incidents = { { kind = "log_line", message = table.concat(lines, "\n"), count = count or #lines } },
           metrics = lr and { lr = { values = lr, count = #lr } } or {} }
end

local W = "tried to get lr value before scheduler/optimizer started stepping, returning lr=0"

function test_late_warning_kept()
  local ctx = ctx_with({ "  1%| | 118/10000 [06:20<8:58:00,  3.23s/it]" .. W,
                         "  1%| | 120/10000 [06:26<8:22:12,  3.02s/it]" .. W }, { 0, 0, 0 })
  assert(skipping_lasts(ctx) == nil)
  local v = skipping_evidence(ctx).evidence
  assert(v == " 2 times, the last at step 120 of the progress bar, and every learning rate it printed is 0", v)
end

function test_warm_up_demoted()
  local r = skipping_lasts(ctx_with({ "  0%| | 9/1000 [00:05<03:57,  4.17it/s]" .. W }, { 0 }))
  assert(r.confidence < 0.35 and r.note:find("step 9", 1, true), r.note)
  local s = skipping_lasts(ctx_with({ W, W, W }, nil, 30))
  assert(s.confidence < 0.35 and s.note:find("30 warnings", 1, true), s.note)
  assert(skipping_lasts(ctx_with({ W, W }, nil, 150)) == nil)
end

function test_rising_lr_demoted()
  local r = skipping_lasts(ctx_with({ W, W }, { 0, 0, 2.35e-06 }, 400))
  assert(r.confidence < 0.35 and r.note:find("2.35e-06", 1, true), r.note)
end

function test_incidents_read_once()
  local ctx = ctx_with({ W }, nil, 200)
  local before = scans
  skipping_evidence(ctx); skipping_lasts(ctx); skipping_lasts(ctx)
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end
