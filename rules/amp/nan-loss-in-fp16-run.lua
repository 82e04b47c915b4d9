-- Lua for nan-loss-in-fp16-run (rules/LUA_API.md, API version 1).
-- Note: [NaN loss in an fp16 run]. A NaN loss alone does not say why (numerics.nan_loss: learning rate,
-- data, an unsafe op). The same NaN in a run the log shows in float16 is, far more often than not,
-- float16's range (amp.fp16_overflow): the threads settle it by switching to bf16 or float32. So this rule
-- sits on the line that shows float16 (a banner, an argument dump) and reads the rest of the input:
--   the line shows bf16, or another line of the input does  -> vetoed (bf16 has float32's range);
--   the line itself turns fp16 off (--fp16 false, enabled=False, CPU autocast) -> vetoed;
--   no non-finite loss anywhere in the input                -> vetoed (a healthy fp16 run);
--   a non-finite loss (a printed series, a NaN-loss message) -> kept, and it says where the loss went.
-- A loss scale a script logs itself is left to fp16-loss-scale-collapse and nan-loss-recurs-and-recovers: a
-- scale that falls while the loss is NaN is also what a diverging fp16 run prints (corpus/wild/numerics/
-- guided-diffusion-imagenet128-nan-divergence-loss-scale), so it is not taken as evidence here. The skipped-step
-- reports of the scalers that exist only for float16 (apex amp and FP16_Optimizer, DeepSpeed's FP16_Optimizer)
-- are read like a banner: they say the run is in float16, and the NaN loss beside them decides as above.

-- (and "disabled": Ultralytics' line saying AMP was turned off, read only so the rest of the input is vetoed)
local BF16 = { bfloat16 = true, bf16 = true, ["--bf16"] = true, ["bf16-mixed"] = true, ["bf16-true"] = true,
               disabled = true }

-- True when a switch ("--bf16") is followed by a value that turns it off ("--bf16 false", "--bf16=0").
local function switched_off(rest)
  local v = rest:match("^[= ]%s*(%w+)")
  return v == "false" or v == "0" or v == "no"
end

-- True when one lower-cased line says the run is in bf16 (the spellings the YAML reads, and any mention
-- of torch.bfloat16: "Instantiating ... under default dtype torch.bfloat16", "dtype=torch.bfloat16" in
-- an autocast call).
local function bf16_line(l)
  if l:find("bfloat16 automatic mixed precision", 1, true) or l:find("bfloat16 true precision", 1, true)
      or l:find("bf16=true", 1, true) or l:find("bf16: true", 1, true) or l:find("'bf16': true", 1, true)
      or l:find('"bf16": true', 1, true) or l:find("bf16%-mixed") or l:find("bf16%-true")
      or l:find("torch%.bfloat16") or l:find("mixed[_ ]precision[=: %a]*['\"]?bf16")
      or l:find("bfloat16_enabled %.+ true") or l:find("bf16 %.+ true") or l:find("bfloat16_config %.+ enabled=true")
      -- a dtype argument or YAML key set to bfloat16 without torch's prefix (mmengine's AmpOptimWrapper(dtype=
      -- 'bfloat16'), "dtype: bfloat16"); a config.json's "torch_dtype": "bfloat16" (quote before the colon) says
      -- how a checkpoint was saved and is not read
      or l:find("dtype%s*=%s*['\"]?bfloat16") or l:find("dtype: ['\"]?bfloat16")
      -- a --dtype switch given its value after a space (nanoGPT's "--dtype bfloat16", timm's "--amp-dtype bfloat16")
      or l:find("%-dtype%s+['\"]?bfloat16")
      -- Lightning 1.x's fallback on a CPU, "Using `precision='bf16'` instead" (2.x's says bf16-mixed), and a
      -- DeepSpeed config printed as a dict ("'bf16': {'enabled': True")
      or l:find("precision='bf16'", 1, true) or l:find("['\"]bf16['\"]:%s*{%s*['\"]enabled['\"]:%s*true") then
    return true
  end
  for rest in l:gmatch("%-%-bf16%f[^%w_%-]([^\n]*)") do
    if not switched_off(rest) then return true end
  end
  return false
end

-- Note: [Half precision named in words, vetoed]. A report's sentence that names fp16 (Note: [Half precision named
-- in a report's words] in the YAML) is no evidence when the same line also names float32 (a comparison: "NaN in fp32
-- as well as in fp16") or says the half type was off or not used: "without fp16", "w/o fp16", "instead of fp16",
-- "no fp16", "not fp16", "disable(d) fp16", "turn(ed) off", "fp16 off"; in Chinese 关闭 (turned off), 不用 / 不使用 /
-- 没用 (not used), 禁用 (disabled), 单精度 / fp32 (single precision).
local NOT_HALF = { "without", "w/o", "instead of", "no fp16", "not fp16", "not in fp16", "disable", "turn off",
                   "turned off", "turn it off", "fp16 off", "fp32", "float32", "full precision",
                   "\229\133\179\233\151\173", "\228\184\141\231\148\168", "\228\184\141\228\189\191\231\148\168",
                   "\230\178\161\231\148\168", "\231\166\129\231\148\168", "\229\141\149\231\178\190\229\186\166" }

local function names_no_half(l)
  for _, w in ipairs(NOT_HALF) do
    if l:find(w, 1, true) then return true end
  end
  return false
end

-- True when the evidence line itself turns float16 off: autocast or a scaler built with enabled=False,
-- autocast on the CPU (which runs in bf16), a switch followed by false.
local function line_not_fp16(line)
  local l = line:lower()
  if l:find("enabled%s*=%s*false") or l:find("torch%.cpu%.amp") or l:find("device_type%s*=%s*['\"]cpu")
     or l:find("autocast%(%s*['\"]cpu") then
    return true
  end
  for rest in l:gmatch("%-%-fp16%f[^%w_%-]([^\n]*)") do
    if not switched_off(rest) then return false end
  end
  return l:find("%-%-fp16%f[^%w_%-]") ~= nil
end

-- The first non-finite loss a line prints ("loss: nan", "Loss is nan", "nan loss", "loss became infinite
-- or NaN", "loss=inf"), or nil. A "nan" must follow "loss" with nothing but separators between, so a
-- line with a finite loss and a NaN gradient norm ("loss: 3.2 grad_norm: nan") is no NaN loss.
local function nonfinite_loss_line(l)
  -- (also an Ultralytics/YOLOv5 epoch row whose first loss columns are nan: "1/100  2.13G  nan  nan  nan ...",
  -- the row loss-is-nan reads; the line is lower-cased here, so the memory column ends in "g")
  if l:find("loss[^%w]*%-?nan%f[%W]") or l:find("loss is %-?nan%f[%W]") or l:find("nan loss", 1, true)
     or l:find("^%s*%d+/%d+ +%d+%.?%d*g +nan +nan ")
     -- (and Ultralytics 8.3's stop once its NaN recovery gave up: "Training failed: NaN persisted for 4 epochs")
     or l:find("nan persisted for %d+ epochs")
     or (l:find("loss", 1, true) and (l:find("infinite or nan", 1, true) or l:find("nan or inf", 1, true)))
     -- the other wordings loss-is-nan reads (rules/numerics/loss-is-nan.yaml), so that an fp16 run is read whatever
     -- words its script uses: "Non-finite loss", "NaN detected in loss", "Detected NaN in total loss", "Loss contains
     -- NaN", "losses: nan" (torchvision's detection references), one term of a loss ("loss_cls: nan")
     or l:find("non%-?finite loss") or l:find("nan detected in [%w ]*loss") or l:find("inf detected in [%w ]*loss")
     or l:find("detected nan in [%w ]*loss") or l:find("detected inf in [%w ]*loss")
     or l:find("losse?s? contains? nan") or l:find("losses[^%w]*%-?nan%f[%W]") or l:find("loss_[%w_]+[:=] *nan%f[%W]") then
    return true
  end
  -- the loss turning NaN told as a verb ("the loss nans immediately", facebookresearch/xformers#96; "loss goes to
  -- nan", "the loss became nan")
  if l:find("loss nans%f[%W]") then return true end
  for _, verb in ipairs({ "goes", "went", "turns", "turned", "becomes", "became" }) do
    if l:find("loss " .. verb .. " to nan%f[%W]") or l:find("loss " .. verb .. " nan%f[%W]") then return true end
  end
  -- Note: [A NaN told during an fp16 run]. A person's sentence that NaN came out during training, a verb of getting
  -- (a few letters or words between) then NaN, quoted or bracketed, and later on the line a word of the loop ("I got
  -- a [nan.0] value at each step during training", declare-lab/flan-alpaca#19, Lightning's printed nan.0): in a run
  -- the same input shows in float16 that value is the loss. The loop word "iter" covers iteration and the
  -- abbreviation ("I got the nan issue ... after ~6000 iters", karpathy/nanoGPT#167 with dtype = 'float16').
  for _, verb in ipairs({ "got", "get", "gets", "getting", "saw", "seeing" }) do
    local b, e = l:find("%f[%w]" .. verb .. " [%a ]-[%[\"'`]?nan%f[%W]")
    local before = b and l:sub(math.max(1, b - 8), b - 1) or ""
    if e and not (before:find("not ", 1, true) or before:find("n't ", 1, true) or before:find("never ", 1, true)) then
      for _, word in ipairs({ "step", "training", "epoch", "iter", "batch" }) do
        if l:find(word, e, true) then return true end
      end
    end
  end
  -- the loss named in Chinese or Japanese ("损失：nan", "损失值为 nan", "損失: nan")
  for _, w in ipairs({ "\230\141\159\229\164\177", "\230\144\141\229\164\177" }) do
    local _, e = l:find(w, 1, true)
    if e and l:find("^[^%w]*nan%f[%W]", e + 1) then return true end
  end
  -- a printed loss tensor without a name: "tensor(nan, device='cuda:0', dtype=torch.float16, grad_fn=<MseLossBackward0>)"
  if l:find("tensor%(%-?nan%f[%W]") or l:find("tensor%(%-?inf%f[%W]") then
    if l:find("grad_fn=<%w*loss%w*backward") or l:find("grad_fn=<%w*crossentropy%w*backward") then return true end
  end
  local s = l:find("loss[^%w]*%-?inf%f[%W]") or l:find("loss is %-?inf%f[%W]")
  return s ~= nil and not l:find("best", 1, true) and not l:find("scale", 1, true)
end

local scans = 0  -- runs of read_input, for test_incidents_read_once

-- Reads every incident once per input: whether any line shows bf16, and the first line that prints a
-- non-finite loss (its text, trimmed).
local function read_input(incidents)
  scans = scans + 1
  local bf16, nan_line = false, nil
  for _, inc in ipairs(incidents) do
    for line in ((inc.message or "") .. "\n"):gmatch("([^\n]*)\n") do
      local l = line:lower()
      -- Ultralytics' check_amp turning AMP off after its own test ("AMP: checks failed ... so AMP will be
      -- disabled during training"): the run trained in float32 whatever its argument line (amp=True) says,
      -- so it counts with the bf16 runs as no float16 run
      if not bf16 and (bf16_line(l) or l:find("amp will be disabled during training", 1, true)) then bf16 = true end
      if not nan_line and nonfinite_loss_line(l) then nan_line = line:gsub("^%s+", ""):sub(1, 120) end
    end
  end
  return bf16, nan_line
end

-- The first printed loss series that went non-finite (else a gradient norm that stays non-finite): its
-- name, how many values were not finite, and the last finite value before the first non-finite one (nil
-- when it was never finite).
local function nonfinite_series(ctx)
  local m = ctx.metrics or {}
  for _, name in ipairs({ "loss", "val_loss" }) do
    local s = m[name]
    if s and (s.nonfinite or 0) > 0 then
      local last
      for _, v in ipairs(s.values or {}) do
        if v ~= v or v == math.huge or v == -math.huge then break end
        last = v
      end
      return name, s.nonfinite, last
    end
  end
  -- Note: [Gradient norm that stays non-finite]. A Trainer under fp16 with a GradScaler logs a NaN or
  -- inf gradient norm for each step the scaler skips, beside a finite loss (or a loss logged as 0.0):
  -- a few of them are the scale settling, but a norm that is still non-finite at the end, three times
  -- or more, is every step overflowing (the grad-norm-nonfinite-stays signature, read in float16).
  local g = m.grad_norm
  if g and (g.nonfinite or 0) >= 3 then
    local vals = g.values or {}
    local tail = vals[#vals]
    if tail and (tail ~= tail or tail == math.huge or tail == -math.huge) then
      local last
      for _, v in ipairs(vals) do
        if v ~= v or v == math.huge or v == -math.huge then break end
        last = v
      end
      return "grad_norm", g.nonfinite, last
    end
  end
  return nil
end

-- Note: [Divergence before the NaN]. A float16 run whose printed loss had already grown a millionfold before
-- it turned non-finite diverged first (a learning rate, a bad batch): that loss overflows any precision
-- next, and the fp16 reading would send the reader to the wrong fix. The factor is loss-explodes' (rules/
-- signals/loss-explodes.yaml), against the median of the first three positive values, so that one idea keeps
-- one threshold. The candidate is demoted under the abstention threshold, not vetoed, so that
-- `--min-confidence 0` shows why.
local DIVERGED = 1e6
local DEMOTED = 0.3

-- The growth of the printed loss before its first non-finite value: the largest finite value over the median
-- of the first three positive ones, with both; nil when fewer than four finite values came first.
local function growth_before_nan(ctx)
  local s = (ctx.metrics or {}).loss
  if not s or (s.nonfinite or 0) == 0 then return nil end
  local before = {}
  for _, v in ipairs(s.values or {}) do
    if v ~= v or v == math.huge or v == -math.huge then break end
    before[#before + 1] = v
  end
  if #before < 4 then return nil end
  local first = {}
  for _, v in ipairs(before) do
    if v > 0 then first[#first + 1] = v end
    if #first == 3 then break end
  end
  if #first < 3 then return nil end
  table.sort(first)
  local start, top = first[2], before[1]
  for _, v in ipairs(before) do if v > top then top = v end end
  return top / start, start, top
end

-- values: {evidence}, the line that shows float16, trimmed.
function fp16_line(ctx)
  local m = ((ctx.incident or {}).message or ""):match("^%s*([^\n]*)") or ""
  if #m > 120 then m = m:sub(1, 117) .. "..." end
  return { evidence = m }
end

-- score: the fp16 reading needs a non-finite loss beside float16, and no bf16 in the input.
function nan_loss_in_fp16(ctx)
  local caps = ctx.captures or {}
  if BF16[(caps.dtype or caps.told or ""):lower()] then return false end
  local own = ((ctx.incident or {}).message or ""):match("^%s*([^\n]*)") or ""
  if bf16_line(own:lower()) or line_not_fp16(own) then return false end
  -- a report's words (the `told` patterns) count only where they do not turn the half type down
  if caps.told and names_no_half(own:lower()) then return false end
  local bf16, nan_line = triage.per_input(ctx, read_input)
  if bf16 then return false end
  local series, count, last = nonfinite_series(ctx)
  if not series and not nan_line then return false end
  local where
  if series then
    where = string.format("the printed %s has %d non-finite value%s%s", series, count, count == 1 and "" or "s",
                          last and string.format(" (the last finite one %.4g)", last) or "")
  else
    where = "the log prints \"" .. nan_line .. "\""
  end
  local ratio, start, top = growth_before_nan(ctx)
  if ratio and ratio >= DIVERGED then
    return { confidence = math.min(ctx.confidence, DEMOTED),
             note = string.format(" Demoted: the printed loss grew from %.4g to %.4g before it turned non-finite, so the run diverged (learning rate, a bad batch) before float16's range mattered; see the NaN-loss reading.",
                                  start, top) }
  end
  return { confidence = ctx.confidence,
           note = " Ranked above the generic NaN-loss reading: " .. where ..
                  " in a run the log shows in float16, and nothing in the input shows bf16." }
end

local function ctx_with(dtype, messages, loss)
  local incidents = {}
  for i, m in ipairs(messages) do incidents[i] = { kind = "log_line", message = m } end
  return { confidence = 0.8, captures = { dtype = dtype }, incident = incidents[1], incidents = incidents,
           metrics = loss and { loss = loss } or {} }
end

function test_banner_and_nan_loss_kept()
  local r = nan_loss_in_fp16(ctx_with("16bit", { "Using 16bit Automatic Mixed Precision (AMP)", "Epoch 3: loss: nan" }))
  assert(type(r) == "table" and r.confidence == 0.8 and r.note:find("loss: nan", 1, true), r and r.note)
  local s = nan_loss_in_fp16(ctx_with("fp16", { "fp16=True," },
                                      { count = 5, nonfinite = 2, values = { 2.1, 1.9, 1.7, 0 / 0, 0 / 0 } }))
  assert(s.note:find("2 non-finite values (the last finite one 1.7)", 1, true), s.note)
end

function test_healthy_fp16_run_vetoed()
  assert(nan_loss_in_fp16(ctx_with("16bit", { "Using 16bit Automatic Mixed Precision (AMP)" },
                                   { count = 3, nonfinite = 0, values = { 2.0, 1.5, 1.2 } })) == false)
  -- a NaN gradient norm beside a finite loss (apex's skipped step) and an initial best loss are no NaN loss
  assert(nan_loss_in_fp16(ctx_with("O1", { "Selected optimization level O1", "loss: 3.2104 grad_norm: nan" })) == false)
  assert(nan_loss_in_fp16(ctx_with("fp16", { "fp16=True,", "init best_loss=inf", "loss_scale=inf" })) == false)
  -- a gradient norm the scaler skipped a few times and that came back finite
  local ctx = ctx_with("fp16", { "fp16=True," }, { count = 4, nonfinite = 0, values = { 2.0, 1.8, 1.7, 1.6 } })
  ctx.metrics.grad_norm = { count = 6, nonfinite = 3, values = { 0 / 0, 0 / 0, 0 / 0, 1.2, 1.1, 0.9 } }
  assert(nan_loss_in_fp16(ctx) == false)
end

function test_grad_norm_that_stays_nonfinite_kept()
  local ctx = ctx_with("fp16", { "fp16: true" }, { count = 4, nonfinite = 0, values = { 1.07, 0, 0, 0 } })
  ctx.metrics.grad_norm = { count = 4, nonfinite = 4, values = { 0 / 0, 0 / 0, 0 / 0, 0 / 0 } }
  local r = nan_loss_in_fp16(ctx)
  assert(type(r) == "table" and r.note:find("printed grad_norm has 4 non-finite values", 1, true), r and r.note)
end

function test_amp_disabled_by_check_vetoed()
  local msgs = { "engine/trainer: task=detect, mode=train, epochs=100, amp=True, lr0=0.01",
                 "AMP: checks failed \u{274C}. AMP training on NVIDIA GeForce GTX 1650 GPU may cause NaN losses or zero-mAP results, so AMP will be disabled during training.",
                 "Loss is nan, stopping training" }
  assert(nan_loss_in_fp16(ctx_with("amp", msgs)) == false)
end

function test_bf16_run_vetoed()
  assert(nan_loss_in_fp16(ctx_with("bfloat16", { "Using bfloat16 Automatic Mixed Precision (AMP)", "loss: nan" })) == false)
  -- an fp16 spelling beside a bf16 one (a model loaded in fp16, then trained with bf16-mixed)
  assert(nan_loss_in_fp16(ctx_with("float16", { "torch_dtype=torch.float16", "trainer = Trainer(precision='bf16-mixed')", "loss: nan" })) == false)
end

function test_nan_loss_wordings()
  for _, l in ipairs({ "loss is nan, stopping training", "train loss nan | learning rate 0.0", "nan loss detected",
                       "floatingpointerror: loss became infinite or nan at iteration=27!", "{'loss': nan, 'epoch': 0.1}",
                       "step 12 | loss=inf", "runtimeerror: training failed: nan persisted for 4 epochs",
                       "1) after updating \"precision\" to \"16-mixed\", i got a [nan.0] value at each step during training.",
                       "hi, i got the nan issue (as #136), even reducing learning rate to `1e-5`, after ~6000 iters." }) do
    assert(nonfinite_loss_line(l), l)
  end
  assert(nonfinite_loss_line("tensor(nan, device='cuda:0', dtype=torch.float16, grad_fn=<mselossbackward0>)"))
  for _, l in ipairs({ "non-finite loss, ending training!", "warning: nan detected in loss, skipping batch",
                       "detected nan in total loss.", "loss contains nan or inf!",
                       "epoch: [0]  [ 40/7329]  eta: 1:02:10  lr: 0.020000  loss: 1.0 (1.2)  losses: nan",
                       "loss_cls: nan  loss_box_reg: nan", "\231\172\1723\232\189\174 \230\141\159\229\164\177\239\188\154nan" }) do
    assert(nonfinite_loss_line(l), l)
  end
  for _, l in ipairs({ "losses: 0.5312", "loss_cls: 0.2210  nan_count: 3", "with bf16 we never got nan during training", "\230\141\159\229\164\177\239\188\1540.25" }) do
    assert(not nonfinite_loss_line(l), l)
  end
  for _, l in ipairs({ "loss: 3.2104 grad_norm: nan", "best_loss=inf", "loss_scale=inf", "loss: 0.25 (nan%)",
                       "tensor(nan, device='cuda:0', dtype=torch.float16, grad_fn=<relubackward0>)" }) do
    assert(not nonfinite_loss_line(l), l)
  end
end

function test_evidence_line()
  assert(fp16_line({ incident = { message = "  Using 16bit Automatic Mixed Precision (AMP)\nGPU available" } }).evidence
         == "Using 16bit Automatic Mixed Precision (AMP)")
end

function test_incidents_read_once()
  local ctx = ctx_with("16bit", { "Using 16bit Automatic Mixed Precision (AMP)", "loss: nan" })
  local before = scans
  for _ = 1, 3 do assert(type(nan_loss_in_fp16(ctx)) == "table") end
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end

function test_switches_turned_off()
  -- "--bf16 false" does not make the run bf16; "--fp16 false" does not make it fp16
  assert(not bf16_line("--bf16 false --fp16 true"), "bf16 switched off")
  assert(bf16_line("--bf16 true --fp16 false") and bf16_line("--bf16 --fp16"), "bf16 switched on")
  assert(not bf16_line("--bf16_full_eval false"), "another switch")
  assert(bf16_line("optim_wrapper = dict(type='ampoptimwrapper', dtype='bfloat16')"), "mmengine bf16")
  assert(bf16_line("model: {dtype: bfloat16}"), "yaml bf16")
  assert(not bf16_line('"torch_dtype": "bfloat16",'), "a checkpoint's saved dtype")
  assert(bf16_line("python train.py --dtype bfloat16") and bf16_line("train.py --amp --amp-dtype bfloat16"), "--dtype switch")
  assert(bf16_line("overriding: dtype = bfloat16") and not bf16_line("--dtype float16"), "nanogpt dtype")
  assert(bf16_line("  bfloat16_config .............. enabled=true immediate_grad_update=false")
         and not bf16_line("  bfloat16_config .............. enabled=false immediate_grad_update=false"), "deepspeed model")
  assert(line_not_fp16("--bf16 true --fp16 false") and not line_not_fp16("--fp16 true"), "fp16 switch")
  local r = nan_loss_in_fp16(ctx_with("--fp16", { "--bf16 false --fp16 true", "{'loss': nan, 'epoch': 0.1}" }))
  assert(type(r) == "table", "fp16 run with bf16 off")
end

function test_autocast_lines()
  for _, l in ipairs({ "with torch.autocast(device_type='cpu'):", "with autocast(enabled=False):",
                       "scaler = torch.cuda.amp.GradScaler(enabled = False)", "with torch.cpu.amp.autocast():" }) do
    assert(line_not_fp16(l), l)
  end
  assert(not line_not_fp16("with torch.cuda.amp.autocast():"))
  assert(bf16_line("with torch.autocast(device_type='cuda', dtype=torch.bfloat16):"))
  assert(nan_loss_in_fp16(ctx_with("autocast", { "with autocast(enabled=False):", "loss: nan" })) == false)
end

function test_divergence_before_the_nan_demotes()
  local nan = 0 / 0
  local r = nan_loss_in_fp16(ctx_with("16bit", { "Using 16bit Automatic Mixed Precision (AMP)" },
                                      { count = 7, nonfinite = 2, values = { 2.3, 2.1, 2.2, 40.0, 9.1e5, 3.4e7, nan, nan } }))
  assert(type(r) == "table" and r.confidence <= 0.3 and r.note:find("from 2.2 to 3.4e+07", 1, true), r and r.note)
  -- a loss that wandered within an order of magnitude before the NaN keeps the fp16 reading
  local k = nan_loss_in_fp16(ctx_with("16bit", { "Using 16bit Automatic Mixed Precision (AMP)" },
                                      { count = 6, nonfinite = 2, values = { 0.53, 1.55, 2.33, 1.14, nan, nan } }))
  assert(type(k) == "table" and k.confidence == 0.8, k and k.note)
end

function test_half_precision_named_in_words()
  local kept = ctx_with(nil, { "fp16 mode, after 10k steps the loss is nan" }, nil)
  kept.captures = { told = "fp16" }
  assert(nan_loss_in_fp16(kept))
  local upper = ctx_with(nil, { "Loss NaN after some time with BF16" }, nil)
  upper.captures = { told = "BF16" }
  assert(nan_loss_in_fp16(upper) == false)
  for _, line in ipairs({ "trained without fp16 training, the loss is nan", "the loss is nan in fp16 and in fp32",
                          "\229\133\179\233\151\173fp16\230\168\161\229\188\143\229\144\142loss\228\184\186nan" }) do
    local c = ctx_with(nil, { line }, nil)
    c.captures = { told = "fp16" }
    assert(nan_loss_in_fp16(c) == false, line)
  end
end
