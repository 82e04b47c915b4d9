-- Lua for weights-only-not-a-pickle (rules/LUA_API.md, API version 1).
-- torch.load's weights-only unpickler reads the file one pickle opcode at a time and raises
-- "Unsupported operand N" with N the value of the byte it could not dispatch
-- (torch/_weights_only_unpickler.py). Below is every opcode of pickle protocols 0-5 (Python's
-- pickletools.opcodes). A byte outside that set is no pickle instruction at all: the file is not a
-- checkpoint, and the byte (the first one torch.load read) says what it is instead. A byte inside the set
-- is a real instruction the restricted unpickler does not implement: weights-only-unsupported-operand.

local OPCODES = {
  [40]=true, [41]=true, [46]=true, [48]=true, [49]=true, [50]=true, [66]=true, [67]=true, [70]=true,
  [71]=true, [73]=true, [74]=true, [75]=true, [76]=true, [77]=true, [78]=true, [80]=true, [81]=true,
  [82]=true, [83]=true, [84]=true, [85]=true, [86]=true, [88]=true, [93]=true, [97]=true, [98]=true,
  [99]=true, [100]=true, [101]=true, [103]=true, [104]=true, [105]=true, [106]=true, [108]=true, [111]=true,
  [112]=true, [113]=true, [114]=true, [115]=true, [116]=true, [117]=true, [125]=true, [128]=true, [129]=true,
  [130]=true, [131]=true, [132]=true, [133]=true, [134]=true, [135]=true, [136]=true, [137]=true, [138]=true,
  [139]=true, [140]=true, [141]=true, [142]=true, [143]=true, [144]=true, [145]=true, [146]=true, [147]=true,
  [148]=true, [149]=true, [150]=true, [151]=true, [152]=true
}

-- What a file starting with that byte usually is (the same first bytes as checkpoint-invalid-load-key).
local KINDS = {
  [60] = "an HTML or XML page ('<')",
  [118] = "a git-lfs pointer file ('v' of \"version https://git-lfs...\")",
  [123] = "a JSON file ('{')",
  [10] = "a text file (a newline)",
  [0] = "a zero-filled or partly written file (a zero byte)",
}

local function operand(ctx) return tonumber(ctx.captures.operand or "") end

-- values: {key}, the byte as a reader would see it, and {kind}, the file it points at.
function byte_meaning(ctx)
  local n = operand(ctx)
  if not n then return { key = "?", kind = "not a PyTorch checkpoint" } end
  local key
  if n >= 33 and n <= 126 then key = string.format("'%s' (%d)", string.char(n), n)
  else key = string.format("byte %d (0x%02x)", n, n) end
  return { key = key, kind = KINDS[n] or "not a PyTorch checkpoint (no pickle starts with this byte)" }
end

-- score: this rule holds only when the byte is no pickle opcode.
function not_an_opcode(ctx)
  local n = operand(ctx)
  if not n or n > 255 or OPCODES[n] then return false end
  return nil
end

function test_bytes()
  assert(not_an_opcode({ captures = { operand = "60" } }) == nil)
  assert(not_an_opcode({ captures = { operand = "118" } }) == nil)
  assert(not_an_opcode({ captures = { operand = "71" } }) == false)   -- BINFLOAT
  assert(not_an_opcode({ captures = { operand = "149" } }) == false)  -- FRAME
  assert(not_an_opcode({ captures = { operand = "999" } }) == false)
  local v = byte_meaning({ captures = { operand = "118" } })
  assert(v.key == "'v' (118)" and v.kind:find("git-lfs", 1, true), v.key)
  assert(byte_meaning({ captures = { operand = "10" } }).key == "byte 10 (0x0a)")
end
