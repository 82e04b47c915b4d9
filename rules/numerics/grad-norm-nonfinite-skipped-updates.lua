-- Lua for grad-norm-nonfinite-skipped-updates (rules/LUA_API.md, API version 1).
-- Note: [Skipped updates]. A trainer that skips the step on a non-finite gradient norm logs each skip.
-- A few skips are the guard doing its job (one bad batch; AMP's scaler probing its scale prints inf in the
-- first steps); the harmful reading needs the skipping to go on. The input decides:
--   the epoch ended with every step invalid (ESPnet2's stop)  -> kept;
--   5 or more skips in the input                            -> kept;
--   fewer                                                    -> demoted under the abstention threshold.

local DEMOTED = 0.2
local REPEATED = 5
local SKIP = { "Skipping updating the model", "do not update model", "DO NOT UPDATE MODEL", "Do not update model" }

local scans = 0  -- runs of read_input, for test_incidents_read_once

-- How many skips the input logs (a merged run of repeated lines counts as its count), and whether an
-- epoch ended with every step invalid.
local function read_input(incidents)
  scans = scans + 1
  local skips, all_invalid = 0, false
  for _, inc in ipairs(incidents) do
    local msg = inc.message or ""
    if msg:find("gradients at all steps are invalid", 1, true) then all_invalid = true end
    local lines = #triage.lines_with(msg, SKIP)
    if lines > 0 then skips = skips + math.max(lines, inc.count or 0) end
  end
  return skips, all_invalid
end

local function summary(ctx)
  if ctx.incidents then return triage.per_input(ctx, read_input) end
  return read_input({ ctx.incident or {} })
end

-- values: {skips}, how often the input logs a skipped step.
function skip_summary(ctx)
  local skips, all_invalid = summary(ctx)
  local text = ""
  if skips > 1 then text = string.format(" %d times", skips) end
  if all_invalid then text = text .. ", and an epoch ended with every step invalid" end
  return { skips = text }
end

-- score: kept when the skips repeat or an epoch had no valid step.
function skips_repeat(ctx)
  local skips, all_invalid = summary(ctx)
  if all_invalid or skips >= REPEATED then return nil end
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = string.format(" Demoted: the log shows %d skipped step%s, which is what the guard is for (one bad batch, or a loss scale settling under AMP); it matters when the skips go on.",
                                skips, skips == 1 and "" or "s") }
end

local W = "[user] 2021-04-23 19:22:52,420 (trainer:581) WARNING: The grad norm is nan. Skipping updating the model."

local function ctx_with(messages, count)
  local incidents = {}
  for i, m in ipairs(messages) do incidents[i] = { kind = "log_line", message = m, count = count } end
  return { confidence = 0.8, incident = incidents[1], incidents = incidents }
end

function test_repeated_skips_kept()
  assert(skips_repeat(ctx_with({ W }, 12)) == nil)
  assert(skip_summary(ctx_with({ W }, 12)).skips == " 12 times")
  assert(skips_repeat(ctx_with({ W, W, W, W, W })) == nil)
end

function test_single_skip_demoted()
  local r = skips_repeat(ctx_with({ W }))
  assert(r.confidence < 0.35 and r.note:find("1 skipped step,", 1, true), r.note)
end

function test_all_steps_invalid_kept()
  local ctx = ctx_with({ "WARNING: The gradients at all steps are invalid in this epoch. Something seems wrong. This training was stopped at 2epoch" })
  assert(skips_repeat(ctx) == nil)
  assert(skip_summary(ctx).skips == ", and an epoch ended with every step invalid")
end

function test_incidents_read_once()
  local ctx = ctx_with({ W }, 3)
  local before = scans
  skip_summary(ctx); skips_repeat(ctx); skips_repeat(ctx)
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end
