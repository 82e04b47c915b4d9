-- Lua for torch-imported-from-source-tree (rules/LUA_API.md, API version 1).
-- The frames say which torch folder Python imported: a path in site-packages / dist-packages (or an
-- installed egg) is an installed package whose torch._C failed for another reason (a wheel built for
-- another Python, a broken install), not a source checkout shadowing the install.

-- The file of the outermost frame inside a torch/ package folder, or nil.
local function torch_frame_file(inc)
  for _, f in ipairs((inc and inc.frames) or {}) do
    local file = f.file or ""
    if file:match("^torch[/\\]") or file:match("[/\\]torch[/\\][^/\\]+%.py$") then return file end
  end
  return nil
end

local function installed(file)
  local lower = file:lower()
  return lower:find("site-packages", 1, true) or lower:find("dist-packages", 1, true)
      or lower:find("%.egg[/\\]") ~= nil
end

-- Python 2's 'No module named _C' and 'name '_C' is not defined' name no package: they count only
-- when torch/__init__.py (or another torch/ module) is on the traceback.
local function names_torch(message)
  return message:find("torch", 1, true) ~= nil or message:find("PyTorch", 1, true) ~= nil
end

-- score: veto an installed package's failure, and a bare _C message with no torch frame.
function source_tree_only(ctx)
  local inc = ctx.incident or {}
  local file = torch_frame_file(inc)
  if file and installed(file) then return false end
  if not file and not names_torch(inc.message or "") then return false end
  return nil
end

-- values: {where}, the folder Python took torch from.
function imported_folder(ctx)
  local file = torch_frame_file(ctx.incident)
  if not file then return { where = " the traceback does not show which folder." } end
  local dir = file:match("^(.*)[/\\]torch[/\\][^/\\]+%.py$")
  if not dir or dir == "" then
    return { where = " the traceback's torch/__init__.py is a relative path, so the torch folder in the working directory was imported." }
  end
  return { where = " it was imported from " .. dir .. ", a folder outside site-packages." }
end

function test_relative_path_is_the_working_directory()
  local ctx = { incident = { message = "No module named _C", frames = { { file = "<stdin>" }, { file = "torch/__init__.py" } } } }
  assert(source_tree_only(ctx) == nil)
  assert(imported_folder(ctx).where:find("working directory", 1, true))
end

function test_installed_package_is_vetoed()
  local ctx = { incident = { message = "No module named 'torch._C'",
                             frames = { { file = "/usr/lib/python3.6/site-packages/torch/__init__.py" } } } }
  assert(source_tree_only(ctx) == false)
end

function test_bare_c_without_torch_frame_is_vetoed()
  local ctx = { incident = { message = "name '_C' is not defined", frames = { { file = "/home/u/proj/ops.py" } } } }
  assert(source_tree_only(ctx) == false)
end

function test_checkout_folder_is_named()
  local ctx = { incident = { message = "No module named 'torch._C'", frames = { { file = "/opt/pytorch/torch/__init__.py" } } } }
  assert(source_tree_only(ctx) == nil)
  assert(imported_folder(ctx).where:find("/opt/pytorch", 1, true))
end
