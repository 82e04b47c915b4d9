-- Lua for half-output-all-nan (rules/LUA_API.md, API version 1).
-- The rows of a printed tensor and its dtype line are one incident when printed together; the rule
-- needs both: rows that are NaN throughout, and the float16 dtype.

-- How many printed rows hold only nan, and whether any row holds a finite number.
local function rows(message)
  return triage.printed_rows(message, { "nan" })
end

-- values: {rows}, how many printed rows are NaN throughout.
function nan_rows(ctx)
  local n = rows(ctx.incident.message or "")
  if n == 0 then return { rows = "" } end
  return { rows = string.format(" (%d printed row%s)", n, n == 1 and "" or "s") }
end

-- score: veto unless the incident shows NaN-only rows, no finite row, and dtype=torch.float16.
function all_nan_half(ctx)
  local msg = ctx.incident.message or ""
  local n, finite = rows(msg)
  if n > 0 and not finite and msg:find("dtype=torch.float16", 1, true) then return nil end
  return false
end

function test_rows()
  local msg = "tensor([[[nan, nan, nan, nan],\n         [nan, nan, nan, nan]]], device='cuda:0',\n       dtype=torch.float16)"
  assert(all_nan_half({ incident = { message = msg } }) == nil)
  assert(nan_rows({ incident = { message = msg } }).rows == " (2 printed rows)")
  assert(all_nan_half({ incident = { message = "dtype=torch.float16" } }) == false)
  assert(all_nan_half({ incident = { message = "[[nan, nan, nan, nan],\n [0.5, nan, nan, nan]], dtype=torch.float16" } }) == false)
end
