-- Lua for hf-unable-to-create-tensor (rules/LUA_API.md, API version 1).
-- transformers names the batch key it could not turn into a tensor ("Perhaps your features (`KEY` in this
-- case) ..."); which hypothesis applies depends on that key. A paste wrapped before the key keeps them all.

local MODEL_INPUTS = { input_ids = true, attention_mask = true, token_type_ids = true, position_ids = true }

local function key(ctx)
  local k = ctx.captures.key
  if k == nil or k == "" then return nil end
  return k
end

-- A key the tokenizer writes: the rows were not padded to one length.
function tokenizer_key(ctx)
  local k = key(ctx)
  if not k then return true end
  if MODEL_INPUTS[k] then return "the key is `" .. k .. "`, which the tokenizer itself produces" end
  return false
end

-- labels of different lengths: a collator that pads only the tokenizer's keys.
function labels_key(ctx)
  local k = key(ctx)
  if not k then return true end
  if k == "labels" or k == "label_ids" then return "the key is `" .. k .. "`, the collator's labels" end
  return false
end

-- Any other key: a column of the data set that is not a model input reached the collator.
function other_column(ctx)
  local k = key(ctx)
  if not k then return true end
  if MODEL_INPUTS[k] or k == "labels" or k == "label_ids" then return false end
  return "the key is `" .. k .. "`, a data set column the tokenizer did not produce"
end

function test_keys_pick_hypotheses()
  local ids = { captures = { key = "input_ids" } }
  assert(tokenizer_key(ids) and not labels_key(ids) and not other_column(ids))
  local text = { captures = { key = "text" } }
  assert(not tokenizer_key(text) and not labels_key(text) and other_column(text))
  local none = { captures = { key = "" } }
  assert(tokenizer_key(none) == true and labels_key(none) == true and other_column(none) == true)
end
