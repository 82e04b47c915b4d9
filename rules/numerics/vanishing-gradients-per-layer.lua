-- Reads the per-layer mean |grad| lines kept in the incident (up to 8 lines of one printout, in the
-- order the model's layers were printed: input side first) and compares the first layer with the last.

local NUM = "([-+]?[%d%.]+[eE]?[-+]?%d*)"

-- Returns layer names in order of first appearance and each layer's first printed value.
local function parse(message)
  local order, value = {}, {}
  local function add(name, v)
    v = tonumber(v)
    if name and v and value[name] == nil then
      order[#order + 1] = name
      value[name] = v
    end
  end
  for line in (message .. "\n"):gmatch("([^\n]*)\n") do
    local found = false
    for name, v in line:gmatch("'grad_[%w_]*/([^']+)': " .. NUM) do
      add(name, v)
      found = true
    end
    if not found then
      -- key=value lines: the layer, then the first key holding "grad_" after it. Each word is read
      -- once (a frontier pattern, no '.-' between the two), so a long line costs linear time.
      local _, stop, name = line:find("layer=([%w_.]+)")
      local v
      if name then
        for key, value in line:gmatch("%f[%w_]([%w_]+)=" .. NUM, stop + 1) do
          if key:find("grad_", 1, true) then v = value; break end
        end
      end
      if not v then name, v = line:match("^%s*([%w_.]+)%s*|%s*Avg:%s*" .. NUM) end
      add(name, v)
    end
  end
  return order, value
end

local function fmt(v) return string.format("%.2e", v) end

-- An embedding table's mean |grad| is small in any healthy run (only the rows of the batch's tokens get
-- a gradient), so the comparison starts at the first layer that is not one.
local function is_embedding(name)
  local n = name:lower()
  return n:find("emb", 1, true) or n:find("wte", 1, true) or n:find("wpe", 1, true)
end

local function ends(order)
  for i = 1, #order - 1 do
    if not is_embedding(order[i]) then return order[i], order[#order] end
  end
  return nil
end

function flow(ctx)
  local order, value = parse(ctx.incident.message)
  local first, last = ends(order)
  if not first then return nil end
  local a, b = value[first], value[last]
  local ratio = a > 0 and b / a or math.huge
  return {
    first_layer = first, first_grad = fmt(a),
    last_layer = last, last_grad = fmt(b),
    ratio = ratio == math.huge and "inf" or string.format("%.0e", ratio),
  }
end

-- Vanishing: the first layer's mean |grad| is tiny in absolute terms and at least 1000x below the last
-- layer's. A healthy net stays within one or two orders of magnitude; a converged one is small everywhere.
function vanishing(ctx)
  local order, value = parse(ctx.incident.message)
  local first, last = ends(order)
  if not first then return false end
  local a, b = value[first], value[last]
  if not (a < 1e-5 and b >= 1000 * a) then return false end
  if a < 1e-7 then return math.min(1, ctx.confidence + 0.04) end
  return nil
end

function test_healthy_veto()
  local msg = "epoch=1 layer=0.weight grad_mean_abs=1.50e-03\nepoch=1 layer=12.weight grad_mean_abs=1.64e-02"
  assert(vanishing({ incident = { message = msg }, confidence = 0.86 }) == false)
end

function test_dict_and_hf_floats()
  local msg = "{'loss': 1.4, 'grad_mean_abs/fc1': 5.431e-09, 'grad_mean_abs/fc4': 0.0002249, 'grad_mean_abs/out': 0.04269}"
  local v = flow({ incident = { message = msg } })
  assert(v.first_layer == "fc1" and v.last_layer == "out", v.first_layer .. " " .. v.last_layer)
  assert(vanishing({ incident = { message = msg }, confidence = 0.86 }) > 0.86)
end

function test_later_printout_keeps_first_values()
  local msg = "epoch=1 layer=a.weight grad_mean_abs=1e-08\nepoch=1 layer=b.weight grad_mean_abs=1e-02\n"
      .. "epoch=2 layer=a.weight grad_mean_abs=5e-01"
  local v = flow({ incident = { message = msg } })
  assert(v.first_grad == "1.00e-08" and v.last_layer == "b.weight")
end

function test_one_layer_only()
  assert(vanishing({ incident = { message = "layer=fc1 grad_mean_abs=1e-09" }, confidence = 0.86 }) == false)
end

function test_embedding_table_is_not_the_first_layer()
  local msg = "layer=embed.weight grad_mean_abs=2.0e-08\nlayer=fc1.weight grad_mean_abs=1.1e-03\nlayer=head.weight grad_mean_abs=4.0e-03"
  assert(vanishing({ incident = { message = msg }, confidence = 0.86 }) == false)
  assert(flow({ incident = { message = msg } }).first_layer == "fc1.weight")
end
