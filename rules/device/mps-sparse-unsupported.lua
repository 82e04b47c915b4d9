-- Lua for rule mps-sparse-unsupported (rules/LUA_API.md, API version 1).

-- when (whisper-alignment-heads): a frame of openai-whisper's package (whisper/model.py, whisper/__init__.py)
-- or of a program that calls it by name.
function whisper_frames(ctx)
  local inc = ctx.incident or {}
  for _, f in ipairs(inc.frames or {}) do
    local file = (f.file or ""):lower()
    if file:find("whisper[/\\]") or (f.source or ""):find("set_alignment_heads", 1, true) then
      return "a frame of openai-whisper: " .. (f.file or "") .. (f.func and (" in " .. f.func) or "")
    end
  end
  return false
end

function test_whisper_frames()
  local ctx = { incident = { frames = {
    { file = "/Users/me/app.py", func = "<module>", source = "model = whisper.load_model('small', device='mps')" },
    { file = "/opt/homebrew/lib/python3.11/site-packages/whisper/__init__.py", func = "load_model", source = "model.set_alignment_heads(alignment_heads)" } } } }
  assert(whisper_frames(ctx))
  assert(whisper_frames({ incident = { frames = { { file = "train.py", func = "step", source = "adj = adj.to('mps')" } } } }) == false)
  assert(whisper_frames({ incident = {} }) == false)
end
