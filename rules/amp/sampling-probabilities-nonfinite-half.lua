-- Lua for sampling-probabilities-nonfinite-half (rules/LUA_API.md, API version 1).
-- The multinomial check's message names no caller. Under a model's generate() (Hugging Face, vLLM, a
-- repository's own generate/sample function) NaN probabilities are most often half-precision logits that
-- overflowed; a sampler written for something else (a policy's action) is the NaN-loss rule's case. A
-- traceback decides between them; a pasted message line alone is read as generation, the usual source.

-- A frame of text generation: a generation module, or a function named like a decoding step.
local function is_generation(frame)
  local file, func = (frame.file or ""):lower(), (frame.func or ""):lower()
  if file:find("generation", 1, true) or file:find("sampler", 1, true) then return true end
  return func:find("generate", 1, true) ~= nil or func:find("sample", 1, true) ~= nil or func:find("decode", 1, true) ~= nil
end

local function generation_frame(ctx)
  for i = #(ctx.incident.frames or {}), 1, -1 do
    local f = ctx.incident.frames[i]
    if is_generation(f) then return f end
  end
  return nil
end

local function basename2(path)
  local a, b = path:match("([^/\\]+)[/\\]([^/\\]+)$")
  return a and (a .. "/" .. b) or path
end

-- values: {caller}, where the generation frame is, when the traceback has one.
function caller(ctx)
  local f = generation_frame(ctx)
  if not f then return { caller = "" } end
  return { caller = string.format(" (in %s, %s)", f.func or "?", basename2(f.file or "?")) }
end

-- score: a traceback without any generation frame is another sampler's; veto there.
function generation_caller(ctx)
  local frames = ctx.incident.frames or {}
  if #frames == 0 or generation_frame(ctx) then return nil end
  return false
end

function test_frames()
  local gen = { incident = { frames = { { file = "chat.py", func = "<module>" }, { file = "/x/transformers/generation/utils.py", func = "sample" } } } }
  assert(generation_caller(gen) == nil)
  assert(caller(gen).caller == " (in sample, generation/utils.py)")
  local policy = { incident = { frames = { { file = "rl.py", func = "<module>" } } } }
  assert(generation_caller(policy) == false)
  assert(generation_caller({ incident = { frames = {} } }) == nil)
end
