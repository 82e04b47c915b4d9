-- Lua for torch-native-library-load (rules/LUA_API.md, API version 1).
-- Note: [Native libraries of torch outside Windows] in the YAML. `score` keeps the Linux wordings to torch's own
-- import; `native_story` names what failed ({what}, {lib}) and what the loader said ({story}).

-- CUDA's libraries belong to cuda-library-load (env.cuda_library), whoever asked for them
local function is_cuda_library(name)
  local base = (name or ""):match("([^/]+)$") or ""
  return base:find("^libcu") ~= nil or base:find("^libnv") ~= nil or base:find("^libnccl") ~= nil
      or base:find("^libcudnn") ~= nil
end

-- torch's own libraries: asked for by an extension, they are extension-missing-torch-library's
local function is_torch_library(name)
  local base = (name or ""):match("([^/]+)$") or ""
  return base:find("^libtorch[%._]") ~= nil or base:find("^libc10[%._]") ~= nil
      or base:find("^libshm[%.]") ~= nil or base:find("^libcaffe2[%._]") ~= nil
end

-- the system libraries torch's core links (OpenMP runtimes, MKL, NUMA): the only ones a bare line counts for,
-- because another package's bare ImportError looks the same
local function is_core_dependency(name)
  local base = (name or ""):match("([^/]+)$") or ""
  return base:find("^libgomp[%.]") ~= nil or base:find("^libiomp5[%.]") ~= nil or base:find("^libomp[%.]") ~= nil
      or base:find("^libmkl_") ~= nil or base:find("^libnuma[%.]") ~= nil
end

-- torch importing itself: a frame of torch/__init__.py (any release; IPython prints .pyc for Python 2),
-- or torch's `from torch._C import *` / `_load_global_deps()` as a frame's source
local function torch_import_frame(frames)
  for _, f in ipairs(frames or {}) do
    local file = (f.file or ""):gsub("\\", "/")
    local src = f.source or ""
    if file:find("/torch/__init__%.pyc?$") or file:find("^torch/__init__%.pyc?$")
        or src:find("from torch._C import", 1, true) or src:find("_load_global_deps()", 1, true) then
      return true
    end
  end
  return false
end

function torch_import_shown(ctx)
  local c = ctx.captures
  if is_cuda_library(c.lib) then return false end
  -- macOS: dyld named torch's own image (the pattern requires it); a library found but too old is a mismatch
  if (c.image or "") ~= "" then
    if (c.reason or ""):find("Incompatible library version", 1, true) then return false end
    return nil
  end
  local frames = (ctx.incident and ctx.incident.frames) or {}
  if torch_import_frame(frames) then return nil end
  if #frames > 0 then return false end
  if is_torch_library(c.lib) then return false end
  -- the line alone: a library of torch's core is likely, not certain
  if is_core_dependency(c.lib) then return 0.6 end
  return false
end

function native_story(ctx)
  local c = ctx.captures
  local lib = (c.lib or ""):match("([^/]+)$") or (c.lib or "")
  if (c.image or "") ~= "" then
    local what = c.image:match("([^/]+)$") or c.image
    local reason = (c.reason or ""):gsub("%s+$", "")
    -- dyld names the library that asked for it ("Referenced from:"), which may be one of torch/lib's
    local ref = ((c.ref or ""):gsub("%s+$", "")):match("([^/]+)$") or ""
    local asker = (ref ~= "" and ref ~= what) and (ref .. " (loaded with " .. what .. ")") or what
    return { what = what, lib = lib,
             story = "dyld could not find " .. lib .. ", which " .. asker .. " links" .. (reason ~= "" and (" (" .. reason .. ")") or "") .. "." }
  end
  return { what = "torch's extension module and the libraries it links", lib = lib,
           story = "the loader could not find " .. lib .. " in any directory it searches." }
end

function test_bare_lines_count_only_for_core_dependencies()
  assert(torch_import_shown({ captures = { lib = "libiomp5.so" }, incident = { frames = {} } }) == 0.6)
  assert(torch_import_shown({ captures = { lib = "libGL.so.1" }, incident = { frames = {} } }) == false)
  assert(torch_import_shown({ captures = { lib = "libc10.so" }, incident = { frames = {} } }) == false)
  assert(torch_import_shown({ captures = { lib = "libcudart.so.11.0" }, incident = { frames = {} } }) == false)
end

function test_frames_decide()
  local torch_init = { file = "/opt/conda/lib/python3.8/site-packages/torch/__init__.py", func = "<module>", source = "from torch._C import *" }
  local cv2 = { file = "/usr/lib/python3/dist-packages/cv2/__init__.py", func = "<module>", source = "from .cv2 import *" }
  assert(torch_import_shown({ captures = { lib = "libnuma.so.1" }, incident = { frames = { torch_init } } }) == nil)
  assert(torch_import_shown({ captures = { lib = "libGL.so.1" }, incident = { frames = { cv2 } } }) == false)
  assert(torch_import_shown({ captures = { lib = "libcurand.so.10" }, incident = { frames = { torch_init } } }) == false)
  local pyc = { file = "/home/u/pytorch/torch/__init__.pyc", func = "<module>" }
  assert(torch_import_shown({ captures = { lib = "libmkl_intel_lp64.so" }, incident = { frames = { pyc } } }) == nil)
end

function test_stories()
  local v = native_story({ captures = { image = "/a/torch/_C.cpython-38-darwin.so", lib = "@rpath/libc++.1.dylib", reason = "image not found" } })
  assert(v.what == "_C.cpython-38-darwin.so" and v.lib == "libc++.1.dylib")
  assert(v.story:find("could not find libc++.1.dylib, which _C.cpython-38-darwin.so links", 1, true))
  v = native_story({ captures = { image = "/a/torch/_C.cpython-36m-darwin.so", lib = "/usr/local/opt/libomp/lib/libomp.dylib",
                                  ref = "/a/torch/lib/libshm.dylib", reason = "image not found" } })
  assert(v.story:find("which libshm.dylib (loaded with _C.cpython-36m-darwin.so) links", 1, true))
  v = native_story({ captures = { lib = "libnuma.so.1" } })
  assert(v.story:find("could not find libnuma.so.1", 1, true))
  local old = { image = "/a/torch/_C.cpython-36m-darwin.so", lib = "@rpath/libATen.dylib", reason = "Incompatible library version: x" }
  assert(torch_import_shown({ captures = old, incident = { frames = {} } }) == false)
end
