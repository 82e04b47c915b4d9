// Enum <-> name tables: one constexpr array of {value, name} pairs per enum, read both ways by these
// two functions (verdicts, audiences, hypothesis statuses).
#ifndef TRIAGE_ENGINE_NAME_TABLE_H_
#define TRIAGE_ENGINE_NAME_TABLE_H_

#include <cstddef>
#include <string_view>
#include <utility>

namespace triage {

template <class E, std::size_t N>
using NameTable = std::pair<E, const char*>[N];

// The name of `value` in `table`; the first entry's name when it is not there.
template <class E, std::size_t N>
const char* NameIn(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return table[0].second;
}

// Reads `name` into *value; false when the table does not have it.
template <class E, std::size_t N>
bool ValueIn(const NameTable<E, N>& table, std::string_view name, E* value) {
  for (const auto& [v, n] : table) {
    if (name == n) {
      *value = v;
      return true;
    }
  }
  return false;
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_NAME_TABLE_H_
