#include "rules/bundled_lua.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace triage {
namespace {

// One file of the table: its bytes at kBundledLuaBytes[offset], then its bytecode.
struct BundledLua {
  size_t offset, source_size, code_size;
};

#include "bundled_lua.inc"

// Orders a file of the table before `source` by size, then bytes (the tool's order).
bool Before(const BundledLua& e, std::string_view source) {
  if (e.source_size != source.size()) return e.source_size < source.size();
  return std::memcmp(kBundledLuaBytes + e.offset, source.data(), source.size()) < 0;
}

}  // namespace

std::string_view BundledLuaBytecode(std::string_view source) {
  const BundledLua* end = kBundledLua + kBundledLuaCount;
  const BundledLua* e = std::lower_bound(kBundledLua, end, source, Before);
  if (e == end || e->source_size != source.size() ||
      std::memcmp(kBundledLuaBytes + e->offset, source.data(), source.size()) != 0) {
    return {};
  }
  return {reinterpret_cast<const char*>(kBundledLuaBytes + e->offset + e->source_size), e->code_size};
}

}  // namespace triage
