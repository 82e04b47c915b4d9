-- Lua for linear-in-features (rules/LUA_API.md, API version 1).
-- The message gives only the flattened feature count ({got}); the arithmetic that turns it back into
-- channels x height x width is what tells "a conv map was flattened" from "the config is wrong".

-- Channel counts CNN feature extractors end with.
local CHANNELS = { 3, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048 }

-- Returns every (c, side) with n == c * side * side, side >= 2, c a common channel count.
local function square_splits(n)
  local out = {}
  for _, c in ipairs(CHANNELS) do
    if n % c == 0 then
      local side = triage.isqrt(n // c)
      if side >= 2 and side * side == n // c then out[#out + 1] = { c = c, side = side } end
    end
  end
  return out
end

-- Picks the split to report: the layer's own in_features as the channel count first (a head sized for
-- the channels alone), else the one with the most channels (late feature maps are small and deep).
local function best_split(got, want)
  local splits = square_splits(got)
  for _, s in ipairs(splits) do
    if s.c == want then return s, splits, true end
  end
  return splits[#splits], splits, false
end

local function numbers(ctx)
  return math.tointeger(triage.number(ctx.captures.got)), math.tointeger(triage.number(ctx.captures.want))
end

-- values: {channels}, {side}, {split} ("64 x 30 x 30"), {splits} (every candidate).
function split_features(ctx)
  local got, want = numbers(ctx)
  if not got or not want then return nil end
  local best, all = best_split(got, want)
  if not best then return nil end
  local alts = {}
  for _, s in ipairs(all) do alts[#alts + 1] = s.c .. " x " .. s.side .. " x " .. s.side end
  return { channels = best.c, side = best.side, split = best.c .. " x " .. best.side .. " x " .. best.side,
           splits = table.concat(alts, ", ") }
end

-- when (flattened-feature-map): holds when {got} is a plausible flattened conv map.
function flattened_map(ctx)
  local got, want = numbers(ctx)
  if not got or not want then return true end
  local best, all, channels_only = best_split(got, want)
  if channels_only then
    return string.format("%d = %d x %d x %d: the layer was built for the %d channels and the flatten keeps the "
                         .. "%d x %d grid (pool it away, or build Linear(%d, ...))", got, want, best.side, best.side,
                         want, best.side, best.side, got)
  end
  if best then
    local text = string.format("%d = %d x %d x %d", got, best.c, best.side, best.side)
    if #all > 1 then text = text .. " (or " .. table.concat((function()
      local t = {}
      for _, s in ipairs(all) do if s ~= best then t[#t + 1] = s.c .. " x " .. s.side .. " x " .. s.side end end
      return t
    end)(), ", ") .. ")" end
    return text .. ": channels x height x width of the last feature map"
  end
  -- Not a square map; a non-square one still needs {got} to be a multiple of a channel count.
  for _, c in ipairs(CHANNELS) do
    if c >= 8 and got % c == 0 and got // c >= 4 then return true end
  end
  return false
end

-- when (unflattened-input): Note: [Unflattened input] in linear-in-features.yaml. The layer was built for
-- C x W x W features (a channel count C, a square W x W map) and the rows are B x C x W: the product saw the
-- map's last dimension only. Widths under 4 are left out (too many chance splits).
local function is_channel_count(c)
  if c == 1 then return true end
  for _, k in ipairs(CHANNELS) do if k == c then return true end end
  return false
end

function unflattened_input(ctx)
  local got, want = numbers(ctx)
  local rows = math.tointeger(triage.number(ctx.captures.rows))
  if not got or not want or not rows or got < 4 or rows < 1 then return false end
  if want % (got * got) ~= 0 then return false end
  local c = want // (got * got)
  if not is_channel_count(c) then return false end
  if rows % (c * got) ~= 0 then return false end
  local batch = rows // (c * got)
  return string.format("in_features %d = %d x %d x %d (channels x height x width), and the %d rows = %d x %d x %d: "
                       .. "%d sample(s) x %d channel(s) x %d map rows, so the map reached the layer unflattened",
                       want, c, got, got, rows, batch, c, got, batch, c, got)
end

-- score: a note with the arithmetic, so the explanation itself carries it.
function note_split(ctx)
  local got, want = numbers(ctx)
  if not got or not want then return nil end
  local best, _, channels_only = best_split(got, want)
  if channels_only then
    return { note = string.format("Here %d = %d x %d x %d exactly: %d channels on a %d x %d map, flattened for a "
                                  .. "layer built for the %d channels alone.", got, want, best.side, best.side,
                                  want, best.side, best.side, want) }
  end
  return nil
end

function test_seed_example_is_channels_times_grid()
  -- seeds/001: Conv2d(3, 64, 3) on 32x32 images -> 64 x 30 x 30 flattened into Linear(64, 128).
  local ctx = { captures = { got = "57600", want = "64" } }
  local v = split_features(ctx)
  assert(v.channels == 64 and v.side == 30, "57600 should split as 64 x 30 x 30, got " .. tostring(v.split))
  assert(flattened_map(ctx):find("57600 = 64 x 30 x 30", 1, true))
  assert(note_split(ctx).note:find("64 channels on a 30 x 30 map", 1, true))
end

function test_other_square_maps()
  local v = split_features({ captures = { got = "1568", want = "1152" } })
  assert(v.split == "32 x 7 x 7", v.split)          -- an MNIST net's 32 x 7 x 7 map
  assert(note_split({ captures = { got = "1568", want = "1152" } }) == nil)
end

function test_small_vectors_are_not_feature_maps()
  assert(flattened_map({ captures = { got = "16", want = "8" } }) == false)
  assert(split_features({ captures = { got = "16", want = "8" } }) == nil)
end

function test_unflattened_batch_reads_as_image_rows()
  -- a batch of 64 28 x 28 images into Linear(784, ...) without a flatten: 64 x 28 rows of 28 values
  local why = unflattened_input({ captures = { rows = "1792", got = "28", want = "784" } })
  assert(type(why) == "string" and why:find("784 = 1 x 28 x 28", 1, true) and why:find("64 sample(s)", 1, true), tostring(why))
  -- a 16-channel 6 x 6 map of one sample into Linear(576, ...)
  assert(unflattened_input({ captures = { rows = "96", got = "6", want = "576" } }))
end

function test_other_widths_are_not_unflattened()
  assert(unflattened_input({ captures = { rows = "1920", got = "2048", want = "4096" } }) == false)
  assert(unflattened_input({ captures = { rows = "4", got = "57600", want = "64" } }) == false)
  assert(unflattened_input({ captures = { rows = "1", got = "2", want = "8" } }) == false)      -- width under 4
  assert(unflattened_input({ captures = { rows = "100", got = "28", want = "784" } }) == false) -- 100 is no multiple of 28
end
