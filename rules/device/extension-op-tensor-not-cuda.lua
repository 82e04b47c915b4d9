-- Lua for extension-op-tensor-not-cuda (rules/LUA_API.md, API version 1).
-- An extension's own CUDA check names the tensor, not the op; the op is the frame that raised it when the
-- traceback has one (a Python wrapper calling into the compiled module), and apex's fused normalisation shows
-- in the frames' files.

-- A capture of a pattern that did not match it comes as "" or nil.
local function cap(ctx, name)
  local v = (ctx.captures or {})[name]
  if v == nil or v == "" then return nil end
  return v
end

local function frames(ctx)
  local inc = ctx.incident
  return (inc and inc.frames) or {}
end

-- The last frame's call (the source line that entered the extension), without its arguments.
local function op_of(ctx)
  local fs = frames(ctx)
  local last = fs[#fs]
  local src = last and last.source or ""
  return src:match("([%w_%.]+)%s*%(")
end

function op_and_evidence(ctx)
  local op = op_of(ctx)
  local arg = cap(ctx, "argument")
  return {
    op = op and ("The op called at `" .. op .. "`") or "The op",
    what = arg and ("its `" .. arg .. "` tensor") or "its input",
    no_cpu_kernel = cap(ctx, "cpu_only") and "yes" or "no",
  }
end

function apex_frames(ctx)
  for _, f in ipairs(frames(ctx)) do
    if (f.file or ""):find("apex/normalization", 1, true) then return "the traceback runs through " .. f.file end
  end
  return false
end

-- Every reading but the extension's own CPU kernel missing may be a CPU run; the CPU-only wording is one.
function cpu_run_possible(ctx)
  if cap(ctx, "cpu_only") then return "the op says it has no CPU implementation" end
  local facts = ctx.facts or {}
  if facts.build == "cpu" or facts.cuda_available == "false" or facts.device == "cpu" then return true end
  return false
end

function test_op_from_the_last_frame()
  local ctx = { captures = { argument = "weights", cpu_only = "" },
                incident = { frames = { { file = "m.py", source = "output = scc_cuda.forward(input, weights)[0]" } } } }
  local v = op_and_evidence(ctx)
  assert(v.op == "The op called at `scc_cuda.forward`" and v.what == "its `weights` tensor" and v.no_cpu_kernel == "no")
  assert(apex_frames(ctx) == false and cpu_run_possible(ctx) == false)
end

function test_apex_and_cpu_wording()
  local ctx = { captures = { cpu_only = "This operator is not implemented on CPU" },
                incident = { frames = { { file = "/x/apex/normalization/fused_layer_norm.py", source = "f(x)" } } } }
  assert(apex_frames(ctx))
  assert(cpu_run_possible(ctx))
  assert(op_and_evidence(ctx).no_cpu_kernel == "yes")
end
