-- Lua for nccl-error (rules/LUA_API.md, API version 1).
-- {at}: where NCCL failed. ProcessGroupNCCL's message names the file and line; torch.cuda.nccl's
-- ("NCCL Error N: ...", used by nn.DataParallel) names no place.

function where_values(ctx)
  local where = ctx.captures.where or ""
  if where ~= "" then return { at = " at " .. where } end
  if (ctx.captures.code or "") ~= "" then
    return { at = " in torch.cuda.nccl (the collectives of nn.DataParallel and torch.cuda.comm)" }
  end
  return { at = "" }
end

function test_place_or_module()
  assert(where_values({ captures = { where = "ProcessGroupNCCL.cpp:1269" } }).at == " at ProcessGroupNCCL.cpp:1269")
  assert(where_values({ captures = { code = "2" } }).at:find("DataParallel", 1, true))
  assert(where_values({ captures = {} }).at == "")
end
