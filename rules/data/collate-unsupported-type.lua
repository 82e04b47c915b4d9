-- Lua for collate-unsupported-type (rules/LUA_API.md, API version 1).
-- default_collate names the type it could not batch, and the type says where the sample came from: None (a
-- sample that was not produced), a graph library's data object (PyG, DGL), an OpenMMLab data sample, a Dataset
-- object, a NumPy string dtype ("<U14", "|S8"), or anything else (an image object, a custom record). Each
-- hypothesis is kept for its kind of type only.

local function type_of(ctx)
  return ctx.captures.type or ""
end

function none_sample(ctx)
  return type_of(ctx):find("NoneType", 1, true) ~= nil
end

function graph_object(ctx)
  local t = type_of(ctx)
  return t:find("torch_geometric.", 1, true) ~= nil or t:find("dgl.", 1, true) ~= nil or t:find("DGLGraph", 1, true) ~= nil
end

function framework_sample(ctx)
  local t = type_of(ctx)
  return t:find("mmdet.", 1, true) ~= nil or t:find("mmengine.", 1, true) ~= nil or t:find("mmseg.", 1, true) ~= nil or
         t:find("mmpose.", 1, true) ~= nil or t:find("mmaction.", 1, true) ~= nil or t:find("mmocr.", 1, true) ~= nil
end

function dataset_object(ctx)
  return type_of(ctx):match("Dataset'>%s*$") ~= nil
end

-- NumPy's dtype strings for text: "<U14" (unicode), "|S8" / "<S8" (bytes)
function numpy_strings(ctx)
  return type_of(ctx):match("^[<>|=]?[US]%d+%s*$") ~= nil
end

function plain_object(ctx)
  return not (none_sample(ctx) or graph_object(ctx) or framework_sample(ctx) or dataset_object(ctx) or numpy_strings(ctx))
end

local function ctx_of(t) return { captures = { type = t } } end

function test_each_type_gets_its_reading()
  assert(graph_object(ctx_of("<class 'torch_geometric.data.data.Data'>")))
  assert(framework_sample(ctx_of("<class 'mmdet.structures.det_data_sample.DetDataSample'>")))
  assert(dataset_object(ctx_of("<class 'dataloader.GTEADataset'>")))
  assert(numpy_strings(ctx_of("<U14")) and numpy_strings(ctx_of("|S8")))
  assert(none_sample(ctx_of("<class 'NoneType'>")))
  assert(plain_object(ctx_of("<class 'PIL.Image.Image'>")))
  assert(not plain_object(ctx_of("<U14")) and not numpy_strings(ctx_of("<class 'PIL.Image.Image'>")))
end
