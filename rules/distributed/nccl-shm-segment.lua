-- Lua for nccl-shm-segment (rules/LUA_API.md, API version 1).

-- values: {size_text}, the segment size NCCL asked for in readable units (empty when not printed).
-- {segment}: the segment the message names; NCCL 2.4-2.8's posix_fallocate line names none.
function segment_size(ctx)
  local out = {}
  if (ctx.captures.segment or "") == "" then out.segment = "in /dev/shm" end
  local n = triage.number(ctx.captures.size or "")
  out.size_text = n and (" (" .. triage.format_bytes(n) .. ")") or ""
  return out
end

function test_size()
  assert(segment_size({ captures = { size = "9637888" } }).size_text == " (9.19 MiB)")
  assert(segment_size({ captures = {} }).size_text == "")
  assert(segment_size({ captures = {} }).segment == "in /dev/shm")
  assert(segment_size({ captures = { segment = "/dev/shm/nccl-WU88OE" } }).segment == nil)
end
