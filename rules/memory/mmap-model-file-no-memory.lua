-- Lua for mmap-model-file-no-memory (rules/LUA_API.md, API version 1): the mapping's size in words.

function sizes(ctx)
  return { size = triage.format_bytes(triage.number(ctx.captures.bytes or "") or 0) }
end

-- torchrun and accelerate prefix each rank's lines with [rankN]: (the incident's rank): the file is
-- mapped once per process.
function several_ranks(ctx)
  local rank = ctx.incident and ctx.incident.rank or ""
  if rank ~= "" then return "the error is printed by rank " .. rank .. " of a multi-process launch" end
  return false
end

function test_ranks()
  assert(several_ranks({ incident = { rank = "6" } }):find("rank 6", 1, true))
  assert(several_ranks({ incident = { rank = "" } }) == false)
end

function test_size_in_words()
  assert(sizes({ captures = { bytes = "33484977464" } }).size == "31.19 GiB")
end
