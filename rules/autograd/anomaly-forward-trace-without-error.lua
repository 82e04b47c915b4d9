-- Lua for anomaly-forward-trace-without-error (rules/LUA_API.md, API version 1).
-- The warning is only a pointer; the error anomaly mode raised after it says what went wrong. When the
-- log holds that error (any other incident with a message), the rules that read it answer instead.

-- The incidents that carry an error message: how many, and the first one. Read once per input
-- (triage.per_input), since every matching incident's call gets the same ctx.incidents
-- (rules/LUA_API.md "Reading every incident").
local scans = 0  -- how often the incidents were read (test_incidents_read_once)

local function errors(incidents)
  local n, first = 0, nil
  for _, inc in ipairs(incidents) do
    -- a traceback cut before its error line (its message a source line) carries no error message
    if inc.kind ~= "signal" and (inc.message or "") ~= "" and (inc.exception or "") ~= "" and not inc.cut then
      n = n + 1
      first = first or inc
    end
  end
  scans = scans + 1
  return n, first
end

-- score: veto when another incident carries an error message.
function only_when_the_error_is_missing(ctx)
  local n, first = triage.per_input(ctx, errors)
  -- another one than this incident: two of them, or one that is not this one
  if n >= 2 or (n == 1 and first.index ~= (ctx.incident and ctx.incident.index)) then return false end
  return nil
end

-- values: {node} (the backward node, 1.10+) and {line} (the innermost forward source line shown).
function forward_line(ctx)
  local node = ctx.captures.grad_fn
  local out = { node = (node and node ~= "") and (" (" .. node .. ")") or "", line = "" }
  local message = (ctx.incident and ctx.incident.message) or ""
  local last
  for src in message:gmatch("\n%s%s%s%s(%S[^\n]*)") do last = src end
  local frames = (ctx.incident and ctx.incident.frames) or {}
  local f = frames[#frames]
  if f and f.source and f.source ~= "" then last = f.source end
  if last then out.line = " (" .. last .. ")" end
  return out
end

function test_veto_when_the_error_is_there()
  local warn = { index = 1, kind = "log_line", exception = "", message = "Traceback of forward call that caused the error:" }
  local err = { index = 2, kind = "traceback", exception = "RuntimeError", message = "Function 'DivBackward0' returned nan values in its 1th output." }
  assert(only_when_the_error_is_missing({ incident = warn, incidents = { warn, err } }) == false)
  assert(only_when_the_error_is_missing({ incident = warn, incidents = { warn } }) == nil)
end

function test_a_cut_traceback_does_not_veto()
  -- a notebook's traceback cut before its error line: its header's type, a source line for message
  local warn = { index = 1, kind = "log_line", exception = "", message = "Traceback of forward call that caused the error:" }
  local cut = { index = 2, kind = "traceback", exception = "RuntimeError", cut = true, message = "Variable._execution_engine.run_backward(" }
  assert(only_when_the_error_is_missing({ incident = warn, incidents = { warn, cut } }) == nil)
end

function test_the_error_itself_does_not_veto()
  local err = { index = 1, kind = "traceback", exception = "RuntimeError", message = "Traceback of forward call that caused the error:" }
  assert(only_when_the_error_is_missing({ incident = err, incidents = { err } }) == nil)
end

function test_incidents_read_once()
  local warn = { index = 1, kind = "log_line", exception = "", message = "Traceback of forward call that caused the error:" }
  local incidents = { warn, warn, warn }
  local before = scans
  for _ = 1, 3 do assert(only_when_the_error_is_missing({ incident = warn, incidents = incidents }) == nil) end
  assert(scans == before + 1, "read once per input, not per call: " .. (scans - before))
end

function test_forward_line_from_frames()
  local ctx = { captures = { grad_fn = "SqrtBackward0" },
                incident = { message = "", frames = { { source = "train()" }, { source = "y = torch.sqrt(d)" } } } }
  local v = forward_line(ctx)
  assert(v.node == " (SqrtBackward0)" and v.line == " (y = torch.sqrt(d))", v.line)
end
