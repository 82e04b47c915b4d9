-- Lua for dataloader-wait-interrupted (rules/LUA_API.md, API version 1).
--
-- Note: [Stopped while waiting for a batch]. A run that froze gives no error of its own; what people paste
-- is the traceback Ctrl-C printed (ending in KeyboardInterrupt) or that traceback cut short. The main
-- process of a DataLoader with workers spends its waits in one place: the iterator's call that takes the
-- next result off the workers' queue (dataloader.py `self.data_queue.get()` in __next__ / _get_batch in
-- 0.1-0.4, `self._data_queue.get(timeout=timeout)` in _try_get_data from 1.0 on, with the pin-memory
-- thread's loop in _get_data in between). So an incident counts only when
--   * it has no exception of its own (a cut paste) or its exception is KeyboardInterrupt, and
--   * a frame of torch/utils/data/dataloader.py takes from that queue (or is _try_get_data/_get_batch), and
--   * no frame is the DataLoader's worker-death handler (signal_handling.py, _error_if_any_worker_fails):
--     that is a worker that died, which the data.worker_died rules read.
-- The same stop at the end of an epoch: the iterator, out of indices, shuts its workers down
-- (__next__ -> _shutdown_workers -> w.join(), 1.2-2.x) and one of them never exits, so the join waits for good.
-- That counts too, but not from __del__: an iterator collected after a Ctrl-C anywhere in the loop prints
-- the same join from its destructor.
-- A py-spy dump line (`_try_get_data (torch/utils/data/dataloader.py:1310)`) is accepted on its own: py-spy
-- dumps are taken of live, stuck processes.

local function is_loader_file(file)
  return file:find("torch[/\\]utils[/\\]data[/\\]dataloader%.py$") ~= nil
end

function stopped_waiting_for_batch(ctx)
  local inc = ctx.incident
  if not inc then return false end
  local msg = inc.message or ""
  if msg:find("_try_get_data %(") and msg:find("dataloader%.py:%d+%)") then return nil end
  local exc = inc.exception or ""
  if exc ~= "" and exc ~= "KeyboardInterrupt" and not inc.cut then return false end
  local waiting, joining, in_del = false, false, false
  for _, f in ipairs(inc.frames or {}) do
    local file, fn, src = f.file or "", f.func or "", f.source or ""
    if file:find("signal_handling%.py$") or fn == "_error_if_any_worker_fails" then return false end
    if is_loader_file(file) then
      if src:find("data_queue%.get%(") or fn == "_try_get_data" or fn == "_get_batch" then waiting = true end
      if fn == "_shutdown_workers" and src:find("w%.join%(") then joining = true end
      if fn == "__del__" then in_del = true end
    end
  end
  if waiting or (joining and not in_del) then return nil end
  return false
end

function test_cut_in_queue_get()
  local frames = {
    { file = "train.py", func = "<module>", source = "for i, batch in enumerate(loader):" },
    { file = "/x/torch/utils/data/dataloader.py", func = "_try_get_data", source = "data = self._data_queue.get(timeout=timeout)" },
    { file = "/usr/lib/python3.6/queue.py", func = "get", source = "self.not_empty.wait(remaining)" },
  }
  assert(stopped_waiting_for_batch({ incident = { exception = "", cut = true, frames = frames } }) == nil)
  assert(stopped_waiting_for_batch({ incident = { exception = "KeyboardInterrupt", frames = frames } }) == nil)
  assert(stopped_waiting_for_batch({ incident = { exception = "RuntimeError", frames = frames } }) == false)
end

function test_worker_death_handler()
  local frames = {
    { file = "/x/torch/utils/data/dataloader.py", func = "_try_get_data", source = "data = self._data_queue.get(timeout=timeout)" },
    { file = "/x/torch/utils/data/_utils/signal_handling.py", func = "handler", source = "_error_if_any_worker_fails()" },
  }
  assert(stopped_waiting_for_batch({ incident = { exception = "", cut = true, frames = frames } }) == false)
end

function test_other_interrupt()
  local frames = { { file = "train.py", func = "train", source = "loss.backward()" } }
  assert(stopped_waiting_for_batch({ incident = { exception = "KeyboardInterrupt", frames = frames } }) == false)
end

function test_py_spy_line()
  local msg = "_try_get_data (torch/utils/data/dataloader.py:1310)"
  assert(stopped_waiting_for_batch({ incident = { exception = "", message = msg, frames = {} } }) == nil)
end

function test_join_at_epoch_end()
  local frames = {
    { file = "/x/torch/utils/data/dataloader.py", func = "__next__", source = "self._shutdown_workers()" },
    { file = "/x/torch/utils/data/dataloader.py", func = "_shutdown_workers", source = "w.join()" },
    { file = "/usr/lib/python3.7/multiprocessing/popen_fork.py", func = "poll", source = "pid, sts = os.waitpid(self.pid, flag)" },
  }
  assert(stopped_waiting_for_batch({ incident = { exception = "KeyboardInterrupt", frames = frames } }) == nil)
  local in_del = {
    { file = "/x/torch/utils/data/dataloader.py", func = "__del__", source = "self._shutdown_workers()" },
    { file = "/x/torch/utils/data/dataloader.py", func = "_shutdown_workers", source = "w.join()" },
  }
  assert(stopped_waiting_for_batch({ incident = { exception = "KeyboardInterrupt", frames = in_del } }) == false)
end
