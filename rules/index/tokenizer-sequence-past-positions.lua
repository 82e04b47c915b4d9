-- Lua for tokenizer-sequence-past-positions (rules/LUA_API.md, API version 1).
-- Note: [Sequence past the position table]. The tokenizer's warning says a text is longer than the model's
-- positions; it is a diagnosis only when the same input shows the failure it predicts:
--   another incident is an index failure (an embedding's "index out of range", a kernel's index or
--   bounds assertion, a device-side assert)                          -> kept, with a note naming it;
--   none                                                             -> vetoed (tokenizing long texts to
--                                                                       count or chunk them is harmless).

local FAILURES = {
  "index out of range",
  "device-side assert triggered",
  "srcIndex < srcSelectDimSize",
  "index out of bounds",
  "indexSelectLargeIndex",
  "indexSelectSmallIndex",
}

local scans = 0  -- runs of failure_in, for test_incidents_read_once

-- The first index failure among the incidents (its message's first line), or nil.
local function failure_in(incidents)
  scans = scans + 1
  for _, inc in ipairs(incidents) do
    local m = inc.message or ""
    for _, f in ipairs(FAILURES) do
      if m:find(f, 1, true) then return (m:match("^[^\n]*")) end
    end
    for _, c in ipairs(inc.context or {}) do
      for _, f in ipairs(FAILURES) do
        if c:find(f, 1, true) then return (c:match("^[^\n]*")) end
      end
    end
  end
  return nil
end

function index_failure_follows(ctx)
  local failure = triage.per_input(ctx, failure_in)
  if not failure then return false end
  return { confidence = ctx.confidence,
           note = " Read together with the failure in the same input: " .. failure:sub(1, 120) .. "." }
end

local WARN = "Token indices sequence length is longer than the specified maximum sequence length for this model (600 > 512)."

local function ctx_with(incidents)
  local row = { kind = "log_line", message = WARN }
  local all = { row }
  for _, i in ipairs(incidents or {}) do all[#all + 1] = i end
  return { confidence = 0.9, incident = row, incidents = all }
end

function test_kept_beside_an_index_failure()
  local r = index_failure_follows(ctx_with({ { kind = "traceback", message = "index out of range in self" } }))
  assert(r.confidence == 0.9 and r.note:find("index out of range in self", 1, true), r.note)
  local s = index_failure_follows(ctx_with({ { kind = "traceback", message = "CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported" } }))
  assert(s.note:find("device-side assert triggered.", 1, true) and not s.note:find("asynchronously", 1, true), s.note)
end

function test_vetoed_alone_or_beside_another_failure()
  assert(index_failure_follows(ctx_with({})) == false)
  assert(index_failure_follows(ctx_with({ { kind = "traceback", message = "CUDA out of memory. Tried to allocate 20.00 MiB" } })) == false)
end

function test_incidents_read_once()
  local ctx = ctx_with({ { kind = "traceback", message = "index out of range in self" } })
  local before = scans
  for _ = 1, 3 do assert(type(index_failure_follows(ctx)) == "table") end
  assert(scans == before + 1, "read " .. (scans - before) .. " times")
end
