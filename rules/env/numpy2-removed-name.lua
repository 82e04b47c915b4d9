-- Lua for numpy2-removed-name (rules/LUA_API.md, API version 1).
-- NumPy 2.0 removed names from its main namespace (np.NaN, np.float_) and methods from ndarray
-- (arr.ptp(), arr.itemset(), arr.newbyteorder()); the advice spells the one the message names.

-- values: {used}, the removed name as code writes it.
function removed_use(ctx)
  local name = ctx.captures.name or ""
  if ctx.captures.owner == "ndarray" then
    return { used = "the ndarray method ." .. name .. "()" }
  end
  if ctx.captures.owner == "numpy.core.numeric" then
    -- the 1.x location of a warning class that NumPy 2 keeps only in numpy.exceptions
    return { used = "numpy.core.numeric." .. name .. " (now numpy.exceptions." .. name .. ")" }
  end
  return { used = "np." .. name }
end

function test_namespace_name()
  local v = removed_use({ captures = { name = "NaN" } })
  assert(v.used == "np.NaN", v.used)
end

function test_ndarray_method()
  local v = removed_use({ captures = { name = "ptp", owner = "ndarray" } })
  assert(v.used == "the ndarray method .ptp()", v.used)
end

function test_core_numeric_warning()
  local v = removed_use({ captures = { name = "ComplexWarning", owner = "numpy.core.numeric" } })
  assert(v.used == "numpy.core.numeric.ComplexWarning (now numpy.exceptions.ComplexWarning)", v.used)
end
