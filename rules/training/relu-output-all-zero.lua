-- Lua for relu-output-all-zero (rules/LUA_API.md, API version 1).
-- Note: [ReLU output all zero] (relu-output-all-zero.yaml). The rows of one printed tensor and its grad_fn
-- line are one incident; the diagnosis needs both: rows that hold only 0 (and the "..." of a summarised
-- print), none with another value, and the grad_fn of a ReLU.

-- How many printed rows hold only zeros, and whether any row holds another value.
local function rows(message)
  return triage.printed_rows(message, { "0.", "-0." })
end

local function relu_fn(message)
  for fn in message:gmatch("grad_fn=<(%a+Backward%d*)>") do
    if fn:find("^Relu") or fn:find("^Threshold") then return fn end
  end
  return nil
end

-- values: {rows}, how many printed rows are zero throughout, and {fn}, the ReLU's grad_fn.
function zero_rows(ctx)
  local msg = ctx.incident.message or ""
  local n = rows(msg)
  local fn = relu_fn(msg) or "a ReLU"
  if n == 0 then return { rows = "", fn = fn } end
  return { rows = string.format(" (%d printed row%s)", n, n == 1 and "" or "s"), fn = fn }
end

-- score: veto unless the incident shows zero-only rows, no other row, and a ReLU's grad_fn.
function all_zero_relu(ctx)
  local msg = ctx.incident.message or ""
  local n, other = rows(msg)
  if n > 0 and not other and relu_fn(msg) then return nil end
  return false
end

function test_rows()
  local msg = "tensor([[0., 0., 0.,  ..., 0., 0., 0.],\n        [0., 0., 0.,  ..., 0., 0., 0.]], grad_fn=<ReluBackward0>)"
  assert(all_zero_relu({ incident = { message = msg } }) == nil)
  local v = zero_rows({ incident = { message = msg } })
  assert(v.rows == " (2 printed rows)" and v.fn == "ReluBackward0", v.rows)
  assert(all_zero_relu({ incident = { message = "grad_fn=<ReluBackward0>)" } }) == false)
  assert(all_zero_relu({ incident = { message = "[[0., 0., 0., 0.7341]], grad_fn=<ReluBackward0>)" } }) == false)
  assert(all_zero_relu({ incident = { message = "tensor([[0., 0., 0.,  ..., 0., 0., 0.]], device='cuda:0')" } }) == false)
  assert(all_zero_relu({ incident = { message = "tensor([[0.],\n        [0.]], grad_fn=<ThresholdBackward0>)" } }) == nil)
end
