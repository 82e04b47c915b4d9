-- Lua for notebook-kernel-died (rules/LUA_API.md, API version 1).
-- Note: [Kernel death beside its cause]. The kernel-death notice says only that the kernel process ended.
-- When another incident of the same input names a native crash (a worker killed by a segmentation fault
-- or a bus error, a Windows access violation raised as an exception, Python's fatal-error report), the
-- memory reading does not apply and the candidate is vetoed: the rule that reads that incident answers.
-- Every other input keeps the low prior. Lines no rule reads (OpenMP's "OMP: Error #15" alone) are not
-- incidents, so they cannot veto; the rule's prior stays low for that reason too.

local NATIVE = {
  "Segmentation fault", "SIGSEGV", "OMP: Error #15", "Fatal Python error", "Illegal instruction",
  "0xC0000005", "Access violation", "double free or corruption", "free(): invalid pointer", "Bus error",
}

local function native_in(incidents)
  for _, inc in ipairs(incidents) do
    local found = triage.message_literal({ inc }, NATIVE)
    if found then return found end
    for _, c in ipairs(inc.context or {}) do
      for _, k in ipairs(NATIVE) do
        if c:find(k, 1, true) then return k end
      end
    end
  end
  return nil
end

-- score: vetoed beside a native crash; the prior otherwise.
function kernel_death_reading(ctx)
  if not ctx.incidents then return nil end
  local native = triage.per_input(ctx, native_in)
  if native then return false end
  return nil
end

function test_alone_keeps_the_prior()
  local inc = { kind = "log_line", message = "The kernel appears to have died. It will restart automatically." }
  assert(kernel_death_reading({ confidence = 0.42, incidents = { inc } }) == nil)
end

function test_beside_a_native_crash_is_vetoed()
  local omp = { kind = "log_line", message = "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized." }
  local died = { kind = "log_line", message = "The kernel appears to have died. It will restart automatically." }
  assert(kernel_death_reading({ confidence = 0.42, incidents = { omp, died } }) == false)
  local segv = { kind = "log_line", message = "Segmentation fault (core dumped)" }
  assert(kernel_death_reading({ confidence = 0.42, incidents = { died, segv } }) == false)
end
