-- Lua for nll-target-assertion-text (rules/LUA_API.md, API version 1).
-- The condition alone is this rule's; a whole kernel line (`FILE.cu:LINE: [kernel: ]block: [...], thread:
-- [...] Assertion `t >= 0 && t < n_classes` failed.`) is kernel-assert-target-line's, which says the same
-- with the kernel's position. On such a line this rule steps aside, so the list does not show one
-- diagnosis twice; a line wrapped before `failed.` keeps it, since the kernel rule cannot read that one.

local KERNEL_LINE = "%w+%.cu:%d+: [^\n]-block: %[[%d,]+%], thread: %[[%d,]+%] Assertion .t >= 0 && t < n_classes. failed"

-- score: false (not this rule's) on a whole kernel line, else unchanged.
function unless_kernel_line(ctx)
  local message = (ctx.incident or {}).message or ""
  if message:find(KERNEL_LINE) then return false end
  return nil
end

function test_kernel_line_is_the_kernel_rules()
  local line = "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed."
  assert(unless_kernel_line({ incident = { message = line } }) == false)
  local windows = "C:\\w\\1\\s\\windows\\pytorch\\aten\\src\\THCUNN\\ClassNLLCriterion.cu:106: block: [0,0,0], thread: [23,0,0] Assertion `t >= 0 && t < n_classes` failed."
  assert(unless_kernel_line({ incident = { message = windows } }) == false)
end

function test_quoted_or_wrapped_condition_stays()
  assert(unless_kernel_line({ incident = { message = "Assertion `t >= 0 && t < n_classes` failed." } }) == nil)
  local wrapped = "float]: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes`"
  assert(unless_kernel_line({ incident = { message = wrapped } }) == nil)
  assert(unless_kernel_line({}) == nil)
end
