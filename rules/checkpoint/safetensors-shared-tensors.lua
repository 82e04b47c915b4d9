-- Lua for safetensors-shared-tensors (rules/LUA_API.md, API version 1).

-- values: {tied}, the first group of names that share memory, as printed (empty when the message was cut).
function tied_names(ctx)
  local g = ctx.captures.group or ""
  if g == "" then return { tied = "" } end
  return { tied = " (" .. g .. ")" }
end

function test_group()
  assert(tied_names({ captures = { group = "'a.weight', 'b.weight'" } }).tied == " ('a.weight', 'b.weight')")
  assert(tied_names({ captures = {} }).tied == "")
end
