-- Lua for device-side-assert-in-loss (rules/LUA_API.md, API version 1).
-- Note: [Device-side assert by its frames]. A bare "device-side assert triggered" says only that some
-- kernel check failed. Where no kernel assertion line was kept, the rest of the report still says which:
--   the message names the loss kernel's source file (1.x THCUNN: "... at .../ClassNLLCriterion.cu:115") -> kept;
--   the deepest frame that names a loss or an index op names the loss (F.cross_entropy, nll_loss,
--   torch/nn/modules/loss.py, a `criterion(` / `loss_fn(` / `loss_fct(` call)           -> kept;
--   it names an index op instead (embedding, index_select, gather: device-side-assert-in-index-op),
--   or nothing names either                                                            -> vetoed.
-- The frames are the incident's own; a bare message without frames borrows those of another incident
-- of the input with the same error (the traceback of one rank, the rest printed bare).

local LOSS_KERNEL_FILES = { "ClassNLLCriterion.cu", "SpatialClassNLLCriterion.cu", "NLLLoss2d.cu", "/cuda/Loss.cu" }
local LOSS_FUNCS = { cross_entropy = true, nll_loss = true, nll_loss2d = true, nll_loss_nd = true, cross_entropy_loss = true }
local INDEX_FUNCS = { embedding = true, index_select = true, gather = true, take_along_dim = true, embedding_bag = true,
                      scatter = true, scatter_ = true, scatter_add_ = true }
local LOSS_SOURCE = { "cross_entropy[%w_]*%(", "nll_loss[%w_]*%(", "CrossEntropyLoss%(", "NLLLoss%(", "criterion[%w_]*%(",
                      "loss_f[cnu]%w*%(", "self%.loss%(", "self%.ce%(" }
-- A call of a function named like a loss (`focal_loss(`, `seg_loss(`, `self.cls_loss(`) is one too, except
-- transformers' Trainer.compute_loss, which runs the whole model forward (its embeddings included).
local LOSS_WRAPPERS = { compute_loss = true }
local function names_a_loss_call(src)
  for name in src:gmatch("([%w_]*_loss)%(") do
    if not LOSS_WRAPPERS[name] then return true end
  end
  return false
end
local INDEX_SOURCE = { "F%.embedding%(", "torch%.embedding%(", "index_select%(", "%.gather%(", "embedding_bag%(",
                       "%.scatter_?%(", "%.scatter_add_?%(" }

local function any(s, patterns)
  for _, p in ipairs(patterns) do if s:find(p) then return true end end
  return false
end

-- "loss", "index" or nil for one frame; where both appear in one source line, the frames below decide.
local function frame_kind(f)
  local file = (f.file or ""):gsub("\\", "/")
  local src = f.source or ""
  local li = INDEX_FUNCS[f.func or ""] or file:find("/torch/nn/modules/sparse%.py$") or any(src, INDEX_SOURCE)
  local ll = LOSS_FUNCS[f.func or ""] or file:find("/torch/nn/modules/loss%.py$") or any(src, LOSS_SOURCE)
             or names_a_loss_call(src)
  if li and not ll then return "index" end
  if ll and not li then return "loss" end
  return nil
end

-- The kind the deepest deciding frame names, and that frame as "file:line in func".
local function deepest_kind(frames)
  for i = #frames, 1, -1 do
    local k = frame_kind(frames[i])
    if k then
      local f = frames[i]
      return k, string.format("%s:%s in %s", f.file or "?", tostring(f.line or "?"), f.func or "?")
    end
  end
  return nil
end

local scans = 0  -- runs of framed_assert, for test_incidents_read_once

-- The frames of the first incident of the input that reports a device-side assert with frames.
local function framed_assert(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    if #(inc.frames or {}) > 0 and (inc.message or ""):find("device-side assert triggered", 1, true) then
      return inc.frames
    end
  end
  return nil
end

function loss_frames(ctx)
  local inc = ctx.incident or {}
  local msg = inc.message or ""
  for _, f in ipairs(LOSS_KERNEL_FILES) do
    if msg:find(f, 1, true) then
      return { confidence = ctx.confidence,
               note = " The error names the kernel that raised it (" .. f:gsub("^/", "") .. "), the NLL loss's." }
    end
  end
  local frames = inc.frames or {}
  if #frames == 0 then frames = triage.per_input(ctx, framed_assert) or {} end
  local kind, at = deepest_kind(frames)
  if kind ~= "loss" then return false end
  return { confidence = ctx.confidence,
           note = " Read from the traceback: its deepest frame that names an op is the loss (" .. at ..
                  "), not an embedding or index op, and no kernel assertion line says otherwise." }
end

local function frame(file, func, source) return { file = file, line = 1, func = func, source = source } end

function test_loss_frames_kept()
  local fs = { frame("train.py", "<module>", "loss = criterion(outputs, labels)"),
               frame("/x/torch/nn/modules/loss.py", "forward", "return F.cross_entropy(input, target)"),
               frame("/x/torch/nn/functional.py", "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target)") }
  local r = loss_frames({ confidence = 0.75, incident = { message = "CUDA error: device-side assert triggered", frames = fs } })
  assert(r.confidence == 0.75 and r.note:find("functional.py:1 in cross_entropy", 1, true), r.note)
end

function test_loss_named_calls_kept()
  for _, line in ipairs({ "loss = cross_entropy2d(input=inp, target=target, weight=weight)",
                          "loss = self.focal_loss(cls_logits, labels)", "l = loss_function(out, y)" }) do
    local r = loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered",
                                                            frames = { frame("train.py", "step", line) } } })
    assert(type(r) == "table", line)
  end
end

function test_scatter_below_the_loss_is_the_index_reading()
  local fs = { frame("train.py", "<module>", "loss = criterion(logits, labels)"),
               frame("/x/polyloss.py", "forward", "labels_onehot = torch.zeros_like(logits).scatter_(1, labels.unsqueeze(1), 1)") }
  assert(loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered", frames = fs } }) == false)
end

function test_trainer_compute_loss_is_not_the_loss()
  local fs = { frame("/x/transformers/trainer.py", "training_step", "loss = self.compute_loss(model, inputs)") }
  assert(loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered", frames = fs } }) == false)
end

function test_embedding_below_the_loss_line_vetoed()
  local fs = { frame("train.py", "<module>", "loss = criterion(model(tokens), labels)"),
               frame("/x/torch/nn/modules/sparse.py", "forward", "return F.embedding(") }
  assert(loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered", frames = fs } }) == false)
end

function test_unrelated_frames_vetoed()
  local fs = { frame("eval.py", "<module>", "correct += (pred == y).sum().item()") }
  assert(loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered", frames = fs } }) == false)
  assert(loss_frames({ confidence = 0.75, incident = { message = "device-side assert triggered" } }) == false)
end

function test_kernel_file_in_message()
  local r = loss_frames({ confidence = 0.75, incident = { message = "cuda runtime error (710) : device-side assert triggered at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:115" } })
  assert(r.note:find("ClassNLLCriterion.cu", 1, true), r.note)
end

function test_bare_rank_borrows_frames()
  local fs = { frame("train.py", "step", "loss = loss_fct(logits.view(-1, 3), labels.view(-1))") }
  local bare = { message = "[rank1]: RuntimeError: CUDA error: device-side assert triggered" }
  local ctx = { confidence = 0.75, incident = bare,
                incidents = { bare, { message = "CUDA error: device-side assert triggered", frames = fs } } }
  local before = scans
  for _ = 1, 3 do assert(type(loss_frames(ctx)) == "table") end
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end

function test_incidents_read_once()
  test_bare_rank_borrows_frames()
end
