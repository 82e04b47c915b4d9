-- Lua for sd-attention-not-enough-memory (rules/LUA_API.md, API version 1).
-- The amounts are in the message only when it was pasted whole; a cut paste keeps the largest resolution.

function amounts(ctx)
  local c = ctx.captures
  if c.need and c.have then
    return { amounts = " (it needed " .. c.need .. " free and " .. c.have .. " was free)" }
  end
  return { amounts = "" }
end

function test_amounts_when_the_message_has_them()
  assert(amounts({ captures = { need = "15.2GB", have = "5.4GB" } }).amounts:find("15.2GB", 1, true))
  assert(amounts({ captures = { max_res = "1728x1728" } }).amounts == "")
end
