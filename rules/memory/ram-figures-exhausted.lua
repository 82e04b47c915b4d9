-- Lua for ram-figures-exhausted (rules/LUA_API.md, API version 1).
-- Note: [Host memory figures beside a failure]. A `free` or `top` row alone says how full memory was when
-- someone looked; beside a dead worker or process it says why it died. The rule is kept when
--   RAM is used up (available under USED_UP of the total) or swap is (used at least FULL_SWAP of it), and
--   another incident of the input is a failure (a traceback, an error line, a DataLoader worker's death,
--   a "Killed")                                                                       -> kept, with the figures;
-- otherwise vetoed: a `free` printout with memory to spare, or with nothing that failed, is no diagnosis.

local USED_UP = 0.05
local FULL_SWAP = 0.9

local UNIT = { [""] = 1, B = 1, K = 2 ^ 10, M = 2 ^ 20, G = 2 ^ 30, T = 2 ^ 40, P = 2 ^ 50 }

-- "31Gi", "215Mi", "0B", "2.0Gi", "32096" (bare: the row's own unit) -> a number in one scale.
local function amount(s)
  if not s then return nil end
  local n, u = s:gsub(",", "."):match("^([%d.]+)%s?([KMGTPB]?)")
  n = tonumber(n)
  if not n then return nil end
  return n * (UNIT[u] or 1)
end

-- The figures of the rows the incident holds (`free`'s Mem and Swap rows, `top`'s MiB Mem and MiB Swap
-- rows, printed together they form one incident): {total, available, swap_total, swap_used}, as printed.
local function rows(message)
  local f = {}
  for line in (message .. "\n"):gmatch("([^\n]*)\n") do
    local t, a = line:match("^%s*Mem:%s+(%S+)%s+%S+%s+%S+%s+%S+%s+%S+%s+(%S+)%s*$")
    if t then f.total, f.available = t, a end
    local st, su = line:match("^%s*Swap:%s+(%S+)%s+(%S+)%s+%S+%s*$")
    if st then f.swap_total, f.swap_used = st, su end
    t = line:match("^%s*[KMGT]iB Mem :%s+([%d.]+) total,")
    if t then f.total = t end
    st, su = line:match("^%s*[KMGT]iB Swap:%s+([%d.]+) total,%s+[%d.]+ free,%s+([%d.]+) used%.")
    if st then f.swap_total, f.swap_used = st, su end
    a = line:match("([%d.]+) avail Mem")
    if a then f.available = a end
    local used, percent = line:match("CPU Virtual Memory:%s+used = ([%d.]+) GB, percent = ([%d.]+)%%")
    if percent then f.used_gb, f.percent = used, percent end
  end
  return f
end

-- The share of RAM available and the share of swap used (nil where the rows lack them).
local function shares(f)
  local total, avail = amount(f.total), amount(f.available)
  local stotal, sused = amount(f.swap_total), amount(f.swap_used)
  local ram = (total and avail and total > 0) and avail / total or nil
  if not ram and f.percent then ram = 1 - tonumber(f.percent) / 100 end
  local swap = (stotal and sused and stotal > 0) and sused / stotal or nil
  return ram, swap
end

-- values: {figures}, the rows' figures in words.
function figures(ctx)
  local f = rows((ctx.incident or {}).message or "")
  local parts = {}
  if f.total and f.available then parts[#parts + 1] = f.available .. " of " .. f.total .. " RAM available" end
  if f.swap_total and f.swap_used then parts[#parts + 1] = "swap " .. f.swap_used .. " used of " .. f.swap_total end
  if f.percent then parts[#parts + 1] = f.used_gb .. " GB of RAM in use, " .. f.percent .. "% (DeepSpeed's see_memory_usage)" end
  return { figures = #parts > 0 and table.concat(parts, ", ") or "the printed memory rows" }
end

local scans = 0  -- runs of failure_in, for test_incidents_read_once

-- True when an incident of the input is a failure: not a log line other than the shell's "Killed".
local function failure_in(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    if inc.kind ~= "log_line" or m:find("DataLoader worker", 1, true) or m:find("^%s*Killed") then return true end
    -- a launcher's report of a child killed by SIGKILL (DeepSpeed's launcher, torchrun's agent)
    if m:find("return code = -9", 1, true) or m:find("exitcode: -9", 1, true) or m:find("(SIGKILL)", 1, true) then return true end
  end
  return false
end

function memory_used_up(ctx)
  local ram, swap = shares(rows((ctx.incident or {}).message or ""))
  local used_up = (ram and ram < USED_UP) or (swap and swap >= FULL_SWAP)
  if not used_up then return false end
  if not triage.per_input(ctx, failure_in) then return false end
  local held = {}
  if ram and ram < USED_UP then held[#held + 1] = string.format("%.1f%% of RAM was available", ram * 100) end
  if swap and swap >= FULL_SWAP then held[#held + 1] = string.format("%.0f%% of swap was used", swap * 100) end
  return { confidence = ctx.confidence,
           note = " Read together with the failure: " .. table.concat(held, " and ") .. "." }
end

local function ctx_with(message, incidents)
  local row = { kind = "log_line", message = message }
  local all = { row }
  for _, i in ipairs(incidents or {}) do all[#all + 1] = i end
  return { confidence = 0.8, incident = row, incidents = all }
end

local function dead() return { { kind = "traceback", message = "DataLoader worker (pid 12345) is killed by signal: Killed." } } end

local FREE_FULL = "Mem:            31Gi        30Gi       215Mi       1.2Gi       812Mi       150Mi\nSwap:          2.0Gi       2.0Gi          0B"
local FREE_ROOM = "Mem:            31Gi        12Gi        10Gi       1.2Gi       9.0Gi        18Gi\nSwap:          2.0Gi          0B       2.0Gi"
local DS_FULL = "[2023-04-20 19:03:19,581] [INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  used = 29.71 GB, percent = 95.3%"
local DS_ROOM = "CPU Virtual Memory:  used = 28.43 GB, percent = 22.6%"
local TOP_SWAP = "MiB Mem :  31842.9 total,    180.4 free,  31300.2 used,    362.3 buff/cache\nMiB Swap:   2048.0 total,      0.0 free,   2048.0 used.   4095.1 avail Mem"

function test_used_up_beside_a_dead_worker()
  local r = memory_used_up(ctx_with(FREE_FULL, dead()))
  assert(r.confidence == 0.8 and r.note:find("0.5% of RAM", 1, true), r.note)
  local s = memory_used_up(ctx_with(TOP_SWAP, dead()))
  assert(s.note:find("100% of swap", 1, true), s.note)
end

function test_room_to_spare_or_nothing_failed()
  assert(memory_used_up(ctx_with(FREE_ROOM, dead())) == false)
  assert(memory_used_up(ctx_with(FREE_FULL, {})) == false)
end

function test_amounts()
  assert(amount("31Gi") == 31 * 2 ^ 30 and amount("0B") == 0 and amount("32096") == 32096 and amount("1,5G") == 1.5 * 2 ^ 30)
  assert(figures({ incident = { message = FREE_FULL } }).figures == "150Mi of 31Gi RAM available, swap 2.0Gi used of 2.0Gi")
  assert(figures({ incident = { message = TOP_SWAP } }).figures == "4095.1 of 31842.9 RAM available, swap 2048.0 used of 2048.0")
end

function test_incidents_read_once()
  local ctx = ctx_with(FREE_FULL, dead())
  local before = scans
  for _ = 1, 3 do assert(type(memory_used_up(ctx)) == "table") end
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end

function test_deepspeed_memory_line_beside_a_launcher_kill()
  local kill = { { kind = "log_line", message = "[ERROR] [launch.py:324:sigkill_handler] ['python3', 'train.py'] exits with return code = -9" } }
  local r = memory_used_up(ctx_with(DS_FULL, kill))
  assert(r and r.note:find("4.7% of RAM", 1, true), r and r.note)
  assert(memory_used_up(ctx_with(DS_ROOM, kill)) == false)
  assert(memory_used_up(ctx_with(DS_FULL, {})) == false)
  assert(figures({ incident = { message = DS_FULL } }).figures == "29.71 GB of RAM in use, 95.3% (DeepSpeed's see_memory_usage)")
end
