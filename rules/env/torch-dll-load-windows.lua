-- Lua for torch-dll-load-windows (rules/LUA_API.md, API version 1).
-- Names what failed ({what}), says what the Windows error code means ({story}) and whether a policy
-- blocked the file ({blocked}, read by the blocked-by-policy hypothesis).

local STORIES = {
  ["126"] = "Error 126 means a DLL it depends on was not found: usually a system runtime (the Visual C++ redistributable) rather than the DLL being loaded, which is normally present.",
  ["127"] = "Error 127 means a DLL was found but lacks a function it must export: a different version of a dependency was loaded, typically another copy earlier on PATH or a half-updated install.",
  ["1114"] = "Error 1114 means the DLL was found but its initialisation failed, which for c10.dll comes from a Visual C++ runtime older than the one the wheel was built with.",
  ["4551"] = "Error 4551 means a Windows Application Control policy blocked the file.",
  ["193"] = "Error 193 means a file that is not a valid 64-bit Windows DLL was loaded: a 32-bit Python, or a DLL of another architecture earlier on PATH.",
  ["182"] = "Error 182 (\"the operating system cannot run %1\") means a DLL of the wrong build was loaded in place of one the file needs, most often a second OpenMP runtime (libiomp5md.dll from conda or intel-openmp) loaded before torch's own.",
}

function dll_story(ctx)
  local c = ctx.captures
  local reason = (c.reason and c.reason ~= "") and c.reason or (c.old_reason or "")
  local blocked = (c.code == "4551" or reason:find("Application Control") ~= nil) and "yes" or "no"
  if c.cut and c.cut ~= "" then
    return {
      what = "one of the DLLs in torch\\lib (the paste stops before the error line that names it)",
      story = "The paste ends inside torch's DLL loader, which raises only when Windows refuses a DLL of torch\\lib; the cut error line would name the DLL and Windows' error code.",
      blocked = "no",
    }
  end
  -- Note: [Loader suffix alone] in the YAML: the DLL is named, Windows' code and reason are not
  if c.bare_dll and c.bare_dll ~= "" then
    return {
      what = c.bare_dll:match("([^\\/]+)$") or c.bare_dll,
      story = "The error line is cut or reprinted without Windows' error code and reason, so only the DLL is known; for a DLL that torch ships, a missing system runtime it depends on is the usual cause, not the file itself.",
      blocked = "no",
    }
  end
  local what
  if c.dll and c.dll ~= "" then
    what = (c.dll:match("([^\\/]+)$") or c.dll) .. (c.code and (" (WinError " .. c.code .. ")") or "")
  elseif c.code and c.code ~= "" then
    what = "one of the DLLs in torch\\lib (torch 1.5 does not name it)"
  else
    what = "torch's extension module _C"
  end
  local story = STORIES[c.code or ""]
  if not story then
    if blocked == "yes" then
      story = STORIES["4551"]
    else
      story = "The reason Windows gives is: " .. reason:gsub("[%.%s]+$", "") .. "."
    end
  end
  return { what = what, story = story, blocked = blocked }
end

-- Note: [DLL loader cut before its error] in the YAML: the cut line counts only as the last frame of torch's
-- own __init__.py, in the loader (<module> up to 2.4, _load_dll_libraries from 2.5); a cut paste is less
-- certain than the error line itself.
local function cut_in_dll_loader(ctx)
  local frames = (ctx.incident and ctx.incident.frames) or {}
  local last = frames[#frames]
  if not last then return false end
  local file = (last.file or ""):gsub("\\", "/")
  if file:find("torch/__init__.py", 1, true) and (last.func == "<module>" or last.func == "_load_dll_libraries") then
    return 0.75
  end
  return false
end

-- score: the 3.5-3.7 wording names no module, so it is torch's only when a frame shows torch importing
-- its extension (torch/__init__.py, or its `from torch._C import *` line); otherwise the rule does not apply.
-- A cut paste's last line counts only in torch's DLL loader (cut_in_dll_loader).
function torch_frame_for_old_wording(ctx)
  if (ctx.captures.cut or "") ~= "" then return cut_in_dll_loader(ctx) end
  local reason = ctx.captures.old_reason or ""
  if reason == "" then return nil end
  -- 1.6+ names the DLL (' Error loading "..."'); the DLLs that the first pattern leaves out (cuDNN, cuBLAS, ...)
  -- belong to cuda-library-load, so the bare 1.5 pattern must not pick them up
  if reason:find("Error loading", 1, true) then return false end
  for _, f in ipairs((ctx.incident and ctx.incident.frames) or {}) do
    local file = (f.file or ""):gsub("\\", "/")
    if file:find("torch/__init__.py", 1, true) or (f.source or ""):find("from torch._C import", 1, true) then return nil end
  end
  return false
end

function test_cut_needs_the_loader_frame()
  local loader = { file = "E:\\venv\\lib\\site-packages\\torch\\__init__.py", func = "<module>", source = "raise err" }
  assert(torch_frame_for_old_wording({ captures = { cut = "raise err" }, incident = { frames = { loader } } }) == 0.75)
  local own = { file = "C:\\app\\main.py", func = "load", source = "raise err" }
  assert(torch_frame_for_old_wording({ captures = { cut = "raise err" }, incident = { frames = { loader, own } } }) == false)
  local deps = { file = "/usr/lib/python3/dist-packages/torch/__init__.py", func = "_load_global_deps", source = "raise err" }
  assert(torch_frame_for_old_wording({ captures = { cut = "raise err" }, incident = { frames = { deps } } }) == false)
end

function test_bare_suffix_names_the_dll()
  local v = dll_story({ captures = { bare_dll = "D:\\AI\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" } })
  assert(v.what == "fbgemm.dll")
  assert(v.blocked == "no")
  assert(torch_frame_for_old_wording({ captures = { bare_dll = "x\\torch\\lib\\c10.dll" }, incident = { frames = {} } }) == nil)
end

function test_old_wording_needs_a_torch_frame()
  local torch_frame = { file = "C:\\Users\\a\\Anaconda3\\lib\\site-packages\\torch\\__init__.py", source = "from torch._C import *" }
  assert(torch_frame_for_old_wording({ captures = { old_reason = "x" }, incident = { frames = { torch_frame } } }) == nil)
  assert(torch_frame_for_old_wording({ captures = { old_reason = "x" }, incident = { frames = { { file = "cv2/__init__.py" } } } }) == false)
  assert(torch_frame_for_old_wording({ captures = { old_reason = "x" }, incident = { frames = {} } }) == false)
  assert(torch_frame_for_old_wording({ captures = { reason = "y" }, incident = { frames = {} } }) == nil)
  local named = "La procédure spécifiée est introuvable. Error loading \"E:\\venv\\torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its dependencies."
  assert(torch_frame_for_old_wording({ captures = { old_reason = named }, incident = { frames = { torch_frame } } }) == false)
end
