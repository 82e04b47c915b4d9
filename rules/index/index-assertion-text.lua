-- Lua for index-assertion-text (rules/LUA_API.md, API version 1).
-- The quoted condition is this rule's; a whole kernel line with its quotes intact
-- (`FILE.cu:LINE: [kernel: ]block: [...], thread: [...] Assertion `COND` failed.`, or ROCm's
-- `FILE.hip:LINE: KERNEL: Device-side assertion `COND' failed.`) is kernel-assert-index-line's, which says
-- the same with the kernel's position, so this rule steps aside there. A kernel line whose quotes a paste
-- lost is kept: only the generic kernel-assert-line reads that one, without the index reading.

local WHOLE_LINES = {
  "%.cu:%d+: [^\n]-block: %[[%d,]+%], thread: %[[%d,]+%] Assertion [`'\"]",
  "%.hip:%d+: [^\n]-Device%-side assertion [`'\"]",
}

-- score: false (not this rule's) on a whole kernel line, else unchanged.
function unless_kernel_line(ctx)
  local message = (ctx.incident or {}).message or ""
  for _, p in ipairs(WHOLE_LINES) do
    if message:find(p) then return false end
  end
  return nil
end

function test_whole_lines_are_the_kernel_rules()
  local cuda = "../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [311,0,0], thread: [32,0,0] Assertion `srcIndex < srcSelectDimSize` failed."
  assert(unless_kernel_line({ incident = { message = cuda } }) == false)
  local rocm = "/pytorch/aten/src/ATen/native/hip/Indexing.hip:1292: indexSelectLargeIndex: Device-side assertion `srcIndex < srcSelectDimSize' failed."
  assert(unless_kernel_line({ incident = { message = rocm } }) == false)
end

function test_quoted_or_bare_condition_stays()
  assert(unless_kernel_line({ incident = { message = "Assertion `srcIndex < srcSelectDimSize` failed" } }) == nil)
  local lost = "/x/Indexing.cu:702: indexSelectLargeIndex: block: [176,0,0], thread: [21,0,0] Assertion srcIndex < srcSelectDimSize failed."
  assert(unless_kernel_line({ incident = { message = lost } }) == nil)
  assert(unless_kernel_line({}) == nil)
end
