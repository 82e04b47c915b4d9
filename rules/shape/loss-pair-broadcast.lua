-- Lua for rule loss-pair-broadcast (rules/LUA_API.md, API version 1).
-- The loss is the innermost frame of torch/nn/functional.py that names one of the rule's losses.

-- Losses of an input against a target, and losses that compare two or three inputs with each other.
local WITH_TARGET = {
  kl_div = true, poisson_nll_loss = true, gaussian_nll_loss = true, hinge_embedding_loss = true,
  soft_margin_loss = true, multilabel_soft_margin_loss = true,
}
-- Binary cross-entropy checks input against target itself ("Using a target size ..."), so a broadcast
-- error inside it is its weight (or pos_weight) against the input.
local WEIGHTED = { binary_cross_entropy = true, binary_cross_entropy_with_logits = true }
local PAIRWISE = {
  margin_ranking_loss = true, cosine_embedding_loss = true, triplet_margin_loss = true,
  triplet_margin_with_distance_loss = true,
}

local function loss_of(ctx)
  local frames = ((ctx or {}).incident or {}).frames or {}
  for i = #frames, 1, -1 do
    local f = frames[i]
    local path = string.gsub(f.file or "", "\\", "/")
    local name = string.match(f.func or "", "([%w_]+)$") or ""
    if path:find("/nn/functional%.py$") and (WITH_TARGET[name] or PAIRWISE[name] or WEIGHTED[name]) then return name end
  end
  return nil
end

function compares_with_target(ctx)
  return WITH_TARGET[loss_of(ctx) or ""] == true
end

function weight_broadcast(ctx)
  return WEIGHTED[loss_of(ctx) or ""] == true
end

function compares_inputs(ctx)
  return PAIRWISE[loss_of(ctx) or ""] == true
end

function loss_name(ctx)
  local name = loss_of(ctx)
  return { loss = name and ("F." .. name) or "The loss" }
end

local function ctx_with(func)
  return { incident = { frames = {
    { file = "train.py", line = 2, func = "<module>", source = "loss = crit(a, b)" },
    { file = "/usr/lib/python3/dist-packages/torch/nn/functional.py", line = 10, func = func, source = "" } } } }
end

function test_loss_named_from_the_frame()
  assert(loss_name(ctx_with("kl_div")).loss == "F.kl_div")
  assert(compares_inputs(ctx_with("cosine_embedding_loss")))
  assert(not compares_with_target(ctx_with("cosine_embedding_loss")))
  assert(not compares_with_target(ctx_with("mse_loss")))
  assert(weight_broadcast(ctx_with("binary_cross_entropy_with_logits")))
  assert(loss_name({ incident = { frames = {} } }).loss == "The loss")
end
