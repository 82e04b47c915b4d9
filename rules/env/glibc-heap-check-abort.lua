-- Lua for glibc-heap-check-abort (rules/LUA_API.md, API version 1).
-- Note: [Heap abort mid-run] (in the rule's YAML). Library clashes abort while packages are imported or when
-- the interpreter exits; an abort after the run printed its loss is as often a native memory bug (a decoder in a
-- DataLoader worker, an extension's kernel) and the log cannot tell them apart: the candidate is set aside under the
-- abstention threshold, with the reason.

local MID_RUN = 0.3

local function printed_series(metrics)
  if not metrics then return nil end
  for _, name in ipairs({ "loss", "val_loss", "acc", "val_acc", "lr" }) do
    local s = metrics[name]
    if s and (s.count or 0) >= 2 then return name end
  end
  return nil
end

function mid_run_lowered(ctx)
  local name = printed_series(ctx.metrics)
  if not name then return nil end
  return { confidence = math.min(ctx.confidence, MID_RUN),
           note = " Set aside: the run printed " .. name .. " values before the abort, so it died mid-run, not at an import or at exit where library clashes show; a memory bug in native code is as likely." }
end

function test_metrics_lower_the_candidate()
  local r = mid_run_lowered({ confidence = 0.6, metrics = { loss = { count = 4, values = { 0.5, 0.4, 0.4, 0.3 } } } })
  assert(r.confidence == MID_RUN and r.note:find("loss", 1, true), r.note)
end

function test_no_metrics_keeps_the_prior()
  assert(mid_run_lowered({ confidence = 0.6, metrics = {} }) == nil)
  assert(mid_run_lowered({ confidence = 0.6 }) == nil)
end
