-- Lua for spawn-child-traceback-cut (rules/LUA_API.md, API version 1).

-- score: only a traceback with no error line (cut by the paste) that is a spawned process's start-up:
-- multiprocessing's spawn.py spawn_main on the stack, and prepare (the re-import of the main script)
-- or runpy below it.
function cut_in_spawn_child_startup(ctx)
  local inc = ctx.incident
  if not inc or ((inc.exception or "") ~= "" and not inc.cut) then return false end
  local spawn_main, reimport = false, false
  for _, f in ipairs(inc.frames or {}) do
    local file, fn = f.file or "", f.func or ""
    if file:find("multiprocessing[/\\]spawn%.py$") then
      if fn == "spawn_main" then spawn_main = true end
      if fn == "prepare" or fn == "_fixup_main_from_path" then reimport = true end
    end
    if spawn_main and file:find("runpy%.py$") then reimport = true end
  end
  if spawn_main and reimport then return nil end
  return false
end

function test_cut_child_startup()
  local frames = {
    { file = "<string>", func = "<module>" },
    { file = "E:\\e\\lib\\multiprocessing\\spawn.py", func = "spawn_main" },
    { file = "E:\\e\\lib\\multiprocessing\\spawn.py", func = "prepare" },
    { file = "E:\\e\\lib\\runpy.py", func = "_run_module_code" },
  }
  assert(cut_in_spawn_child_startup({ incident = { exception = "", frames = frames } }) == nil)
  assert(cut_in_spawn_child_startup({ incident = { exception = "ImportError", frames = frames } }) == false)
end

function test_runpy_alone()
  local frames = { { file = "/usr/lib/python3.10/runpy.py", func = "_run_code" } }
  assert(cut_in_spawn_child_startup({ incident = { exception = "", frames = frames } }) == false)
end
