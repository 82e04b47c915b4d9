-- Lua for expand-fewer-sizes (rules/LUA_API.md, API version 1).
-- ATen's message (1.x-2.x) names the tensor's shape, the target and both counts; TH's and 0.4's name nothing,
-- so the explanation says only what the message holds.

function sizes_sentence(ctx)
  local c = ctx.captures
  if c.shape and c.ndim then
    return { sizes = "a tensor of shape [" .. c.shape .. "] (" .. c.ndim .. " dimensions) was asked to become [" ..
             c.size .. "], which names only " .. c.given .. "." }
  end
  return { sizes = "the tensor has more dimensions than the target sizes it was given (this release's message names neither)." }
end

function test_aten_message_gives_the_numbers()
  local v = sizes_sentence({ captures = { shape = "3, 2", ndim = "2", size = "4", given = "1" } })
  assert(v.sizes == "a tensor of shape [3, 2] (2 dimensions) was asked to become [4], which names only 1.")
end

function test_th_message_names_nothing()
  assert(sizes_sentence({ captures = {} }).sizes:find("names neither", 1, true))
end
