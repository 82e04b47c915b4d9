-- Lua for stack-line-without-frames (rules/LUA_API.md, API version 1).

-- score: keep the prior for an incident without any frame (the error line pasted alone); otherwise the
-- traceback tells where the stack ran, and the rules that read it decide.
function without_frames(ctx)
  if #((ctx.incident and ctx.incident.frames) or {}) > 0 then return false end
  return nil
end

function test_bare_line()
  assert(without_frames({ incident = { frames = {} } }) == nil)
end

function test_with_frames()
  assert(without_frames({ incident = { frames = { { file = "helper.py", line = 333 } } } }) == false)
end
