-- Lua for overflow-detector-inf (rules/LUA_API.md, API version 1).
-- The detector's rows are "ABS_MIN ABS_MAX NAME". Rows printed close together form one incident; this
-- reads them all: where inf/nan appears, and how large the finite values got before it.

local FP16_MAX = 65504

-- Returns the first row whose abs max is inf/nan (its name), the largest finite output abs max before it
-- (inputs are left out: attention masks hold float32's extreme value on purpose), and whether the
-- detector's own "Detected inf/nan" line is present.
local function scan(message)
  local largest, infrow = nil, nil
  for line in (message .. "\n"):gmatch("([^\n]*)\n") do
    local _, maxv, name = line:match("^%s*(%S+)%s+(%S+)%s+(%S+)")
    if maxv and name and (name:match("^output") or name:match("^input") or name == "weight" or name == "bias") then
      if maxv == "inf" or maxv == "nan" then
        infrow = infrow or name
      elseif not infrow and name:match("^output") then
        local v = tonumber(maxv)
        if v and (largest == nil or v > largest) then largest = v end
      end
    end
  end
  return infrow, largest, message:find("Detected inf/nan", 1, true) ~= nil
end

-- values: {summary}, what the printed rows show.
function table_summary(ctx)
  local infrow, largest = scan(ctx.incident.message or "")
  if infrow and largest then
    return { summary = string.format(" Here %s became inf/nan after values up to %.3g%s.", infrow, largest,
                                     largest <= FP16_MAX and string.format(" (float16's largest value is %d)", FP16_MAX) or "") }
  elseif infrow then
    return { summary = string.format(" Here %s became inf/nan.", infrow) }
  end
  return { summary = "" }
end

-- score: only a table that reached inf/nan counts. Finite outputs beyond float16's range before the inf
-- mean the tensors are not float16, so the fp16 reading is weaker then.
function overflow_evidence(ctx)
  local infrow, largest, detected = scan(ctx.incident.message or "")
  if not infrow and not detected then return false end
  if largest and largest > FP16_MAX * 1.01 and largest < 1e38 then
    return ctx.confidence * 0.75
  end
  return nil
end

local function ctx_of(message) return { incident = { message = message }, confidence = 0.8 } end

function test_pegasus_rows()
  local msg = "0.00e+00 6.06e+04 output\n2.44e-04 6.86e+04 input[0]\n0.00e+00 3.40e+38 input[1]\n9.77e-04      inf output[0]"
  local infrow, largest = scan(msg)
  assert(infrow == "output[0]" and largest == 6.06e4, tostring(largest))
  assert(overflow_evidence(ctx_of(msg)) == nil)
end

function test_healthy_table_vetoed()
  assert(overflow_evidence(ctx_of("0.00e+00 9.73e-01 input[0]\n0.00e+00 9.73e-01 output")) == false)
end

function test_detected_line()
  assert(overflow_evidence(ctx_of("Detected inf/nan during batch_number=2\n0.00e+00 9.73e-01 output")) == nil)
  assert(table_summary(ctx_of("0.00e+00 2.13e+02 output\n1.0e+00 inf output")).summary
         == " Here output became inf/nan after values up to 213 (float16's largest value is 65504).")
end
