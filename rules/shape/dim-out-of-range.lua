-- Lua for dim-out-of-range (rules/LUA_API.md, API version 1).

-- values: {rank}, the tensor's number of dimensions: the top of the valid range plus one; 0 for the
-- "no dimensions" wording; THNN's own count. A 0-d tensor reads [-1, 0] in the range wording as a
-- 1-d one does; the range cannot tell them apart, so rank 1 is said.
function rank_of(ctx)
  local c = ctx.captures
  if c.dims and c.dims ~= "" then return { rank = c.dims } end
  if c.high and c.high ~= "" then return { rank = tostring(math.tointeger(triage.number(c.high) + 1)) } end
  return { rank = "0" }
end

function test_ranks()
  assert(rank_of({ captures = { high = "0", dim = "1" } }).rank == "1")
  assert(rank_of({ captures = { high = "3", dim = "4" } }).rank == "4")
  assert(rank_of({ captures = { dim = "0" } }).rank == "0")
  assert(rank_of({ captures = { dims = "2", dim = "2" } }).rank == "2")
end
