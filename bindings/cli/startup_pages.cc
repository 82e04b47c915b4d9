// The `triage` command's own pages mapped at once (Note: [Command pages at once]).
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

// Note: [Command pages at once]
// A warm start runs code spread over nearly all of the command's ~4.6 MB of machine code (the cache
// entry's reader, the prefilter, RE2, Lua, the diagnosis, libstdc++, libc): of its ~140 page faults,
// ~66 were first touches of code pages (each mapping the 64 KiB around it from the page cache: the
// kernel's fault-around; 66 of the 73 such blocks were touched), and ~10 first writes to .data and
// .bss. On the VMs of tests/bench/README.md a fault costs ~20-25 us, most of it the trap itself, while
// madvise(MADV_POPULATE_READ) maps the whole code segment from the page cache in one call (~0.4 us a
// page, ~0.5 ms for the ~1,150 pages, which the faults mapped too, 16 at a time), and
// MADV_POPULATE_WRITE gives the ~60 pages of .data and .bss their private copies and zeroed pages in
// one call (~0.1 ms). So before any other constructor runs (priority 101), the command asks for its
// executable segment and its writable one so: a warm start's 140 faults became 89 with the code, 79
// with the writable pages too (2026-12-01, tests/bench/README.md, twenty-sixth pass).
// Not the writable segment's RELRO part: it was made read-only after relocation (writing there would
// fail), and relocating it faulted its pages in already. Where the kernel does not know the advice
// (before Linux 5.14) the call fails and nothing changes. Tried and dropped: the read-only data after
// the bundled rule image (~500 pages for ~7 faults: no gain) and the stack below main (16 pages for
// 2 faults: none), and MADV_COLLAPSE of the code into huge pages (refused by the kernel here, after
// up to 0.4 ms). The command only (this file is one of its sources): the library leaves its host's
// pages alone.
namespace {

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

constexpr std::uintptr_t kPage = 4096;

std::uintptr_t PageDown(std::uintptr_t a) { return a & ~(kPage - 1); }
std::uintptr_t PageUp(std::uintptr_t a) { return (a + kPage - 1) & ~(kPage - 1); }

void Populate(std::uintptr_t start, std::uintptr_t end, int advice) {
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, advice);
}

int PopulateSegments(dl_phdr_info* info, size_t, void*) {
  std::uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO) relro_end = PageUp(info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t start = PageDown(info->dlpi_addr + ph.p_vaddr);
    const std::uintptr_t end = PageUp(info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
    if ((ph.p_flags & PF_X) != 0) {
      Populate(start, end, MADV_POPULATE_READ);
    } else if ((ph.p_flags & PF_W) != 0) {
      Populate(std::max(start, relro_end), end, MADV_POPULATE_WRITE);
    }
  }
  return 1;  // the executable comes first: the rest are not the command's
}

[[gnu::constructor(101)]] void PopulateCommandPages() { dl_iterate_phdr(PopulateSegments, nullptr); }

}  // namespace
