-- Lua for shm-manager-failed (rules/LUA_API.md, API version 1).
-- Note: [Helper failures]. The four messages say different things about torch_shm_manager: an empty pipe
-- ("error executing ..." before 2021, "no response from ..." after) says only that the helper printed nothing,
-- a reason after the path ("execl failed: Permission denied") says why it could not be run, and a timeout says
-- it ran but did not answer. The helper's own loader error ("torch_shm_manager: error while loading shared
-- libraries: X: cannot open shared object file") is printed on the helper's stderr, a line of its own before or
-- after the traceback, so it is looked for in every incident of the input. Each hypothesis is kept only when the
-- input leaves it possible, with the line that supports it as its evidence.

local LOADER = "torch_shm_manager: error while loading shared libraries: "

local function loader_library(incidents)
  for _, inc in ipairs(incidents or {}) do
    local msg = inc.message
    if type(msg) == "string" then
      local at = msg:find(LOADER, 1, true)
      if at then
        return msg:sub(at + #LOADER):match("^([^:%s]+)") or "a shared library"
      end
    end
  end
  return nil
end

local function library(ctx)
  if not ctx.incidents then return nil end
  return triage.per_input(ctx, loader_library)
end

local function message(ctx)
  return (ctx.incident and ctx.incident.message) or ""
end

local function timed_out_message(ctx)
  return message(ctx):find("connection has timed out", 1, true) ~= nil
end

function helper_facts(ctx)
  local lib = library(ctx)
  local what
  if timed_out_message(ctx) then
    what = "The helper was running but did not answer within the one second it is given."
  elseif ctx.captures.reason then
    what = "The helper could not be started: " .. ctx.captures.reason .. "."
  elseif lib then
    what = "The helper printed nothing back because it could not start: the dynamic loader did not find " .. lib .. "."
  else
    what = "The helper was started but printed nothing back, so it did not run or stopped at once."
  end
  return { what = what, library = lib or "a library it links", helper = ctx.captures.path or "torch/bin/torch_shm_manager" }
end

-- The reason the helper gave, or nothing known about it (an empty pipe and no loader line in the input).
function not_executable(ctx)
  if timed_out_message(ctx) then return false end
  local reason = ctx.captures.reason
  if reason then
    if reason:find("Permission denied", 1, true) then return "the helper reported: " .. reason end
    return false
  end
  return library(ctx) == nil
end

function loader_line(ctx)
  if timed_out_message(ctx) or ctx.captures.reason then return false end
  local lib = library(ctx)
  if lib then return "the helper's own line: error while loading shared libraries: " .. lib end
  return true
end

function timed_out(ctx)
  if timed_out_message(ctx) then return "the helper did not answer: Shared memory manager connection has timed out" end
  return false
end

local function ctx_of(message, captures, others)
  local incidents = { { kind = "traceback", message = message } }
  for _, m in ipairs(others or {}) do incidents[#incidents + 1] = { kind = "log_line", message = m } end
  return { captures = captures, incident = incidents[1], incidents = incidents }
end

function test_permission_denied_points_at_the_mode()
  local ctx = ctx_of('torch_shm_manager at "/x/torch/bin/torch_shm_manager": execl failed: Permission denied',
                     { path = "/x/torch/bin/torch_shm_manager", reason = "execl failed: Permission denied" })
  assert(type(not_executable(ctx)) == "string")
  assert(loader_line(ctx) == false and timed_out(ctx) == false)
  assert(helper_facts(ctx).what:find("Permission denied", 1, true))
end

function test_loader_line_names_the_library()
  local ctx = ctx_of('error executing torch_shm_manager at "/x/torch/bin/torch_shm_manager"', { path = "/x" },
                     { LOADER .. "libcudart.so.10.0: cannot open shared object file: No such file or directory" })
  assert(loader_line(ctx):find("libcudart.so.10.0", 1, true))
  assert(not_executable(ctx) == false)
  assert(helper_facts(ctx).library == "libcudart.so.10.0")
end

function test_empty_pipe_alone_keeps_both_readings()
  local ctx = ctx_of('no response from torch_shm_manager at "/x/torch/bin/torch_shm_manager"', { path = "/x" })
  assert(not_executable(ctx) == true and loader_line(ctx) == true and timed_out(ctx) == false)
end

function test_timeout_is_its_own_reading()
  local ctx = ctx_of("Shared memory manager connection has timed out", {})
  assert(type(timed_out(ctx)) == "string")
  assert(not_executable(ctx) == false and loader_line(ctx) == false)
end
