-- Lua for incompatible-keys-printed (rules/LUA_API.md, API version 1).
-- Note: [Printed incompatible keys]. load_state_dict(strict=False) returns the names it could not match, and
-- scripts print that result. Missing keys alone are what fine-tuning a new head looks like, and a head swapped
-- for another (missing regressor.*, unexpected classifier.*) is deliberate too. The weights were left out by
-- mistake when the two lists name the same parameters under different prefixes: DataParallel's "module.", a
-- wrapper's "model." or "backbone.". The rule is kept when some missing key and some unexpected key end in the
-- same two name parts (fc.weight and module.fc.weight), and vetoed otherwise.

local function names(list)
  local out = {}
  for k in (list or ""):gmatch("'([^']+)'") do out[#out + 1] = k end
  return out
end

local function tail(key)
  return key:match("([^.]+%.[^.]+)$") or key
end

function same_params_other_prefix(ctx)
  local c = ctx.captures or {}
  local missing, unexpected = names(c.missing), names(c.unexpected)
  if #missing == 0 or #unexpected == 0 then return false end
  local tails = {}
  for _, k in ipairs(unexpected) do tails[tail(k)] = k end
  for _, k in ipairs(missing) do
    local other = tails[tail(k)]
    if other and other ~= k then
      return { confidence = ctx.confidence,
               note = " The checkpoint's " .. other .. " is the model's " .. k .. " under another prefix." }
    end
  end
  return false
end

function test_prefix_kept()
  local r = same_params_other_prefix({ confidence = 0.8, captures = {
    missing = "'fc.weight', 'fc.bias'", unexpected = "'module.fc.weight', 'module.fc.bias'" } })
  assert(type(r) == "table" and r.note:find("module.fc.weight", 1, true))
end

function test_head_swap_and_missing_only_vetoed()
  assert(same_params_other_prefix({ confidence = 0.8, captures = {
    missing = "'regressor.weight', 'regressor.bias'", unexpected = "'classifier.weight', 'classifier.bias'" } }) == false)
  assert(same_params_other_prefix({ confidence = 0.8, captures = { missing = "'head.weight'", unexpected = "" } }) == false)
end
