-- Lua for stack-line-without-frames (rules/LUA_API.md, API version 1).
-- A bare stack line is read as samples of one batch of different shapes, except when the two shapes
-- have the same rank and differ only in their first dimension: that is the mark of a torch.stack of
-- per-batch outputs whose last batch was smaller, as common in a user's own code as in a collate.
-- First dimensions of 1 to 4 on both sides are channel counts (a greyscale image beside colour ones),
-- a sample difference, and are kept. Two images ([C, H, W], C of 1, 3 or 4) are stack-images-of-
-- different-size's, which says more about them; this rule steps aside there.

local function dims(s)
  local out = {}
  for d in (s or ""):gmatch("%d+") do out[#out + 1] = tonumber(d) end
  return out
end

local IMAGE_CHANNELS = { [1] = true, [3] = true, [4] = true }

-- score: false (step aside) for two images, and for equal-rank shapes of two or more dimensions that
-- agree everywhere but in a first dimension larger than 4; nil (keep the prior) otherwise.
function not_first_dim_only(ctx)
  local a, b = dims(ctx.captures.first), dims(ctx.captures.other)
  if #a == 3 and #b == 3 and IMAGE_CHANNELS[a[1]] and IMAGE_CHANNELS[b[1]] then return false end
  if #a < 2 or #a ~= #b or a[1] == b[1] then return nil end
  if a[1] <= 4 and b[1] <= 4 then return nil end
  for k = 2, #a do
    if a[k] ~= b[k] then return nil end
  end
  return false
end

function test_first_dim_only_steps_aside()
  assert(not_first_dim_only({ captures = { first = "100, 512", other = "64, 512" } }) == false)
  assert(not_first_dim_only({ captures = { first = "8, 3, 32", other = "5, 3, 32" } }) == false)
end

function test_images_left_to_the_image_rule()
  assert(not_first_dim_only({ captures = { first = "1, 225, 255", other = "3, 225, 255" } }) == false)
  assert(not_first_dim_only({ captures = { first = "3, 426, 640", other = "3, 640, 586" } }) == false)
end

function test_other_shapes_kept()
  assert(not_first_dim_only({ captures = { first = "144", other = "3" } }) == nil)
  assert(not_first_dim_only({ captures = { first = "256, 540", other = "256, 868" } }) == nil)
  assert(not_first_dim_only({ captures = { first = "2, 2400, 3", other = "2, 2332, 3" } }) == nil)
  assert(not_first_dim_only({ captures = { first = "3, 4", other = "3, 4, 1" } }) == nil)
end
