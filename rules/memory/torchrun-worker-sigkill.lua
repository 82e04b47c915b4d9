-- Lua for torchrun-worker-sigkill (rules/LUA_API.md, API version 1).
-- Note: [torchrun's own SIGKILL] (in the rule's YAML). A worker's -9 is the OOM killer's most of the time, but the
-- elastic agent sends SIGKILL itself to a worker that did not stop within the grace period after SIGTERM (it closes
-- the others once one has failed) and logs "Unable to shutdown process N via ..., forcefully exiting via ...". When
-- that line names the pid of the -9, the kill is torchrun's and says nothing about memory: the candidate is set
-- aside under the abstention threshold, with the reason. The forced-exit line's own candidate is always vetoed.

local SET_ASIDE = 0.3

local function forced_pids(incidents)
  local pids = {}
  for _, inc in ipairs(incidents) do
    for pid in (inc.message or ""):gmatch("Unable to shutdown process (%d+) via") do pids[pid] = true end
  end
  return pids
end

function unless_torchrun_killed_it(ctx)
  if ctx.captures.forced then return false end
  local pid = ctx.captures.pid
  if not pid or not ctx.incidents then return nil end
  if triage.per_input(ctx, forced_pids)[pid] then
    return { confidence = SET_ASIDE,
             note = " Set aside: torchrun itself sent SIGKILL to pid " .. pid .. " (\"forcefully exiting\") after it did not stop on SIGTERM while the agent closed the workers after another failure; that failure is the one to read, not memory." }
  end
  return nil
end

local FORCED = "Unable to shutdown process 188 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"

function test_same_pid_is_set_aside()
  local r = unless_torchrun_killed_it({ confidence = 0.7, captures = { pid = "188" },
                                        incidents = { { kind = "log_line", message = FORCED } } })
  assert(r.confidence == SET_ASIDE and r.note:find("pid 188", 1, true), r.note)
end

function test_other_pid_or_no_forced_exit_keeps_the_prior()
  assert(unless_torchrun_killed_it({ confidence = 0.7, captures = { pid = "187" },
                                     incidents = { { kind = "log_line", message = FORCED } } }) == nil)
  assert(unless_torchrun_killed_it({ confidence = 0.7, captures = { pid = "187" }, incidents = {} }) == nil)
  assert(unless_torchrun_killed_it({ confidence = 0.7, captures = { forced = "Unable to shutdown process", pid = "188" }, incidents = {} }) == false)
end
