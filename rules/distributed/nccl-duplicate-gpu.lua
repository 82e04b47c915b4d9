-- Lua for nccl-duplicate-gpu (rules/LUA_API.md, API version 1).
-- NCCL prints the detail ("Duplicate GPU detected : rank A and rank B both on CUDA device D") after the
-- "NCCL error in: ..., invalid usage" line, which the segmenter keeps as that incident's context. The rule
-- reads either the detail line itself or the error line together with its context.

local DETAIL = "Duplicate GPU detected : rank (%d+) and rank (%d+) both on CUDA device (%x+)"

local function detail(ctx)
  local c = ctx.captures
  if c.rank_a and c.rank_a ~= "" then return c.rank_a, c.rank_b, c.bus end
  for _, line in ipairs((ctx.incident and ctx.incident.context) or {}) do
    local a, b, d = line:match(DETAIL)
    if a then return a, b, d end
  end
  return nil
end

-- values: {ranks} and {device} from whichever line holds them.
function duplicate_ranks(ctx)
  local a, b, d = detail(ctx)
  if not a then return { ranks = "Two ranks", device = "?" } end
  return { ranks = string.format("Ranks %s and %s", a, b), device = d }
end

-- score: an "invalid usage" NCCL error counts only when its detail line names a duplicate GPU.
function needs_duplicate_line(ctx)
  if detail(ctx) then return nil end
  return false
end

function test_error_line_with_context()
  local ctx = { captures = {}, incident = { context = { "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 10" } } }
  assert(needs_duplicate_line(ctx) == nil)
  local v = duplicate_ranks(ctx)
  assert(v.ranks == "Ranks 1 and 0" and v.device == "10")
end

function test_error_line_without_detail()
  assert(needs_duplicate_line({ captures = {}, incident = { context = {} } }) == false)
end
