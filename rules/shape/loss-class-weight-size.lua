-- Lua for loss-class-weight-size (rules/LUA_API.md, API version 1).
-- The message names the model's class count (dim 1 of its output) and the weight tensor's shape; the
-- arithmetic on the two tells a weight vector of the right count kept 2-d from a count that differs.
-- The 2-d check's wording names neither: then every count hypothesis stays, and the 2-d row does not
-- (that check compares element counts only, so a (1, C) row passes it).

-- The dimensions of "[1, 19]", "[3]" or TH's "[1 x 8]", as integers; nil when the shape is absent.
local function dims(shape)
  if not shape or shape == "" then return nil end
  local out = {}
  for d in shape:gmatch("%d+") do out[#out + 1] = math.tointeger(tonumber(d)) end
  return out
end

-- classes, the weight tensor's element count and its dimension count; nil for the wording without them.
local function counts(ctx)
  local classes = math.tointeger(triage.number(ctx.captures.classes or ""))
  local d = dims(ctx.captures.shape)
  if not classes or not d then return nil end
  local numel = 1
  for _, n in ipairs(d) do numel = numel * n end
  return classes, numel, #d
end

-- values: {weights} (the element count), {classes_said} and {weights_said} for the explanation.
function weight_counts(ctx)
  local classes, numel, ndim = counts(ctx)
  if not classes then
    return { classes_said = "", weights_said = "does not hold one value per class score" }
  end
  local said = string.format("has shape %s (%d value%s", ctx.captures.shape, numel, numel == 1 and "" or "s")
  if ndim ~= 1 then said = said .. " in " .. ndim .. " dimensions" end
  return { weights = numel, classes_said = string.format(", %d here", classes),
           weights_said = said .. string.format(" for %d class scores)", classes) }
end

-- when (weight-row-not-vector): the right number of weights, kept in more than one dimension.
function is_row(ctx)
  local classes, numel, ndim = counts(ctx)
  if classes and ndim > 1 and numel == classes then
    return string.format("%s holds %d values for %d classes, in %d dimensions instead of 1", ctx.captures.shape,
                         numel, classes, ndim)
  end
  return false
end

-- when (weights-for-another-class-list, model-outputs-other-classes): the counts differ, or are not printed.
function is_count_mismatch(ctx)
  local classes, numel = counts(ctx)
  if not classes then return true end
  if numel ~= classes then return string.format("%d weights for %d classes", numel, classes) end
  return false
end

-- when (weights-from-present-labels): fewer weights than classes, or counts not printed.
function has_fewer_weights(ctx)
  local classes, numel = counts(ctx)
  if not classes then return true end
  if numel < classes then
    return string.format("%d weights for %d classes: %d class%s without a weight", numel, classes, classes - numel,
                         classes - numel == 1 and "" or "es")
  end
  return false
end

function test_row_and_counts()
  local row = { captures = { classes = "19", shape = "[1, 19]" } }
  assert(is_row(row) and not is_count_mismatch(row) and not has_fewer_weights(row))
  assert(weight_counts(row).weights == 19)
  local th = { captures = { classes = "19", shape = "[1 x 8]" } }
  assert(not is_row(th) and is_count_mismatch(th) and has_fewer_weights(th))
  local more = { captures = { classes = "6", shape = "[10]" } }
  assert(is_count_mismatch(more) == "10 weights for 6 classes" and not has_fewer_weights(more))
  local none = { captures = {} }
  assert(is_row(none) == false and is_count_mismatch(none) == true and has_fewer_weights(none) == true)
  assert(weight_counts(none).classes_said == "")
end
