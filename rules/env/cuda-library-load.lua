-- Lua for cuda-library-load (rules/LUA_API.md, API version 1).
-- For the cuDNN version check, compares the build and run-time versions; for an undefined symbol or a
-- missing dependency, says which library failed for which reason.

local function version(s)
  local a, b, c = (s or ""):match("(%d+), (%d+), (%d+)")
  if not a then return nil end
  return { tonumber(a), tonumber(b), tonumber(c) }
end

local function compare(x, y)
  for i = 1, 3 do
    if x[i] ~= y[i] then return x[i] < y[i] and -1 or 1 end
  end
  return 0
end

-- values: {lib} (the captured {library}, or what the message is about) and {story}, a sentence on what the numbers say.
function library_story(ctx)
  local c = ctx.captures
  local built, found = version(c.built), version(c.found)
  if built and found then
    local b = table.concat(built, "."); local f = table.concat(found, ".")
    local cmp = compare(found, built)
    local story
    if cmp < 0 then
      story = string.format(" PyTorch was built with cuDNN %s but found %s at run time: an older cuDNN earlier on the library "
                            .. "path (LD_LIBRARY_PATH, a system or conda copy) shadows the bundled one.", b, f)
    elseif built[1] ~= found[1] then
      story = string.format(" PyTorch was built with cuDNN %s but found %s at run time: a different major version, which "
                            .. "is not compatible.", b, f)
    else
      story = string.format(" PyTorch was built with cuDNN %s and found %s at run time.", b, f)
    end
    return { lib = "cuDNN", story = story }
  end
  if c.built_code and c.built_code ~= "" and c.found_code and c.found_code ~= "" then
    -- 0.4's check prints cudnnGetVersion() numbers (7003 = 7.0.3, 7301 = 7.3.1)
    return { lib = "cuDNN", story = string.format(" PyTorch was built with cuDNN %s but loaded %s at run time: another cuDNN "
                                    .. "(LD_LIBRARY_PATH, a system or conda copy) shadows the one the build expects.",
                                    c.built_code, c.found_code) }
  end
  if c.cudnn_status and c.cudnn_status ~= "" then
    -- cuDNN 8 and 9 are split into sub-libraries (ops, cnn, adv; in 9 graph, engines_*, heuristic) that
    -- check each other's version when loaded; these statuses say two releases were mixed or one was missing
    local what = c.cudnn_status:find("LOADING_FAILED", 1, true)
                 and "could not load one of its sub-libraries"
                 or "found sub-libraries of another release than the one loaded first"
    return { lib = "cuDNN", story = string.format(" cuDNN answered %s: it %s (libcudnn_ops/_cnn/_graph/_engines_*, "
             .. "cudnn_*64_9.dll on Windows). Two cuDNN copies are mixed (a system or conda cuDNN, LD_LIBRARY_PATH or "
             .. "PATH, a second nvidia-cudnn wheel) or the installed one is incomplete.", c.cudnn_status, what) }
  end
  if (c.preload_glob and c.preload_glob ~= "") or (c.preload_var and c.preload_var ~= "") then
    -- torch's own search for the nvidia-* wheels' libraries (torch/__init__.py _preload_cuda_deps, 1.13.1 and 2.x),
    -- run only after the loader failed to open them the ordinary way
    local lib = (c.preload_glob and c.preload_glob ~= "") and c.preload_glob or "libcublas.so"
    return { lib = lib, story = string.format(" torch then looked for %s in the nvidia/ folder of every sys.path entry, "
             .. "where the nvidia-* pip packages that a CUDA build of torch depends on put it, and found none.", lib) }
  end
  if c.driver_library and c.driver_library ~= "" then
    return { lib = c.driver_library, story = string.format(" %s is the NVIDIA driver's own library: it comes with the driver, "
             .. "not with CUDA or a wheel, so no driver is visible here.", c.driver_library) }
  end
  if c.handle_symbol and c.handle_symbol ~= "" then
    -- cuDNN 9's front library opens its sub-libraries (cudnn_ops, cudnn_cnn, ...) on first use and prints
    -- this when the one holding the function could not be opened
    return { lib = "cuDNN", story = string.format(" cuDNN 9 looks up %s in a sub-library (libcudnn_ops / libcudnn_cnn, "
             .. "cudnn_ops64_9.dll / cudnn_cnn64_9.dll) that it could not open: that cuDNN is not installed for the package "
             .. "that needs it, or not on the library path.", c.handle_symbol) }
  end
  local lib = (c.library and c.library ~= "") and c.library or "a CUDA library"
  if (not c.library or c.library == "") and c.symbol and c.symbol:match("^nccl") then
    -- torch asks NCCL for a function the loaded libnccl lacks: NCCL's symbols carry no version, so the
    -- message names no library
    return { lib = "NCCL (libnccl.so.2)", story = string.format(" PyTorch's CUDA library asks NCCL for %s, and the "
             .. "libnccl.so.2 that was loaded lacks it: an older NCCL than the one this PyTorch was built with (a second "
             .. "nvidia-nccl-cu* wheel, or a system or conda NCCL earlier on LD_LIBRARY_PATH) is found first.", c.symbol) }
  end
  if c.symbol and c.symbol ~= "" then
    return { lib = lib, story = string.format(" It was loaded but lacks the symbol %s, so it comes from another release than the "
                                   .. "library that asks for it: two copies of the CUDA libraries are mixed.", c.symbol) }
  end
  if c.code and c.code ~= "" then
    -- Windows system error codes of LoadLibrary, as cuDNN 8's loader prints them
    local why = ({ ["126"] = "Windows could not find it or a DLL it depends on (cuDNN 8.3 and later need zlibwapi.dll on the PATH)",
                   ["193"] = "the file found is not a valid 64-bit DLL (a 32-bit or damaged copy earlier on the PATH)",
                   ["127"] = "a DLL it depends on lacks a function it needs (DLLs of two CUDA or cuDNN releases mixed on the PATH)" })[c.code]
    return { lib = lib, story = string.format(" Windows error %s: %s.", c.code, why or "see the Windows system error codes") }
  end
  if c.reason and c.reason ~= "" then
    return { lib = lib, story = string.format(" Loading it failed because of a dependency: %s", c.reason) }
  end
  return { lib = lib, story = "" }
end

function test_windows_code()
  assert(library_story({ captures = { library = "cudnn_cnn_infer64_8.dll", code = "126" } }).story:find("zlibwapi.dll", 1, true))
  assert(library_story({ captures = { library = "cudnn_cnn_infer64_8.dll", code = "5" } }).story:find("error 5", 1, true))
end

function test_older_runtime()
  local v = library_story({ captures = { built = "8, 5, 0", found = "8, 3, 3" } })
  assert(v.lib == "cuDNN" and v.story:find("built with cuDNN 8.5.0 but found 8.3.3", 1, true) and v.story:find("older", 1, true))
end

function test_major_change()
  assert(library_story({ captures = { built = "8, 9, 2", found = "9, 1, 0" } }).story:find("major version", 1, true))
end

function test_nccl_symbol()
  local v = library_story({ captures = { symbol = "ncclCommRegister" } })
  assert(v.lib == "NCCL (libnccl.so.2)" and v.story:find("asks NCCL for ncclCommRegister", 1, true))
end

function test_symbol_and_reason()
  assert(library_story({ captures = { library = "libcublas.so.11", symbol = "cublasLtGetStatusString" } }).story:find("two copies", 1, true))
  assert(library_story({ captures = { library = "libcudnn_cnn_infer.so.8", reason = "libnvrtc.so: cannot open shared object file" } })
         .story == " Loading it failed because of a dependency: libnvrtc.so: cannot open shared object file")
end

function test_cudnn9_handle_symbol()
  local v = library_story({ captures = { handle_symbol = "cudnnCreateConvolutionDescriptor" } })
  assert(v.lib == "cuDNN" and v.story:find("looks up cudnnCreateConvolutionDescriptor in a sub-library", 1, true))
end

function test_driver_library()
  local v = library_story({ captures = { driver_library = "libcuda.so.1" } })
  assert(v.lib == "libcuda.so.1" and v.story:find("NVIDIA driver's own library", 1, true))
end

function test_preload_search()
  local v = library_story({ captures = { preload_glob = "libcublas.so.*[0-9]" } })
  assert(v.lib == "libcublas.so.*[0-9]" and v.story:find("nvidia-* pip packages", 1, true))
  assert(library_story({ captures = { preload_var = "cublas_path" } }).lib == "libcublas.so")
end
