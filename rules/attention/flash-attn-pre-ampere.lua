-- Lua for flash-attn-pre-ampere (rules/LUA_API.md, API version 1).
-- The message names the generation the build needs; the capability follows from it. flash-attn prints
-- nothing about the card it found, so the explanation says which capability to compare against.

local NEEDS = {
  Ampere = { cap = "8.0", sm = "sm_80", build = "FlashAttention 2 (the flash_attn package)",
             older = "Turing (T4, RTX 20xx, GTX 16xx, 7.5), Volta (V100, 7.0) and Pascal (GTX 10xx, P100/P40, 6.x)" },
  Hopper = { cap = "9.0", sm = "sm_90", build = "FlashAttention 3 (the hopper/ build, flash_attn_3)",
             older = "Ada (RTX 40xx, L4, L40S, 8.9) and Ampere (A100 8.0, RTX 30xx 8.6)" },
}

-- values: {build}, {need_cap}, {need_sm} and {older}: what the build needs and which cards fall short.
function requirement(ctx)
  local n = NEEDS[ctx.captures.need or ""]
  if not n then return { build = "flash-attn", need_cap = "?", need_sm = "?", older = "older cards" } end
  return { build = n.build, need_cap = n.cap, need_sm = n.sm, older = n.older }
end

function test_generations()
  local a = requirement({ captures = { need = "Ampere" } })
  assert(a.need_cap == "8.0" and a.need_sm == "sm_80" and a.build:find("FlashAttention 2", 1, true))
  local h = requirement({ captures = { need = "Hopper" } })
  assert(h.need_cap == "9.0" and h.build:find("FlashAttention 3", 1, true))
end
