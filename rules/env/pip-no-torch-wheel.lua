-- Lua for pip-no-torch-wheel (rules/LUA_API.md, API version 1).
-- Reads what pip listed as available ({versions}) and what was asked for ({spec}) into one sentence
-- ({story}): nothing at all, only the 0.1.2 placeholder, or releases other than the pinned one.

-- "cp311" -> "Python 3.11", "cp27" -> "Python 2.7"; other tags as written.
local function python_of_tag(tag)
  local major, minor = tag:match("^cp(%d)(%d+)$")
  if major then return "Python " .. major .. "." .. minor end
  return tag
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
  if spec:find("+cu", 1, true) and versions == "none" then
    story = story .. " The pin names a CUDA build (" .. spec:gsub("^[=<>!~]+", "") .. "), which PyPI does not carry."
  end
  return { story = story, spec = spec }
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
