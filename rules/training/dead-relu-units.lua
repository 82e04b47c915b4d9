-- Reads the per-layer dead-unit fractions kept in the incident (key=value, dict or table lines) and
-- finds the worst layer. "Dead" means zero for every sample of the batch checked, not the ordinary
-- ~50% of zero outputs a healthy ReLU produces, so the patterns only read columns that say "dead".

local FRACTION_KEYS = { "dead_frac", "dead_fraction", "dead_ratio" }

-- "dead_frac", or a longer key ending in "_dead_frac" (and the same for the other names).
local function is_fraction_key(key)
  for _, k in ipairs(FRACTION_KEYS) do
    if key == k or key:sub(-#k - 1) == "_" .. k then return true end
  end
  return false
end

local function parse(message)
  local layers = {}   -- {name, frac} in printed order, every printout
  for line in (message .. "\n"):gmatch("([^\n]*)\n") do
    local found = false
    for name, v in line:gmatch("'dead_[%a_]*/([^']+)': ([%d%.]+)") do
      layers[#layers + 1] = { name = name, frac = tonumber(v) }
      found = true
    end
    if not found then
      -- key=value lines: the layer, then the first dead fraction after it. Each word is read once
      -- (a frontier pattern, no '.-' between the two), so a long line costs linear time.
      local _, stop, name = line:find("layer=([%w_.]+)")
      local v
      if name then
        for key, value in line:gmatch("%f[%w_]([%w_]+)=([%d%.]+)", stop + 1) do
          if is_fraction_key(key) then v = value; break end
        end
        if not v then name = nil end
      end
      if name then
        layers[#layers + 1] = { name = name, frac = tonumber(v) }
      else
        local n, pct = line:match("^%s*([%w_.]+)%s+[Rr][Ee][Ll][Uu]6?%s+%d+%s+%d+%s+([%d%.]+)%%")
        if n then layers[#layers + 1] = { name = n, frac = tonumber(pct) / 100 } end
      end
    end
  end
  return layers
end

local function worst(layers)
  local best
  for _, l in ipairs(layers) do
    if l.frac and (best == nil or l.frac > best.frac) then best = l end
  end
  return best
end

local function pct(f)
  local s = string.format("%.1f", 100 * f)
  return (s:gsub("%.0$", ""))
end

function dead_summary(ctx)
  local layers = parse(ctx.incident.message)
  local w = worst(layers)
  if not w then return nil end
  local seen, parts = {}, {}
  for _, l in ipairs(layers) do
    if not seen[l.name] then
      seen[l.name] = true
      parts[#parts + 1] = l.name .. " " .. pct(l.frac) .. "%"
    end
  end
  return { worst_layer = w.name, worst_pct = pct(w.frac), summary = "first printed: " .. table.concat(parts, ", ") }
end

-- More than half of a layer's units dead (the taxonomy's cue) is a diagnosis; half or fewer is left
-- alone (a check on a single sample sees about half of a healthy ReLU's units at zero).
function mostly_dead(ctx)
  local w = worst(parse(ctx.incident.message))
  if not w or w.frac <= 0.5 then return false end
  if w.frac >= 0.8 then return math.min(1, ctx.confidence + 0.04) end
  return nil
end

function test_healthy_veto()
  local msg = "{'loss': 1.9, 'dead_frac/fc1': 0.0, 'dead_frac/fc2': 0.02, 'epoch': 1.0}"
  assert(mostly_dead({ incident = { message = msg }, confidence = 0.86 }) == false)
end

function test_table_percent()
  local v = dead_summary({ incident = { message = "act1   ReLU    128    91   71.1%\nact2   ReLU     64    60   93.8%" } })
  assert(v.worst_layer == "act2" and v.worst_pct == "93.8", v.worst_layer .. " " .. v.worst_pct)
end

function test_kv_units_column_not_read_as_fraction()
  local v = dead_summary({ incident = { message = "step=0 layer=relu1 dead_units=108/128 dead_frac=0.844" } })
  assert(v.worst_pct == "84.4", v.worst_pct)
end

-- Hypothesis evidence. Both always show the hypothesis; they add what the log says for it.
function dead_from_start(ctx)
  local msg = ctx.incident.message or ""
  if msg:find("step=0%f[^%d]") or msg:find("step 0%f[^%d]") or msg:find("epoch=0%f[^%d.]") then
    return "the units are already dead in the printout taken before the first update (step 0)"
  end
  return true
end

function high_lr(ctx)
  local lr = ctx.metrics and ctx.metrics.lr
  local top
  if lr and lr.values then
    for _, v in ipairs(lr.values) do
      if v == v and (top == nil or v > top) then top = v end
    end
  end
  if top and top >= 1 then
    return "the log prints a learning rate of " .. tostring(top) .. ", high for SGD/Adam on a ReLU network"
  end
  return true
end

function test_hypothesis_evidence()
  assert(dead_from_start({ incident = { message = "step=0 layer=relu1 dead_frac=0.844" } }):find("step 0", 1, true))
  assert(dead_from_start({ incident = { message = "step=10 layer=relu1 dead_frac=0.844" } }) == true)
  assert(high_lr({ metrics = { lr = { steps = { 1 }, values = { 5.0 } } } }):find("5.0", 1, true))
  assert(high_lr({ metrics = {} }) == true)
end
