-- Lua for state-dict-loaded-as-model (rules/LUA_API.md, API version 1).
-- values: {attr_or_call}, what was asked of the dictionary, for the explanation.
function asked(ctx)
  local attr = ctx.captures.attr or ""
  if attr ~= "" then return { attr_or_call = "attribute ." .. attr } end
  return { attr_or_call = "__call__ (it cannot be called on an input)" }
end

function test_asked()
  assert(asked({ captures = { attr = "to" } }).attr_or_call == "attribute .to")
  assert(asked({ captures = { call = "not callable" } }).attr_or_call:find("__call__", 1, true))
end
