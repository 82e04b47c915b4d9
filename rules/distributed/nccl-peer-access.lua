-- Lua for nccl-peer-access (rules/LUA_API.md, API version 1).
-- PyTorch's "NCCL error in: ..., unhandled cuda error" line says only that a CUDA call inside NCCL failed;
-- the peer-access detail is on another line (NCCL's "Last error:" text, kept as the incident's context, or
-- an NCCL WARN line elsewhere in the log). The error line counts for this rule only with that detail.

local DETAILS = {
  "Cuda failure (%d+) '(peer access[^']*)'",
  "failed to open CUDA IPC handle : (%d+) (peer access is not supported between these two devices)",
}

local function find_in(text)
  for _, pat in ipairs(DETAILS) do
    local code, what = text:match(pat)
    if code then return code, what end
  end
  return nil
end

-- The first peer-access detail among the input's incidents. Read once per input (triage.per_input):
-- every matching incident's calls get the same ctx.incidents (rules/LUA_API.md "Reading every incident").
local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function detail_in(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    local code, what = find_in(inc.message or "")
    if code then return code, what end
  end
  return nil
end

-- The code and text of the peer-access failure: from the incident's own message, its context, or any
-- incident of the input. (Captures are not read: `values` has merged its own {code} into them.)
local function detail(ctx)
  local own = ctx.incident and ctx.incident.message or ""
  local code, what = find_in(own)
  if code then return code, what end
  for _, line in ipairs((ctx.incident and ctx.incident.context) or {}) do
    local code, what = find_in(line)
    if code then return code, what end
  end
  code, what = triage.per_input(ctx, detail_in)
  if code then return code, what end
  return nil
end

-- values: {cuda_code} and {cuda_what} from whichever line holds them.
function peer_access_values(ctx)
  local code, what = detail(ctx)
  return { cuda_code = code or "?", cuda_what = what or "peer access refused" }
end

-- score: the bare NCCL error line counts only when the log shows the peer-access detail.
function needs_peer_access_line(ctx)
  if detail(ctx) then return nil end
  return false
end

function test_error_line_with_context()
  local ctx = { captures = {}, incident = { message = "NCCL error in: x, unhandled cuda error", context = { "Cuda failure 217 'peer access is not supported between these two devices'" } } }
  assert(needs_peer_access_line(ctx) == nil)
  assert(peer_access_values(ctx).cuda_code == "217")
end

function test_error_line_with_warn_elsewhere()
  local warn = { message = "z-pc:1:2 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these two devices" }
  local ctx = { captures = {}, incident = { message = "NCCL error in: x, unhandled cuda error", context = {} }, incidents = { { message = "NCCL error in: x, unhandled cuda error" }, warn } }
  assert(needs_peer_access_line(ctx) == nil)
  assert(peer_access_values(ctx).cuda_what == "peer access is not supported between these two devices")
end

function test_incidents_read_once()
  local line = { message = "NCCL error in: x, unhandled cuda error", context = {} }
  local incidents = { line, line, line }
  local before = scans
  for _ = 1, 3 do assert(needs_peer_access_line({ captures = {}, incident = line, incidents = incidents }) == false) end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_error_line_alone()
  assert(needs_peer_access_line({ captures = { code = "?" }, incident = { message = "NCCL error in: x, unhandled cuda error", context = {} }, incidents = {} }) == false)
end
