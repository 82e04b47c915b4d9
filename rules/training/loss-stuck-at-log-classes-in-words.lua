-- Lua for loss-stuck-at-log-classes-in-words (rules/LUA_API.md, API version 1).
-- Note: [A plateau written in words] (the rule's YAML): the value written after the words must be ln C for a
-- class count C the reader can name. Up to 20 classes ln C and ln (C + 1) lie at least 2.3% apart, so 0.5%
-- (a value written to two or three digits, 0.69 for 0.6931) names one C; past 20 the values crowd, and
-- only the counts people train most (100, 1000) are read, within 0.2%.

local function classes_of(value)
  if not value or not (value > 0) then return nil end
  for c = 2, 20 do
    local l = math.log(c)
    if math.abs(value - l) <= 0.005 * l then return c, l end
  end
  for _, c in ipairs({ 100, 1000 }) do
    local l = math.log(c)
    if math.abs(value - l) <= 0.002 * l then return c, l end
  end
  return nil
end

function log_classes(ctx)
  local c, l = classes_of(triage.number(ctx.captures.value))
  if not c then return nil end
  return { classes = c, log_c = string.format("ln %d = %.4f", c, l) }
end

function only_at_log_classes(ctx)
  if classes_of(triage.number(ctx.captures.value)) then return nil end
  return false
end

function test_two_classes()
  local c = classes_of(0.6945)
  assert(c == 2)
end

function test_ten_classes_written_short()
  assert(classes_of(2.30) == 10)
  assert(classes_of(2.3000) == 10)
end

function test_not_a_class_count()
  assert(classes_of(0.821) == nil)
  assert(classes_of(25.6) == nil)
  assert(classes_of(0.5) == nil)
end

function test_large_counts()
  assert(classes_of(4.605) == 100)
  assert(classes_of(6.9078) == 1000)
  assert(classes_of(5.2) == nil)
end
