-- Lua for tokenizer-decode-negative-id (rules/LUA_API.md, API version 1).
-- PyO3's "out of range integral type conversion attempted" is said for any Python int that does not fit an
-- unsigned Rust integer. In training logs it is nearly always the tokenizers library decoding a -100:
--   a frame decodes or converts ids (decode, batch_decode, convert_ids_to_tokens, id_to_token) -> kept;
--   no frames (the message quoted alone)                                                     -> kept, lower;
--   frames, none of them a decode                                                            -> vetoed.

local DECODE = { "decode", "convert_ids_to_tokens", "id_to_token", "_convert_id_to_token" }

local function is_decode(f)
  local text = (f.func or "") .. " " .. (f.source or "") .. " " .. (f.file or "")
  for _, d in ipairs(DECODE) do
    if text:find(d, 1, true) then return true end
  end
  return false
end

function decode_frames(ctx)
  local frames = (ctx.incident or {}).frames or {}
  if #frames == 0 then
    return { confidence = ctx.confidence * 0.85,
             note = " Read from the message alone: the paste shows no frames to confirm a tokenizer decode." }
  end
  for i = #frames, 1, -1 do
    if is_decode(frames[i]) then
      return { confidence = ctx.confidence,
               note = " The frames show the decode (" .. (frames[i].func or frames[i].file or "?") .. ")." }
    end
  end
  return false
end

local function frame(file, func, source) return { file = file, line = 1, func = func, source = source } end

function test_decode_frame_kept()
  local fs = { frame("run.py", "compute_metrics", "decoded = tokenizer.batch_decode(preds)") }
  assert(decode_frames({ confidence = 0.8, incident = { frames = fs } }).confidence == 0.8)
end

function test_bare_message_kept_lower()
  local r = decode_frames({ confidence = 0.8, incident = { message = "out of range integral type conversion attempted" } })
  assert(r.confidence < 0.8 and r.note:find("message alone", 1, true), r.note)
end

function test_other_code_vetoed()
  local fs = { frame("sim.py", "pack", "header = struct_pack(value)") }
  assert(decode_frames({ confidence = 0.8, incident = { frames = fs } }) == false)
end
