-- Lua for rule embedding-index-out-of-range (rules/LUA_API.md, API version 1).
--
-- Note: [The table the traceback names]. On the CPU the IndexError is raised inside the lookup itself, so
-- the deepest frame of the model that calls a table (the frame above torch/nn/modules/sparse.py) names the
-- table that got the bad id. Models name their tables the same way across families and releases:
-- positions as position_embeddings (BERT, RoBERTa, ESM), position_embedding (CLIP), embed_positions
-- (BART, OPT, Whisper, fairseq), wpe (GPT-2, nanoGPT); token types as token_type_embeddings (BERT-style,
-- a one-row table in RoBERTa and XLM-R); tokens as word_embeddings, embed_tokens, wte, embed_in,
-- tok_embeddings, token_embedding. A position table says the sequence is too long, a token-type table
-- says token_type_ids hold a type the model lacks; only a token table leaves the vocabulary readings.

local KIND = {
  position_embeddings = "positions", position_embedding = "positions", embed_positions = "positions",
  wpe = "positions",
  token_type_embeddings = "token_type",
  word_embeddings = "tokens", embed_tokens = "tokens", wte = "tokens", embed_in = "tokens",
  tok_embeddings = "tokens", token_embedding = "tokens",
}

-- the innermost frame whose source calls a known table: its kind, the table's name and the frame
local function named_table(ctx)
  local frames = ctx.incident and ctx.incident.frames or {}
  for i = #frames, 1, -1 do
    local src = frames[i].source or ""
    for name in src:gmatch("%.([%a_][%w_]*)%s*%(") do
      if KIND[name] then return KIND[name], name, frames[i] end
    end
  end
  return nil
end

local function evidence(ctx, kind)
  local k, name, frame = named_table(ctx)
  if k ~= kind then return false end
  local where = (frame.file or "?"):match("[^/\\]+$") or "?"
  return "the lookup that failed is self." .. name .. "(...) at " .. where .. ":" .. tostring(frame.line or "?")
end

function position_table_named(ctx) return evidence(ctx, "positions") end

function token_type_table_named(ctx) return evidence(ctx, "token_type") end

-- the vocabulary readings, unless the traceback names a position or token-type table
function token_ids_possible(ctx)
  local k = named_table(ctx)
  if k == "positions" or k == "token_type" then return false end
  return evidence(ctx, "tokens") or true
end

-- readings for a table the traceback does not name (positions already came first when it does)
function no_table_named(ctx) return named_table(ctx) == nil end

local function ctx_with(source)
  return { incident = { frames = {
    { file = "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line = 1501, source = "return forward_call(*args, **kwargs)" },
    { file = "/opt/venv/lib/python3.12/site-packages/transformers/models/roberta/modeling_roberta.py", line = 120, source = source },
    { file = "/usr/lib/python3/dist-packages/torch/nn/functional.py", line = 2567, source = "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)" },
  } } }
end

function test_position_table()
  local ctx = ctx_with("position_embeddings = self.position_embeddings(position_ids)")
  assert(position_table_named(ctx):find("self.position_embeddings", 1, true))
  assert(position_table_named(ctx):find("modeling_roberta.py:120", 1, true))
  assert(token_ids_possible(ctx) == false)
  assert(no_table_named(ctx) == false)
end

function test_token_type_table()
  local ctx = ctx_with("token_type_embeddings = self.token_type_embeddings(token_type_ids)")
  assert(token_type_table_named(ctx))
  assert(position_table_named(ctx) == false)
  assert(token_ids_possible(ctx) == false)
end

function test_token_table_and_nanogpt()
  local ctx = ctx_with("tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)")
  assert(token_ids_possible(ctx):find("self.wte", 1, true))
  assert(position_table_named(ctx) == false)
  assert(no_table_named(ctx) == false)
  assert(position_table_named(ctx_with("pos_emb = self.transformer.wpe(pos)")))
end

function test_no_table()
  local ctx = ctx_with("emb = self.user_table(user_ids)")
  assert(token_ids_possible(ctx) == true)
  assert(no_table_named(ctx) == true)
  assert(no_table_named({ incident = { frames = {} } }) == true)
  assert(no_table_named({}) == true)
end
