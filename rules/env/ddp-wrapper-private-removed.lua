-- Lua for rule ddp-wrapper-private-removed (rules/LUA_API.md, API version 1).
-- The removed member decides the release; the wrapper's class name decides which framework to upgrade.

local members = {
  _sync_params = { removed = "1.11", last = "1.10" },
  _sync_params_and_buffers = { removed = "1.11 (renamed _sync_module_states)", last = "1.10" },
  _use_replicated_tensor_module = { removed = "2.0 (it existed only in 1.12-1.13)", last = "1.13" },
  _specify_ddp_gpu_num = { removed = "1.9", last = "1.8" },
}

local function framework(wrapper, name)
  if wrapper:find("^MM") then
    if name == "_use_replicated_tensor_module" then
      return "mmcv 2.x with mmengine (mmcv 1.x's MMDistributedDataParallel reads this member under torch 2.x; a patched 1.7 reads it with getattr(..., False))"
    end
    return "a mmcv-full released after March 2022 (mmcv PR #1816 checks the torch version)"
  elseif wrapper:find("^Lightning") then
    return "a pytorch_lightning release newer than 1.1, whose DDP wrapper no longer copies DistributedDataParallel.forward"
  elseif wrapper == "SyncBatchNorm" then
    return "a mmcv-full released after June 2021 (mmcv PR #1138), or the framework release that dropped the _specify_ddp_gpu_num call"
  end
  return "a release of the trainer that calls the member's successor (_sync_module_states)"
end

function member_facts(ctx)
  local name = ctx.captures.name or ""
  local m = members[name] or { removed = "a newer release", last = "the release the code was written for" }
  return { removed = m.removed, last = m.last, package = framework(ctx.captures.wrapper or "", name) }
end

function test_mmcv_sync_params()
  local v = member_facts({ captures = { wrapper = "MMDistributedDataParallel", name = "_sync_params" } })
  assert(v.removed == "1.11" and v.package:find("PR #1816"))
end

function test_lightning_wrapper()
  local v = member_facts({ captures = { wrapper = "LightningDistributedDataParallel", name = "_sync_params" } })
  assert(v.package:find("pytorch_lightning"))
end

function test_replicated_tensor_under_torch2()
  local v = member_facts({ captures = { wrapper = "MMDistributedDataParallel", name = "_use_replicated_tensor_module" } })
  assert(v.last == "1.13" and v.package:find("mmengine"))
end
