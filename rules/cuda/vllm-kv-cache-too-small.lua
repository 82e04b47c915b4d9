-- Lua for vllm-kv-cache-too-small (rules/LUA_API.md, API version 1).
-- The V0 message gives both lengths in tokens; the V1 message gives the memory needed and available, and (after
-- it) vLLM's own estimate of the longest context that fits; "No available memory for the cache blocks" gives no
-- number. The explanation and the max_model_len to try come from whichever the message holds.

local function estimated(message)
  return (message or ""):match("estimated maximum model length is (%d+)")
end

function kv_numbers(ctx)
  local c = ctx.captures
  local msg = ctx.incident and ctx.incident.message or ""
  if c.fits then
    return { numbers = "Here the cache holds " .. c.fits .. " tokens and max_model_len is " .. c.max_len .. ".",
             fit_hint = c.fits, context_len = c.max_len }
  end
  if c.needed then
    local est = estimated(msg)
    return { numbers = "Here one sequence of " .. c.max_len .. " tokens needs " .. c.needed .. " of cache and " ..
               c.available .. " is available" .. (est and (", enough for about " .. est .. " tokens.") or "."),
             fit_hint = est or "N", context_len = c.max_len }
  end
  if c.free then
    local asked = c.wanted and (", and gpu_memory_utilization " .. c.util .. " asks for " .. c.wanted .. " GiB") or
                  ", less than the share gpu_memory_utilization asks for"
    return { numbers = "Here only " .. c.free .. " of " .. c.total .. " GiB was free when the engine started" .. asked ..
               ": other processes (or an earlier engine) hold the rest.",
             context_len = "the model's full context of", fit_hint = "N" }
  end
  return { numbers = "Here no cache block fits at all: the weights and the profiling run use the whole share.",
           context_len = "the model's full context of", fit_hint = "N" }
end

-- Without a length in the message (no block fits) a shorter context is not the first thing to try.
function has_lengths(ctx)
  return ctx.captures.fits ~= nil or ctx.captures.needed ~= nil
end

-- The weights are not what fell short when the GPU was already partly taken at start-up.
function not_a_startup_shortfall(ctx)
  return ctx.captures.free == nil
end

function test_v0_numbers()
  local v = kv_numbers({ captures = { max_len = "32768", fits = "16816" }, incident = { message = "" } })
  assert(v.fit_hint == "16816" and v.numbers:find("16816 tokens", 1, true))
end

function test_v1_estimate_is_the_hint()
  local v = kv_numbers({ captures = { max_len = "32768", needed = "16.00 GiB", available = "4.85 GiB" },
                         incident = { message = "... Based on the available memory, the estimated maximum model length is 9936." } })
  assert(v.fit_hint == "9936" and v.numbers:find("4.85 GiB", 1, true))
end

function test_no_block_has_no_number()
  local v = kv_numbers({ captures = {}, incident = { message = "No available memory for the cache blocks" } })
  assert(v.fit_hint == "N" and v.context_len)
  assert(has_lengths({ captures = {} }) == false and has_lengths({ captures = { fits = "3664" } }))
  local v = kv_numbers({ captures = { free = "7.34", total = "15.49", util = "0.8", wanted = "12.39" }, incident = { message = "" } })
  assert(v.numbers:find("7.34 of 15.49", 1, true) and not_a_startup_shortfall({ captures = { free = "7.34" } }) == false)
end
