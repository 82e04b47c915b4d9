-- Lua for dataloader-worker-exited (rules/LUA_API.md, API version 1).
-- "exited unexpectedly" only says a worker is gone; the reason is often another incident of the same
-- input: the DataLoader's "is killed by signal: NAME" raised just before (1.x-2.x chain it as the cause) or
-- the worker's own "Unexpected segmentation fault encountered in worker" line. When that reason is a crash
-- of the worker's code (a segfault, an abort, a floating-point or illegal-instruction trap), the worker did
-- not run out of memory or shared memory: the readings that blame them are left out (the YAML puts the
-- native crash first). Windows has neither an OOM killer nor /dev/shm (the YAML's other readings say so).

local CRASH_SIGNALS = {
  "is killed by signal: Segmentation fault", "is killed by signal: Aborted",
  "is killed by signal: Floating point exception", "is killed by signal: Illegal instruction",
  "Unexpected segmentation fault encountered in worker", "Unexpected floating-point exception encountered in worker",
}
local crash_reads = 0  -- runs of worker_crash, for test_incidents_read_once

-- The first incident message that names a crash signal of a worker, or nil (once per input).
local function worker_crash(incidents)
  crash_reads = crash_reads + 1
  return triage.message_literal(incidents, CRASH_SIGNALS)
end

local function windows(ctx)
  return (ctx.facts or {}).os == "windows"
end

-- when (oom-killed, shared-memory): not on Windows, and not when the input shows the worker crashed.
function memory_can_explain(ctx)
  if windows(ctx) then return false end
  if triage.per_input(ctx, worker_crash) then return false end
  return true
end

local function ctx_with(messages, facts)
  local incidents = {}
  for i, m in ipairs(messages) do incidents[i] = { index = i, kind = "traceback", message = m } end
  return { incidents = incidents, facts = facts or {}, incident = incidents[#incidents] }
end

function test_segfault_chain()
  local ctx = ctx_with({ "DataLoader worker (pid 12134) is killed by signal: Segmentation fault. ",
                         "DataLoader worker (pid(s) 12134) exited unexpectedly" })
  assert(memory_can_explain(ctx) == false)
end

function test_bare_exit_keeps_memory_readings()
  local ctx = ctx_with({ "DataLoader worker (pid(s) 8602) exited unexpectedly" })
  assert(memory_can_explain(ctx) == true)
  -- a SIGKILL (the OOM killer) is no crash of the worker's code
  ctx = ctx_with({ "DataLoader worker (pid 8602) is killed by signal: Killed. ", "DataLoader worker (pid(s) 8602) exited unexpectedly" })
  assert(memory_can_explain(ctx) == true)
end

function test_windows_has_no_oom_killer()
  assert(memory_can_explain(ctx_with({ "DataLoader worker (pid(s) 8602) exited unexpectedly" }, { os = "windows" })) == false)
end

function test_incidents_read_once()
  local ctx = ctx_with({ "DataLoader worker (pid(s) 8602) exited unexpectedly" })
  local before = crash_reads
  for _ = 1, 3 do memory_can_explain(ctx) end
  assert(crash_reads == before + 1, "read " .. (crash_reads - before) .. " times")
end
