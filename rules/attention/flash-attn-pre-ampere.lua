-- Lua for flash-attn-pre-ampere (rules/LUA_API.md, API version 1).
-- The message names the generation the build needs; the capability follows from it. flash-attn prints
-- nothing about the card it found, so the explanation says which capability to compare against.

local NEEDS = {
  Ampere = { cap = "8.0", sm = "sm_80", build = "FlashAttention 2 (the flash_attn package)",
             older = "Turing (T4, RTX 20xx, GTX 16xx, 7.5), Volta (V100, 7.0) and Pascal (GTX 10xx, P100/P40, 6.x)" },
  Hopper = { cap = "9.0", sm = "sm_90", build = "FlashAttention 3 (the hopper/ build, flash_attn_3)",
             older = "Ada (RTX 40xx, L4, L40S, 8.9) and Ampere (A100 8.0, RTX 30xx 8.6)" },
  -- flash-attn 0.2-1.x: Turing and Ampere (and Hopper in 1.0.x)
  Turing = { cap = "7.5", sm = "sm_75", build = "FlashAttention 1 (flash-attn 0.2-1.x)",
             older = "Volta (V100, 7.0) and Pascal (GTX 10xx, P100/P40, 6.x)" },
  -- flash-attn 0.1: sm_80 exactly
  A100 = { cap = "8.0", sm = "sm_80", build = "an early FlashAttention (flash-attn 0.1)", exact = true,
           older = "any but the A100/A800 class (RTX 30xx and A6000, at 8.6, included)" },
}

-- flash-attn 0.x-1.x name the capability check, not the generation
local CHECKS = { ["is_sm80"] = "A100", ["is_sm8x || is_sm75"] = "Turing", ["is_sm90 || is_sm8x || is_sm75"] = "Turing" }

-- values: {build}, {need_cap}, {need_sm} and {older}: what the build needs and which cards fall short.
function requirement(ctx)
  local key = ctx.captures.need
  if not key or key == "" then key = CHECKS[ctx.captures.check or ""] end
  local n = NEEDS[key or ""]
  if not n then return { build = "flash-attn", need_cap = "?", need_sm = "?", older = "older cards", generation = "the GPUs it supports",
                         supported = "the GPUs it was built for" } end
  local need = key == "A100" and "A100 (sm_80)" or key
  local supported = n.exact and string.format("compute capability %s (%s) exactly", n.cap, n.sm)
                    or string.format("%s GPUs or newer: compute capability %s (%s) at least", need, n.cap, n.sm)
  return { need = need, generation = need, build = n.build, need_cap = n.cap, need_sm = n.sm, older = n.older, supported = supported }
end

-- each generation a message can name (flash-attn 2 and 3) or imply by its condition (0.x-1.x), with
-- what the explanation must then say
local CASES = {
  { { need = "Ampere" }, "8.0", "FlashAttention 2", "at least" },
  { { need = "Hopper" }, "9.0", "FlashAttention 3", "at least" },
  { { check = "is_sm8x || is_sm75" }, "7.5", "FlashAttention 1", "at least" },
  { { check = "is_sm80" }, "8.0", "flash-attn 0.1", "exactly" },
}

function test_generations()
  for _, c in ipairs(CASES) do
    local v = requirement({ captures = c[1] })
    assert(v.need_cap == c[2] and v.build:find(c[3], 1, true) and v.supported:find(c[4], 1, true), v.build)
  end
end
