-- Lua for float-dtype-mismatch (rules/LUA_API.md, API version 1).

-- NVIDIA apex's fused norms (apex/normalization/fused_layer_norm.py: FusedLayerNorm, FusedRMSNorm and their
-- autograd functions) call a CUDA kernel that takes input and weight in one dtype. Where apex is installed (NGC
-- PyTorch containers ship it), transformers' T5 and other models swap their norm for apex's at import, so a
-- model loaded in fp16 or 8-bit, whose norm weights stay float32, reaches the kernel with half activations
-- (threads: transformers#21391 with load_in_8bit, xDiT#101/#226 in an NGC container, apex#1635 under O2).
local function apex_norm_frame(ctx)
  local inc = ctx.incident
  for _, f in ipairs(inc and inc.frames or {}) do
    local file = f.file or ""
    if file:find("apex[/\\]+normalization[/\\]+fused_layer_norm") then
      return "apex's fused norm is in the traceback (" .. file:match("apex[/\\]+normalization[/\\]+fused_layer_norm%.py") .. ")"
    end
  end
  return false
end

function apex_fused_norm(ctx)
  return apex_norm_frame(ctx)
end

function test_apex_frame()
  local ctx = { incident = { frames = {
    { file = "/usr/local/lib/python3.10/dist-packages/transformers/models/t5/modeling_t5.py" },
    { file = "/usr/local/lib/python3.10/dist-packages/apex/normalization/fused_layer_norm.py" } } } }
  assert(type(apex_fused_norm(ctx)) == "string")
  local win = { incident = { frames = { { file = "C:\\env\\Lib\\site-packages\\apex\\normalization\\fused_layer_norm.py" } } } }
  assert(type(apex_fused_norm(win)) == "string")
  assert(apex_fused_norm({ incident = { frames = { { file = "/x/torch/nn/functional.py" } } } }) == false)
  assert(apex_fused_norm({}) == false)
end
