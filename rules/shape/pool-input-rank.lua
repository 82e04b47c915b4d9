-- Lua for rule pool-input-rank (rules/LUA_API.md, API version 1).
-- Note: [Pooling input checks] in pool-input-rank.yaml. The sizes, when the wording prints them, tell a
-- tensor of the wrong rank from an empty one: a 0 in the sizes, or a rank the layer takes (1.x CUDA's
-- "... but got ndim: 4" for a 2-D pooling), means the check failed on emptiness. Without sizes every
-- reading stays.

-- the integers of "[8, 3, 32, 32]" (ATen), "[0 x 1 x 28 x 28]" (THNN) or
-- "[ torch.cuda.FloatTensor{0,1,144,336} ]" (1.2-1.6 CUDA kernels)
local function dims_of(size)
  if not size or size == "" then return nil end
  local dims = {}
  for n in (size:match("{(.*)}") or size):gmatch("%d+") do dims[#dims + 1] = tonumber(n) end
  return dims
end

local function allowed_of(ctx)
  local lo, hi = math.huge, 0
  for n in (ctx.captures.allowed or ""):gmatch("(%d)D") do
    n = tonumber(n)
    if n < lo then lo = n end
    if n > hi then hi = n end
  end
  if hi == 0 then return nil end
  return lo, hi
end

-- the tensor's rank: the sizes' length, or the ndim the 1.x CUDA wording prints
local function rank_of(ctx)
  local dims = dims_of(ctx.captures.size)
  if dims then return #dims, dims end
  return triage.number(ctx.captures.ndim or ""), nil
end

function pool_values(ctx)
  local n = rank_of(ctx)
  local size = ctx.captures.size
  if size and size ~= "" then
    return { got_text = " (" .. size .. ", " .. n .. " dimensions)" }
  elseif n then
    return { got_text = " (" .. n .. " dimensions)" }
  end
  return { got_text = "" }
end

function is_empty(ctx)
  local n, dims = rank_of(ctx)
  if dims then
    for i, d in ipairs(dims) do
      if d == 0 then return "dimension " .. (i - 1) .. " of " .. ctx.captures.size .. " is 0" end
    end
    return false
  end
  if n then
    local lo, hi = allowed_of(ctx)
    if lo and n >= lo and n <= hi then
      return "the tensor has " .. n .. " dimensions, a rank the layer takes, so the check refused it for being empty"
    end
    return false
  end
  return true
end

function has_extra_dim(ctx)
  local n = rank_of(ctx)
  local lo, hi = allowed_of(ctx)
  if not n or not hi then return true end
  if n > hi then return n .. " dimensions where the layer takes at most " .. hi end
  return false
end

function has_missing_dim(ctx)
  local n = rank_of(ctx)
  local lo = allowed_of(ctx)
  if not n or not lo then return true end
  if n < lo then return n .. " dimensions where the layer needs at least " .. lo end
  return false
end

function test_sizes_decide()
  local five = { captures = { allowed = "3D or 4D", size = "[1, 1, 1, 4, 4]" } }
  assert(has_extra_dim(five) and not has_missing_dim(five) and not is_empty(five))
  local thnn = { captures = { allowed = "3D or 4D", size = "[0 x 1 x 28 x 28]" } }
  assert(is_empty(thnn):find("dimension 0", 1, true))
  assert(not has_extra_dim(thnn) and not has_missing_dim(thnn))
  local flat = { captures = { allowed = "2D or 3D", size = "[64]" } }
  assert(has_missing_dim(flat) and not has_extra_dim(flat))
  local typed = { captures = { allowed = "3D or 4D", size = "[ torch.cuda.FloatTensor{0,1,144,336} ]" } }
  assert(is_empty(typed) and not has_extra_dim(typed))
  assert(pool_values(five).got_text == " ([1, 1, 1, 4, 4], 5 dimensions)")
end

function test_ndim_and_nothing()
  local cuda = { captures = { allowed = "3D or 4D", ndim = "4" } }
  assert(is_empty(cuda) and not has_extra_dim(cuda) and not has_missing_dim(cuda))
  local bare = { captures = { allowed = "3D or 4D" } }
  assert(is_empty(bare) == true and has_extra_dim(bare) == true and has_missing_dim(bare) == true)
end
