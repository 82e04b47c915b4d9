-- Lua for integer-operand-matmul (rules/LUA_API.md, API version 1).
-- Note: [Long expected by a matrix product]. "expected scalar type Long but found Float" is what 1.x-2.0 say
-- both for a float target of nll_loss (target-not-long) and for an integer input to a float Linear, whose
-- first operand sets the expected type. The rest of the incident decides:
--   TH's argument name is a product's operand (mat1, mat2, vec, batch1, batch2, weight) -> kept;
--   the deepest frame that names an op is a matrix product (F.linear, nn.Linear's forward, matmul, mm,
--   bmm, addmm, einsum, `@`) rather than a loss or an index op                          -> kept, frame named;
--   otherwise (a loss frame, no frames at all)                                             -> vetoed.

-- Each kind: the function names, the torch module file and the source fragments that show it. A loss or
-- index op is looked for first: a line such as `loss = F.cross_entropy(x @ w, y)` is the loss's.
local KINDS = {
  { kind = "other",
    funcs = { cross_entropy = true, nll_loss = true, nll_loss2d = true, cross_entropy_loss = true,
              embedding = true, gather = true, scatter = true, index_select = true, one_hot = true },
    module = "/torch/nn/modules/loss%.py$",
    source = { "cross_entropy%(", "nll_loss", "criterion[%w_]*%(", "loss_fn%(", "loss_fct%(", "%.gather%(",
               "%.scatter_?%(", "one_hot%(", "F%.embedding%(" } },
  { kind = "product",
    funcs = { linear = true, matmul = true, mm = true, bmm = true, addmm = true, einsum = true, bilinear = true },
    module = "/torch/nn/modules/linear%.py$",
    source = { "F%.linear%(", "torch%.matmul%(", "torch%.mm%(", "torch%.bmm%(", "torch%.addmm%(",
               "torch%.einsum%(", "[%w_%)%]] @ [%w_%(]" } },
  -- nn.RNN / LSTM / GRU before 2.1's own input check (rnn-input-dtype): the recurrent matrix products say
  -- "expected scalar type Long but found Float" for integer inputs (threads: pytorch#99998 under 2.0)
  { kind = "product",
    funcs = {},
    module = "/torch/nn/modules/rnn%.py$",
    source = { "_VF%.lstm%(", "_VF%.gru%(", "_VF%.rnn_tanh%(", "_VF%.rnn_relu%(" } },
}

-- The kind of one frame ("product", "other") or nil.
local function kind_of(f)
  local path = string.gsub(f.file or "", "\\", "/")
  local name = string.match(f.func or "", "([%w_]+)$") or ""
  local text = f.source or ""
  for _, k in ipairs(KINDS) do
    if k.funcs[name] or path:find(k.module) then return k.kind end
    for _, frag in ipairs(k.source) do
      if text:find(frag) then return k.kind end
    end
  end
  return nil
end

function matmul_operand(ctx)
  local arg = (ctx.captures or {}).arg
  if arg and arg ~= "" then
    return { confidence = ctx.confidence,
             note = " The check names the product's operand '" .. arg .. "' as the float side." }
  end
  local frames = (ctx.incident or {}).frames or {}
  for i = #frames, 1, -1 do
    local k = kind_of(frames[i])
    if k == "other" then return false end
    if k == "product" then
      local f = frames[i]
      return { confidence = ctx.confidence,
               note = string.format(" Read from the traceback: the op that failed is a matrix product (%s:%s in %s), not a loss.",
                                    f.file or "?", tostring(f.line or "?"), f.func or "?") }
    end
  end
  return false
end

local function frame(file, func, source) return { file = file, line = 1, func = func, source = source } end

function test_argument_named()
  local r = matmul_operand({ confidence = 0.85, captures = { arg = "mat2" }, incident = { message = "x" } })
  assert(r.note:find("'mat2'", 1, true), r.note)
end

function test_linear_frame_kept_loss_frame_vetoed()
  local lin = { frame("model.py", "forward", "label_x = self.label_block(labels)"),
                frame("/x/torch/nn/modules/linear.py", "Linear.forward", "return F.linear(input, self.weight, self.bias)") }
  assert(type(matmul_operand({ confidence = 0.85, captures = {}, incident = { frames = lin } })) == "table")
  local loss = { frame("train.py", "<module>", "loss = F.cross_entropy(out, y)"),
                 frame("/x/torch/nn/functional.py", "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target)") }
  assert(matmul_operand({ confidence = 0.85, captures = {}, incident = { frames = loss } }) == false)
end

function test_rnn_frame_kept()
  local rnn = { frame("train.py", "<module>", "out, _ = lstm(x, None)"),
                frame("/x/torch/nn/modules/rnn.py", "LSTM.forward", "result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,") }
  assert(type(matmul_operand({ confidence = 0.85, captures = {}, incident = { frames = rnn } })) == "table")
end

function test_no_frames_vetoed()
  assert(matmul_operand({ confidence = 0.85, captures = {}, incident = { message = "expected scalar type Long but found Float" } }) == false)
end
