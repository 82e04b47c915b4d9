-- Lua for torch-not-installed (rules/LUA_API.md, API version 1).
-- Tells a failed import in the program from one inside a package's isolated build (pip's build
-- isolation, uv's build environment), where torch is missing by construction.

-- What the input shows of an isolated build: whether a frame or message comes from one (pip's temporary
-- build environment, the PEP 517 hook runner, uv's hint naming a missing build dependency), and the
-- package uv's hint names. Read once per input.
local scans = 0  -- how often the incidents were read (test_isolation_read_once)

local function isolated_build(incidents)
  scans = scans + 1
  local isolated, package = false, nil
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    if m:find("build dependency", 1, true) or m:find("--no-build-isolation", 1, true) then isolated = true end
    package = package or m:match("indicates that `([%w%.%-_]+)@")
    for _, f in ipairs(inc.frames or {}) do
      local file = f.file or ""
      if file:find("pip-build-env", 1, true) or file:find("pyproject_hooks", 1, true) or file:find("_in_process.py", 1, true) then
        isolated = true
      end
    end
  end
  return isolated, package
end

-- when (build-isolation): the input shows the import failed inside an isolated build.
function in_isolated_build(ctx)
  local isolated = triage.per_input(ctx, isolated_build)
  return isolated
end

-- values: {pkg}, the package being built when uv's hint names it, else words that read in its place.
function package_name(ctx)
  local p = ctx.captures.package
  if not p or p == "" then
    local _, hinted = triage.per_input(ctx, isolated_build)
    p = hinted
  end
  return { pkg = (p and p ~= "") and p or "the package" }
end

function test_isolated_build_from_frames()
  local inc = { message = "No module named 'torch'", frames = { { file = "/tmp/pip-build-env-gwmgwy1l/overlay/lib/python3.12/site-packages/setuptools/build_meta.py" } } }
  assert(in_isolated_build({ incidents = { inc } }) == true)
  assert(in_isolated_build({ incidents = { { message = "No module named 'torch'", frames = { { file = "train.py" } } } } }) == false)
end

function test_package_name()
  assert(package_name({ captures = { package = "flash-attn" } }).pkg == "flash-attn")
  assert(package_name({ captures = {} }).pkg == "the package")
  local hint = { message = "hint: This error likely indicates that `flash-attn@2.8.1` depends on `torch`, but doesn't declare it as a build dependency." }
  assert(package_name({ captures = {}, incidents = { { message = "No module named 'torch'" }, hint } }).pkg == "flash-attn")
end

function test_isolation_read_once()
  local incs = { { message = "No module named 'torch'", frames = { { file = "/tmp/pip-build-env-x/overlay/setup.py" } } } }
  local before = scans
  for _ = 1, 3 do
    assert(in_isolated_build({ captures = {}, incidents = incs }) == true)
    assert(package_name({ captures = {}, incidents = incs }).pkg == "the package")
  end
  assert(scans == before + 1, "the when and the values share one read per input: " .. (scans - before))
end
