-- Lua for dim-out-of-range (rules/LUA_API.md, API version 1).

-- values: {dim}, the dimension asked for, and {rank}, the tensor's number of dimensions: the top of the
-- valid range plus one; 0 for the "no dimensions" wording; THNN's own count; for too many indices, the
-- tensor's dimensions, and the first one past them as the dimension asked for. A 0-d tensor reads
-- [-1, 0] in the range wording as a 1-d one does; the range cannot tell them apart, so rank 1 is said.
function rank_of(ctx)
  local c = ctx.captures
  if c.indexed and c.indexed ~= "" then return { dim = c.indexed, rank = c.indexed } end
  local dim = c.asked or "?"
  if c.dims and c.dims ~= "" then return { dim = dim, rank = c.dims } end
  if c.high and c.high ~= "" then return { dim = dim, rank = tostring(math.tointeger(triage.number(c.high) + 1)) } end
  return { dim = dim, rank = "0" }
end

function test_ranks()
  assert(rank_of({ captures = { high = "0", asked = "1" } }).rank == "1")
  assert(rank_of({ captures = { high = "3", asked = "4" } }).dim == "4")
  assert(rank_of({ captures = { asked = "0" } }).rank == "0")
  assert(rank_of({ captures = { dims = "2", asked = "2" } }).rank == "2")
  local v = rank_of({ captures = { indexed = "1" } })
  assert(v.dim == "1" and v.rank == "1")
end
