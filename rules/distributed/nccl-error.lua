-- Lua for nccl-error (rules/LUA_API.md, API version 1).
-- {at}: where NCCL failed. ProcessGroupNCCL's message names the file and line; torch.cuda.nccl's
-- ("NCCL Error N: ...", used by nn.DataParallel) names no place.

function where_values(ctx)
  local where = ctx.captures.where or ""
  if where ~= "" then return { at = " at " .. where } end
  if (ctx.captures.code or "") ~= "" then
    return { at = " in torch.cuda.nccl (the collectives of nn.DataParallel and torch.cuda.comm)" }
  end
  return { at = "" }
end

function test_place_or_module()
  assert(where_values({ captures = { where = "ProcessGroupNCCL.cpp:1269" } }).at == " at ProcessGroupNCCL.cpp:1269")
  assert(where_values({ captures = { code = "2" } }).at:find("DataParallel", 1, true))
  assert(where_values({ captures = {} }).at == "")
end

-- score: NCCL's own message ends with "Last error:" and the cause on the next line. Python prints that
-- continuation unindented, so the segmenter reads "ncclSystemError: ..." as a line of its own and the
-- cause as a separate log line, which nccl-shm-segment, nccl-peer-access, nccl-duplicate-gpu,
-- nccl-nvlink-p2p-disabled or nccl-socket-interface diagnose (distributed.nccl_setup), or nccl-cuda-out-of-memory
-- (cuda.oom: NCCL's own cudaMalloc failed). When the input holds such a line, this generic reading is demoted below it.
local SETUP_CAUSES = { "Error while creating shared memory segment", "failed to extend /dev/shm",
                       "Call to posix_fallocate failed", "peer access is not supported", "Duplicate GPU detected",
                       "P2P is disabled between NVLINK connected GPUs", "no socket interface found",
                       "No interface found in the same subnet", "Cuda failure 'out of memory'",
                       "Cuda failure 2 'out of memory'", "Failed to CUDA calloc" }

-- Read once per input (triage.per_input, rules/LUA_API.md "Reading every incident").
local function setup_cause_in(incidents)
  return triage.message_literal(incidents, SETUP_CAUSES)
end

function setup_cause(ctx)
  -- the cause inside this incident's own message is read by those rules on this incident (specificity)
  local cause = triage.per_input(ctx, setup_cause_in)
  if not cause or ((ctx.incident and ctx.incident.message) or ""):find(cause, 1, true) then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = string.format(" The log names the setup failure behind it (\"%s\"), diagnosed on its own line.", cause) }
end

function test_demoted_for_a_separate_cause_line()
  local err = { message = "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error, NCCL version 2.19.3" }
  local shm = { message = "Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)" }
  local r = setup_cause({ incident = err, incidents = { err, shm }, confidence = 0.8 })
  assert(type(r) == "table" and r.confidence == 0.4 and r.note:find("shared memory", 1, true))
  assert(setup_cause({ incident = err, incidents = { err }, confidence = 0.8 }) == nil)
  local nvl = { message = "P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case" }
  assert(type(setup_cause({ incident = err, incidents = { err, nvl }, confidence = 0.8 })) == "table")
  local oom = { message = "Cuda failure 2 'out of memory'" }
  assert(type(setup_cause({ incident = err, incidents = { err, oom }, confidence = 0.8 })) == "table")
end
