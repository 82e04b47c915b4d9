-- Lua for nccl-watchdog-hang (rules/LUA_API.md, API version 1).
-- {stall}: how long the watchdog was stuck, when the line that says it is in the log.

function hang_values(ctx)
  local s = ctx.captures.seconds or ""
  return { stall = (s ~= "") and (" for " .. s .. " seconds") or "" }
end

function test_stall_with_and_without_seconds()
  assert(hang_values({ captures = { seconds = "480" } }).stall == " for 480 seconds")
  assert(hang_values({ captures = {} }).stall == "")
end
