-- Lua for target-out-of-bounds (rules/LUA_API.md, API version 1).
-- "Target 10 is out of bounds." names the label, not the number of classes C. Which cause fits depends
-- on the value: a negative label or 255 is a marker for "ignore", a label equal to C is the 1-based
-- off-by-one, a label far above C is a head that is too small. C itself is looked for in the
-- traceback's source lines (view(-1, C), Linear(in, C), num_classes = C).

local function target(ctx)
  return math.tointeger(triage.number(ctx.captures.target))
end

local PATTERNS = { "view%(%s*%-1%s*,%s*(%d+)%s*%)", "reshape%(%s*%-1%s*,%s*(%d+)%s*%)",
                   "Linear%(%s*%d+%s*,%s*(%d+)", "num_classes%s*=%s*(%d+)", "n_classes%s*=%s*(%d+)" }

local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function class_count_in(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    for _, f in ipairs(inc.frames or {}) do
      for _, p in ipairs(PATTERNS) do
        local c = f.source and f.source:match(p)
        if c then return math.tointeger(tonumber(c)) end
      end
    end
  end
  return nil
end

-- Returns the class count the traceback's source lines state, or nil. The count is the same for every
-- call of one input, so the incidents are read once per input (rules/LUA_API.md "Reading every incident").
local function class_count(ctx)
  return triage.per_input(ctx, class_count_in)
end

local function is_marker(t) return t < 0 or t == 255 end

-- when (one-based-labels)
function one_based(ctx)
  local t = target(ctx)
  if not t or is_marker(t) then return false end
  local c = class_count(ctx)
  if c and c == t then
    return string.format("label %d with %d classes: valid labels are 0..%d, so the labels run 1..%d", t, c, c - 1, c)
  end
  if c and c < t then return false end
  return true
end

-- when (head-too-small)
function head_too_small(ctx)
  local t = target(ctx)
  if not t or t < 0 then return false end
  local c = class_count(ctx)
  if c and t > c then
    return string.format("label %d with only %d classes: more than one past the end, so the data has more classes "
                         .. "than the head", t, c)
  end
  if c and t == c then return false end
  return true
end

-- when (ignore-label-not-declared)
function ignore_marker(ctx)
  local t = target(ctx)
  if t == nil then return true end
  if t == 255 then return "255 is the usual 'void' label of segmentation masks" end
  if t < 0 then return string.format("%d is a marker value (unlabelled), not a class", t) end
  return false
end

local function ctx_with(t, source)
  return { captures = { target = tostring(t) },
           incidents = { { frames = { { source = source or "loss = criterion(outputs, labels)" } } } } }
end

function test_label_equal_to_class_count_is_one_based()
  local ctx = ctx_with(10, "loss = F.cross_entropy(logits.view(-1, 10), labels.view(-1))")
  assert(one_based(ctx):find("label 10 with 10 classes", 1, true))
  assert(head_too_small(ctx) == false)
  assert(ignore_marker(ctx) == false)
end

function test_label_far_above_class_count_is_a_small_head()
  local ctx = ctx_with(37, "loss = F.cross_entropy(logits.view(-1, 10), labels.view(-1))")
  assert(one_based(ctx) == false)
  assert(head_too_small(ctx):find("only 10 classes", 1, true))
end

function test_incidents_read_once()
  local ctx = ctx_with(10, "loss = F.cross_entropy(logits.view(-1, 10), labels.view(-1))")
  local before = scans
  for _ = 1, 3 do
    assert(one_based(ctx) and head_too_small(ctx) == false)
  end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_markers()
  assert(ignore_marker(ctx_with(-1)):find("marker", 1, true))
  assert(one_based(ctx_with(-1)) == false and head_too_small(ctx_with(-1)) == false)
  assert(ignore_marker(ctx_with(255)):find("void", 1, true))
end

function test_unknown_class_count_keeps_both_label_causes()
  local ctx = ctx_with(10)
  assert(one_based(ctx) == true and head_too_small(ctx) == true and ignore_marker(ctx) == false)
end
