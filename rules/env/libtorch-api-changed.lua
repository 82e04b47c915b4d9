-- Lua for rule libtorch-api-changed (rules/LUA_API.md, API version 1).
-- Which C++ API change the message shows, and how to port the code across it.

local READINGS = {
  module_ptr = { "torch::jit::load returns a script::Module by value since LibTorch 1.2 (1.1 and older returned a std::shared_ptr)",
                 "the return type of torch::jit::load",
                 "Declare the module as a value: torch::jit::script::Module module = torch::jit::load(path); and call its methods with '.' instead of '->' (module.forward(inputs), module.to(device))." },
  variant = { "c10's variant helpers (c10::get, c10::get_if, c10::holds_alternative, c10::visit) are gone from recent LibTorch releases, replaced by std::variant",
              "c10's variant",
              "Use the standard ones: std::get, std::get_if, std::holds_alternative, std::visit (include <variant>, C++17)." },
  optim = { "torch::optim's optimizers keep their options per parameter group since LibTorch 1.5 (optimizer.options is gone)",
            "torch::optim's options",
            "Read and set options through the parameter groups: static_cast<torch::optim::AdamOptions&>(optimizer.param_groups()[0].options()).lr(new_lr)." },
  from_blob = { "the old tensor-from-buffer calls (Type::tensor, tensorFromBlob) were removed after LibTorch 1.0",
                "the tensor-from-buffer API",
                "Use torch::from_blob(data, sizes, options) (clone() it if the buffer does not outlive the tensor)." },
  newer = { "the code uses torch::InferenceMode, which LibTorch added in 1.9; the LibTorch in use is older",
            "torch::InferenceMode",
            "Use a LibTorch release of 1.9 or later, or torch::NoGradGuard in its place on an older one." },
  variable = { "tensors and variables merged over LibTorch 1.1 and 1.2, so code written for 1.0 that wraps tensors with torch::autograd::make_variable or copies weights with Tensor::set_data fails on a later release",
               "the variable API",
               "Drop the make_variable wrappers (a tensor is a variable now; call .set_requires_grad() where needed) and copy weights with torch::NoGradGuard and tensor.copy_(...) instead of set_data." },
}

local function kind_of(ctx)
  local c = ctx.captures or {}
  local api = c.api or ""
  local msg = (ctx.incident and ctx.incident.message) or ""
  if api == "InferenceMode" then return "newer" end
  if api == "tensorFromBlob" or api == "tensor" then return "from_blob" end
  if api ~= "" then return "variant" end
  if msg:find("script::Module", 1, true) then return "module_ptr" end
  if msg:find("torch::optim::", 1, true) then return "optim" end
  return "variable"
end

function api_change(ctx)
  local r = READINGS[kind_of(ctx)]
  return { what = r[1], api_name = r[2], fix = r[3] }
end

function test_module_pointer()
  local v = api_change({ captures = {}, incident = { message = "error: conversion from 'torch::jit::script::Module' to non-scalar type" } })
  assert(v.api_name == "the return type of torch::jit::load")
end

function test_variant_and_variable()
  assert(api_change({ captures = { api = "get_if" }, incident = { message = "" } }).api_name == "c10's variant")
  assert(api_change({ captures = {}, incident = { message = "Must not create a new variable from a variable" } }).api_name == "the variable API")
  assert(api_change({ captures = { api = "InferenceMode" } }).api_name == "torch::InferenceMode")
end
