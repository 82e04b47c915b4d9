-- Lua for process-pool-worker-died (rules/LUA_API.md, API version 1).
-- Note: [Pool worker deaths]. The pool's message says only that a worker is gone. A worker killed for memory
-- leaves nothing else; one that crashed in native code usually leaves a trace: loky's exit codes name the
-- signal ("{SIGSEGV(-11)}" rather than "{SIGKILL(-9)}"), or the worker's stderr shows the crash ("Segmentation
-- fault (core dumped)", "Fatal Python error: Segmentation fault"). With such a trace the memory reading is set
-- aside under the abstention threshold, with the reason. loky's own sentence names both causes ("This could be
-- caused by a segmentation fault ... or by an excessive memory usage"), so it is not read as a crash.
-- The worker count is set under another name by each layer that calls Dataset.map; the advice names the one the
-- input shows.

local SET_ASIDE = 0.3
local CRASH = { "SIGSEGV(", "SIGABRT(", "Segmentation fault (core dumped)", "Fatal Python error: Segmentation fault",
                "Fatal Python error: Aborted" }

-- { literal seen in the input, the knob to name }; the first found wins, in this order
local KNOBS = {
  { "llamafactory", "preprocessing_num_workers in the LLaMA-Factory config" },
  { "LLaMA-Factory", "preprocessing_num_workers in the LLaMA-Factory config" },
  { "unsloth", "num_proc / dataset_num_proc in the unsloth call or SFTConfig" },
  { "trl/trainer", "dataset_num_proc in SFTConfig" },
  { "swift", "--dataset_num_proc" },
  { "run_clm.py", "--preprocessing_num_workers" },
  { "run_mlm.py", "--preprocessing_num_workers" },
  { "concurrent/futures", "max_workers of the process pool" },
  { "concurrent\\futures", "max_workers of the process pool" },
  { "joblib", "n_jobs" },
}

local function knob_in(incidents)
  local literals = {}
  for i, k in ipairs(KNOBS) do literals[i] = k[1] end
  local found
  for _, inc in ipairs(incidents or {}) do
    local texts = { inc.message or "" }
    for _, f in ipairs(inc.frames or {}) do texts[#texts + 1] = f.file or "" end
    for _, text in ipairs(texts) do
      for i, lit in ipairs(literals) do
        if text:find(lit, 1, true) and (not found or i < found) then found = i end
      end
    end
  end
  return found and KNOBS[found][2] or nil
end

-- The commands, as written whole (Note: [Command captures]: the rule's own text goes in as written)
local LINUX_LOG = [[dmesg -T | grep -iE "out of memory|killed process" | tail]]
-- Windows logs a low-memory condition as event 2004 (Resource-Exhaustion-Detector) in the System log
local WINDOWS_LOG = [[Get-WinEvent -FilterHashtable @{LogName='System'; Id=2004} -MaxEvents 5]]

local OP_NAMES = { map = "Hugging Face datasets map", pool = "process pool", executor = "joblib (loky) process pool" }

-- A Windows path in a frame ("D:\\env\\lib\\site-packages\\datasets\\...") means no dmesg and no free: Windows has no
-- OOM killer, a process that cannot commit memory fails there, and the commit charge is what to watch.
local function windows_frames(incidents)
  for _, inc in ipairs(incidents or {}) do
    for _, f in ipairs(inc.frames or {}) do
      if (f.file or ""):match("^%a:\\") then return true end
    end
  end
  return false
end

function knob_of_the_input(ctx)
  local op = ctx.captures.op or "pool"
  local windows = ctx.incidents and triage.per_input(ctx, windows_frames) or false
  local memory_log = LINUX_LOG
  if windows then memory_log = WINDOWS_LOG end
  local memory_watch = "free -h"
  if windows then memory_watch = "wmic OS get FreePhysicalMemory,FreeVirtualMemory" end
  local knob = ctx.incidents and triage.per_input(ctx, knob_in) or nil
  if not knob then
    if op == "map" then knob = "num_proc of Dataset.map"
    elseif op == "executor" then knob = "n_jobs"
    else knob = "max_workers of the process pool" end
  end
  local cpu_count = "nproc"
  if windows then cpu_count = "echo %NUMBER_OF_PROCESSORS%" end
  return { knob = knob, op_name = OP_NAMES[op] or "process pool", memory_log = memory_log, memory_watch = memory_watch,
           cpu_count = cpu_count }
end

local function crash_in(incidents)
  return triage.message_literal(incidents, CRASH)
end

function unless_a_crash(ctx)
  local crash = ctx.incidents and triage.per_input(ctx, crash_in) or nil
  if crash then
    return { confidence = math.min(ctx.confidence, SET_ASIDE),
             note = " Set aside as a memory kill: the input shows a crash (" .. crash .. "), so the worker died in native code rather than for memory." }
  end
  return nil
end

local function ctx_of(captures, messages, file)
  local incidents = {}
  for i, m in ipairs(messages) do
    incidents[i] = { kind = i == 1 and "traceback" or "log_line", message = m, frames = file and { { file = file } } or {} }
  end
  return { confidence = 0.65, captures = captures, incident = incidents[1], incidents = incidents }
end

function test_a_segfault_exit_code_sets_the_memory_reading_aside()
  local ctx = ctx_of({ op = "executor" }, { "A worker process managed by the executor was unexpectedly terminated. This could be caused by a segmentation fault while calling the function or by an excessive memory usage causing the Operating System to kill the worker.\n\nThe exit codes of the workers are {SIGSEGV(-11)}" })
  local r = unless_a_crash(ctx)
  assert(r and r.confidence == SET_ASIDE and r.note:find("SIGSEGV(", 1, true), r and r.note)
end

function test_loky_own_sentence_and_sigkill_keep_the_prior()
  local ctx = ctx_of({ op = "executor" }, { "A worker process managed by the executor was unexpectedly terminated. This could be caused by a segmentation fault while calling the function or by an excessive memory usage causing the Operating System to kill the worker.\n\nThe exit codes of the workers are {SIGKILL(-9)}" })
  assert(unless_a_crash(ctx) == nil)
  assert(knob_of_the_input(ctx).knob == "n_jobs")
end

function test_the_knob_follows_the_trainer()
  local ctx = ctx_of({ op = "map" }, { "One of the subprocesses has abruptly died during map operation.To debug the error, disable multiprocessing." },
                     "/home/u/LLaMA-Factory/src/llamafactory/data/loader.py")
  assert(knob_of_the_input(ctx).knob:find("preprocessing_num_workers", 1, true))
  local plain = ctx_of({ op = "map" }, { "One of the subprocesses has abruptly died during map operation." })
  assert(knob_of_the_input(plain).knob == "num_proc of Dataset.map")
  assert(knob_of_the_input(plain).memory_watch == "free -h")
  local windows = ctx_of({ op = "map" }, { "One of the subprocesses has abruptly died during map operation." },
                         "D:\\venv\\lib\\site-packages\\datasets\\utils\\py_utils.py")
  assert(knob_of_the_input(windows).memory_watch:find("wmic", 1, true))
end
