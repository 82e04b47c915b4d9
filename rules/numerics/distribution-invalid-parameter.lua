-- Lua for distribution-invalid-parameter (rules/LUA_API.md, API version 1).
-- torch.distributions names the distribution, the parameter's shape and the constraint in its message in
-- releases after 1.9 ("Expected parameter loc (Tensor of shape (4, 2)) of distribution Normal(...) to satisfy the
-- constraint Real(), but found invalid values"); up to 1.9 it said only "The parameter loc has invalid values".
-- The explanation says what the message gives and no more.

-- values: {arg}, what the check requires of the parameter; {limits}, the constraint (or "its constraint").
function described(ctx)
  local c = ctx.captures or {}
  if c.param == "value" and (c.dist or "") ~= "" then
    -- Distribution._validate_sample: the value scored by log_prob / cdf / icdf, read only when it is nan or inf
    return { arg = string.format("the value given to %s's log_prob, cdf or icdf (shape [%s]) must lie in its support %s, and the printed entries are nan or inf, so whatever computed that value (the network's output, or the data) is already non-finite",
                                 c.dist, c.shape or "", c.constraint or ""),
             limits = c.constraint or "its support" }
  end
  if (c.dist or "") ~= "" then
    return { arg = string.format("the %s of %s (shape [%s]) must satisfy %s, and some entries do not (the tensor printed below the message shows them)",
                                 c.param or "parameter", c.dist, c.shape or "", c.constraint or "its constraint"),
             limits = c.constraint or "its constraint" }
  end
  return { arg = string.format("the %s must satisfy its constraint, and some entries do not (releases up to 1.9 name neither the distribution nor the constraint, and print no values)",
                               c.param or "parameter"),
           limits = "its constraint" }
end

function test_value_argument()
  local v = described({ captures = { param = "value", dist = "Normal", shape = "65536, 4", constraint = "Real()" } })
  assert(v.arg:find("the value given to Normal's log_prob, cdf or icdf (shape [65536, 4]) must lie in its support Real()", 1, true), v.arg)
  assert(v.limits == "Real()")
end

function test_both_wordings()
  local new = described({ captures = { param = "scale", dist = "Normal", shape = "4, 2", constraint = "GreaterThan(lower_bound=0.0)" } })
  assert(new.arg:find("the scale of Normal (shape [4, 2]) must satisfy GreaterThan(lower_bound=0.0), and some entries do not", 1, true), new.arg)
  assert(new.limits == "GreaterThan(lower_bound=0.0)")
  local old = described({ captures = { param = "loc" } })
  assert(old.arg:find("the loc must satisfy its constraint, and some entries do not (releases up to 1.9", 1, true) and old.limits == "its constraint", old.arg)
end
