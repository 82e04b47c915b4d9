-- Lua for torch-linked-library-mismatch (rules/LUA_API.md, API version 1).
-- Note: [Found but mismatched] in the YAML. The macOS patterns keep to torch's own images; `score` keeps a
-- Linux line to torch's own import: a traceback must pass through torch/__init__.py (another package can
-- load MKL too), and a line pasted alone counts, at a lower confidence, only for a library torch's core links.
local CORE = { "^libmkl_", "^libgomp%.", "^libiomp5%.", "^libomp%.", "^libnuma%." }

function linked_library_shown(ctx)
  if (ctx.captures.image or "") ~= "" then return nil end
  local frames = (ctx.incident and ctx.incident.frames) or {}
  for _, f in ipairs(frames) do
    local file = (f.file or ""):gsub("\\", "/")
    if file:find("/torch/__init__%.pyc?$") or (f.source or ""):find("from torch._C import", 1, true) then return nil end
  end
  if #frames > 0 then return false end
  local lib = ctx.captures.lib or ""
  for _, p in ipairs(CORE) do
    if lib:find(p) then return 0.6 end
  end
  return false
end

function test_linux_needs_torch_in_the_frames_or_a_core_library_alone()
  local torch_init = { file = "/env/lib/python3.6/site-packages/torch/__init__.py", source = "from torch._C import *" }
  local numpy = { file = "/env/lib/python3.6/site-packages/numpy/core/__init__.py", source = "from . import multiarray" }
  assert(linked_library_shown({ captures = { lib = "libmkl_gf_lp64.so", sym = "x" }, incident = { frames = {} } }) == 0.6)
  assert(linked_library_shown({ captures = { lib = "libfoo.so.3", sym = "x" }, incident = { frames = {} } }) == false)
  assert(linked_library_shown({ captures = { lib = "libfoo.so.3", sym = "x" }, incident = { frames = { torch_init } } }) == nil)
  assert(linked_library_shown({ captures = { lib = "libmkl_gf_lp64.so", sym = "x" }, incident = { frames = { numpy } } }) == false)
  assert(linked_library_shown({ captures = { image = "/a/torch/_C.so", sym = "_x" }, incident = { frames = {} } }) == nil)
end
