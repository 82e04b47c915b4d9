-- Note: [Non-leaf .grad evidence]. The warning says only that some code read .grad of a non-leaf tensor.
-- Its harmful reading, a weight that is never updated, needs training whose weights do not move; the
-- same warning is printed by library code that merely inspects tensors (a model summary, a tracer, a
-- detector's fuse() or hooks during inference) while nothing is wrong. So the rest of the log decides:
--   the printed loss falls by 10% or more          -> the weights are updated: demoted, with why;
--   the run then fails on a None gradient          -> the harmful reading holds: the prior stays;
--   the access is in an installed package's code and
--   nothing else in the log points at a gradient    -> demoted (abstain rather than guess).
-- A warning from the user's own file with nothing else keeps the prior.

local DEMOTED = 0.2   -- under the default abstention threshold (0.35)

local function finite_losses(ctx)
  local s = ctx.metrics and ctx.metrics.loss
  return triage.finite(s and s.values)
end

local function fmt(x) return string.format("%.4g", x) end

-- True when the loss the log printed falls by 10% or more (its lowest value in the second half against
-- its first value).
local function loss_falls(v)
  if #v < 3 or v[1] <= 0 then return false end
  local tail_lo = math.huge
  for i = math.floor(#v / 2) + 1, #v do tail_lo = math.min(tail_lo, v[i]) end
  return tail_lo <= v[1] * 0.9
end

-- True when an incident of the input other than a logged line (the warning itself is one) is a failure
-- on a missing gradient (None where a tensor was expected, or a gradient listed as None). Read once per
-- input (triage.per_input, rules/LUA_API.md "Reading every incident"): a log that prints the warning at
-- every step makes one call per warning, and each call reading every incident cost incidents squared.
local NONE_GRADIENT = { "NoneType", "None grad" }
local none_reads = 0  -- runs of none_gradient_failure, for test_incidents_read_once

local function none_gradient_failure(incidents)
  none_reads = none_reads + 1
  local failures = {}
  for _, inc in ipairs(incidents) do
    if inc.kind ~= "log_line" then failures[#failures + 1] = inc end
  end
  return triage.message_literal(failures, NONE_GRADIENT) ~= nil
end

-- True when the .grad access the warning names (its frame) is in an installed package, not the
-- program's own code.
local function library_access(ctx)
  local frames = ctx.incident and ctx.incident.frames or {}
  if #frames == 0 then return false end
  local f = frames[#frames]
  if f.user then return false end
  local file = (f.file or ""):gsub("\\", "/")
  return file:find("/site%-packages/") ~= nil or file:find("/dist%-packages/") ~= nil
end

function access_evidence(ctx)
  local v = finite_losses(ctx)
  if loss_falls(v) then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = "Demoted: the printed loss falls from " .. fmt(v[1]) .. " to " .. fmt(v[#v]) ..
                    ", so the weights are being updated; the warning then comes from code that only inspects a derived tensor." }
  end
  if triage.per_input(ctx, none_gradient_failure) then return nil end
  if library_access(ctx) then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = "Demoted: the access is in an installed package's code (" .. ctx.incident.frames[#ctx.incident.frames].file ..
                    ") and nothing else in the log shows a missing gradient; libraries print this warning when they only inspect tensors." }
  end
  return nil
end

local function ctx_with(losses, frame, others)
  local steps = {}
  for i = 1, #losses do steps[i] = i end
  local inc = { kind = "log_line", message = "The .grad attribute ...", frames = { frame } }
  local incidents = { inc }
  for _, o in ipairs(others or {}) do incidents[#incidents + 1] = o end
  return { confidence = 0.75, incident = inc, incidents = incidents,
           metrics = { loss = { steps = steps, values = losses } } }
end

local LIBRARY = { file = "C:\\Users\\me\\Python39\\site-packages\\torch\\_tensor.py", line = 1083, user = false }
local USER = { file = "/home/me/train.py", line = 17, user = true }

function test_falling_loss_demotes()
  local r = access_evidence(ctx_with({ 2.0, 1.5, 1.1, 0.8 }, USER))
  assert(r.confidence < 0.35 and r.note:find("falls from 2 to 0.8", 1, true), r.note)
end

function test_library_access_alone_demotes()
  local r = access_evidence(ctx_with({}, LIBRARY))
  assert(r.confidence < 0.35 and r.note:find("installed package", 1, true), r.note)
end

function test_none_gradient_failure_keeps_prior()
  local crash = { kind = "traceback", message = "unsupported operand type(s) for *: 'float' and 'NoneType'" }
  assert(access_evidence(ctx_with({}, LIBRARY, { crash })) == nil)
end

function test_user_access_keeps_prior()
  assert(access_evidence(ctx_with({ 21.4961 }, USER)) == nil)
end

function test_incidents_read_once()
  local crash = { kind = "traceback", message = "unsupported operand type(s) for *: 'float' and 'NoneType'" }
  local ctx = ctx_with({}, LIBRARY, { crash })
  local before = none_reads
  for _ = 1, 3 do assert(access_evidence(ctx) == nil) end
  assert(none_reads == before + 1, "read " .. (none_reads - before) .. " times")
end
