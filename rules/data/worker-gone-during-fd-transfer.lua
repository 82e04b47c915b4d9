-- Lua for worker-gone-during-fd-transfer (rules/LUA_API.md, API version 1).

-- when: the frames are those of torch 0.4's DataLoader iterator (_DataLoaderIter in dataloader.py): its
-- _get_batch / _process_next_batch, its __del__ -> _shutdown_workers, or __next__ reading
-- "idx, batch = self.data_queue.get()" (1.0 renamed these to _get_data / _try_get_data / _process_data).
-- The evidence names the frame.
local OLD = { _get_batch = true, _process_next_batch = true, _shutdown_workers = true, __del__ = true }

function old_dataloader(ctx)
  local inc = ctx.incident
  for _, f in ipairs((inc and inc.frames) or {}) do
    local file, fn, src = f.file or "", f.func or "", f.source or ""
    if file:find("dataloader%.py$") and (OLD[fn] or src:find("idx, batch = self.data_queue.get()", 1, true)) then
      return "the frames are torch 0.4's DataLoader iterator (" .. fn .. " in dataloader.py)"
    end
  end
  return false
end

function test_shutdown_frames()
  local frames = {
    { file = "/x/torch/utils/data/dataloader.py", func = "__del__" },
    { file = "/x/torch/utils/data/dataloader.py", func = "_shutdown_workers" },
    { file = "/x/torch/multiprocessing/reductions.py", func = "rebuild_storage_fd" },
  }
  assert(old_dataloader({ incident = { frames = frames } }))
end

function test_old_next_frame()
  local frames = {
    { file = "/x/torch/utils/data/dataloader.py", func = "__next__", source = "idx, batch = self.data_queue.get()" },
  }
  assert(old_dataloader({ incident = { frames = frames } }))
end

function test_training_loop_frames()
  local frames = {
    { file = "train.py", func = "train" },
    { file = "/x/torch/utils/data/dataloader.py", func = "_try_get_data", source = "data = self._data_queue.get(timeout=timeout)" },
    { file = "/x/torch/multiprocessing/reductions.py", func = "rebuild_storage_fd" },
  }
  assert(old_dataloader({ incident = { frames = frames } }) == false)
end
