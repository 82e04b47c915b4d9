-- Lua for loader-hang-in-words (rules/LUA_API.md, API version 1).
--
-- Note: [A loader hang in words] (the YAML says which sentences the patterns read). Most of them name the
-- loader, num_workers, an epoch boundary or a Chinese loader word themselves, and are kept as they are. Two
-- patterns read halves of one sentence split over lines: a hang at the end of its line ("gets stuck on
-- training,") and a `for ... in ...loader...:` loop line. The loop line alone is no report of a hang (it is
-- in every training script), so it never answers; the hang half answers only when the input also has such a
-- loop line (or another line naming the loader).

local function lower(s) return string.lower(s or "") end

local function names_loader(m)
  return m:find("loader", 1, true) or m:find("num_workers", 1, true) or m:find("num-workers", 1, true)
      or m:find("workers_per_gpu", 1, true) or m:find("worker process", 1, true) or m:find("epoch", 1, true)
      or m:find("数据加载", 1, true)
end

local function is_loop_line(m)
  return m:match("^%s*for%s") ~= nil and m:find("loader", 1, true) ~= nil and m:match(":%s*$") ~= nil
end

function hang_sentence_with_loader(ctx)
  local inc = ctx.incident
  if not inc then return false end
  local m = lower(inc.message)
  if is_loop_line(m) then return false end
  if names_loader(m) then return nil end
  for _, other in ipairs(ctx.incidents or {}) do
    if other.index ~= inc.index and names_loader(lower(other.message)) then return nil end
  end
  return false
end

function test_loop_line_alone()
  local inc = { index = 1, message = "for images, labels in iter(train_loader):" }
  assert(hang_sentence_with_loader({ incident = inc, incidents = { inc } }) == false)
end

function test_split_sentence()
  local hang = { index = 1, message = "Training on host or jetson gets stuck on training," }
  local loop = { index = 2, message = "for images, labels in iter(train_loader):" }
  assert(hang_sentence_with_loader({ incident = hang, incidents = { hang, loop } }) == nil)
  assert(hang_sentence_with_loader({ incident = hang, incidents = { hang } }) == false)
end

function test_named_in_sentence()
  local inc = { index = 1, message = "if I set the `num_workers` to > 0, training freezes during the first epoch." }
  assert(hang_sentence_with_loader({ incident = inc, incidents = { inc } }) == nil)
end
