-- Lua for half-output-all-nan (rules/LUA_API.md, API version 1).
-- The rows of a printed tensor and its dtype line are one incident when printed together; the rule
-- needs both: rows that are NaN throughout, and the float16 dtype. A printout that names no dtype at
-- all (a float32 tensor computed under autocast prints none, nor does a paste cut before it) is read with
-- the rest of the input: another line that shows the run in float16 (a Lightning 16bit setting, --fp16,
-- autocast, .half(), torch.float16) stands in for the dtype, unless any line shows bf16 or the line
-- itself turns fp16 off.

-- How many printed rows hold only nan, and whether any row holds a finite number. Text before the printout
-- on its first line (a tqdm bar's last state glued in front, "  0%|...| 0/10 [00:00<?, ?it/s]", a log
-- record's prefix) is not a row of it.
local function rows(message)
  local at = message:find("tensor%(%[") or message:find("%[+nan, nan")
  if at then message = message:sub(at) end
  return triage.printed_rows(message, { "nan" })
end

-- Spellings of a float16 run on another line of the input (lower-cased), as nan-loss-in-fp16-run reads them.
local FP16_LINES = { "using 16bit", "using native 16bit", "using 16-bit", "precision=16", "precision='16",
                     'precision="16', "precision: 16", "16-mixed", "16-true", "fp16=true", "fp16: true",
                     "--fp16", "use_amp=true", "amp=true", ".half()", "torch.float16", "torch.half",
                     "autocast(", "gradscaler(", "half precision backend", "mixed_precision='fp16'",
                     'mixed_precision="fp16"', "mixed precision type: fp16", "dtype=float16",
                     "selected optimization level o1", "selected optimization level o2",
                     "selected optimization level o3" }

-- The first line of another incident that shows float16 (trimmed), and whether any line shows bf16.
local function half_elsewhere(incidents)
  local line, bf16 = nil, false
  for _, inc in ipairs(incidents) do
    for l in ((inc.message or "") .. "\n"):gmatch("([^\n]*)\n") do
      local low = l:lower()
      if (low:find("bfloat16", 1, true) or low:find("bf16", 1, true))
         and not low:find("bf16[%s=]+false") then bf16 = true end
      if not line and not low:find("false", 1, true) and not low:find("'cpu'", 1, true)
         and not low:find("tensor%(%[") then
        for _, lit in ipairs(FP16_LINES) do
          if low:find(lit, 1, true) then line = l:gsub("^[%s*>`-]+", ""):gsub("[`%s]+$", ""):sub(1, 100); break end
        end
      end
    end
  end
  return line, bf16
end

-- values: {rows}, how many printed rows are NaN throughout; {half_evidence}, what shows float16.
function nan_rows(ctx)
  local msg = ctx.incident.message or ""
  local n = rows(msg)
  local evidence = "its dtype is torch.float16"
  if not msg:find("dtype=torch.float16", 1, true) then
    local line = triage.per_input(ctx, half_elsewhere)
    if line then
      evidence = string.format("the printout names no dtype, but the input shows the run in float16 (\"%s\")", line)
    end
  end
  if n == 0 then return { rows = "", half_evidence = evidence } end
  return { rows = string.format(" (%d printed row%s)", n, n == 1 and "" or "s"), half_evidence = evidence }
end

-- score: veto unless the incident shows NaN-only rows, no finite row, and dtype=torch.float16 (or, with no
-- dtype printed at all, another line of the input shows float16 and none shows bf16).
function all_nan_half(ctx)
  local msg = ctx.incident.message or ""
  local n, finite = rows(msg)
  if n == 0 or finite then return false end
  if msg:find("dtype=torch.float16", 1, true) then return nil end
  if msg:find("dtype=", 1, true) then return false end
  local line, bf16 = triage.per_input(ctx, half_elsewhere)
  if line and not bf16 then return nil end
  return false
end

function test_rows()
  local msg = "tensor([[[nan, nan, nan, nan],\n         [nan, nan, nan, nan]]], device='cuda:0',\n       dtype=torch.float16)"
  assert(all_nan_half({ incident = { message = msg } }) == nil)
  assert(nan_rows({ incident = { message = msg } }).rows == " (2 printed rows)")
  assert(all_nan_half({ incident = { message = "dtype=torch.float16" } }) == false)
  assert(all_nan_half({ incident = { message = "[[nan, nan, nan, nan],\n [0.5, nan, nan, nan]], dtype=torch.float16" } }) == false)
end

function test_text_before_the_printout()
  local msg = "  0%|          | 0/10 [00:00<?, ?it/s]tensor([[[nan, nan, nan, nan],\n         [nan, nan, nan, nan]]], device='cuda:0',\n       dtype=torch.float16)"
  assert(all_nan_half({ incident = { message = msg } }) == nil)
  assert(nan_rows({ incident = { message = msg } }).rows == " (2 printed rows)")
end

function test_half_evidence_elsewhere()
  local nan = { kind = "log_line", message = "  - `tensor([nan, nan, nan, nan], device='cuda:0')`" }
  local banner = { kind = "log_line", message = "- 16bit mixed-precision: (`pl.Trainer.from_argparse_args(args, precision=16)`)" }
  local ctx = { incident = nan, incidents = { banner, nan } }
  assert(all_nan_half(ctx) == nil, "fp16 elsewhere")
  assert(nan_rows(ctx).half_evidence:find("precision=16", 1, true), nan_rows(ctx).half_evidence)
  -- bf16 anywhere, fp16 turned off, a float32 dtype on the printout, or no evidence at all: vetoed
  assert(all_nan_half({ incident = nan, incidents = { { message = "trainer = Trainer(precision='bf16-mixed')" }, nan } }) == false)
  assert(all_nan_half({ incident = nan, incidents = { { message = "python train.py --fp16 false" }, nan } }) == false)
  assert(all_nan_half({ incident = nan, incidents = { nan } }) == false)
  local f32 = { message = "tensor([nan, nan, nan, nan], device='cuda:0', dtype=torch.float64)" }
  assert(all_nan_half({ incident = f32, incidents = { banner, f32 } }) == false)
end
