-- Lua for bf16-dtype-error-on-pre-ampere-gpu (rules/LUA_API.md, API version 1).
-- Note: [bf16 on a pre-Ampere GPU]. A dtype error naming bfloat16 says nothing about the GPU by itself; this
-- rule keeps its candidate only when the input also shows the run on a GPU without native bf16, and says
-- what showed it. Evidence read, in any incident of the input:
--   * a frame under /kaggle/working/ or /kaggle/input/ (a Kaggle notebook: its GPUs are the Tesla P100 and
--     T4, capability 6.0 and 7.5);
--   * a message naming a pre-Ampere NVIDIA GPU (Tesla T4/P100/P40/P4/V100/K80/M60, GeForce GTX, GeForce RTX
--     20xx, Quadro RTX, TITAN V/Xp), as compute-capability warnings and library refusals print them.
-- Without either the candidate is vetoed: the same error on an Ampere GPU is a plain dtype mismatch.

local GPU_NAMES = { "Tesla T4", "Tesla P100", "Tesla P40", "Tesla P4", "Tesla V100", "Tesla K80", "Tesla M60",
                    "GeForce GTX", "GeForce RTX 2060", "GeForce RTX 2070", "GeForce RTX 2080", "Quadro RTX",
                    "TITAN V", "TITAN Xp" }
local KAGGLE_DIRS = { "/kaggle/working/", "/kaggle/input/" }

-- The first piece of evidence among the input's incidents, read once per input (triage.per_input).
local function pre_ampere_evidence(incidents)
  for _, inc in ipairs(incidents) do
    for _, f in ipairs(inc.frames or {}) do
      local file = f.file or ""
      for _, dir in ipairs(KAGGLE_DIRS) do
        if file:find(dir, 1, true) then
          return "a Kaggle notebook (" .. dir .. " in the traceback), whose GPUs are the Tesla P100 and T4"
        end
      end
    end
  end
  local name = triage.message_literal(incidents, GPU_NAMES)
  if name then return "the input names a " .. name .. " GPU" end
  return nil
end

-- score: keep the prior (with a note naming the evidence) when the input shows a pre-Ampere GPU, else veto.
function on_pre_ampere_gpu(ctx)
  local evidence = triage.per_input(ctx, pre_ampere_evidence)
  if not evidence then return false end
  return { confidence = ctx.confidence, note = " The evidence for the GPU: " .. evidence .. "." }
end

-- values: {evidence}, the same sentence for the explanation
function evidence_values(ctx)
  local evidence = triage.per_input(ctx, pre_ampere_evidence)
  return { evidence = evidence and (" Here: " .. evidence .. ".") or "" }
end

function test_kaggle_frame()
  local inc = { message = "expected scalar type Float but found BFloat16",
                frames = { { file = "/kaggle/working/Time-LLM/layers/Embed.py" } } }
  local r = on_pre_ampere_gpu({ incident = inc, incidents = { inc }, confidence = 0.85 })
  assert(type(r) == "table" and r.confidence == 0.85 and r.note:find("Kaggle", 1, true))
end

function test_gpu_name_in_another_incident()
  local warn = { message = "Tesla T4 does not support bfloat16 compilation natively, skipping", frames = {} }
  local inc = { message = "mat1 and mat2 must have the same dtype, but got BFloat16 and Float", frames = {} }
  local r = on_pre_ampere_gpu({ incident = inc, incidents = { warn, inc }, confidence = 0.85 })
  assert(type(r) == "table" and r.note:find("Tesla T4", 1, true))
end

function test_vetoed_without_evidence()
  local inc = { message = "expected scalar type Float but found BFloat16", frames = { { file = "/home/u/train.py" } } }
  assert(on_pre_ampere_gpu({ incident = inc, incidents = { inc }, confidence = 0.85 }) == false)
end
