-- Lua for collate-cat-unequal-size (rules/LUA_API.md, API version 1).
-- PyTorch Geometric's Batch.from_data_list concatenates every attribute of the graphs along its __cat_dim__, so a
-- frame in torch_geometric's collate or batch module means graphs whose attributes differ in a dimension that is
-- not the concatenated one.

function graph_collate(ctx)
  local inc = ctx.incident
  for _, f in ipairs(inc and inc.frames or {}) do
    local file = f.file or ""
    if file:find("torch_geometric", 1, true) then return "a frame in " .. file end
  end
  return false
end

function test_graph_frames_choose_the_graph_reading()
  local pyg = { incident = { frames = { { file = "/usr/lib/python3/dist-packages/torch_geometric/data/collate.py" } } } }
  assert(graph_collate(pyg):find("torch_geometric", 1, true))
  assert(graph_collate({ incident = { frames = { { file = "train.py" } } } }) == false)
  assert(graph_collate({ incident = nil }) == false)
end
