-- Lua for host-allocation-failed (rules/LUA_API.md, API version 1): a metric-series predicate.
-- The message says how much one allocation asked for; the memory series the program printed before
-- it (max_rss_mb, maxrss=..MB, RAM used, memory ...) says whether memory had been climbing step after step
-- (accumulation) or the one request was simply too big. The host's own series (host_memory: rss, RAM; Note:
-- [Host and GPU memory] in engine/src/log/metrics.h) is read first; memory printed without saying whose
-- only when the log prints no host series.

-- Returns first value, last value, first x, last x, and the share of rising steps, or nil.
local function memory_trend(ctx)
  local s = ctx.metrics and (ctx.metrics.host_memory or ctx.metrics.memory)
  if not s or #s.values < 4 then return nil end
  local v, x = s.values, s.steps
  local rising = 0
  for i = 2, #v do
    if v[i] >= v[i - 1] then rising = rising + 1 end
  end
  return v[1], v[#v], x[1], x[#x], rising / (#v - 1)
end

local function grew(first, last, share)
  return last >= 1.2 * first and share >= 0.7
end

-- when (memory-already-used)
function memory_grew(ctx)
  local first, last, x1, x2, share = memory_trend(ctx)
  if not first then return true end  -- no series printed: cannot tell, keep the hypothesis
  if grew(first, last, share) then
    return string.format("the memory series rose from %.0f MB (at %g) to %.0f MB (at %g), up on %.0f%% of the "
                         .. "printed steps, before the allocation failed", first, x1, last, x2, 100 * share)
  end
  return false
end

-- when (quadratic-or-oversized-tensor): a request much smaller than what memory had grown to is not
-- an oversized tensor; it only found memory already gone.
function oversized_request(ctx)
  local first, last, _, _, share = memory_trend(ctx)
  local bytes = triage.number(ctx.captures.bytes)
  if not first or not bytes then return true end
  if grew(first, last, share) and bytes < 0.1 * last * 1024 * 1024 then return false end
  return true
end

local function series(values)
  local steps = {}
  for i = 1, #values do steps[i] = 5 * i end
  return { host_memory = { steps = steps, values = values } }
end

function test_growing_series_points_at_accumulation()
  -- The shape of corpus-like output: max_rss_mb 327 -> 1143 over 8 prints, then a 16 MiB request fails.
  local ctx = { captures = { bytes = "16777216" }, metrics = series({ 327, 407, 487, 567, 663, 823, 983, 1143 }) }
  assert(memory_grew(ctx):find("rose from 327 MB", 1, true))
  assert(oversized_request(ctx) == false)
end

function test_flat_series_points_at_one_big_request()
  local ctx = { captures = { bytes = "160000000000" }, metrics = series({ 500, 501, 500, 502, 501 }) }
  assert(memory_grew(ctx) == false)
  assert(oversized_request(ctx) == true)
end

function test_no_series_keeps_both()
  local ctx = { captures = { bytes = "160000000000" }, metrics = {} }
  assert(memory_grew(ctx) == true and oversized_request(ctx) == true)
end

function test_memory_printed_without_its_owner_when_no_host_series()
  local ctx = { captures = { bytes = "16777216" }, metrics = { memory = { steps = { 5, 10, 15, 20 }, values = { 300, 500, 700, 900 } } } }
  assert(memory_grew(ctx):find("rose from 300 MB", 1, true))
  ctx.metrics.host_memory = { steps = { 5, 10, 15, 20 }, values = { 900, 901, 900, 902 } }
  assert(memory_grew(ctx) == false)
end
