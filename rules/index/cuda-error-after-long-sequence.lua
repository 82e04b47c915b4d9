-- Lua for cuda-error-after-long-sequence (rules/LUA_API.md, API version 1).
-- Note: [Library error after a long sequence]. A cuBLAS/cuDNN status, an illegal access or a bare
-- device-side assert says only that the CUDA context broke. When the same input holds transformers'
-- warning that a text encoded to N tokens for a model of M positions, or its generation reminder that a
-- generate() call runs past the model's M positions (Note: [Generation past the position table] in
-- generation-past-positions.yaml), the position lookup past the table is the likely break:
--   either warning is in the input (any incident's message) -> kept, the note names N and M;
--   neither is                                              -> vetoed (the error keeps its own rule).
-- The warning's own rule (tokenizer-sequence-past-positions) sits on the warning's line; this one sits on
-- the error, the incident the run died of, so the reading ranks where the failure is.

local WARNING = "Token indices sequence length is longer than the specified maximum sequence length for this model"
local REMINDER = "the current text generation call"

local scans = 0  -- runs of warned_lengths, for test_incidents_read_once

-- A kernel's own assertion line ("... Assertion `t >= 0 && t < n_classes` failed.", ROCm's "Device-side
-- assertion ... failed") names the check that broke the context: the kernel-assertion rules read it, and
-- this rule, which only guesses the lookup from the warning, steps aside.
local function kernel_assertion(s)
  return s:find("[Aa]ssertion [`'\"][^\n]*failed") ~= nil
end

-- N and M of the first such warning among the incidents (or nil; N is "" for the generation reminder,
-- which names only M), and whether any incident or its context holds a kernel assertion line.
local function warned_lengths(incidents)
  scans = scans + 1
  local n, limit, asserted = nil, nil, false
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    if kernel_assertion(m) then asserted = true end
    for _, c in ipairs(inc.context or {}) do
      if kernel_assertion(c) then asserted = true end
    end
    local at = m:find(WARNING, 1, true)
    if at and not n then
      n, limit = m:match("%((%d+) > (%d+)%)", at)
      n, limit = n or "?", limit or "?"
    end
    at = m:find(REMINDER, 1, true)
    if at and not n then
      n, limit = "", m:match("maximum length %((%d+)%)", at) or "?"
    end
  end
  return n, limit, asserted
end

function long_sequence_warned(ctx)
  local n, limit, asserted = triage.per_input(ctx, warned_lengths)
  if not n or asserted then return false end
  if n == "" then
    return { confidence = ctx.confidence,
             note = " transformers warned in the same input that a generate() call runs past the model's " ..
                    limit .. " positions." }
  end
  return { confidence = ctx.confidence,
           note = " The tokenizer warned in the same input that a text encoded to " .. n ..
                  " tokens for a model of " .. limit .. " positions." }
end

local function warning_row(n, m)
  return { kind = "log_line", message = WARNING .. " (" .. n .. " > " .. m .. "). Running this sequence through the model will result in indexing errors" }
end

function test_kept_with_the_warning()
  local err = { kind = "traceback", message = "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`" }
  local r = long_sequence_warned({ confidence = 0.88, incident = err, incidents = { warning_row(1024, 512), err } })
  assert(r.confidence == 0.88 and r.note:find("1024 tokens for a model of 512", 1, true), r.note)
end

function test_kept_with_the_generation_reminder()
  local err = { kind = "traceback", message = "CUDA error: device-side assert triggered" }
  local reminder = { kind = "log_line", message = "This is a friendly reminder - the current text generation call has exceeded the model's predefined maximum length (2048). Depending on the model, you may observe exceptions, performance degradation, or nothing at all." }
  local r = long_sequence_warned({ confidence = 0.88, incident = err, incidents = { reminder, err } })
  assert(r.note:find("runs past the model's 2048 positions", 1, true), r.note)
end

function test_vetoed_without_it()
  local err = { kind = "traceback", message = "CUDA error: device-side assert triggered" }
  assert(long_sequence_warned({ confidence = 0.88, incident = err, incidents = { err } }) == false)
end

function test_steps_aside_for_a_kernel_assertion()
  local err = { kind = "traceback", message = "CUDA error: device-side assert triggered",
                context = { "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed." } }
  assert(long_sequence_warned({ confidence = 0.88, incident = err, incidents = { warning_row(1024, 512), err } }) == false)
end

function test_incidents_read_once()
  local err = { kind = "traceback", message = "CUDA error: unspecified launch failure" }
  local ctx = { confidence = 0.88, incident = err, incidents = { warning_row(600, 512), err } }
  local before = scans
  for _ = 1, 3 do assert(type(long_sequence_warned(ctx)) == "table") end
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end
