-- Lua for nccl-shm-segment (rules/LUA_API.md, API version 1).

-- values: {size_text}, the segment size NCCL asked for in readable units (empty when not printed).
function segment_size(ctx)
  local n = triage.number(ctx.captures.size or "")
  if not n then return { size_text = "" } end
  return { size_text = " (" .. triage.format_bytes(n) .. ")" }
end

function test_size()
  assert(segment_size({ captures = { size = "9637888" } }).size_text == " (9.19 MiB)")
  assert(segment_size({ captures = {} }).size_text == "")
end
