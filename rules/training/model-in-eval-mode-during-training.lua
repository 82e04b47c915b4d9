-- Words the evidence: the first training line that reported training=False and how many followed.

function mode_evidence(ctx)
  local msg = ctx.incident.message or ""
  local first = msg:match("^[^\n]*") or msg
  if #first > 160 then first = first:sub(1, 157) .. "..." end
  local n = ctx.incident.count or 1
  local module = ctx.captures.module
  return {
    first = '"' .. first .. '"',
    scope = (module and module ~= "") and module or "layers",
    count = n > 1 and (n .. " training lines in a row report it.") or "",
  }
end

function test_words_first_line()
  local v = mode_evidence({ captures = {}, incident = { message = "epoch=1 phase=train model.training=False\nepoch=1 step=8 phase=train model.training=False", count = 2 } })
  assert(v.first == '"epoch=1 phase=train model.training=False"', v.first)
  assert(v.scope == "layers" and v.count:find("2 training lines", 1, true))
end
