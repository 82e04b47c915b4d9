-- Words the parameter list that DDP prints after the message (captured by the optional groups of the
-- pattern): names with TORCH_DISTRIBUTED_DEBUG=INFO/DETAIL, indices otherwise, nothing in a cut paste.

local function name_lookup(indices)
  local list = {}
  for i in indices:gmatch("%d+") do list[#list + 1] = i end
  return "names = [n for n, p in model.named_parameters() if p.requires_grad]; print([names[i] for i in ("
      .. table.concat(list, ", ") .. ",)]) names the parameters at the reported indices."
end

function unused_list(ctx)
  local c = ctx.captures
  if c.names and c.names ~= "" then
    return {
      unused = "Rank " .. (c.rank or "?") .. " names them: " .. c.names .. ".",
      lookup = "the error already names them (" .. c.names .. ").",
    }
  end
  if c.indices and c.indices ~= "" then
    return {
      unused = "Rank " .. c.rank .. " reports them by index: " .. c.indices
          .. " (positions among the parameters that require grad, in model.named_parameters() order;"
          .. " TORCH_DISTRIBUTED_DEBUG=DETAIL prints their names).",
      lookup = name_lookup(c.indices),
    }
  end
  return {
    unused = "This text does not include the list that follows the message (1.9 and later print"
        .. " \"Parameter indices which did not receive grad for rank N: ...\" right after it).",
    lookup = "rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL to have the error name them.",
  }
end

function test_names_win()
  local v = unused_list({ captures = { names = "expert_image.bias, expert_image.weight", rank = "1", indices = "4 5" } })
  assert(v.unused:find("expert_image.bias, expert_image.weight", 1, true))
end

function test_indices_lookup()
  local v = unused_list({ captures = { rank = "0", indices = "2 3" } })
  assert(v.unused:find("by index: 2 3", 1, true), v.unused)
  assert(v.lookup:find("for i in (2, 3,)", 1, true), v.lookup)
end

function test_cut_paste()
  local v = unused_list({ captures = {} })
  assert(v.unused:find("does not include", 1, true))
end
