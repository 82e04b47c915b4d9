// The `triage` command's operator new and delete (Note: [Start-up arena]).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

// Note: [Start-up arena]
// A warm start makes ~29,000 small heap blocks (the rules' strings and vectors read from the cache
// entry, the patterns' literals, the prefilter's tables), nearly all kept until the process ends, and
// glibc's malloc and free took ~6.5 M of its ~28.5 M instructions (callgrind, 2026-11-30, 606 rules):
// ~160 a block for malloc's bins and ~60 for free. So the command's operator new hands out blocks of
// up to kLargest bytes by bumping one atomic offset through one block of kArenaBytes, taken from
// malloc by main right after PrepareHeap (StartStartupArena: one thread), so that it lies in the
// heap's huge windows (Note: [Heap on huge pages] in main.cc) with malloc's other blocks; operator
// delete leaves a block of the arena where it is. Anything larger, everything before main, and
// everything once the arena is spent, comes from malloc as before, so a long read of a log has
// malloc's reuse for what it keeps making and freeing. The cost: what is freed in the arena is not
// reused, at most kArenaBytes (a warm start's blocks take ~2.4 MiB of it, most of them alive to the
// end). (A mapping of its own, with MADV_HUGEPAGE, was the first form: the same instructions but
// ~0.3 M more for its guard, and huge windows of its own to zero.) The command only (this file is
// one of its sources): the library, the Python module and the tests keep their host's operator new.
// Under a sanitizer, which tracks the blocks
// of its own operator new, none of this is compiled.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRIAGE_NO_ARENA 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TRIAGE_NO_ARENA 1
#endif
#endif

#ifndef TRIAGE_NO_ARENA
namespace {

// Under the heap's mmap threshold (4 MiB, Note: [Heap on huge pages]), so the arena is cut from the
// heap PrepareHeap made; a warm start uses ~2.4 MiB of it.
constexpr std::size_t kArenaBytes = std::size_t{3} << 20;
constexpr std::size_t kLargest = std::size_t{16} << 10;  // larger blocks from malloc (buffers, tables)
constexpr std::size_t kAlign = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

char* arena_base = nullptr;                  // set by StartStartupArena, before any block is handed out
std::atomic<std::size_t> arena_used{kArenaBytes + 1};  // bytes handed out; past kArenaBytes: spent (or none yet)

void* FromMalloc(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    handler();
  }
}

void* Allocate(std::size_t n) noexcept {
  if (n <= kLargest && arena_used.load(std::memory_order_relaxed) <= kArenaBytes) {
    const std::size_t size = n == 0 ? kAlign : (n + kAlign - 1) & ~(kAlign - 1);
    const std::size_t at = arena_used.fetch_add(size, std::memory_order_relaxed);
    if (at + size <= kArenaBytes) return arena_base + at;
  }
  return FromMalloc(n);
}

void Release(void* p) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto base = reinterpret_cast<std::uintptr_t>(arena_base);
  if (base != 0 && at - base < kArenaBytes) return;  // the arena's: left where it is
  std::free(p);
}

}  // namespace

namespace triage::cli {
void StartStartupArena() {
  if (arena_base != nullptr) return;
  // From the heap PrepareHeap made: its huge windows, which malloc's other blocks share.
  arena_base = static_cast<char*>(std::malloc(kArenaBytes));
  if (arena_base != nullptr) arena_used.store(0, std::memory_order_release);
}
}  // namespace triage::cli

void* operator new(std::size_t n) {
  if (void* p = Allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = Allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n); }
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, std::size_t) noexcept { Release(p); }
void operator delete[](void* p, std::size_t) noexcept { Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Release(p); }
#else
namespace triage::cli {
void StartStartupArena() {}
}  // namespace triage::cli
#endif
