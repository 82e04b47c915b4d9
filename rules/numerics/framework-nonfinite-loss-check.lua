-- Lua for framework-nonfinite-loss-check (rules/LUA_API.md, API version 1).
-- Note: [Framework NaN check in an fp16 run]. A framework's NaN stop (detectron2's "Loss became infinite or
-- NaN at iteration=N", Lightning's check, a script's guard) says that the loss went non-finite, not why. In
-- a run the input shows in float16 (detectron2's SOLVER.AMP.ENABLED, Lightning's 16bit banner, --fp16,
-- autocast/GradScaler, apex O1-O3, ...) the threads settle it as float16's range far more often than as a
-- learning rate: a loss term or an activation overflowed 65504, and turning AMP off, or keeping the
-- overflowing head in float32, fixed it (pytorch#40497, cryodrgn#45, D-FINE#199, OpenPCDet#1437, the
-- Ultralytics AMP notes); with AMP off, the detectron2 threads settle the same stop as divergence (a
-- learning rate not scaled to the batch, detectron2#508 and #3367). nan-loss-in-fp16-run (amp.fp16_overflow)
-- says so on the line that shows float16, an incident other than the stop, so it can never outrank the
-- stop's own 0.97 (other incidents count 0.9): this rule steps below it instead, by the same evidence the
-- fp16 rule keeps its candidate on. Demoted when:
--   the stop is a non-finite loss (its first line names the loss and nan or inf), or a printed loss
--   series went non-finite;
--   another line of the input shows float16 training and does not turn it off;
--   no line of the input shows bf16 (then the fp16 rule is vetoed, and this reading stays first).
-- The demoted reading stays in the list, second, with a note that says which line moved it.

-- True when one lower-cased line shows a run in float16 (the common spellings nan-loss-in-fp16-run reads):
-- plain substrings, then Lua patterns for the short switches, which must start a word ("clamp=true" is no
-- "amp=true").
local FP16_MARKS = {
  "solver.amp.enabled true", "solver.amp.enabled=true", "solver.amp.enabled: true", "'solver.amp.enabled', 'true'",
  "train.amp.enabled=true", "using 16bit", "using 16-bit", "16-mixed", "16-true", "torch.float16", "torch.half",
  ".half()", "autocast(", "gradscaler(", "ampoptimwrapper", "fp16 = dict(", "fp16=dict(", "optimization level o1",
  "optimization level o2", "optimization level o3", "fp16_enabled", "half precision backend", "mixed_precision='fp16'",
  "mixed_precision=fp16", "mixed precision type: fp16", "--memory-efficient-fp16",
  -- Ultralytics' AMP check that passed (training then runs under float16 autocast), mmcv 1.x's float16 hook
  "amp: checks passed", "fp16optimizerhook",
  -- Lightning 1.0-1.5's banners ("Using native 16bit precision.", "Using APEX 16bit precision.")
  "native 16bit precision", "apex 16bit precision",
  -- a script's --dtype switch and nanoGPT's config line and its echo ("Overriding: dtype = float16")
  "--dtype=float16", "--dtype float16", "dtype = 'float16'", 'dtype = "float16"', "dtype = float16",
}
local FP16_SWITCHES = {
  "%f[%w_]fp16=true", "%f[%w_]fp16: true", "%f[%w_]use_fp16=true", "%f[%w_]amp=true", "%f[%w_]use_amp=true",
  "%f[%w_]precision=16%f[^%w]", "%-%-fp16%f[^%w_%-]", "%-%-amp%f[^%w_%-]", "%-%-use_amp%f[^%w_%-]",
}

local function fp16_line(l)
  if l:find("enabled%s*=%s*false") or l:find("enabled',%s*'false'") or l:find("%-%-fp16[= ]+false")
     or l:find("%-%-amp[= ]+false") then
    return false
  end
  for _, m in ipairs(FP16_MARKS) do
    if l:find(m, 1, true) then return true end
  end
  for _, p in ipairs(FP16_SWITCHES) do
    if l:find(p) then return true end
  end
  return false
end

local function bf16_line(l)
  -- (also Ultralytics' check_amp turning AMP off: "... so AMP will be disabled during training", no float16 run)
  return l:find("bfloat16", 1, true) ~= nil or l:find("bf16", 1, true) ~= nil
         or l:find("amp will be disabled during training", 1, true) ~= nil
end

-- Reads every incident once per input: the first line that shows float16 (trimmed), and whether any
-- line shows bf16.
local function read_input(incidents)
  local fp16, bf16 = nil, false
  for _, inc in ipairs(incidents) do
    for line in ((inc.message or "") .. "\n"):gmatch("([^\n]*)\n") do
      local l = line:lower()
      if bf16_line(l) then bf16 = true end
      if not fp16 and fp16_line(l) then fp16 = line:gsub("^%s+", ""):sub(1, 120) end
    end
  end
  return fp16, bf16
end

-- score: keep the prior, unless the input shows a float16 run (then ranked below the fp16 reading).
function fp16_run_demotes(ctx)
  local own = (((ctx.incident or {}).message or ""):match("^%s*([^\n]*)") or ""):lower()
  local loss = (ctx.metrics or {}).loss
  -- (Ultralytics' stops name the NaN without the word loss: "Training failed: NaN persisted for 4 epochs",
  -- "Checkpoint ... is corrupted with NaN/Inf weights"; both follow epochs whose loss was not finite)
  local nonfinite_loss = (own:find("loss", 1, true) and (own:find("nan", 1, true) or own:find("inf", 1, true)))
                         or own:find("nan persisted for", 1, true) or own:find("corrupted with nan/inf weights", 1, true)
                         or own:find("invalid loss, terminating", 1, true)
                         or (loss and (loss.nonfinite or 0) > 0)
  if not nonfinite_loss then return nil end
  local fp16, bf16 = triage.per_input(ctx, read_input)
  if not fp16 or bf16 then return nil end
  return { confidence = ctx.confidence * 0.6,
           note = " Ranked below the float16 reading: the log shows the run in float16 (\"" .. fp16 ..
                  "\"), and a loss that a framework stops on in a float16 run is most often an fp16 overflow" ..
                  " (turning mixed precision off or keeping the overflowing head in float32 fixes it); a" ..
                  " learning rate too high for the batch is the next cause." }
end

local function ctx_with(own, others, loss)
  local incidents = { { kind = "traceback", message = own } }
  for _, m in ipairs(others) do incidents[#incidents + 1] = { kind = "log_line", message = m } end
  return { confidence = 0.97, incident = incidents[1], incidents = incidents, metrics = loss and { loss = loss } or {} }
end

local STOP = "Loss became infinite or NaN at iteration=2137!\nloss_dict = {'loss_cls': tensor(nan, device='cuda:0')}"

function test_amp_run_demoted()
  local r = fp16_run_demotes(ctx_with(STOP, { "SOLVER.AMP.ENABLED True" }))
  assert(type(r) == "table" and math.abs(r.confidence - 0.582) < 1e-9, r and r.confidence)
  assert(r.note:find("SOLVER.AMP.ENABLED True", 1, true), r.note)
  local s = fp16_run_demotes(ctx_with(STOP, { "Command Line Args: Namespace(opts=['SOLVER.AMP.ENABLED', 'True'])" }))
  assert(type(s) == "table", "the opts list form")
  assert(type(fp16_run_demotes(ctx_with(STOP, { "Using 16bit Automatic Mixed Precision (AMP)" }))) == "table")
  assert(type(fp16_run_demotes(ctx_with(STOP, { "Namespace(amp=True, lr=0.01)" }))) == "table")
  assert(type(fp16_run_demotes(ctx_with(STOP, { "Overriding: dtype = float16" }))) == "table")
  assert(type(fp16_run_demotes(ctx_with(STOP, { "torchrun train.py --dtype=float16" }))) == "table")
  assert(fp16_run_demotes(ctx_with(STOP, { "torchrun train.py --dtype=bfloat16" })) == nil)
  -- Ultralytics' stop after its NaN recovery, in a run whose AMP check passed
  assert(type(fp16_run_demotes(ctx_with("Training failed: NaN persisted for 4 epochs", { "AMP: checks passed" }))) == "table")
  assert(fp16_run_demotes(ctx_with("Training failed: NaN persisted for 4 epochs", {})) == nil)
  assert(type(fp16_run_demotes(ctx_with("Epoch/Batch (0/120): Invalid loss, terminating training.", { "Using native 16bit precision." }))) == "table")
end

function test_words_that_only_contain_a_switch()
  assert(fp16_run_demotes(ctx_with(STOP, { "Namespace(clamp=True, lr=0.01)" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "Saved a 16bit PNG preview" })) == nil)
end

function test_fp32_and_bf16_runs_keep_the_prior()
  assert(fp16_run_demotes(ctx_with(STOP, {})) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "SOLVER.AMP.ENABLED False" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "opts=['SOLVER.AMP.ENABLED', 'False']" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "torch.cuda.amp.GradScaler(enabled=False)" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "--fp16 false --bf16 true" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "Using bfloat16 Automatic Mixed Precision (AMP)", "precision=16" })) == nil)
  assert(fp16_run_demotes(ctx_with(STOP, { "Namespace(amp=True, lr=0.01)",
    "AMP: checks failed. AMP training on NVIDIA GeForce GTX 1650 GPU may cause NaN losses or zero-mAP results, so AMP will be disabled during training." })) == nil)
end

function test_stop_without_a_nonfinite_loss_keeps_the_prior()
  -- box predictions or gradients, not the loss: the fp16 reading needs a non-finite loss too
  assert(fp16_run_demotes(ctx_with("Predicted boxes or scores contain Inf/NaN. Training has diverged.", { "--fp16" })) == nil)
  assert(type(fp16_run_demotes(ctx_with("gradients are Nan/Inf", { "--fp16" },
                                        { count = 3, nonfinite = 1, values = { 2.0, 1.9, 0 / 0 } }))) == "table")
end
