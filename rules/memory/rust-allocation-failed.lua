-- Lua for rust-allocation-failed (rules/LUA_API.md, API version 1).
-- Note: [Rust allocation failures] (in the rule's YAML). The size is the one request the system refused.
-- A request of a terabyte or more is no RAM shortage: no machine could have granted it, so the number is a
-- garbage length (a corrupt file's header, an overflowed count) and the reading is set aside with that
-- reason (under the abstention threshold, visible with --min-confidence 0).

local ABSURD = 2 ^ 40          -- 1 TiB in one request
local SET_ASIDE = 0.3          -- under the default abstention threshold (0.35)

local function requested(ctx)
  return triage.number(ctx.captures.bytes or "") or 0
end

function sizes(ctx)
  return { size = triage.format_bytes(requested(ctx)) }
end

function plausible(ctx)
  local n = requested(ctx)
  if n >= ABSURD then
    return { confidence = SET_ASIDE,
             note = " Set aside: " .. triage.format_bytes(n) .. " in one request is more than any machine has; a length like this comes from corrupt input or an overflowed count, not from RAM running out." }
  end
  return nil
end

function test_size_in_words()
  assert(sizes({ captures = { bytes = "21474836480" } }).size == "20.00 GiB")
end

function test_ordinary_request_kept()
  assert(plausible({ confidence = 0.85, captures = { bytes = "150994960" } }) == nil)
end

function test_absurd_request_set_aside()
  local r = plausible({ confidence = 0.85, captures = { bytes = "18446744073709551615" } })
  assert(r and r.confidence < 0.35 and r.note:find("corrupt", 1, true))
end
