-- Note: [Harmless target-size broadcast]. MSELoss, L1Loss, SmoothL1Loss and friends print "Using a target
-- size (...) that is different to the input size (...)" for ANY difference between the two shapes, and
-- then broadcast. The harm the warning names needs broadcasting to make more elements than the operands
-- hold: a (N, 1) prediction against an (N,) target becomes an N x N comparison. One shape is harmless at
-- every batch size: a scalar against a one-element tensor ([1] against [], either way round). It is the
-- single-sample loss whose prediction was squeezed to a scalar (output.squeeze() of a [1, 1] output, an
-- indexed Q-value) while the target was built as [1]; the broadcast is that one element, and with a
-- batch of N the same code gives [N] against [N], no warning. Then the rule is demoted under the
-- abstention threshold, with why. Other shapes that happen to hold the same elements are not demoted:
-- [1] against [1, 1] is the batch-of-one view of the (N,) against (N, 1) bug, harmful at any larger batch.
-- Shapes that do not broadcast at all, and BCE's error wording ("Target size ... must be the same as
-- input size", raised even for [1] against []), keep the prior: the call failed.

local DEMOTED = 0.2   -- under the default abstention threshold (0.35)

-- The dimensions of a captured size list ("32, 1", "", "N, 1"): a list of integers, {} for a scalar, nil
-- when a dimension is not a number.
local function dims(s)
  local out = {}
  if s == nil then return nil end
  for part in string.gmatch(s, "[^,]+") do
    local t = part:match("^%s*(.-)%s*$")
    if t ~= "" then
      local n = tonumber(t)
      if n == nil or n < 0 or n ~= math.floor(n) then return nil end
      out[#out + 1] = n
    end
  end
  return out
end

local function numel(shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  return n
end

-- The broadcast of two shapes (aligned from the right), or nil when they do not broadcast.
local function broadcast(a, b)
  local out = {}
  local la, lb = #a, #b
  for i = 1, math.max(la, lb) do
    local x = a[la - i + 1] or 1
    local y = b[lb - i + 1] or 1
    local z
    if x == y or y == 1 then z = x elseif x == 1 then z = y else return nil end
    table.insert(out, 1, z)
  end
  return out
end

local function show(shape)
  local parts = {}
  for i, d in ipairs(shape) do parts[i] = tostring(d) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

function harmless_broadcast(ctx)
  local msg = ctx.incident and ctx.incident.message or ""
  if not msg:find("Using a target size", 1, true) then return nil end   -- BCE's error: the call failed
  local t, i = dims(ctx.captures.target), dims(ctx.captures.input)
  if t == nil or i == nil then return nil end
  local scalar_vs_one = (#t == 0 and numel(i) == 1) or (#i == 0 and numel(t) == 1)
  if not scalar_vs_one then return nil end
  local b = broadcast(t, i)
  return { confidence = math.min(ctx.confidence, DEMOTED),
           note = "Demoted: a scalar against a one-element tensor (target " .. show(t) .. ", prediction " .. show(i) ..
                  ") broadcasts to " .. show(b) .. ", the one element both hold, so the loss is the intended one; this is a " ..
                  "single-sample loss whose prediction was squeezed to a scalar, and a batch of N gives [N] against [N]. " ..
                  "The warning matters when broadcasting multiplies elements, as (N, 1) against (N,) does." }
end

local function ctx_for(target, input, message)
  return { confidence = 0.95, captures = { target = target, input = input },
           incident = { kind = "log_line", message = message or
             ("Using a target size (torch.Size([" .. target .. "])) that is different to the input size (torch.Size([" .. input .. "]))") } }
end

function test_scalar_against_one_element_is_demoted()
  local r = harmless_broadcast(ctx_for("1", ""))
  assert(type(r) == "table" and r.confidence < 0.35, "[1] against [] broadcasts to [1]: nothing is repeated")
  assert(r.note:find("[1]", 1, true), r.note)
end

function test_one_element_target_against_scalar_either_way_is_demoted()
  local r = harmless_broadcast(ctx_for("", "1"))
  assert(type(r) == "table" and r.confidence < 0.35, "[] against [1] is the same single element")
end

function test_batch_of_one_column_keeps_the_prior()
  assert(harmless_broadcast(ctx_for("1", "1, 1")) == nil, "[1] against [1, 1] is (N,) against (N, 1) at N = 1")
  assert(harmless_broadcast(ctx_for("128", "1, 128")) == nil, "not a scalar: left to the prior")
end

function test_column_against_flat_vector_keeps_the_prior()
  assert(harmless_broadcast(ctx_for("32", "32, 1")) == nil, "(32, 1) against (32,) is a 32 x 32 comparison")
  assert(harmless_broadcast(ctx_for("1000", "1000, 1")) == nil)
  assert(harmless_broadcast(ctx_for("2, 256, 256", "2, 1, 256, 256")) == nil)
end

function test_shapes_that_do_not_broadcast_keep_the_prior()
  assert(harmless_broadcast(ctx_for("4, 3", "4, 10")) == nil)
  assert(harmless_broadcast(ctx_for("64, 4", "64, 1")) == nil, "[64, 4] against [64, 1] repeats the prediction 4 times")
end

function test_bce_error_wording_keeps_the_prior()
  local c = ctx_for("1", "", "ValueError: Target size (torch.Size([1])) must be the same as input size (torch.Size([]))")
  assert(harmless_broadcast(c) == nil, "BCEWithLogitsLoss refused the call")
end

function test_symbolic_sizes_keep_the_prior()
  assert(harmless_broadcast(ctx_for("N", "N, 1")) == nil)
end
