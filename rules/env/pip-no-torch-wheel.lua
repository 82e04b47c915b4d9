-- Lua for pip-no-torch-wheel (rules/LUA_API.md, API version 1).
-- Reads what pip listed as available ({versions}) and what was asked for ({spec}) into one sentence
-- ({story}): nothing at all, only the 0.1.2 placeholder, or releases other than the pinned one.

function wheel_story(ctx)
  local c = ctx.captures
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
