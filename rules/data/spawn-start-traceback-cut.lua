-- Lua for spawn-start-traceback-cut (rules/LUA_API.md, API version 1).

-- A frame of multiprocessing's spawn start-up in the main process: the spawn Popen classes, the pickling
-- in reduction.dump, or any multiprocessing file under a Windows path (spawn is the only method there).
local function spawn_start_frame(f)
  local file = f.file or ""
  if not file:find("multiprocessing", 1, true) then return false end
  if file:find("popen_spawn_", 1, true) or file:find("reduction%.py$") then return true end
  return file:find("\\", 1, true) ~= nil
end

-- The types the cut error line would have named (an IPython header keeps it): PicklingError, or the
-- TypeError / AttributeError of "cannot pickle" and of a local object's attribute lookup.
local function pickling_type(t)
  return t:find("PicklingError$") ~= nil or t == "TypeError" or t == "AttributeError"
end

-- score: only a traceback with no error line (cut by the paste), whose deepest frames are the spawn
-- start that followed the DataLoader's w.start().
function cut_in_spawn_start(ctx)
  local inc = ctx.incident
  if not inc or ((inc.exception or "") ~= "" and not (inc.cut and pickling_type(inc.exception))) then return false end
  local frames = inc.frames or {}
  local started = false
  for _, f in ipairs(frames) do
    local text = (f.func or "") .. " " .. (f.source or "")
    if (f.file or ""):find("dataloader%.py$") and text:find("w.start()", 1, true) then started = true end
  end
  if not started or #frames == 0 then return false end
  if not spawn_start_frame(frames[#frames]) then return false end
  return nil
end

function test_cut_windows_start()
  local frames = {
    { file = "C:\\e\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", func = "__init__", source = "w.start()" },
    { file = "C:\\e\\lib\\multiprocessing\\context.py", func = "_Popen", source = "return Popen(process_ob" },
  }
  assert(cut_in_spawn_start({ incident = { exception = "", frames = frames } }) == nil)
  assert(cut_in_spawn_start({ incident = { exception = "OSError", frames = frames } }) == false)
  -- a notebook's traceback cut the same way: its header named the type
  assert(cut_in_spawn_start({ incident = { exception = "_pickle.PicklingError", cut = true, frames = frames } }) == nil)
  assert(cut_in_spawn_start({ incident = { exception = "OSError", cut = true, frames = frames } }) == false)
end

function test_cut_fork_start()
  local frames = {
    { file = "/u/torch/utils/data/dataloader.py", func = "__init__", source = "w.start()" },
    { file = "/usr/lib/python3.11/multiprocessing/popen_fork.py", func = "__init__", source = "" },
  }
  assert(cut_in_spawn_start({ incident = { exception = "", frames = frames } }) == false)
end
