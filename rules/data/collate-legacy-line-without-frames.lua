-- Lua for collate-legacy-line-without-frames (rules/LUA_API.md, API version 1).

-- score: keep the prior only when the incident has no frame (the error line pasted alone); a traceback
-- says which call joined the tensors, and the rules reading its frames decide.
function without_frames(ctx)
  local frames = (ctx.incident and ctx.incident.frames) or {}
  if #frames == 0 then return nil end
  return false
end

function test_line_alone()
  assert(without_frames({ incident = { frames = {} } }) == nil)
end

function test_traceback_steps_aside()
  assert(without_frames({ incident = { frames = { { file = "train.py", line = 40 } } } }) == false)
end
