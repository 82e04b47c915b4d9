-- Lua for rule sd-model-family-mismatch (rules/LUA_API.md, API version 1).
-- Note: [Diffusion widths]. The widths a diffusion model family fixes: its text encoder's hidden size (what
-- cross-attention's to_k/to_v take), SDXL's pooled conditioning vector (the UNet's label_emb input) and Flux's
-- input layer. A mismatch between two of them is two families' files in one workflow.

local ENCODER = {
  [768] = "Stable Diffusion 1.x (CLIP ViT-L/14)",
  [1024] = "Stable Diffusion 2.x (OpenCLIP ViT-H/14)",
  [1280] = "the SDXL refiner (OpenCLIP ViT-bigG alone)",
  [2048] = "SDXL base (CLIP ViT-L and OpenCLIP ViT-bigG together)",
  [4096] = "a T5-XXL text encoder (Flux, SD 3)",
}
local ADM = { [2816] = "SDXL base (its 2816-wide conditioning vector)", [2560] = "the SDXL refiner (its 2560-wide conditioning vector)" }
local FLUX_IN = { [16] = "16-channel latents (SD 3 or unpacked Flux latents)", [64] = "the plain Flux model (64 packed latent channels)",
                  [128] = "a Flux tool model (Depth or Canny: 128 input channels)", [384] = "the Flux Fill model (384 input channels)" }

-- frames or nearby lines of diffusion code: cross-attention's key/value projections, the apps and libraries
local DIFFUSION_CODE = { "to_k(", "to_v(", "attn2", "cross_attn", "label_emb", "ComfyUI", "comfy", "stable-diffusion-webui",
                         "sd-webui", "ldm", "sgm", "diffusers", "controlnet", "ip_adapter", "unet" }

local function numbers(ctx)
  local c = ctx.captures
  return tonumber(c.rows or ""), tonumber(c.got or ""), tonumber(c.want or ""), tonumber(c.out or "")
end

local function diffusion_code(ctx)
  local inc = ctx.incident or {}
  local lines = {}
  for _, f in ipairs(inc.frames or {}) do lines[#lines + 1] = (f.file or "") .. " " .. (f.source or "") end
  for _, l in ipairs(inc.context or {}) do lines[#lines + 1] = l end
  return #triage.lines_with(table.concat(lines, "\n"), DIFFUSION_CODE) > 0
end

-- two different text-encoder widths, with token rows (CLIP's 77-token context times the batch; T5's 256 or 512
-- tokens when one side is T5's 4096) or diffusion frames
local function any_encoder_pair(ctx)
  local rows, got, want = numbers(ctx)
  if not (got and want and ENCODER[got] and ENCODER[want] and got ~= want) then return false end
  local tokens = rows ~= nil and rows > 0 and (rows % 77 == 0 or ((got == 4096 or want == 4096) and rows % 256 == 0))
  return tokens or diffusion_code(ctx)
end

-- SDXL's base and refiner: 2048 against 1280 wide prompts, or 2816 against 2560 wide conditioning vectors
local function base_refiner(got, want)
  return (got == 2048 and want == 1280) or (got == 1280 and want == 2048)
end

local function encoder_pair(ctx)
  local _, got, want = numbers(ctx)
  return any_encoder_pair(ctx) and not base_refiner(got, want)
end

local function adm_pair(ctx)
  local _, got, want = numbers(ctx)
  if got ~= nil and want ~= nil and ADM[got] ~= nil and ADM[want] ~= nil and got ~= want then return true end
  return base_refiner(got, want) and any_encoder_pair(ctx)
end

local function flux_pair(ctx)
  local _, got, want, out = numbers(ctx)
  return out == 3072 and got ~= nil and want ~= nil and FLUX_IN[got] ~= nil and FLUX_IN[want] ~= nil and got ~= want
end

function encoder_widths(ctx) return encoder_pair(ctx) end
function adm_widths(ctx) return adm_pair(ctx) end
function flux_widths(ctx) return flux_pair(ctx) end

-- score: the rule exists only where one of the three pairs holds; elsewhere linear-in-features answers alone.
function family_widths(ctx)
  if encoder_pair(ctx) or adm_pair(ctx) or flux_pair(ctx) then return nil end
  return false
end

function families(ctx)
  local _, got, want = numbers(ctx)
  local function name(w) return ENCODER[w] or ADM[w] or FLUX_IN[w] or "another model" end
  return { got_family = name(got), want_family = name(want) }
end

function test_sdxl_into_sd15()
  local ctx = { captures = { rows = "154", got = "2048", want = "768", out = "320" } }
  assert(family_widths(ctx) == nil)
  assert(encoder_widths(ctx) and not adm_widths(ctx) and not flux_widths(ctx))
  assert(families(ctx).want_family == "Stable Diffusion 1.x (CLIP ViT-L/14)")
end

function test_text_model_head_without_diffusion_evidence()
  local ctx = { captures = { rows = "32", got = "1024", want = "768", out = "2" }, incident = { frames = {
    { file = "train.py", source = "logits = self.classifier(pooled)" } } } }
  assert(family_widths(ctx) == false)
end

function test_diffusion_frames_without_77_rows()
  local ctx = { captures = { rows = "2", got = "1024", want = "768", out = "320" }, incident = { frames = {
    { file = "E:/ComfyUI/comfy/ldm/modules/attention.py", source = "k = self.to_k(context)" } } } }
  assert(family_widths(ctx) == nil)
end

function test_t5_rows_and_base_refiner_prompts()
  assert(encoder_widths({ captures = { rows = "256", got = "4096", want = "768", out = "320" } }))
  local ctx = { captures = { rows = "308", got = "2048", want = "1280", out = "768" } }
  assert(adm_widths(ctx) and not encoder_widths(ctx))
end

function test_base_refiner_and_flux()
  assert(adm_widths({ captures = { rows = "2", got = "2560", want = "2816", out = "1280" } }))
  assert(flux_widths({ captures = { rows = "6144", got = "128", want = "64", out = "3072" } }))
  assert(not flux_widths({ captures = { rows = "6144", got = "128", want = "64", out = "768" } }))
end
