-- Lua for triton-libcuda-not-found (rules/LUA_API.md, API version 1).
-- The linker's and Triton's own lines say libcuda.so was not found; the failed build command alone
-- (the helper pattern) does not say why the compiler failed. libcuda is the usual reason on Linux, but
-- when the input also shows the compiler missing Python.h, that is the cause and this reading yields.

-- Whether any incident of the input shows the Python headers missing (read once per input).
local header_scans = 0  -- how often the incidents were read (test_headers_scanned_once)

local function headers_missing(incidents)
  header_scans = header_scans + 1
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    if m:find("Python.h", 1, true) and (m:find("No such file", 1, true) or m:find("not found", 1, true)) then
      return true
    end
  end
  return false
end

-- score: unchanged for the explicit lines; for the command alone, somewhat less sure, and demoted
-- under the abstention threshold's reach when the headers are what the compiler missed.
function helper_score(ctx)
  if (ctx.captures.helper or "") == "" then return nil end
  if triage.per_input(ctx, headers_missing) then
    return { confidence = ctx.confidence * 0.4,
             note = " The compiler's own error in this log is the missing Python.h, not libcuda." }
  end
  return ctx.confidence * 0.8
end

function test_explicit_line_unchanged()
  assert(helper_score({ captures = {}, confidence = 0.9 }) == nil)
end

function test_command_alone()
  local v = helper_score({ captures = { helper = "cuda_utils" }, confidence = 0.9, incidents = {} })
  assert(math.abs(v - 0.72) < 1e-9, v)
end

function test_headers_missing_demotes()
  local incs = { { message = "/tmp/x/cuda_utils.c:5:10: fatal error: Python.h: No such file or directory" } }
  local v = helper_score({ captures = { helper = "cuda_utils" }, confidence = 0.9, incidents = incs })
  assert(type(v) == "table" and v.confidence < 0.4 and v.note:find("Python.h", 1, true))
end

function test_headers_scanned_once()
  local incs = { { message = "CalledProcessError: Command '['/usr/bin/gcc', '/tmp/t/cuda_utils.c', '-lcuda']'" } }
  local before = header_scans
  for _ = 1, 4 do assert(helper_score({ captures = { helper = "cuda_utils" }, confidence = 1.0, incidents = incs }) == 0.8) end
  assert(header_scans == before + 1, "one scan per input, whatever the number of calls: " .. (header_scans - before))
end
