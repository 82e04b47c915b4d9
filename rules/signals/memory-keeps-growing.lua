-- Lua for memory-keeps-growing (rules/LUA_API.md, API version 1).
-- Note: [Memory rising to an out-of-memory error]. The signature alone needs a long series (LONG points):
-- memory printed a few times can rise for reasons that end by themselves (start-up, a running peak such as
-- max_memory_allocated meeting larger inputs). A short series is read only when the same input ends in the
-- failure the growth leads to, a GPU out-of-memory error, and the memory rose at (nearly) every print: the
-- running peak of inputs of varying size rises now and then and stays level in between (detectron2's
-- max_mem, which its maintainers call expected), a leak rises at every print. Then, short or long, the growth
-- is what ran the GPU out of memory, and the candidate is raised over the allocator's own reading (cuda.oom
-- stays in the list as the alternative) with a note naming the evidence.

local LONG = 10        -- the points the signature needs on its own (the pre-Lua min_points)
local STRICT = 0.8     -- share of prints at which the memory must have risen (strictly) for the raise
local RAISED = 0.98    -- above the CUDA OOM rules' fitted priors (at most 0.97)
local STAIRS = 0.5     -- under this share of strict rises, a long series without an OOM is a staircase
local SET_ASIDE = 0.3  -- under the abstention threshold: --min-confidence 0 still shows it with the reason
local BELOW_OOM = 0.5  -- under the CUDA OOM rules' fitted priors (at least 0.64), above the threshold

-- The GPU's out-of-memory errors, as plain text (the OOM rules match the exact wordings).
local GPU_OOM = {
  "CUDA out of memory", "CUDA error: out of memory", "cuda runtime error (2) : out of memory",
  "OutOfMemoryError", "HIP out of memory", "MPS backend out of memory", "XPU out of memory",
  "CUBLAS_STATUS_ALLOC_FAILED",
}

local function gpu_oom_in(incidents)
  for _, inc in ipairs(incidents) do
    if inc.kind ~= "signal" then
      local text = (inc.exception or "") .. " " .. (inc.message or "")
      for _, k in ipairs(GPU_OOM) do
        if text:find(k, 1, true) then return k end
      end
    end
  end
  return nil
end

-- score: raised when a GPU out-of-memory error ends the input and the memory rose at nearly every print;
-- a short series without both is not read (vetoed); a long one keeps the prior.
function rising_to_an_oom(ctx)
  local s = ctx.metrics and ctx.metrics.memory
  if not s then return nil end
  local share, n = triage.rising_share(s.values)
  local oom = ctx.incidents and triage.per_input(ctx, gpu_oom_in)
  -- A steady creep (Note: [A steady creep] in engine/src/rules/signal_rules.cc) rises by one printed digit at
  -- every second or third print and lies on a straight line: the detector marks it; it is no staircase, and
  -- before an out-of-memory error it is what ran the GPU out of memory as surely as a rise at every print.
  local creep = ctx.captures and ctx.captures.creep == "1"
  if oom and (share >= STRICT or creep) then
    local rose = share >= STRICT and string.format("rose at %.0f%% of the %d prints", 100 * share, n)
                 or string.format("rose steadily, never falling, over the %d prints", n)
    return { confidence = math.max(ctx.confidence, RAISED),
             note = string.format(" The input ends in a GPU out-of-memory error (\"%s\") after memory %s: the growth "
                                  .. "is what ran the GPU out of memory, not one batch too large.", oom, rose) }
  end
  if n < LONG then return false end
  -- The same staircase ending in a GPU out-of-memory error: the error's own reading (one allocation too
  -- large for what was left) ranks above it; a series level at most prints is no evidence of a leak
  -- (found by tests/noise_forms_test.cc: a healthy run's memory prints, level, above an OOM whose message
  -- names the memory in use, read as a rise from the level to the OOM's figure).
  if oom and share < STAIRS then
    return { confidence = math.min(ctx.confidence, BELOW_OOM),
             note = string.format(" Ranked below the out-of-memory error's own reading: the memory rose at only %.0f%% of"
                                  .. " the %d prints and stayed level between jumps, as a cache or a running peak"
                                  .. " does, not a leak.", 100 * share, n) }
  end
  -- Note: [Level between jumps]. Without an out-of-memory error, memory that stayed level at most prints and
  -- rose in a few jumps is what a cache or a running peak prints on a healthy run: the caching allocator's
  -- reserved memory (YOLOv5's and Ultralytics' gpu_mem column) or max_memory_allocated growing when a batch
  -- with more objects or longer inputs comes. A leak rises at most prints.
  if not oom and share < STAIRS and not creep then
    return { confidence = math.min(ctx.confidence, SET_ASIDE),
             note = string.format(" Set aside: the memory rose at only %.0f%% of the %d prints and stayed level between"
                                  .. " jumps, as a cache or a running peak does on a healthy run (larger batches or"
                                  .. " inputs), and nothing in the input ran out of memory.", 100 * share, n) }
  end
  return nil
end

local function ctx_of(values, incidents)
  local steps = {}
  for i = 1, #values do steps[i] = 50 * i end
  return { confidence = 0.85, metrics = { memory = { steps = steps, values = values } }, incidents = incidents }
end

local OOM = { { kind = "traceback", exception = "torch.cuda.OutOfMemoryError",
                message = "CUDA out of memory. Tried to allocate 20.00 MiB" } }

function test_short_rise_to_an_oom_is_raised()
  local r = rising_to_an_oom(ctx_of({ 5120, 6120, 7120, 8120, 9020 }, OOM))
  assert(r.confidence == RAISED and r.note:find("100%% of the 5 prints"), r.note)
end

function test_short_rise_without_an_oom_is_not_read()
  assert(rising_to_an_oom(ctx_of({ 5120, 6120, 7120, 8120 }, {})) == false)
  -- a host kill is not a GPU out-of-memory error
  local killed = { { kind = "log_line", exception = "", message = "Killed" } }
  assert(rising_to_an_oom(ctx_of({ 5120, 6120, 7120, 8120 }, killed)) == false)
end

function test_running_peak_before_an_oom_is_not_raised()
  -- level between occasional new peaks: inputs of varying size, not a leak
  assert(rising_to_an_oom(ctx_of({ 3200, 3200, 7000, 7000, 7000, 10000 }, OOM)) == false)
  local long = { 3200, 3200, 3200, 7000, 7000, 7000, 7000, 9000, 9000, 10000, 10000 }
  assert(rising_to_an_oom(ctx_of(long, OOM)).confidence == BELOW_OOM)
end

function test_long_rise_keeps_the_prior_without_an_oom()
  local v = {}
  for i = 1, 12 do v[i] = 2000 + 300 * i end
  assert(rising_to_an_oom(ctx_of(v, {})) == nil)
end

function test_steady_creep_is_not_a_staircase()
  -- printed to one decimal, a creep of half a digit per step rises at every second print
  local v = { 20.4, 20.5, 20.5, 20.6, 20.6, 20.6, 20.7, 20.7, 20.8, 20.8, 20.9, 20.9, 21.0, 21.0 }
  local c = ctx_of(v, {})
  assert(rising_to_an_oom(c).confidence == SET_ASIDE)
  c.captures = { creep = "1" }
  assert(rising_to_an_oom(c) == nil)
  -- before a GPU out-of-memory error it is raised as a rise at every print is
  local before = ctx_of(v, OOM)
  assert(rising_to_an_oom(before).confidence == BELOW_OOM)
  before.captures = { creep = "1" }
  local r = rising_to_an_oom(before)
  assert(r.confidence == RAISED and r.note:find("steadily, never falling", 1, true), r.note)
end

function test_long_staircase_without_an_oom_is_set_aside()
  -- reserved memory of a healthy detector run: level, then a jump when a batch holds more objects
  local stairs = { 2870, 2870, 2870, 3100, 3100, 3100, 3100, 3400, 3400, 3400, 3900, 3900 }
  local r = rising_to_an_oom(ctx_of(stairs, {}))
  assert(r.confidence == SET_ASIDE and r.note:find("level between jumps", 1, true), r.note)
  -- the same staircase ending in an OOM ranks below the allocator's reading
  local below = rising_to_an_oom(ctx_of(stairs, OOM))
  assert(below.confidence == BELOW_OOM and below.note:find("Ranked below", 1, true), below.note)
end
