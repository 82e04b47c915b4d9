-- Lua for tcmalloc-large-alloc (rules/LUA_API.md, API version 1).
-- Note: [tcmalloc large allocations] (in the rule's YAML). tcmalloc reports every allocation above its
-- threshold, so its line is evidence of host RAM running out only beside a failure:
--   the allocation failed ("== (nil)")                                  -> kept;
--   the input shows the process dying (Colab's kernel restart, Killed, std::bad_alloc, a segfault or an
--   abort, a MemoryError)                                                -> kept, with what died;
--   a size of ABSURD bytes or more (no machine has it: a garbage size)   -> set aside under the threshold;
--   otherwise (a successful allocation in a run that went on)           -> set aside under the threshold.

local ABSURD = 2 ^ 40          -- 1 TiB in one allocation
local SET_ASIDE = 0.3          -- under the default abstention threshold (0.35)

local DEATHS = {
  "KernelRestarter: restarting kernel", "restarting kernel", "std::bad_alloc", "Segmentation fault",
  "Aborted (core dumped)", "core dumped", "MemoryError", "Your session crashed", "Cannot allocate memory",
  "Out of memory: Killed process",
}

local function died(incidents)
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    for line in (m .. "\n"):gmatch("([^\n]*)\n") do
      local t = line:gsub("%s+$", "")
      if t == "Killed" or t:find("[%]\r]Killed$") then return "Killed" end
    end
    for _, d in ipairs(DEATHS) do
      if m:find(d, 1, true) then return d end
    end
  end
  return nil
end

function sizes(ctx)
  local n = triage.number(ctx.captures.bytes or "") or 0
  local failed = ctx.captures.address == "(nil)"
  return { size = triage.format_bytes(n),
           outcome = failed and "the allocation failed" or "the allocation itself succeeded" }
end

function host_ran_out(ctx)
  if ctx.captures.restart then return false end  -- the restart line: evidence for the allocation's line only
  local n = triage.number(ctx.captures.bytes or "") or 0
  local size = triage.format_bytes(n)
  if n >= ABSURD then
    return { confidence = SET_ASIDE,
             note = " Set aside: " .. size .. " in one allocation is more than any machine has; a size like this is a garbage value (an extension built for another torch, an overflowed shape), not a RAM shortage." }
  end
  if ctx.captures.address == "(nil)" then return nil end
  local what = ctx.incidents and triage.per_input(ctx, died)
  if what then
    return { confidence = ctx.confidence, note = " The input shows the process dying too (\"" .. what .. "\")." }
  end
  return { confidence = SET_ASIDE,
           note = " Set aside: the allocation succeeded and nothing in the input failed; tcmalloc reports every allocation above its threshold." }
end

local LINE = "tcmalloc: large alloc 12884901888 bytes == 0x7f8880000000 @ 0x7f94b4551001"

function test_kept_beside_a_restart()
  local ctx = { confidence = 0.8, captures = { bytes = "12884901888", address = "0x7f8880000000" },
                incidents = { { kind = "log_line", message = "KernelRestarter: restarting kernel (1/5), keep random ports" },
                              { kind = "log_line", message = LINE } } }
  local r = host_ran_out(ctx)
  assert(r.confidence == 0.8 and r.note:find("restarting kernel", 1, true), r.note)
end

function test_failed_allocation_kept()
  assert(host_ran_out({ confidence = 0.8, captures = { bytes = "34359738368", address = "(nil)" }, incidents = {} }) == nil)
end

function test_restart_line_is_only_evidence()
  assert(host_ran_out({ confidence = 0.8, captures = { restart = "KernelRestarter: restarting kernel" }, incidents = {} }) == false)
end

function test_set_aside()
  local alone = host_ran_out({ confidence = 0.8, captures = { bytes = "2198593536", address = "0x557a97f8c000" },
                               incidents = { { kind = "log_line", message = LINE } } })
  assert(alone.confidence == SET_ASIDE)
  local huge = host_ran_out({ confidence = 0.8, captures = { bytes = "139766055411712", address = "(nil)" }, incidents = {} })
  assert(huge.confidence == SET_ASIDE and huge.note:find("garbage", 1, true), huge.note)
end
