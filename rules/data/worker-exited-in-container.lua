-- Lua for worker-exited-in-container (rules/LUA_API.md, API version 1).
-- A process numbered in the tens or hundreds is a process of its own PID namespace: Docker and
-- Kubernetes start the container's first process as PID 1 and number the rest from there, while on a
-- host that has been up for a while the PIDs of a user's Python workers run into the thousands
-- (Windows numbers them in steps of 4 from a few hundred up, and a handful of workers is seldom all
-- below 1000). Every worker PID below LOW, then, says the run is in a container, where /dev/shm is
-- 64 MB unless the container was started with --shm-size or --ipc=host.

local LOW = 1000

-- The PIDs the message lists ("25", "1128, 2284"), or nil.
local function pids(s)
  local out = {}
  for p in (s or ""):gmatch("%d+") do out[#out + 1] = tonumber(p) end
  if #out == 0 then return nil end
  return out
end

-- score: keep the prior only when every worker PID is low (a container's PID namespace).
function container_pids(ctx)
  local list = pids(ctx.captures.pids)
  if not list then return false end
  for _, p in ipairs(list) do
    if p < 2 or p >= LOW then return false end
  end
  return nil
end

function test_low_pids()
  assert(container_pids({ captures = { pids = "25" } }) == nil)
  assert(container_pids({ captures = { pids = "47, 48, 49" } }) == nil)
end

function test_host_pids()
  assert(container_pids({ captures = { pids = "16732" } }) == false)
  assert(container_pids({ captures = { pids = "2832, 15200, 1128, 7276" } }) == false)
  assert(container_pids({ captures = { pids = "640, 12048" } }) == false)
  assert(container_pids({ captures = {} }) == false)
end
