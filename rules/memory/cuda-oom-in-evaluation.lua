-- Lua for cuda-oom-in-evaluation (rules/LUA_API.md, API version 1).
-- Note: [Trainer evaluation memory]. Hugging Face's Trainer runs its evaluation steps under torch.no_grad(), so
-- the autograd reading does not fit an out-of-memory error raised inside it. What grows there is the store of
-- predictions: evaluation_loop (4.x) and prediction_loop (3.x) concatenate every batch's logits on the GPU
-- (trainer_pt_utils.py nested_concat / torch_pad_and_concatenate, 4.4x's EvalLoopContainer.add, the
-- accelerate gather and pad of the logits, 3.x's torch.cat((preds, logits))) until eval_accumulation_steps
-- moves them to the CPU.

local ACCUMULATING_FUNCS = {
  nested_concat = true, torch_pad_and_concatenate = true, numpy_pad_and_concatenate = true,
  distributed_concat = true, _nested_gather = true, pad_across_processes = true, gather_for_metrics = true,
}
local ACCUMULATING_SOURCE = { "preds_host", "all_preds", "torch.cat((preds", "nested_concat(", "pad_across_processes(logits",
                              "gather_function(" }

local function short_func(f)
  -- IPython 8 prints qualified names ("Trainer.evaluation_loop"); keep the last part
  return ((f or ""):match("([%w_<>]+)$")) or ""
end

local function trainer_frame(fr)
  local file = fr.file or ""
  return file:find("transformers[/\\]trainer[%w_]*%.py$") ~= nil
end

local function in_trainer_loop(frames)
  for _, fr in ipairs(frames or {}) do
    local fn = short_func(fr.func)
    if trainer_frame(fr) and (fn == "evaluation_loop" or fn == "prediction_loop" or fn == "prediction_step") then
      return fr
    end
  end
  return nil
end

function trainer_accumulates(ctx)
  local frames = ctx.incident and ctx.incident.frames or {}
  if not in_trainer_loop(frames) then return false end
  for _, fr in ipairs(frames) do
    local fn = short_func(fr.func)
    local src = fr.source or ""
    if ACCUMULATING_FUNCS[fn] and ((fr.file or ""):find("trainer_pt_utils", 1, true) or (fr.file or ""):find("accelerate", 1, true)) then
      return "the error is raised in " .. fn .. " (" .. (fr.file or ""):match("[^/\\]*$") .. ") while the Trainer gathers predictions"
    end
    if trainer_frame(fr) then
      for _, lit in ipairs(ACCUMULATING_SOURCE) do
        if src:find(lit, 1, true) then
          return "the failing Trainer line keeps the predictions: " .. src
        end
      end
    end
  end
  return false
end

-- the program's own evaluation loop, not one of the Trainer's (which run under torch.no_grad())
function own_evaluation_loop(ctx)
  return in_trainer_loop(ctx.incident and ctx.incident.frames) == nil
end

local AUTOGRAD = "the usual reason is that it runs with autograd on. Without torch.no_grad() (or torch.inference_mode()) every forward pass during validation records a graph and keeps all its activations, and any output, score or loss kept for the metrics (appended to a list, summed into a running total, cloned) keeps its whole graph alive, so memory climbs batch after batch until it runs out."
local TRAINER = "this is Hugging Face's Trainer, whose evaluation steps already run without autograd, so what grows is what it keeps: the predictions of every batch, gathered on the GPU for compute_metrics until the whole evaluation set is done (or until eval_accumulation_steps moves them to the CPU)."

function reading(ctx)
  return { usual = own_evaluation_loop(ctx) and AUTOGRAD or TRAINER }
end

local function frame(file, func, source)
  return { file = file, line = 1, func = func, source = source, user = false }
end

function test_trainer_nested_concat()
  local ctx = { incident = { frames = {
    frame("run_seq2seq_qa.py", "main", "metrics = trainer.evaluate()"),
    frame("/venv/lib/python3.7/site-packages/transformers/trainer.py", "evaluation_loop",
          "preds_host = logits if preds_host is None else nested_concat(preds_host, logits, padding_index=-100)"),
    frame("/venv/lib/python3.7/site-packages/transformers/trainer_pt_utils.py", "nested_concat",
          "return torch_pad_and_concatenate(tensors, new_tensors, padding_index=padding_index)") } } }
  assert(trainer_accumulates(ctx):find("nested_concat", 1, true))
  assert(own_evaluation_loop(ctx) == false)
  assert(reading(ctx).usual:find("Trainer", 1, true))
end

function test_trainer_ipython_qualified_names()
  local ctx = { incident = { frames = {
    frame("/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", "Trainer.evaluation_loop",
          "all_preds.add(logits)") } } }
  assert(trainer_accumulates(ctx):find("all_preds", 1, true))
end

function test_trainer_forward_is_not_accumulation()
  local ctx = { incident = { frames = {
    frame("/x/transformers/trainer.py", "evaluation_loop", "losses, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)"),
    frame("/x/transformers/models/bert/modeling_bert.py", "forward", "attention_probs = nn.functional.softmax(attention_scores, dim=-1)") } } }
  assert(trainer_accumulates(ctx) == false)
  assert(own_evaluation_loop(ctx) == false)
end

function test_own_loop()
  local ctx = { incident = { frames = { frame("train.py", "validate", "scores_copy = scores.clone()") } } }
  assert(trainer_accumulates(ctx) == false)
  assert(own_evaluation_loop(ctx) == true)
  assert(reading(ctx).usual:find("autograd on", 1, true))
end
