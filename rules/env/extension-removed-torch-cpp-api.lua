-- Lua for rule extension-removed-torch-cpp-api (rules/LUA_API.md, API version 1).
-- Which removed API the compiler met, the release that removed it and what replaces it.

local THC_FIX = "Drop the THC includes and use ATen's: ATen/cuda/CUDAContext.h for the stream and handles, "
  .. "C10_CUDA_CHECK (or AT_CUDA_CHECK) for THCudaCheck, at::ceil_div (ATen/ceil_div.h) for THCCeilDiv, "
  .. "c10::cuda::CUDACachingAllocator::raw_alloc/raw_delete for THCudaMalloc/THCudaFree, and remove the "
  .. "THCState arguments."

-- kind -> { sentence after "it uses/includes NAME", the name for the hypothesis, the fix, the last torch that had it }
local READINGS = {
  at_check = { ", which torch 1.5 removed (TORCH_CHECK has the same arguments)", "AT_CHECK",
               "Replace every AT_CHECK with TORCH_CHECK (the same arguments).", "1.4 or older" },
  th_arg = { " from TH, the old tensor library that reached extensions through the THC headers torch 1.11 removed",
             "THArgCheck", "Replace THArgCheck(cond, argN, msg) with TORCH_CHECK(cond, msg).", "1.10 or older" },
  th_header = { " from TH, the old tensor library whose headers recent torch releases no longer ship (gone with THC's in the 1.11-1.12 releases)",
                "the TH and THC headers",
                "Drop the TH/THC includes (torch/extension.h and ATen's headers provide what is still needed) and replace THArgCheck with TORCH_CHECK.",
                "1.10 or older" },
  thc = { " from THC, the old CUDA backend that torch 1.11 removed", "the THC headers and functions", THC_FIX, "1.10 or older" },
}

function removed_api(ctx)
  local c = ctx.captures or {}
  local api, header = c.api or "", c.header or ""
  local kind = "thc"
  if api == "AT_CHECK" then kind = "at_check"
  elseif api == "THArgCheck" then kind = "th_arg"
  elseif header:sub(1, 3) == "TH/" then kind = "th_header" end
  local name = header ~= "" and header or (api ~= "" and api or "THC")
  local r = READINGS[kind]
  return { what = (header ~= "" and "it includes " or "it uses ") .. name .. r[1], api_name = r[2],
           replacement = r[3], older_torch = r[4] }
end

function test_at_check()
  local v = removed_api({ captures = { api = "AT_CHECK" } })
  assert(v.what:find("1.5", 1, true) and v.replacement:find("TORCH_CHECK", 1, true))
end

function test_thc_header_and_symbol()
  local v = removed_api({ captures = { header = "THC/THC.h" } })
  assert(v.what:find("THC/THC.h", 1, true) and v.what:find("1.11", 1, true))
  local s = removed_api({ captures = { api = "THCudaCheck" } })
  assert(s.what:find("THCudaCheck", 1, true) and s.older_torch == "1.10 or older")
  local t = removed_api({ captures = { header = "TH/TH.h" } })
  assert(t.what:find("TH/TH.h", 1, true) and t.api_name == "the TH and THC headers")
  local a = removed_api({ captures = { api = "THArgCheck" } })
  assert(a.replacement:find("TORCH_CHECK", 1, true))
end
