-- Lua for target-negative (rules/LUA_API.md, API version 1).
-- Note: [Hugging Face label markers]. transformers changed the label value its models skip from -1 to -100 in
-- 2.4.0 (pytorch-pretrained-bert and transformers <= 2.3 built the LM heads' CrossEntropyLoss with
-- ignore_index=-1). A negative target from a language-model head of transformers (or its predecessors) is
-- then the other release's marker, not bad data. The frames say it is such a head: a modeling file of
-- transformers / pytorch_transformers / pytorch_pretrained_bert computing the loss over the vocabulary, or a
-- call that passes lm_labels= / masked_lm_labels=.

local LIBS = { "transformers", "pytorch_transformers", "pytorch_pretrained_bert" }
local LM_SOURCE = { "vocab_size", "masked_lm_labels", "lm_labels", "shift_labels", "lm_logits" }

local function lm_head_frame(frames)
  for _, fr in ipairs(frames or {}) do
    local file, src = fr.file or "", fr.source or ""
    local in_lib = false
    for _, lib in ipairs(LIBS) do
      if file:find(lib, 1, true) and file:find("modeling", 1, true) then in_lib = true end
    end
    for _, lit in ipairs(LM_SOURCE) do
      if src:find(lit, 1, true) and (in_lib or lit == "masked_lm_labels" or lit == "lm_labels") then
        return (file:match("[^/\\]*$") or file) .. ": " .. src
      end
    end
  end
  return nil
end

local function marker(ctx, value)
  if ctx.captures.target ~= value then return false end
  local where = lm_head_frame(ctx.incident and ctx.incident.frames)
  if where then return "the loss is a language-model head's: " .. where end
  return false
end

function lm_labels_minus_one(ctx) return marker(ctx, "-1") end
function lm_labels_minus_100(ctx) return marker(ctx, "-100") end

local function frame(file, source)
  return { file = file, line = 1, func = "forward", source = source, user = false }
end

function test_old_marker_in_lm_head()
  local ctx = { captures = { target = "-1" }, incident = { frames = {
    frame("interact.py", "loss, _, _ = reverse_model(inputs, labels=labels)"),
    frame("/usr/local/lib/python3.6/dist-packages/transformers/modeling_gpt2.py",
          "loss = loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))") } } }
  assert(lm_labels_minus_one(ctx):find("modeling_gpt2.py", 1, true))
  assert(lm_labels_minus_100(ctx) == false)
end

function test_classifier_labels_are_not_a_marker()
  local ctx = { captures = { target = "-1" }, incident = { frames = {
    frame("/x/transformers/models/bert/modeling_bert.py", "loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))") } } }
  assert(lm_labels_minus_one(ctx) == false)
end

function test_new_marker_on_old_library()
  local ctx = { captures = { target = "-100" }, incident = { frames = {
    frame("/x/transformers/modeling_bert.py", "masked_lm_loss = loss_fct(prediction_scores.view(-1, self.config.vocab_size), masked_lm_labels.view(-1))") } } }
  assert(lm_labels_minus_100(ctx):find("vocab_size", 1, true))
end
