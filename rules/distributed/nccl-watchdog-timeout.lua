-- Lua for nccl-watchdog-timeout (rules/LUA_API.md, API version 1): a cross-incident rule.
-- A watchdog timeout is usually a consequence: one rank died or went elsewhere and the others waited.
-- When the same input holds an earlier exception that is not itself a collective timeout, that
-- exception is the failure to fix; this rule then says so and ranks itself lower.

local function is_timeout(inc)
  local m = inc.message or ""
  return m:find("Watchdog caught collective operation timeout", 1, true) ~= nil
      or m:find("Some NCCL operations have failed or timed out", 1, true) ~= nil
end

-- The earliest incident of the input that is a real exception of another kind, or nil. Read once per
-- input (triage.per_input): every matching incident's calls get the same ctx.incidents
-- (rules/LUA_API.md "Reading every incident").
local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function earliest_failure(incidents)
  local best
  for _, inc in ipairs(incidents) do
    if inc.exception ~= "" and inc.kind ~= "log_line" and inc.kind ~= "signal" and not is_timeout(inc)
        and (best == nil or inc.line_start < best.line_start) then
      best = inc
    end
  end
  scans = scans + 1
  return best
end

-- Returns the earliest incident before this one that is a real exception of another kind, or nil.
local function earlier_failure(ctx)
  local here = ctx.incident and ctx.incident.line_start or math.huge
  local best = triage.per_input(ctx, earliest_failure)
  if best and best.line_start < here then return best end
  return nil
end

local function first_line(s)
  s = s:match("^[^\n]*")
  if #s > 120 then s = s:sub(1, 117) .. "..." end
  return s
end

-- score: lower the timeout below the failure that caused it, and name that failure.
-- values: {collective}, the collective's sequence number when the message gives one (1.10+).
function collective_values(ctx)
  local seq = ctx.captures.seq or ""
  return { collective = (seq ~= "") and ("Collective number " .. seq) or "A collective" }
end

function after_earlier_failure(ctx)
  local f = earlier_failure(ctx)
  if not f then return nil end
  return { confidence = ctx.confidence * 0.6,
           note = string.format("This input shows an earlier failure at line %d (%s: %s): a rank that died there "
                                .. "never reached the collective, so the timeout is its consequence. Fix that "
                                .. "one first.", f.line_start, f.exception, first_line(f.message)) }
end

-- when (rank-died-or-network): with an earlier failure in view, say which.
function rank_died(ctx)
  local f = earlier_failure(ctx)
  if not f then return true end
  return string.format("line %d: %s", f.line_start, f.exception)
end

local function incident(kind, exception, message, line)
  return { kind = kind, exception = exception, message = message, line_start = line }
end

function test_timeout_after_oom_is_a_consequence()
  local oom = incident("traceback", "torch.cuda.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB", 3)
  local wd = incident("log_line", "", "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=38411)", 23)
  local cxx = incident("cxx_error", "std::runtime_error", "[Rank 0] Watchdog caught collective operation timeout", 26)
  local ctx = { incident = wd, incidents = { oom, wd, cxx }, confidence = 0.9 }
  local s = after_earlier_failure(ctx)
  assert(s and math.abs(s.confidence - 0.54) < 1e-9, "confidence should drop to 0.54")
  assert(s.note:find("line 3 (torch.cuda.OutOfMemoryError", 1, true), s.note)
  assert(rank_died(ctx) == "line 3: torch.cuda.OutOfMemoryError")
end

function test_failure_after_the_timeout_is_not_its_cause()
  local wd = incident("log_line", "", "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7)", 5)
  local later = incident("traceback", "RuntimeError", "CUDA error: an illegal memory access was encountered", 9)
  local ctx = { incident = wd, incidents = { wd, later }, confidence = 0.9 }
  assert(after_earlier_failure(ctx) == nil)
  assert(rank_died(ctx) == true)
end

function test_incidents_read_once()
  local oom = incident("traceback", "torch.cuda.OutOfMemoryError", "CUDA out of memory.", 3)
  local wd = incident("log_line", "", "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)", 23)
  local incidents = { oom, wd, wd, wd }
  local before = scans
  for _ = 1, 3 do
    local ctx = { incident = wd, incidents = incidents, confidence = 0.9 }
    assert(after_earlier_failure(ctx) and rank_died(ctx) == "line 3: torch.cuda.OutOfMemoryError")
  end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_lone_timeout_is_left_alone()
  local wd = incident("log_line", "", "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=45031)", 1)
  local ctx = { incident = wd, incidents = { wd }, confidence = 0.9 }
  assert(after_earlier_failure(ctx) == nil)
  assert(rank_died(ctx) == true)
end
