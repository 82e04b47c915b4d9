-- Lua for pip-no-torch-wheel (rules/LUA_API.md, API version 1).
-- Reads what pip listed as available ({versions}) and what was asked for ({spec}) into one sentence
-- ({story}): nothing at all, only the 0.1.2 placeholder, or releases other than the pinned one.

-- "cp311" -> "Python 3.11", "cp27" -> "Python 2.7"; other tags as written.
local function python_of_tag(tag)
  local major, minor = tag:match("^cp(%d)(%d+)$")
  if major then return "Python " .. major .. "." .. minor end
  return tag
end

-- "==2.1.2+cu118" -> "2.1.2+cu118", "2.1.2"; nil when the pin has no local build tag
local function local_build_pin(spec)
  local build = (spec or ""):gsub("^[=<>!~]+", "")
  local bare, tag = build:match("^([%w%.]+)%+(%w+)$")
  if bare and (tag:find("^cu") or tag:find("^rocm")) then return build, bare end
  return nil
end

-- whether the comma-separated versions list holds exactly v
local function listed(versions, v)
  for item in (versions or ""):gmatch("[^,%s]+") do
    if item == v then return true end
  end
  return false
end

function wheel_story(ctx)
  local c = ctx.captures
  if c.python_tag and c.python_tag ~= "" then
    -- a wheel file refused by its tags ({spec} is the file's version): say what it was built for
    local story = string.format(" The file is built for %s (ABI tag %s) on %s; pip refuses it because the interpreter running "
                                .. "pip is another Python version, ABI or platform.", python_of_tag(c.python_tag),
                                c.abi_tag or "?", c.platform_tag or "?")
    return { story = story, spec = "==" .. (c.spec or "") }
  end
  local versions = c.versions or ""
  local spec = c.spec or ""
  local story = ""
  if versions == "none" then
    story = " pip saw no file at all that this interpreter can install: a Python version or a bitness (32-bit) no release supports, or a CUDA build that is only on PyTorch's own index."
  elseif versions:find("0.1.2", 1, true) == 1 then
    story = " The only versions pip saw are 0.1.2*, the old placeholder package on PyPI: no real wheel fits this interpreter (32-bit Python, or a Python no release supports)."
  elseif versions ~= "" then
    story = " pip saw other releases (" .. versions:gsub("^(.-,.-,.-),.*$", "%1, ...") .. ") for this interpreter, but not the one pinned: that release has no wheel for this Python version."
  end
  local build, bare = local_build_pin(spec)
  if build and versions == "none" then
    story = story .. " The pin names a CUDA build (" .. build .. "), which PyPI does not carry."
  elseif build and listed(versions, bare) then
    -- the release itself is there for this interpreter: only its local CUDA/ROCm build is missing
    story = " pip saw " .. bare .. " itself for this interpreter, but not the build " .. build .. " that is pinned: builds with a local tag"
            .. " (+cu118, +rocm5.6) are only on PyTorch's own index, and there are none for macOS."
  end
  return { story = story, spec = spec, build = build or "", bare = bare or "" }
end

-- the pinned release exists for this interpreter and only its +cuXXX / +rocmX build is missing
function local_build_only_missing(ctx)
  local c = ctx.captures
  local build, bare = local_build_pin(c.spec)
  if build and listed(c.versions, bare) then
    return bare .. " is in the versions pip lists; only " .. build .. " is not"
  end
  return false
end

function test_local_build_only_missing()
  -- wild (Nerogar/OneTrainer#169): a +cu118 pin on an Apple M2, the plain 2.1.2 listed
  local ctx = { captures = { spec = "==2.1.2+cu118", versions = "1.11.0, 2.1.1, 2.1.2, 2.2.0" } }
  assert(local_build_only_missing(ctx))
  assert(wheel_story(ctx).story:find("pip saw 2.1.2 itself", 1, true))
  assert(not local_build_only_missing({ captures = { spec = "==2.1.2+cu118", versions = "2.2.0, 2.2.1" } }))
  assert(not local_build_only_missing({ captures = { spec = "==2.1.2", versions = "2.1.2" } }))
  assert(not local_build_only_missing({ captures = { spec = "==1.11.0+cu113", versions = "none" } }))
end

function test_story_none_and_cuda()
  local v = wheel_story({ captures = { versions = "none", spec = "==1.11.0+cu113" } })
  assert(v.story:find("no file at all", 1, true) and v.story:find("1.11.0+cu113", 1, true), v.story)
end

function test_story_placeholder()
  assert(wheel_story({ captures = { versions = "0.1.2, 0.1.2.post1", spec = "==1.3.0" } }).story:find("placeholder", 1, true))
end

function test_story_other_releases()
  local v = wheel_story({ captures = { versions = "2.0.0, 2.0.1, 2.1.0, 2.1.1", spec = "==1.13.1" } })
  assert(v.story:find("(2.0.0, 2.0.1, 2.1.0, ...)", 1, true), v.story)
end

function test_story_wheel_tags()
  local v = wheel_story({ captures = { python_tag = "cp311", abi_tag = "cp311", platform_tag = "win_amd64", spec = "2.1.2+cu121" } })
  assert(v.story:find("built for Python 3.11 (ABI tag cp311) on win_amd64", 1, true) and v.spec == "==2.1.2+cu121", v.story)
end
