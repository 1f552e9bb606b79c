#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera {

namespace {
std::atomic<bool> g_huge_pages{true};
}  // namespace

void HostSpace::impl_set_huge_pages(bool on) { g_huge_pages.store(on, std::memory_order_relaxed); }
bool HostSpace::impl_huge_pages() { return g_huge_pages.load(std::memory_order_relaxed); }

void* HostSpace::impl_allocate(const char* label, std::size_t bytes, std::size_t logical_bytes) const {
  // aligned_alloc wants a multiple of the alignment; zero bytes still gets a
  // unique pointer so that empty views have distinct, freeable storage.
  std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  if (rounded < bytes) {  // overflow in the rounding
    throw allocation_error("tessera::HostSpace: cannot allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "': size overflows");
  }
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (!ptr) {
    throw allocation_error("tessera::HostSpace: failed to allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "'");
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // The advice covers the whole 2 MiB pieces inside the block; the partial
  // pieces at its ends stay in 4 KiB pages. Blocks are not moved to a 2 MiB
  // boundary to gain those ends: malloc seldom reuses a freed block for the
  // next aligned request, so an algorithm that allocates and frees its
  // work arrays on every call (BFS's queues) grew the heap by fresh memory
  // for the first ten or twenty calls, and every fresh piece that malloc's
  // bookkeeping or a label touched cost a whole 2 MiB page fault (k20 BFS,
  // 2 threads: 20-90 ms calls for the first 15 instead of 10 ms).
  // Advice refused (a kernel without THP: EINVAL) leaves ordinary pages.
  if (rounded >= huge_page_bytes && impl_huge_pages()) {
    const auto first = reinterpret_cast<std::uintptr_t>(ptr);
    const auto begin = (first + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    const auto end = (first + rounded) / huge_page_bytes * huge_page_bytes;
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
#endif
  if (profiling::active()) profiling::detail::on_allocate(name(), label, ptr, logical_bytes);
  return ptr;
}

void HostSpace::impl_deallocate(const char* label, void* ptr, std::size_t, std::size_t logical_bytes) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical_bytes);
  std::free(ptr);
}

void* HostSpace::allocate(const char* label, std::size_t bytes) const { return impl_allocate(label, bytes, bytes); }

void HostSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

}  // namespace tessera
