// The bundled rules' Lua compiled at build time (Note: [Bundled rule bytecode] in
// engine/src/rules/lua_runtime.cc): the table's bytecode is what this program's Lua makes of the file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <lua.hpp>

#include "rules/bundled_lua.h"
#include "source_paths.h"

namespace triage {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> BundledLuaFiles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(TRIAGE_SOURCE_DIR) / "rules")) {
    if (e.is_regular_file() && e.path().extension() == ".lua") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int Append(lua_State*, const void* p, size_t size, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(p), size);
  return 0;
}

// What LoadChunks' own compile of `source` as a rule's first chunk would make, dumped with its debug
// information; empty when it does not compile.
std::string CompiledHere(const std::string& source) {
  lua_State* L = luaL_newstate();
  std::string out;
  if (luaL_loadbufferx(L, source.data(), source.size(), "=0", "t") == LUA_OK) lua_dump(L, Append, &out, 0);
  lua_close(L);
  return out;
}

TEST(BundledRuleBytecode, EveryBundledFileHasTheBytecodeItsTextCompilesTo) {
  const std::vector<fs::path> files = BundledLuaFiles();
  ASSERT_GT(files.size(), 50u);
  for (const fs::path& f : files) {
    const std::string source = Read(f);
    const std::string here = CompiledHere(source);
    ASSERT_FALSE(here.empty()) << f;
    const std::string_view built = BundledLuaBytecode(source);
    EXPECT_EQ(std::string(built), here) << f;  // same code, constants, lines, chunk name
  }
}

TEST(BundledRuleBytecode, OtherBytesHaveNone) {
  const std::vector<fs::path> files = BundledLuaFiles();
  ASSERT_FALSE(files.empty());
  const std::string source = Read(files.front());
  ASSERT_FALSE(BundledLuaBytecode(source).empty());
  std::string edited = source;
  edited.back() = edited.back() == ' ' ? '\n' : ' ';  // one byte changed: same size
  EXPECT_TRUE(BundledLuaBytecode(edited).empty());
  EXPECT_TRUE(BundledLuaBytecode(source + " ").empty());
  EXPECT_TRUE(BundledLuaBytecode(source.substr(0, source.size() - 1)).empty());
  EXPECT_TRUE(BundledLuaBytecode("return 1").empty());
}

}  // namespace
}  // namespace triage
