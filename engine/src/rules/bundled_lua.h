// The bundled rules' Lua files compiled at build time (Note: [Bundled rule bytecode] in lua_runtime.cc).
#pragma once

#include <string_view>

namespace triage {

// The build's bytecode of the bundled .lua file whose bytes are exactly `source`, compiled under the
// chunk name "=0" with debug information; empty when no bundled file has these bytes (or the build
// made no bytecode).
std::string_view BundledLuaBytecode(std::string_view source);

}  // namespace triage
