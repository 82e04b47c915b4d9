-- Lua for host-memory-keeps-growing (rules/LUA_API.md, API version 1).
-- Note: [Host memory rising to a kill] (in the rule's YAML). The signature holds on its own at the prior; when
-- the input also shows the process or a worker killed for memory, the growth is what killed it, so the
-- candidate is raised above the kill's own reading (the bundled kill rules' priors are at most 0.92) and says
-- so in a note.

local RAISED = 0.96

-- What the kill rules of rules/memory and rules/data read, as plain text (one literal each is enough: the
-- rule they belong to already matched the exact wording).
local KILLS = {
  "exited with code 137", "OOMKilled", "Signal 9 (SIGKILL)", "exitcode: -9", "exitcode  : -9",
  "exits with return code = -9", "<Signals.SIGKILL: 9>", "interrupted by signal 9", "Out of memory: Killed process",
  "oom-kill", "invoked oom-killer", "is killed by signal: Killed", "killed by signal: Killed",
  "Cannot allocate memory", "DefaultCPUAllocator: can't allocate memory", "MemoryError", "std::bad_alloc",
  "with exit code 137", "exceeded memory limit", "Exceeded job memory limit", "Exceeded step memory limit",
  "low on resource: memory", "can't allocate region",
}

-- A line that is the shell's report alone: "Killed", "Killed: 9", or a progress bar ending in it.
local function killed_line(message)
  for line in (message .. "\n"):gmatch("([^\n]*)\n") do
    local t = line:gsub("%s+$", "")
    if t == "Killed" or t == "Killed: 9" or t:find("[%]\r]Killed$") or t:find("已杀死$") then return line end
  end
  return nil
end

local function kill_in(incidents)
  for _, inc in ipairs(incidents) do
    if inc.kind ~= "signal" then
      local m = inc.message or ""
      if killed_line(m) then return "Killed" end
      for _, k in ipairs(KILLS) do
        if m:find(k, 1, true) then return k end
      end
    end
  end
  return nil
end

-- A short series (under LONG points, the signature's own minimum before the Lua) is read only beside a kill
-- and rising at STRICT of its prints or more (Note: [Memory rising to an out-of-memory error] in
-- memory-keeps-growing.lua: a few prints can rise for reasons that end by themselves).
local LONG = 10
local STRICT = 0.8

-- Note: [A short watch that doubled]. One short series is read without a kill: RAM that rose at every one of at
-- least STEADY prints and at least DOUBLED from the first to the last, the shape of a person watching a leak
-- (free run in a loop, RSS printed every N batches) rather than of start-up, whose few prints climb once
-- (imports, the model, the dataset) and then level. It is read below the prior (WATCHED): the kill that would
-- confirm it is not in the input.
local STEADY = 6
local DOUBLED = 2.0
local WATCHED = 0.7

local function watched_doubling(values, share, n)
  if n < STEADY or share < 1.0 then return false end
  local f = triage.finite(values)
  return f[1] > 0 and f[#f] / f[1] >= DOUBLED
end

-- score: raised when the input shows the process killed for memory; the prior otherwise; a short series
-- without a kill, or one that did not rise at nearly every print, is not read.
function rising_to_a_kill(ctx)
  local s = ctx.metrics and ctx.metrics.host_memory
  local share, n = triage.rising_share(s and s.values)
  local short = s ~= nil and n < LONG
  local kill = ctx.incidents and triage.per_input(ctx, kill_in)
  if short and not kill and watched_doubling(s.values, share, n) then
    return { confidence = math.min(ctx.confidence, WATCHED),
             note = " Few prints, but RAM rose at every one and more than doubled: a leak being watched; no kill in the input confirms it." }
  end
  if short and not (kill and share >= STRICT) then return false end
  if not kill then return nil end
  return { confidence = math.max(ctx.confidence, RAISED),
           note = " The input also shows the process killed (\"" .. kill .. "\"): host RAM rising to the kill makes the growth its cause." }
end

function test_raised_by_a_kill()
  local r = rising_to_a_kill({ confidence = 0.85, incidents = { { kind = "log_line", message = "Killed" } } })
  assert(r.confidence == RAISED and r.note:find("Killed", 1, true), r.note)
  local bar = rising_to_a_kill({ confidence = 0.85, incidents = { { kind = "log_line", message = " 20%|██        | 2/10 [00:03<00:12]Killed" } } })
  assert(bar.confidence == RAISED)
  local k8s = rising_to_a_kill({ confidence = 0.85, incidents = { { kind = "log_line", message = "      Reason:       OOMKilled" } } })
  assert(k8s.note:find("OOMKilled", 1, true))
end

function test_short_series_needs_a_kill_and_a_steady_rise()
  local rss = { host_memory = { steps = { 1, 2, 3, 4, 5 }, values = { 14450, 16460, 18470, 25240, 27000 } } }
  local killed = { { kind = "log_line", message = "Killed" } }
  local r = rising_to_a_kill({ confidence = 0.85, metrics = rss, incidents = killed })
  assert(r.confidence == RAISED, "raised")
  assert(rising_to_a_kill({ confidence = 0.85, metrics = rss, incidents = {} }) == false)
  local stepped = { host_memory = { steps = { 1, 2, 3, 4, 5 }, values = { 14450, 14450, 14460, 25240, 25240 } } }
  assert(rising_to_a_kill({ confidence = 0.85, metrics = stepped, incidents = killed }) == false)
end

function test_raised_by_a_scheduler_or_runner_kill()
  for _, m in ipairs({ "slurmstepd: error: Exceeded job memory limit", "command terminated with exit code 137",
                       "The node was low on resource: memory. " }) do
    local r = rising_to_a_kill({ confidence = 0.85, incidents = { { kind = "log_line", message = m } } })
    assert(r and r.confidence == RAISED, m)
  end
end

function test_short_watch_that_doubled()
  -- free in a loop: used RAM (MB) at six prints, rising at every one, 2.8 times the first
  local free = { host_memory = { steps = { 1, 2, 3, 4, 5, 6 }, values = { 5771, 9573, 12238, 14057, 15317, 16189 } } }
  local r = rising_to_a_kill({ confidence = 0.85, metrics = free, incidents = {} })
  assert(r and r.confidence == WATCHED and r.note:find("doubled", 1, true))
  -- start-up: rising at every print but only by half, or doubling with a level print, or too few prints
  local startup = { host_memory = { steps = { 1, 2, 3, 4, 5, 6 }, values = { 4000, 4500, 5000, 5400, 5800, 6000 } } }
  assert(rising_to_a_kill({ confidence = 0.85, metrics = startup, incidents = {} }) == false)
  local level = { host_memory = { steps = { 1, 2, 3, 4, 5, 6 }, values = { 2000, 6000, 9000, 9000, 9500, 9600 } } }
  assert(rising_to_a_kill({ confidence = 0.85, metrics = level, incidents = {} }) == false)
  local few = { host_memory = { steps = { 1, 2, 3, 4, 5 }, values = { 2000, 4000, 6000, 8000, 9000 } } }
  assert(rising_to_a_kill({ confidence = 0.85, metrics = few, incidents = {} }) == false)
end

function test_prior_without_a_kill()
  assert(rising_to_a_kill({ confidence = 0.85, incidents = {} }) == nil)
  assert(rising_to_a_kill({ confidence = 0.85, incidents = { { kind = "log_line", message = "Killed the old checkpoint writer" } } }) == nil)
  assert(rising_to_a_kill({ confidence = 0.85 }) == nil)
end
