-- Lua for rule setuptools-pkg-resources-packaging (rules/LUA_API.md, API version 1).
-- Whose import failed: torch's own cpp_extension (a frame in torch/utils/cpp_extension.py), or the deepest
-- frame of some other package or script.

local function is_cpp_extension(file)
  return file ~= nil and (file:find("torch/utils/cpp_extension.py", 1, true) ~= nil
    or file:find("torch\\utils\\cpp_extension.py", 1, true) ~= nil)
end

function torch_imports_it(ctx)
  local inc = ctx.incident
  for _, f in ipairs((inc and inc.frames) or {}) do
    if is_cpp_extension(f.file) then return "the failing import is in " .. f.file end
  end
  return false
end

function not_torch(ctx)
  return torch_imports_it(ctx) == false
end

function import_site(ctx)
  local frames = (ctx.incident and ctx.incident.frames) or {}
  local last = frames[#frames]
  if last and last.file and last.file ~= "" and last.file ~= "<stdin>" and last.file ~= "<string>" then
    return { site = last.file }
  end
  return { site = "the code that failed" }
end

function test_torch_frame()
  local ctx = { incident = { frames = { { file = "/x/site-packages/torch/utils/cpp_extension.py" } } } }
  assert(torch_imports_it(ctx))
  assert(not_torch(ctx) == false)
  assert(import_site(ctx).site == "/x/site-packages/torch/utils/cpp_extension.py")
end

function test_other_frame()
  local ctx = { incident = { frames = { { file = "<stdin>" } } } }
  assert(torch_imports_it(ctx) == false)
  assert(import_site(ctx).site == "the code that failed")
end
