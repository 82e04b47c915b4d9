-- Lua for cuda-oom-2x (rules/LUA_API.md, API version 1).
-- The 2.1+ report gives the card's total and free memory, what this process uses in all (its CUDA context
-- included), what live tensors hold, and what PyTorch caches unused. Which hypothesis fits depends on how
-- those figures relate, which YAML cannot compute:
--   cache   = "reserved by PyTorch but unallocated"   fragmentation when it alone could serve the request
--   others  = total - free - in use by this process   memory other processes hold (this process's context
--                                                     is inside its own figure, unlike 1.x's report)

-- Beyond this, memory the card lost to something other than this process is another process's, not noise.
local OTHERS_ALLOWANCE = 1024^3

local function figures(c)
  local f = {}
  for _, k in ipairs({ "requested", "total", "free", "in_use", "allocated", "reserved_unallocated" }) do
    f[k] = triage.bytes(c[k])
    if not f[k] then return nil end
  end
  f.others = f.total - f.free - f.in_use
  return f
end

-- Other processes hold a real share of the card (not just a driver's or a display's few hundred MiB).
local function others_hold_share(f)
  return f.others > OTHERS_ALLOWANCE and f.others >= 0.2 * f.total
end

-- The unused cache could serve the request and is a large part of what this process holds.
local function cache_dominates(f)
  return f.reserved_unallocated >= f.requested and f.reserved_unallocated >= 0.25 * f.in_use
end

-- when (other-process): much of the card is in use by processes other than this one.
function others_hold_card(ctx)
  local f = figures(ctx.captures)
  if not f or not others_hold_share(f) then return false end
  return string.format("%s of the card is in use and this process holds %s of it: %s belongs to other processes",
                       triage.format_bytes(f.total - f.free), triage.format_bytes(f.in_use), triage.format_bytes(f.others))
end

-- when (step-too-large): live tensors hold most of the card, or nothing else in the figures explains the
-- failure better (unreadable figures keep the reading).
function tensors_hold_card(ctx)
  local f = figures(ctx.captures)
  if not f then return true end
  local share = f.allocated / f.total
  if share >= 0.6 then return string.format("live tensors hold %.0f%% of the card", 100 * share) end
  return not (others_hold_share(f) or cache_dominates(f))
end

-- when (fragmentation): PyTorch's unused cache is at least the request, so room exists but not in one block.
function cache_could_serve(ctx)
  local f = figures(ctx.captures)
  if not f or f.reserved_unallocated < f.requested then return false end
  return string.format("%s cached unused, %s requested", triage.format_bytes(f.reserved_unallocated),
                       triage.format_bytes(f.requested))
end

local function report(requested, total, free, in_use, allocated, cache)
  return { captures = { requested = requested, total = total, free = free, in_use = in_use, allocated = allocated,
                        reserved_unallocated = cache } }
end

function test_full_card_of_live_tensors()
  local r = report("3.91 GiB", "79.15 GiB", "2.73 GiB", "76.41 GiB", "71.06 GiB", "4.62 GiB")
  assert(tensors_hold_card(r) == "live tensors hold 90% of the card")
  assert(others_hold_card(r) == false)
  assert(cache_could_serve(r))
end

function test_card_held_by_another_container()
  -- 39.49 GiB card with 47 MiB free, this process at 5.16 GiB: the rest is someone else's
  local r = report("20.00 MiB", "39.49 GiB", "47.00 MiB", "5.16 GiB", "4.80 GiB", "100.00 MiB")
  assert(tostring(others_hold_card(r)):find("belongs to other processes", 1, true))
  assert(tensors_hold_card(r) == false)
  -- a 9 GiB neighbour on a 24 GiB card while this process's tensors hold 13.9 GiB (59%): the neighbour
  -- is the reading, the step is not
  r = report("20.00 MiB", "23.65 GiB", "9.06 MiB", "14.61 GiB", "13.87 GiB", "291.40 MiB")
  assert(others_hold_card(r))
  assert(tensors_hold_card(r) == false)
end

function test_large_cache_puts_fragmentation_before_the_step()
  local r = report("2.00 GiB", "23.64 GiB", "1.50 GiB", "22.10 GiB", "12.05 GiB", "9.80 GiB")
  assert(cache_could_serve(r))
  assert(tensors_hold_card(r) == false)
  assert(others_hold_card(r) == false)
end

function test_small_cache_is_no_fragmentation()
  local r = report("512.00 MiB", "39.39 GiB", "301.06 MiB", "39.08 GiB", "36.70 GiB", "1.86 GiB")
  assert(cache_could_serve(r))
  r = report("2.00 GiB", "39.39 GiB", "301.06 MiB", "39.08 GiB", "36.70 GiB", "1.86 GiB")
  assert(cache_could_serve(r) == false)
end
