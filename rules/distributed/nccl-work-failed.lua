-- Lua for nccl-work-failed (rules/LUA_API.md, API version 1).
-- {detail}: the collective's number and the last one completed, when the watchdog's summary line gives them.

function work_values(ctx)
  local seq, done = ctx.captures.seq or "", ctx.captures.completed or ""
  if seq == "" then return { detail = "" } end
  if done == "" then return { detail = " (collective number " .. seq .. ")" } end
  return { detail = string.format(" (collective number %s; the last one this rank completed was %s)", seq, done) }
end

-- score: these lines only echo a failure. When the input also holds the watchdog's own timeout line or
-- an NCCL error line, the rule for that line says the same with the numbers; this one steps aside.
local SAYS_MORE = { "Watchdog caught collective operation timeout", "NCCL error in:", "NCCL Error " }

local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function says_more(incidents)
  scans = scans + 1
  return triage.message_literal(incidents, SAYS_MORE) ~= nil
end

-- The answer for the input's incidents is worked out once per input (triage.per_input): every matching
-- incident's call gets the same table (rules/LUA_API.md "Reading every incident").
function not_when_cause_shown(ctx)
  if triage.per_input(ctx, says_more) then return false end
  return nil
end

function test_steps_aside_for_the_timeout_line()
  local timeout = { message = "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600029 milliseconds before timing out." }
  assert(not_when_cause_shown({ incidents = { timeout } }) == false)
  assert(not_when_cause_shown({ incidents = { { message = "NCCL communicator was aborted on rank 1." } } }) == nil)
end

function test_incidents_read_once()
  local echo = { message = "[Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels" }
  local incidents = { echo, echo, echo }
  local before = scans
  for _ = 1, 3 do assert(not_when_cause_shown({ incidents = incidents }) == nil) end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_detail()
  assert(work_values({ captures = {} }).detail == "")
  assert(work_values({ captures = { seq = "7", completed = "6" } }).detail:find("completed was 6", 1, true))
end
