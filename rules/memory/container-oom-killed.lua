-- Lua for container-oom-killed (rules/LUA_API.md, API version 1).
-- Note: [Exit 137 after a stop]. "OOMKilled" is the runtime's own word for a memory kill and keeps the prior.
-- "exited with code 137" only says SIGKILL: Docker Compose prints it for a memory kill and also when it had to
-- kill a container that did not stop within the grace period after Ctrl+C ("Gracefully stopping... (press
-- Ctrl+C again to force)"). So the exit line is set aside under the abstention threshold, with the reason,
-- when the input shows that stop; its own line (the stop) is always vetoed: it is evidence, not a diagnosis.

local SET_ASIDE = 0.3
local STOP = { "Gracefully stopping... (press Ctrl+C again to force)" }

local function stopped(incidents)
  return triage.message_literal(incidents, STOP) ~= nil
end

function unless_stopped(ctx)
  if ctx.captures.stopping then return false end
  if not ctx.captures.container then return nil end
  if ctx.incidents and triage.per_input(ctx, stopped) then
    return { confidence = SET_ASIDE,
             note = " Set aside: the input shows Docker Compose stopping the containers (Ctrl+C), and a container that does not stop within the grace period is killed with the same code 137; nothing here says memory." }
  end
  return nil
end

function test_exit_after_a_stop_is_set_aside()
  local ctx = { confidence = 0.8, captures = { container = "trainer_1" },
                incidents = { { kind = "log_line", message = STOP[1] }, { kind = "log_line", message = "trainer_1 exited with code 137" } } }
  local r = unless_stopped(ctx)
  assert(r.confidence == SET_ASIDE and r.note:find("grace period", 1, true), r.note)
end

function test_exit_alone_and_oomkilled_keep_the_prior()
  assert(unless_stopped({ confidence = 0.8, captures = { container = "trainer_1" },
                          incidents = { { kind = "log_line", message = "trainer_1 exited with code 137" } } }) == nil)
  assert(unless_stopped({ confidence = 0.8, captures = {}, incidents = { { kind = "log_line", message = STOP[1] } } }) == nil)
  assert(unless_stopped({ confidence = 0.8, captures = { stopping = STOP[1] }, incidents = {} }) == false)
end
