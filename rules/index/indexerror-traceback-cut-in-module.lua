-- Lua for indexerror-traceback-cut-in-module (rules/LUA_API.md, API version 1).
-- A cut traceback's type comes only from IPython's header (Note: [Cut IPython tracebacks] in
-- engine/src/log/formats/python_traceback.cc); without one the rule says nothing.

function type_from_header(ctx)
  if (ctx.incident.exception or "") == "" then return false end
  return nil
end

function test_type_from_header()
  assert(type_from_header({ incident = { exception = "IndexError" } }) == nil)
  assert(type_from_header({ incident = { exception = "" } }) == false)
end
