-- Lua for numpy-abi-mismatch (rules/LUA_API.md, API version 1).
-- NumPy's C-API version numbers (numpy/_core/include/numpy/numpyconfig.h) name the releases a module was
-- built for and the release installed; the pair says which side is older.

local RELEASES = {
  [0x09] = "NumPy 1.9", [0x0a] = "NumPy 1.10-1.12", [0x0b] = "NumPy 1.13", [0x0c] = "NumPy 1.14-1.15",
  [0x0d] = "NumPy 1.16-1.19", [0x0e] = "NumPy 1.20-1.21", [0x0f] = "NumPy 1.22", [0x10] = "NumPy 1.23-1.24", [0x11] = "NumPy 1.25-1.26",
  [0x12] = "NumPy 2.0", [0x13] = "NumPy 2.1-2.2", [0x14] = "NumPy 2.3", [0x15] = "NumPy 2.4",
  -- ABI versions ('module compiled against ABI version ...'), NPY_ABI_VERSION of numpyconfig.h
  [0x1000009] = "NumPy 1.x", [0x2000000] = "NumPy 2.x",
}

local function hex(s)
  if not s or s == "" then return nil end
  return tonumber((s:gsub("^0[xX]", "")), 16)
end

local function release(n) return RELEASES[n] or "an unlisted release" end

-- values: {pair}, a sentence naming the two sides when the message gives them.
function numpy_releases(ctx)
  local c = ctx.captures
  -- NumPy prints this warning over several lines; the version is on the line after the first.
  local installed = (c.numpy and c.numpy ~= "") and c.numpy
                    or ((ctx.incident and ctx.incident.message or ""):match("cannot be run in%s+NumPy (%d+%.%d+%.%d+)"))
  if installed then
    return { pair = string.format(" Here a module built for NumPy 1.x met NumPy %s.", installed) }
  end
  -- Cython's struct-size check: the module's C header against the running NumPy, in bytes
  local header, runtime = tonumber(c.header or ""), tonumber(c.runtime or "")
  if header and runtime and header ~= runtime then
    local verdict = header > runtime
      and "the running NumPy is older than the one the module was built against"
      or "the running NumPy is newer than the one the module was built against"
    local pair = string.format(" Here the module's C header expects %d bytes and the running NumPy has %d: %s", header, runtime, verdict)
    if header == 96 and runtime == 88 and c.detail == "numpy.dtype size changed" then
      pair = pair .. " (a module built for NumPy 2 under NumPy 1.x)"
    end
    return { pair = pair .. "." }
  end
  local built, have = hex(c.built), hex(c.have)
  if built and have then
    local verdict
    if have < built then verdict = "NumPy is older than the build"
    elseif have > built then verdict = "NumPy is newer than the build"
    else verdict = "the versions agree, so a second NumPy is probably shadowing the one checked" end
    local kind = built >= 0x1000000 and "ABI" or "C-API"
    return { pair = string.format(" Here the module was built against %s %s (%s) but the installed NumPy provides %s (%s): %s.",
                                  kind, c.built, release(built), c.have, release(have), verdict) }
  end
  return { pair = "" }
end

function test_older_numpy()
  local p = numpy_releases({ captures = { built = "0x10", have = "0xf" } }).pair
  assert(p:find("(NumPy 1.23-1.24)", 1, true) and p:find("(NumPy 1.22): NumPy is older", 1, true), p)
end

function test_abi_numbers()
  local p = numpy_releases({ captures = { built = "0x1000009", have = "0x2000000" } }).pair
  assert(p:find("ABI 0x1000009 (NumPy 1.x)", 1, true) and p:find("(NumPy 2.x): NumPy is newer", 1, true), p)
end

function test_pre_1_20()
  local p = numpy_releases({ captures = { built = "0xe", have = "0xd" } }).pair
  assert(p:find("(NumPy 1.16-1.19): NumPy is older", 1, true), p)
end

function test_numpy2()
  local p = numpy_releases({ captures = { built = "0x10", have = "0x12" } }).pair
  assert(p:find("(NumPy 2.0): NumPy is newer", 1, true), p)
  assert(numpy_releases({ captures = { numpy = "2.0.2" } }).pair == " Here a module built for NumPy 1.x met NumPy 2.0.2.")
  assert(numpy_releases({ captures = { detail = "Numpy is not available" } }).pair == "")
  local two_lines = { captures = {}, incident = { message = "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash." } }
  assert(numpy_releases(two_lines).pair == " Here a module built for NumPy 1.x met NumPy 2.0.0.")
end

function test_struct_sizes()
  local p = numpy_releases({ captures = { detail = "numpy.dtype size changed", header = "96", runtime = "88" } }).pair
  assert(p == " Here the module's C header expects 96 bytes and the running NumPy has 88: the running NumPy is older than the one the module was built against (a module built for NumPy 2 under NumPy 1.x).", p)
  p = numpy_releases({ captures = { detail = "numpy.ndarray size changed", header = "16", runtime = "96" } }).pair
  assert(p:find("is newer than", 1, true) and not p:find("NumPy 2 under", 1, true), p)
end
