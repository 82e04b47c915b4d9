-- Lua for inductor-backend-failed (rules/LUA_API.md, API version 1).
-- Names the backend, and, when Inductor's LoweringException is in the log (torch/_inductor/exc.py:
-- "<inner type>: <inner message>" then an indented "target: aten.op" line), the operator it could not
-- lower and why: the part of the graph to exclude or report.

-- The operator and inner error of a LoweringException incident, or nil.
local function lowering_of(inc)
  if (inc.exception or ""):find("LoweringException", 1, true) then
    local msg = inc.message or ""
    local target = msg:match("\n%s*target: ([%w_%.]+)")
    local inner = msg:match("^([^\n]*)")
    if target then return target, ((inner or ""):gsub("%s+$", "")) end
  end
  return nil
end

-- The first of the input's incidents that names one. Read once per input (triage.per_input): every
-- matching incident's call gets the same ctx.incidents (rules/LUA_API.md "Reading every incident").
local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function lowering_in(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    local target, inner = lowering_of(inc)
    if target then return target, inner end
  end
  return nil
end

-- The operator and inner error of the first LoweringException among the incidents (its own message
-- when the incident is one, else any incident typed LoweringException).
local function lowering(ctx)
  if ctx.incident then
    local target, inner = lowering_of(ctx.incident)
    if target then return target, inner end
  end
  return triage.per_input(ctx, lowering_in)
end

-- values: {backend} (inductor unless the message names another) and {lowering}, a sentence on the
-- operator Inductor failed to lower (empty when the log does not show it).
function backend_values(ctx)
  local named = ctx.captures.named or ""
  local backend = (named == "" or named == "InductorError") and "inductor" or named
  -- PyTorch 2.0 names the debug wrapper around the backend, not the backend
  if named == "debug_wrapper" then backend = "torch.compile" end
  local target, inner = lowering(ctx)
  if not target and (ctx.captures.target or "") ~= "" then
    -- the lowering context printed under the inner error itself (pattern 4): name that error
    local first = ((ctx.incident and ctx.incident.message) or ""):match("^([^\n]*)") or ""
    local kind = (ctx.incident and ctx.incident.exception) or ""
    target, inner = ctx.captures.target, (kind ~= "" and (kind .. ": ") or "") .. first:gsub("%s+$", "")
  end
  if not target then return { backend = backend, lowering = "" } end
  return { backend = backend,
           lowering = string.format(" Here Inductor could not lower the operator %s: %s.", target, inner) }
end

function test_lowering_from_another_incident()
  local lower = { exception = "LoweringException", message = "AssertionError: should have been handled in replace_random.py\n  target: aten.randn.generator\n  args[0]: [1, 4, 96, 96]" }
  local ctx = { captures = { named = "inductor" }, incident = { exception = "", message = "backend='inductor' raised:" }, incidents = { lower } }
  local v = backend_values(ctx)
  assert(v.backend == "inductor")
  assert(v.lowering == " Here Inductor could not lower the operator aten.randn.generator: AssertionError: should have been handled in replace_random.py.", v.lowering)
end

function test_incidents_read_once()
  local lower = { exception = "LoweringException", message = "AssertionError: x\n  target: aten.randn.generator" }
  local wrapper = { exception = "", message = "backend='inductor' raised:" }
  local incidents = { wrapper, lower, wrapper, wrapper }
  local before = scans
  for _ = 1, 3 do
    local v = backend_values({ captures = { named = "inductor" }, incident = wrapper, incidents = incidents })
    assert(v.lowering:find("aten.randn.generator", 1, true), v.lowering)
  end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_no_lowering()
  local v = backend_values({ captures = { named = "aot_eager" }, incident = { exception = "", message = "x" }, incidents = {} })
  assert(v.backend == "aot_eager" and v.lowering == "")
end

function test_lowering_under_the_inner_error()
  local ctx = { captures = { target = "aten._unsafe_view.default" },
                incident = { exception = "AssertionError", message = "(-20736, -20736)\n  target: aten._unsafe_view.default\n  args[0]: TensorBox(" },
                incidents = {} }
  local v = backend_values(ctx)
  assert(v.backend == "inductor")
  assert(v.lowering == " Here Inductor could not lower the operator aten._unsafe_view.default: AssertionError: (-20736, -20736).", v.lowering)
end

-- score: false for the last pattern unless the incident is an InductorError or a LoweringException (see the
-- YAML); demoted when
-- the input also shows the environment failing under the backend: Triton's helper could not link or
-- find the driver library (printed as separate lines before the traceback, so no rule reads it inside
-- this incident). That line's own diagnosis (env.cuda_library) then comes first.
local SETUP_LINES = { "cannot find -lcuda", "libcuda.so cannot found" }

-- the first setup line among the input's incidents, read once per input (triage.per_input,
-- rules/LUA_API.md "Reading every incident")
local setup_scans = 0  -- how often the incidents were read for it (test_setup_lines_read_once)

local function setup_failure(incidents)
  setup_scans = setup_scans + 1
  return triage.message_literal(incidents, SETUP_LINES)
end

-- The compiler's own output under a CppCompileError's "Output:" (a line of its own, so an incident of its
-- own) naming the toolchain: OpenMP missing (Apple clang, 2.0-2.x, and 2.1+'s appended hint) or the Python
-- headers missing. inductor-toolchain-missing reads those lines and comes first.
local TOOLCHAIN_LINES = { "'omp.h' file not found", "omp.h: No such file or directory", "OpenMP support not found",
                          "Try setting OMP_PREFIX", "Python.h: No such file or directory" }

local function toolchain_failure(incidents)
  return triage.message_literal(incidents, TOOLCHAIN_LINES)
end

function backend_score(ctx)
  local c = ctx.captures
  local exc = (ctx.incident and ctx.incident.exception) or ""
  -- Inductor's own exception types stand for the backend by themselves: InductorError (2.7+), a bare
  -- LoweringException line pasted without the traceback or the BackendCompilerFailed line above it, and
  -- 2.0-2.6's CppCompileError / CUDACompileError raised by themselves (the C++ build of generated code)
  if (c.named or "") == "" and (c.target or "") == "" and not exc:find("InductorError", 1, true)
     and not exc:find("LoweringException", 1, true) and not exc:find("CppCompileError", 1, true)
     and not exc:find("CUDACompileError", 1, true) then return false end
  local inner = c.inner or ""
  if inner:find("^CalledProcessError") and (inner:find("cuda_utils.c", 1, true) or inner:find("main.c'", 1, true)) then
    -- the inner error is Triton's launcher build itself (its C helper compiled with -lcuda against Python.h):
    -- an environment failure that the compiler, Python-header and libcuda rules read
    return { confidence = ctx.confidence * 0.5,
             note = " The inner error is Triton's C launcher failing to build, a set-up problem (compiler, Python headers or libcuda) rather than a backend bug, so that reading comes first." }
  end
  local setup = triage.per_input(ctx, setup_failure)
  if setup then
    return { confidence = ctx.confidence * 0.5,
             note = string.format(" The log also shows \"%s\" before this error: the backend failed because Triton could not use the driver library, so that comes first.", setup) }
  end
  local toolchain = triage.per_input(ctx, toolchain_failure)
  if not toolchain then return nil end
  return { confidence = ctx.confidence * 0.5,
           note = string.format(" The compiler's output says \"%s\": the C++ toolchain is incomplete, not the backend, so that reading comes first.", toolchain) }
end

function test_demoted_after_libcuda_line()
  local incidents = { { message = "/usr/bin/ld: cannot find -lcuda" }, { message = "backend='inductor' raised:" } }
  local r = backend_score({ captures = { named = "inductor" }, incident = incidents[2], incidents = incidents, confidence = 0.9 })
  assert(type(r) == "table" and r.confidence == 0.45 and r.note:find("-lcuda", 1, true))
  assert(backend_score({ captures = { named = "inductor" }, incident = incidents[2], incidents = { incidents[2] }, confidence = 0.9 }) == nil)
  assert(backend_score({ captures = { inner = "KeyError: x" }, incident = { exception = "KeyError" }, incidents = {}, confidence = 0.9 }) == false)
end

function test_bare_lowering_exception_counts()
  local inc = { exception = "torch._inductor.exc.LoweringException", message = "AssertionError: should have been handled in replace_random.py" }
  assert(backend_score({ captures = { inner = inc.message }, incident = inc, incidents = { inc }, confidence = 0.9 }) == nil)
  -- any other error's own line is still not read as a backend failure
  local other = { exception = "AssertionError", message = "AssertionError: x" }
  assert(backend_score({ captures = { inner = other.message }, incident = other, incidents = { other }, confidence = 0.9 }) == false)
end

function test_demoted_for_launcher_build()
  local inc = { exception = "InductorError", message = "CalledProcessError: Command '['/usr/bin/gcc', '/tmp/t/cuda_utils.c', '-lcuda']' returned non-zero exit status 1." }
  local r = backend_score({ captures = { named = "InductorError", inner = inc.message }, incident = inc, incidents = { inc }, confidence = 0.9 })
  assert(type(r) == "table" and r.confidence == 0.45 and r.note:find("launcher", 1, true))
end

function test_setup_lines_read_once()
  local ld = { message = "/usr/bin/ld: cannot find -lcuda" }
  local wrapper = { exception = "", message = "backend='inductor' raised:" }
  local incidents = { ld, wrapper, wrapper }
  local before = setup_scans
  for _ = 1, 3 do
    local r = backend_score({ captures = { named = "inductor" }, incident = wrapper, incidents = incidents, confidence = 0.9 })
    assert(type(r) == "table" and r.confidence == 0.45)
  end
  assert(setup_scans == before + 1, "read once per input, not per call: " .. (setup_scans - before))
end

function test_cpp_compile_error_alone_kept()
  local inc = { exception = "torch._inductor.exc.CppCompileError", message = "C++ compile error" }
  assert(backend_score({ captures = { inner = "C++ compile error" }, incident = inc, incidents = { inc }, confidence = 0.9 }) == nil)
  local other = { exception = "RuntimeError", message = "C++ compile error" }
  assert(backend_score({ captures = { inner = "C++ compile error" }, incident = other, incidents = { other }, confidence = 0.9 }) == false)
end

function test_demoted_for_missing_openmp()
  local inc = { exception = "torch._inductor.exc.CppCompileError", message = "C++ compile error" }
  local out = { exception = "", message = "/tmp/t/cab.cpp:2:10: fatal error: 'omp.h' file not found" }
  local r = backend_score({ captures = { inner = "C++ compile error" }, incident = inc, incidents = { inc, out }, confidence = 0.9 })
  assert(type(r) == "table" and r.confidence == 0.45 and r.note:find("omp.h", 1, true), "not demoted")
end
