-- Lua for dynamo-recompile-limit (rules/LUA_API.md, API version 1).
-- Dynamo prefixes its log lines with the compile id [frame/attempt]: frame N of the program, attempt k
-- counted from 0. The warning comes on the attempt the limit refused, so attempts 0..k-1 are cached.

-- values: {limit} (the captured {max}, or words when the message does not print it), {config_name} and {reached}, a
-- clause that counts the compilations when the compile id was printed.
function recompile_count(ctx)
  local c = ctx.captures
  local limit = triage.number(c.max or "")
  local attempt = triage.number(c.attempt or "")
  local out = { limit = limit and tostring(math.floor(limit)) or "the configured limit of" }
  -- {config_name}: the setting the message names; the 2022 torchdynamo wording names none, and its limit
  -- was config.cache_size_limit
  -- was config.cache_size_limit; the newer `Hard failure due to fullgraph=True` names none either, and by then the
  -- setting was config.recompile_limit
  out.config_name = (c.setting or "") ~= "" and c.setting or ((c.hard or "") ~= "" and "recompile_limit" or "cache_size_limit")
  if attempt and c.frame and c.frame ~= "" then
    out.reached = string.format(" (here frame %s: %d compilations are cached, and the next one, [%s/%d], was refused)",
                                c.frame, math.floor(attempt), c.frame, math.floor(attempt))
  else
    out.reached = ""
  end
  return out
end

function test_compile_id()
  local v = recompile_count({ captures = { frame = "2", attempt = "8", max = "8" } })
  assert(v.limit == "8")
  assert(v.reached == " (here frame 2: 8 compilations are cached, and the next one, [2/8], was refused)", v.reached)
end

function test_no_compile_id()
  local v = recompile_count({ captures = { setting = "recompile_limit" } })
  assert(v.limit == "the configured limit of" and v.reached == "" and v.config_name == "recompile_limit")
  assert(recompile_count({ captures = { max = "64", ["function"] = "forward" } }).config_name == "cache_size_limit")
end

function test_hard_failure_names_recompile_limit()
  local v = recompile_count({ captures = { hard = "Hard failure" } })
  assert(v.config_name == "recompile_limit", v.config_name)
  assert(recompile_count({ captures = {} }).config_name == "cache_size_limit")
end
