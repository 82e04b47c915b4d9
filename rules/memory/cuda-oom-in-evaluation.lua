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

-- Note: [One request too big for the card]. Memory that grows batch after batch is spent on many tensors of one
-- batch's size, so when it runs out the failed request is one batch's worth, small beside the card (hairseg#28:
-- 32 MiB of 8 GiB with 5.75 GiB allocated). A single request of a quarter of the card's total capacity or more is
-- one step that does not fit whatever came before (czsl#7: a 4.18 GiB score tensor on a 10.92 GiB card with
-- 4.68 GiB allocated, which the maintainers answered by evaluating on the CPU): the candidate is set aside with
-- the reason, and the allocator's own rule answers cuda.oom. Not when the failing line gathers what the loop
-- kept (torch.cat / stack / concatenate, the Trainer's accumulation), where one large request is the pile itself.
local SET_ASIDE = 0.3
local ONE_REQUEST_SHARE = 0.25
local GATHERING = { "cat(", "stack(", "concatenate(", "concat(", "append(", "extend(" }

local function figures(message)
  local m = message or ""
  local requested = m:match("Tried to allocate ([%d%.]+ ?[KMGT]?i?B)")
  -- 1.x-2.0 "(GPU 0; 10.92 GiB total capacity; ...", 2.1+ "GPU 0 has a total capacity of 23.65 GiB" (2.1-2.2's
  -- "capacty" typo included)
  local total = m:match("([%d%.]+ ?[KMGT]i?B) total capacity") or m:match("total capac[i]?ty of ([%d%.]+ ?[KMGT]i?B)")
  return requested and triage.bytes(requested), total and triage.bytes(total)
end

local function gathers(frames)
  local last = frames and frames[#frames]
  return #triage.lines_with(last and last.source or "", GATHERING) > 0
end

function unless_one_request_too_big(ctx)
  local inc = ctx.incident or {}
  local requested, total = figures(inc.message)
  if not requested or not total or total <= 0 then return nil end
  if requested < ONE_REQUEST_SHARE * total then return nil end
  if trainer_accumulates(ctx) or gathers(inc.frames) then return nil end
  return { confidence = SET_ASIDE,
           note = string.format(" Set aside: the failed request alone is %s of a %s card (%d%%): one step of the evaluation needs more than the card can give, whatever the earlier batches left behind; memory that grows batch by batch fails on a request of one batch's size.",
                                triage.format_bytes(requested), triage.format_bytes(total), math.floor(100 * requested / total + 0.5)) }
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

function test_one_request_of_a_quarter_of_the_card_is_set_aside()
  local ctx = { confidence = 0.85, incident = {
    message = "CUDA out of memory. Tried to allocate 4.18 GiB (GPU 0; 10.92 GiB total capacity; 4.68 GiB already allocated; 2.44 GiB free; 7.85 GiB reserved in total by PyTorch)",
    frames = { frame("train.py", "test", "stats = evaluator.evaluate_predictions(results)"),
               frame("/x/models/common.py", "score_fast_model", "scores[~mask] += bias # Add bias to test pairs") } } }
  local r = unless_one_request_too_big(ctx)
  assert(r and r.confidence == SET_ASIDE and r.note:find("4.18 GiB", 1, true) and r.note:find("(38%)", 1, true), r and r.note)
end

function test_small_request_keeps_the_prior()
  local ctx = { confidence = 0.85, incident = {
    message = "CUDA out of memory. Tried to allocate 32.00 MiB (GPU 0; 8.00 GiB total capacity; 5.75 GiB already allocated; 17.18 MiB free; 351.95 MiB cached)",
    frames = { frame("evaluate.py", "<module>", "logit = net(data)") } } }
  assert(unless_one_request_too_big(ctx) == nil)
end

function test_2x_wording_and_gathering_line()
  -- 2.1-2.2's "capacty" (MMed-RAG#38's line): parsed, and 64 MiB of 8 GiB keeps the prior
  local small = { confidence = 0.85, incident = { message = "CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacty of 8.00 GiB of which 0 bytes is free.", frames = {} } }
  assert(unless_one_request_too_big(small) == nil)
  local req, total = figures(small.incident.message)
  assert(req == 64 * 2^20 and total == 8 * 2^30, tostring(req) .. " " .. tostring(total))
  -- a large request on a line that gathers what the loop kept is the pile itself
  local czsl = "CUDA out of memory. Tried to allocate 4.18 GiB (GPU 0; 10.92 GiB total capacity; 4.68 GiB already allocated; 2.44 GiB free; 7.85 GiB reserved in total by PyTorch)"
  local cat = { confidence = 0.85, incident = { message = czsl, frames = { frame("eval.py", "validate", "preds = torch.cat(all_preds)") } } }
  assert(unless_one_request_too_big(cat) == nil)
  assert(unless_one_request_too_big({ confidence = 0.85, incident = { message = "CUDA error: out of memory", frames = {} } }) == nil)
end
