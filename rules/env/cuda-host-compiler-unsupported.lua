-- Lua for rule cuda-host-compiler-unsupported (rules/LUA_API.md, API version 1).
-- One sentence for {reason} from whichever wording matched: torch's check names the compiler, its version
-- and the CUDA version; nvcc's names only the bound it enforces.

function reason(ctx)
  local c = ctx.captures or {}
  if c.version and c.version ~= "" then
    local side = (c.direction == "less") and "older than the oldest" or "newer than the newest"
    return { reason = (c.compiler or "the compiler") .. " " .. c.version .. " is " .. side ..
                      " version CUDA " .. (c.cuda or "?") .. " accepts" }
  end
  if c.bound and c.bound ~= "" then
    return { reason = "nvcc: " .. c.bound }
  end
  return { reason = "the compiler's version is not supported" }
end

local function msvc(ctx)
  local check = (ctx.captures or {}).nvcc_check or ""
  return check:find("Microsoft Visual Studio", 1, true) ~= nil
end

function is_msvc(ctx)
  if msvc(ctx) then return "nvcc's check names Microsoft Visual Studio" end
  return false
end

function is_not_msvc(ctx)
  return not msvc(ctx)
end

function test_msvc_split()
  local ctx = { captures = { nvcc_check = "unsupported Microsoft Visual Studio version" } }
  assert(is_msvc(ctx) and not is_not_msvc(ctx))
  local gnu = { captures = { nvcc_check = "unsupported GNU version" } }
  assert(not is_msvc(gnu) and is_not_msvc(gnu))
  assert(is_not_msvc({ captures = { compiler = "g++", version = "12.2.1" } }))
end

function test_torch_wording()
  local r = reason({ captures = { compiler = "g++", version = "13.1.1", direction = "greater", cuda = "11.7" } })
  assert(r.reason == "g++ 13.1.1 is newer than the newest version CUDA 11.7 accepts", r.reason)
end

function test_nvcc_wording()
  local r = reason({ captures = { bound = "gcc versions later than 8 are not supported" } })
  assert(r.reason == "nvcc: gcc versions later than 8 are not supported", r.reason)
end
