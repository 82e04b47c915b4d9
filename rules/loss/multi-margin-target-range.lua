-- Lua for multi-margin-target-range (rules/LUA_API.md, API version 1).
-- "target out of range" is what multi_margin_loss says on the CPU, but the three words are common outside
-- PyTorch too. The candidate is kept when something else names a margin loss:
--   the message itself (THNN's "...MultiMarginCriterion.c:43", multilabel's "argument #2 'target'") -> kept;
--   a frame's file, function or source line (multi_margin_loss, MultiLabelMarginLoss, ...)          -> kept;
--   nothing                                                                                          -> vetoed.

local function names_margin_loss(s)
  local l = string.lower(s or "")
  return l:find("multi_?label_?margin") ~= nil or l:find("multi_?margin") ~= nil
end

function margin_loss_shown(ctx)
  local inc = ctx.incident or {}
  local msg = inc.message or ""
  if msg:find("argument #2 .target. is out of range") or names_margin_loss(msg) then return nil end
  for _, f in ipairs(inc.frames or {}) do
    if names_margin_loss(f.file) or names_margin_loss(f.func) or names_margin_loss(f.source) then
      return { confidence = ctx.confidence,
               note = " The frames show the margin loss (" .. (f.func or f.file or "?") .. ")." }
    end
  end
  return false
end

function test_kept_by_message_or_frames()
  assert(margin_loss_shown({ confidence = 0.9, incident = { message = "argument #2 'target' is out of range" } }) == nil)
  assert(margin_loss_shown({ confidence = 0.9, incident = { message = "invalid argument 3: target out of range at /pytorch/aten/src/THNN/generic/MultiMarginCriterion.c:43" } }) == nil)
  local fs = { { file = "/x/torch/nn/functional.py", line = 1, func = "multi_margin_loss", source = "return torch._C._nn.multi_margin_loss(input, target)" } }
  assert(type(margin_loss_shown({ confidence = 0.9, incident = { message = "target out of range", frames = fs } })) == "table")
end

function test_vetoed_alone()
  assert(margin_loss_shown({ confidence = 0.9, incident = { message = "target out of range" } }) == false)
end
