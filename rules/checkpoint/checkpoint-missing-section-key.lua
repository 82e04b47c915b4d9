-- Lua for checkpoint-missing-section-key (rules/LUA_API.md, API version 1).
-- The names only checkpoints use ('state_dict', 'model_state_dict', '*_state_dict', 'model_state') are read
-- by themselves. The generic names ('model', 'net', 'ema', 'weight', ...) are keys of many other
-- dictionaries (configs, batches, registries), so their KeyError counts only when a frame of the traceback
-- shows a checkpoint being indexed: a torch.load(...)[...] or load_state_dict(x[...]) call, or a variable
-- named like a checkpoint (checkpoint, ckpt, ckp, state, weights) subscripted.

local CHECKPOINT_ONLY = { ["pytorch-lightning_version"] = true, state_dict = true, model_state_dict = true, model_state = true, net_state_dict = true,
                          ema_state_dict = true, state_dict_ema = true, optimizer_state_dict = true }

local function indexes_checkpoint(source)
  if source:find("torch.load(", 1, true) or source:find("load_state_dict(", 1, true) then return true end
  for _, name in ipairs({ "checkpoint[", "ckpt[", "ckp[", "state[", "weights[" }) do
    if source:find(name, 1, true) then return true end
  end
  return false
end

-- score: keep the prior for the checkpoint-only names; for a generic name keep it when a frame's source
-- indexes a checkpoint, veto otherwise.
function checkpoint_lookup(ctx)
  local key = ctx.captures.key or ""
  if CHECKPOINT_ONLY[key] then return nil end
  local frames = (ctx.incident and ctx.incident.frames) or {}
  for i = #frames, 1, -1 do
    if indexes_checkpoint(frames[i].source or "") then return nil end
  end
  return false
end

function test_specific_key_alone()
  assert(checkpoint_lookup({ captures = { key = "state_dict" }, incident = { frames = {} }, confidence = 0.85 }) == nil)
end

function test_generic_key_needs_a_checkpoint_frame()
  local frames = { { source = "net.load_state_dict(torch.load(args.ckpt_dir)['model'])" } }
  assert(checkpoint_lookup({ captures = { key = "model" }, incident = { frames = frames }, confidence = 0.85 }) == nil)
  local cfg = { { source = "cfg = config['model']" } }
  assert(checkpoint_lookup({ captures = { key = "model" }, incident = { frames = cfg }, confidence = 0.85 }) == false)
  assert(checkpoint_lookup({ captures = { key = "ema" }, incident = { frames = {} }, confidence = 0.85 }) == false)
end
