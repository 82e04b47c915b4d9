-- Lua for lr-printed-as-zero (rules/LUA_API.md, API version 1).
-- Note: [Placeholder learning rate]. transformers' Trainer under DeepSpeed logs learning_rate 0 (and
-- "returning lr=0") when the scheduler has not stepped yet: a placeholder, not the learning rate the
-- optimizer would use. Its zeros say nothing about the schedule; whether the skipped steps outlast the
-- fp16 loss scale's warm-up is deepspeed-lr-before-first-step-repeated's question (amp.fp16_overflow).
-- So the signature is vetoed when the input prints the Trainer's warning.

local PLACEHOLDER = { "tried to get lr value before scheduler/optimizer started stepping" }

local function placeholder_lr(incidents)
  return triage.message_literal(incidents, PLACEHOLDER) ~= nil
end

-- score: vetoed when the zeros are the Trainer's placeholder for a scheduler that has not stepped.
function unless_placeholder(ctx)
  if ctx.incidents and triage.per_input(ctx, placeholder_lr) then return false end
  return nil
end

function test_placeholder_vetoes()
  local W = "[WARNING|trainer.py:1142] 2021-02-23 12:53:06,799 >> " .. PLACEHOLDER[1] .. ", returning lr=0"
  assert(unless_placeholder({ confidence = 0.8, incidents = { { kind = "log_line", message = W } } }) == false)
  assert(unless_placeholder({ confidence = 0.8, incidents = { { kind = "log_line", message = "Epoch 1 | LR 0.00000000" } } }) == nil)
  assert(unless_placeholder({ confidence = 0.8 }) == nil)
end
