-- Lua for torch-not-compiled-with-cuda (rules/LUA_API.md, API version 1).
-- "Torch not compiled with CUDA enabled" has two readings: a GPU machine with the CPU wheel installed,
-- or a machine that can never run CUDA (a Mac, a laptop whose only GPU is Intel's or AMD's integrated
-- one), where installing another wheel cannot help and the code has to fall back to what is there.
-- The input says which when its paths are macOS's or its lines name a GPU that is not NVIDIA's.

local MAC_PATHS = { "^/Users/", "^/opt/homebrew/", "/Library/Frameworks/Python%.framework/", "^/Applications/" }
local NO_NVIDIA = {
  { "Intel%(R%) Iris", "an Intel Iris GPU" }, { "Intel%(R%) UHD Graphics", "an Intel UHD GPU" },
  { "Apple M%d", "an Apple silicon chip" }, { "'nvidia%-smi' is not recognized", "no nvidia-smi" },
  { "nvidia%-smi: command not found", "no nvidia-smi" }, { "darwin", "macOS" }, { "macOS", "macOS" },
}

local scans = 0  -- how often the incidents were read (test_incidents_read_once)

-- What the input shows of a machine without CUDA hardware, or nil (run once per input, triage.per_input).
local function no_cuda_hardware(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents or {}) do
    for _, f in ipairs(inc.frames or {}) do
      for _, p in ipairs(MAC_PATHS) do
        if (f.file or ""):find(p) then return "paths of a Mac (" .. f.file:match("^[^/]*/[^/]*/") .. "...)" end
      end
    end
    local text = (inc.message or "") .. "\n" .. table.concat(inc.context or {}, "\n")
    for _, pair in ipairs(NO_NVIDIA) do
      if text:find(pair[1]) then return pair[2] end
    end
  end
  return nil
end

-- when (no-cuda-hardware): the input shows a machine that has no CUDA GPU.
function no_cuda_machine(ctx)
  local reason = triage.per_input(ctx, no_cuda_hardware)
  if not reason then return false end
  return "the input shows " .. reason .. ": no CUDA GPU to install a CUDA build for"
end

-- when (cpu-only-wheel): a CUDA build can only help where the machine may have an NVIDIA GPU.
function may_have_cuda(ctx)
  return triage.per_input(ctx, no_cuda_hardware) == nil
end

function test_mac_paths()
  local incs = { { frames = { { file = "/Users/prashantsoni/pinokio/api/wan2gp.git/app/wgp.py" } }, message = "Torch not compiled with CUDA enabled" } }
  assert(no_cuda_machine({ incidents = incs }):find("Mac", 1, true))
  assert(may_have_cuda({ incidents = incs }) == false)
end

function test_linux_paths()
  local incs = { { frames = { { file = "/home/u/train.py" } }, message = "Torch not compiled with CUDA enabled" } }
  assert(no_cuda_machine({ incidents = incs }) == false)
  assert(may_have_cuda({ incidents = incs }) == true)
end

function test_incidents_read_once()
  local incs = { { frames = { { file = "/home/u/train.py" } }, message = "Torch not compiled with CUDA enabled" } }
  local ctx = { incidents = incs }
  local before = scans
  no_cuda_machine(ctx)
  may_have_cuda(ctx)
  no_cuda_machine(ctx)
  assert(scans == before + 1)
end
