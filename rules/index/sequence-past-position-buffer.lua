-- Lua for sequence-past-position-buffer (rules/LUA_API.md, API version 1).
-- Note: [Sequence past a position buffer] (the YAML). ATen's expand and broadcast errors are read as an
-- input longer than the model's positions only on evidence:
--   a frame's source line (or a kept context line) names one of the buffers: the token-type row's
--   expand, the position embeddings' sum, GPT-2's causal mask                       -> kept, the line named;
--   no frame at all (the error line pasted alone): the numbers must look like one -> kept a little lower:
--     the shorter side is a position-table size (512, 514, 1024, ...), the longer side is not a multiple
--     of 8 (a token count is any number; channel and image sizes are nearly always multiples of 8), at
--     dimension 1 (the sequence axis of [batch, length] and [batch, length, hidden]) or, for the causal
--     mask, at dimension 2 or 3 of the attention scores; an expand whose printed shapes are
--     "Target sizes: [B, N]" from "Tensor sizes: [1, M]" is the token-type row whatever N is;
--   frames that name none of them, or other numbers                             -> vetoed (the shape
--                                                                                   rules answer);
--   both sizes a patch grid plus a class token (k*k + 1: 197, 577)                -> vetoed: a vision
--     transformer's position table counts patches, and the error means an image of another size.

local TABLE_SIZES = { [77] = true, [128] = true, [256] = true, [512] = true, [514] = true, [1024] = true,
                      [1026] = true, [2048] = true, [2050] = true, [4096] = true, [4098] = true,
                      [8192] = true, [8194] = true }

local BUFFER_LINES = { "token_type_ids.expand(", "buffered_token_type_ids", "position_embeddings",
                       "position_embeds", "pos_embeds", "embed_positions", "masked_bias", "causal_mask" }

local function sizes(ctx)
  local a, b = triage.number(ctx.captures.a), triage.number(ctx.captures.b)
  if not a or not b then return nil end
  if a > b then return a, b end
  return b, a
end

function lengths(ctx)
  local long, short = sizes(ctx)
  if not long then return nil end
  return { length = long, limit = short }
end

-- The first frame source or context line that names a buffer, as "FILE:LINE: source" or the line.
local function buffer_line(inc)
  local frames = inc.frames or {}
  for i = #frames, 1, -1 do
    local src = frames[i].source or ""
    for _, name in ipairs(BUFFER_LINES) do
      if src:find(name, 1, true) then
        local file = (frames[i].file or "?"):match("([^/\\]+)$") or "?"
        return string.format("%s at %s:%s", src, file, tostring(frames[i].line or "?"))
      end
    end
  end
  return triage.lines_with(table.concat(inc.context or {}, "\n"), BUFFER_LINES)[1]
end

-- The expand's printed shapes: a 2-D target from a [1, M] source.
local function token_type_row(message, limit)
  local target, source = message:match("Target sizes: (%[[%d, ]+%])%.%s+Tensor sizes: (%[[%d, ]+%])")
  if not target then return nil end
  local t, s = triage.shape(target), triage.shape(source)
  return #t == 2 and #s == 2 and s[1] == 1 and s[2] == limit
end

-- A vision transformer's patch grid plus its class token (197 = 14*14 + 1, 577 = 24*24 + 1): its position
-- table is as long as an image's patches, and the same errors there mean an image of another size.
local function patch_grid(n)
  local r = triage.isqrt(n - 1)
  return n > 1 and r * r == n - 1
end

function position_buffer_evidence(ctx)
  local long, short = sizes(ctx)
  if not long or long == short then return false end
  if patch_grid(long) and patch_grid(short) then return false end
  local inc = ctx.incident
  local line = buffer_line(inc)
  if line then
    return { confidence = ctx.confidence, note = " The failing line uses the buffer: " .. line:sub(1, 200) .. "." }
  end
  if #(inc.frames or {}) > 0 then return false end
  if not TABLE_SIZES[short] then return false end
  local dim = triage.number(ctx.captures.dim)
  local message = inc.message or ""
  local expand = message:find("expanded size", 1, true) ~= nil
  if expand and triage.number(ctx.captures.a) ~= long then return false end  -- an expand to fewer positions
  if expand and dim == 1 and token_type_row(message, short) then
    return { confidence = ctx.confidence * 0.95,
             note = " Read from the shapes alone: a [1, " .. short .. "] row expanded to " .. long .. " positions." }
  end
  if long % 8 == 0 then return false end
  if dim == 1 or (not expand and (dim == 2 or dim == 3)) then
    return { confidence = ctx.confidence * 0.95,
             note = " Read from the numbers alone: " .. long .. " against " .. short ..
                    ", a position-table size, at dimension " .. dim .. "." }
  end
  return false
end

local function ctx_for(message, a, b, dim, frames)
  return { confidence = 0.9, captures = { a = tostring(a), b = tostring(b), dim = tostring(dim) },
           incident = { message = message, frames = frames or {}, context = {} } }
end

function test_context_line_decides()
  local ctx = ctx_for("The size of tensor a (1024) must match the size of tensor b (512) at non-singleton dimension 1", 1024, 512, 1)
  ctx.incident.context = { "INFO loading", "    embeddings += position_embeddings" }
  local r = position_buffer_evidence(ctx)
  assert(r and r.note:find("embeddings += position_embeddings", 1, true), "a kept line names the buffer")
end

function test_frame_decides()
  local frames = { { file = "/site-packages/transformers/models/albert/modeling_albert.py", line = 719,
                     source = "buffered_token_type_ids_expanded = buffered_token_type_ids.expand(batch_size, seq_length)" } }
  local r = position_buffer_evidence(ctx_for("The expanded size of the tensor (512) must match the existing size (512)", 512, 512, 1, frames))
  assert(r == false, "equal sizes are no evidence")
  r = position_buffer_evidence(ctx_for("The expanded size of the tensor (574) must match the existing size (512)", 574, 512, 1, frames))
  assert(r.confidence == 0.9 and r.note:find("expand(batch_size, seq_length) at modeling_albert.py:719", 1, true), r.note)
end

function test_other_frames_veto()
  local frames = { { file = "model.py", line = 40, source = "return x + self.shortcut(x)" } }
  assert(position_buffer_evidence(ctx_for("The size of tensor a (937) must match the size of tensor b (512) at non-singleton dimension 1", 937, 512, 1, frames)) == false)
end

function test_numbers_alone()
  local m = "The size of tensor a (937) must match the size of tensor b (512) at non-singleton dimension 1"
  assert(type(position_buffer_evidence(ctx_for(m, 937, 512, 1))) == "table")
  assert(position_buffer_evidence(ctx_for(m, 1024, 512, 1)) == false, "a multiple of 8 reads as channels")
  assert(position_buffer_evidence(ctx_for(m, 937, 500, 1)) == false, "500 is no table size")
  assert(position_buffer_evidence(ctx_for(m, 937, 512, 0)) == false, "dimension 0 is the batch")
  local e = "The expanded size of the tensor (600) must match the existing size (514) at non-singleton dimension 1.  Target sizes: [64, 600].  Tensor sizes: [1, 514]"
  assert(position_buffer_evidence(ctx_for(e, 600, 514, 1)).note:find("[1, 514] row", 1, true))
  local shrink = "The expanded size of the tensor (500) must match the existing size (512) at non-singleton dimension 1.  Target sizes: [1, 500].  Tensor sizes: [1, 512]"
  assert(position_buffer_evidence(ctx_for(shrink, 500, 512, 1)) == false, "an expand to fewer positions")
end

function test_patch_grids_are_images()
  local frames = { { file = "modeling_vit.py", line = 140, source = "embeddings = embeddings + self.position_embeddings" } }
  assert(position_buffer_evidence(ctx_for("The size of tensor a (577) must match the size of tensor b (197) at non-singleton dimension 1", 577, 197, 1, frames)) == false)
end

function test_lengths_order()
  local v = lengths({ captures = { a = "1024", b = "1025" } })
  assert(v.length == 1025 and v.limit == 1024)
end
