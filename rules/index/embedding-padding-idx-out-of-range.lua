-- Lua for rule embedding-padding-idx-out-of-range (rules/LUA_API.md, API version 1).
-- nn.Embedding checks padding_idx in two places: its constructor (against num_embeddings) and
-- F.embedding (against weight.size(0) of the weight it is handed). The frames say which one raised.

local function frame_where(frames, test)
  for i = #frames, 1, -1 do
    local f = frames[i]
    if test(f) then return f end
  end
  return nil
end

local function describe(f)
  return (f.file or "?") .. ":" .. tostring(f.line or "?") .. " in " .. (f.func or "?")
end

-- The constructor raised: a frame of nn.Embedding's (or a subclass's) __init__, or the caller's line builds one.
function raised_in_constructor(ctx)
  local frames = (ctx.incident and ctx.incident.frames) or {}
  local f = frame_where(frames, function(fr)
    return (fr.func == "__init__" and (fr.file or ""):find("sparse%.py$"))
        or (fr.source or ""):find("Embedding%(")
  end)
  if f then return "the table is being built: " .. describe(f) end
  return false
end

-- F.embedding raised: the weight it got has fewer rows than padding_idx at call time.
function raised_in_lookup(ctx)
  local frames = (ctx.incident and ctx.incident.frames) or {}
  local f = frame_where(frames, function(fr)
    return fr.func == "embedding" and (fr.file or ""):find("functional%.py$")
  end)
  if f then return "raised by the lookup itself (" .. describe(f) .. "), after the table was built" end
  return false
end

-- Neither place shows in the frames (the message pasted alone): the reading that names both.
function raised_where_unknown(ctx)
  return not raised_in_constructor(ctx) and not raised_in_lookup(ctx)
end

function test_constructor_frame()
  local ctx = { incident = { frames = {
    { file = "/app/GOT/model/GOT_ocr_2_0.py", line = 23, func = "__init__", source = "super(GOTQwenModel, self).__init__(config)" },
    { file = "/x/transformers/models/qwen2/modeling_qwen2.py", line = 930, func = "__init__",
      source = "self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size, self.padding_idx)" },
    { file = "/x/torch/nn/modules/sparse.py", line = 133, func = "__init__", source = "assert padding_idx < self.num_embeddings, 'Padding_idx must be within num_embeddings'" },
  } } }
  assert(raised_in_constructor(ctx))
  assert(raised_in_lookup(ctx) == false)
  assert(raised_where_unknown(ctx) == false)
end

function test_no_frames()
  local ctx = { incident = { frames = {} } }
  assert(raised_where_unknown(ctx) == true)
end

function test_lookup_frame()
  local ctx = { incident = { frames = {
    { file = "/x/internvl/model/modeling_internvl_chat.py", line = 125, func = "forward", source = "input_embeds = self.language_model.get_input_embeddings()(input_ids).clone()" },
    { file = "/x/torch/nn/modules/sparse.py", line = 163, func = "forward", source = "return F.embedding(" },
    { file = "/x/torch/nn/functional.py", line = 2233, func = "embedding", source = "assert padding_idx < weight.size(0), \"Padding_idx must be within num_embeddings\"" },
  } } }
  assert(raised_in_lookup(ctx))
  assert(raised_in_constructor(ctx) == false)
end
