-- Lua for cuda-oom-reserved-1x (rules/LUA_API.md, API version 1).
-- The 1.x OOM message prints requested / total / allocated / free / reserved; the diagnosis is in
-- their differences, which YAML cannot compute:
--   cached = reserved - allocated   memory PyTorch holds but no tensor uses (fragmentation if >= requested)
--   outside = total - reserved - free  memory this process's allocator does not account for (another
--                                      process, or this process's CUDA context and library workspaces)

-- A CUDA context plus cuDNN/cuBLAS workspaces take a few hundred MiB; beyond this, suspect another process.
local CONTEXT_ALLOWANCE = 1.5 * 1024^3

local function amounts(ctx)
  local c = ctx.captures
  local a = { requested = triage.bytes(c.requested), total = triage.bytes(c.total),
              allocated = triage.bytes(c.allocated), free = triage.bytes(c.free), reserved = triage.bytes(c.reserved) }
  for _, k in ipairs({ "requested", "total", "allocated", "free", "reserved" }) do
    if a[k] == nil then return nil end
  end
  a.cached = a.reserved - a.allocated
  a.outside = a.total - a.reserved - a.free
  return a
end

-- The vendor's GPU tool (ROCm builds say "HIP"), and its command that prints each GPU's memory in use
-- and in total, as CSV. Whole string literals: the report shows them as written (Note: [Command
-- captures] in engine/src/rules/template.h), where a value read from the log would be quoted.
local SMI = {
  CUDA = { smi = "nvidia-smi", smi_memory = "nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv" },
  HIP = { smi = "rocm-smi", smi_memory = "rocm-smi --showmeminfo vram --csv" },
}

-- values: {cached}, {outside}, {used_pct}; {smi} and {smi_memory}, the vendor's tool and memory query.
function oom_arithmetic(ctx)
  local tools = SMI[ctx.captures.backend] or SMI.CUDA
  local a = amounts(ctx)
  if not a then return { smi = tools.smi, smi_memory = tools.smi_memory } end
  return { cached = triage.format_bytes(a.cached), outside = triage.format_bytes(math.max(a.outside, 0)),
           used_pct = string.format("%.0f%%", 100 * a.allocated / a.total), smi = tools.smi,
           smi_memory = tools.smi_memory }
end

-- when (fragmentation): the cache alone could have served the request, so it is split into pieces.
function fragmented(ctx)
  local a = amounts(ctx)
  if not a then return true end
  if a.cached >= a.requested then
    return string.format("reserved - allocated = %s cached but unused, more than the %s requested: there is room, "
                         .. "but not in one block", triage.format_bytes(a.cached), triage.format_bytes(a.requested))
  end
  return false
end

-- when (step-too-large): live tensors fill most of the card.
function live_tensors_fill_card(ctx)
  local a = amounts(ctx)
  if not a then return true end
  if a.allocated >= 0.6 * a.total then
    return string.format("live tensors hold %.0f%% of the card (%s of %s)", 100 * a.allocated / a.total,
                         triage.format_bytes(a.allocated), triage.format_bytes(a.total))
  end
  return false
end

-- score: says when memory outside the allocator points at another process; the ranking stays.
function outside_memory(ctx)
  local a = amounts(ctx)
  if not a or a.outside <= CONTEXT_ALLOWANCE then return nil end
  return { note = string.format("Also, total - reserved - free = %s is held outside this process's PyTorch "
                                .. "allocator, more than a CUDA context needs: another process is probably using "
                                .. "this GPU (check nvidia-smi).", triage.format_bytes(a.outside)) }
end

-- when (other-process): the memory outside this allocator is more than a CUDA context needs and more than
-- the live tensors of this process: the card is mostly someone else's. A smaller gap stays a note.
function others_hold_card(ctx)
  local a = amounts(ctx)
  if not a or a.outside <= CONTEXT_ALLOWANCE or a.outside <= a.allocated then return false end
  return string.format("%s of the %s card is held outside this process's allocator (%s reserved, %s free)",
                       triage.format_bytes(a.outside), triage.format_bytes(a.total),
                       triage.format_bytes(a.reserved), triage.format_bytes(a.free))
end

local function ctx_of(requested, total, allocated, free, reserved)
  return { captures = { requested = requested, total = total, allocated = allocated, free = free, reserved = reserved } }
end

function test_fragmented_when_cache_exceeds_request()
  -- 14.33 GiB reserved - 13.92 GiB allocated = 0.41 GiB cached > 392 MiB requested.
  local ctx = ctx_of("392.00 MiB", "15.78 GiB", "13.92 GiB", "265.75 MiB", "14.33 GiB")
  assert(fragmented(ctx), "0.41 GiB cached should cover 392 MiB")
  assert(live_tensors_fill_card(ctx))
  assert(outside_memory(ctx) == nil, "1.19 GiB outside is a CUDA context, not another process")
  assert(oom_arithmetic(ctx).cached == "419.84 MiB", oom_arithmetic(ctx).cached)
end

function test_not_fragmented_when_request_is_larger()
  -- 21.02 - 19.87 = 1.15 GiB cached < 2.00 GiB requested.
  assert(fragmented(ctx_of("2.00 GiB", "23.69 GiB", "19.87 GiB", "1.51 GiB", "21.02 GiB")) == false)
end

function test_other_process()
  -- 23.69 total - 10.00 reserved - 0.10 free leaves 13.59 GiB unaccounted for.
  local r = outside_memory(ctx_of("2.00 GiB", "23.69 GiB", "9.50 GiB", "100.00 MiB", "10.00 GiB"))
  assert(r and r.note:find("another process", 1, true))
  assert(live_tensors_fill_card(ctx_of("2.00 GiB", "23.69 GiB", "9.50 GiB", "100.00 MiB", "10.00 GiB")) == false)
end

function test_card_held_outside_the_allocator()
  -- wild FastMRI_challenge#238: 7.92 GiB - 86 MiB reserved - 24.56 MiB free, 69.17 MiB of live tensors
  local ctx = ctx_of("216.00 MiB", "7.92 GiB", "69.17 MiB", "24.56 MiB", "86.00 MiB")
  assert(tostring(others_hold_card(ctx)):find("held outside", 1, true))
  -- a 1.19 GiB gap next to 13.92 GiB of tensors is the CUDA context, not a neighbour
  assert(others_hold_card(ctx_of("392.00 MiB", "15.78 GiB", "13.92 GiB", "265.75 MiB", "14.33 GiB")) == false)
  -- 13.59 GiB outside next to 9.50 GiB of tensors: someone else holds more of the card than this process
  assert(others_hold_card(ctx_of("2.00 GiB", "23.69 GiB", "9.50 GiB", "100.00 MiB", "10.00 GiB")))
end
