#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>

#include <atomic>
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
  // Large blocks start on a huge-page boundary so that all of their whole
  // 2 MiB pieces can be huge pages (the kernel maps one only where the whole
  // aligned 2 MiB lies inside an advised range). The advice covers those
  // pieces only: a partial piece at the end stays in 4 KiB pages, so a block
  // never holds more memory than it touches, rounded to 2 MiB. The block
  // still comes from malloc, which keeps and reuses freed large blocks as
  // it always does; the advice is a property of the address range and does
  // not change how the memory behaves.
  // (posix_memalign: aligned_alloc wants the size to be a multiple of the
  // alignment, which would round every large block up to 2 MiB.)
  const bool large = rounded >= huge_page_bytes;
  void* ptr = nullptr;
  if (large) {
    if (::posix_memalign(&ptr, huge_page_bytes, rounded) != 0) ptr = nullptr;
  } else {
    ptr = std::aligned_alloc(alignment, rounded);
  }
  if (!ptr) {
    throw allocation_error("tessera::HostSpace: failed to allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "'");
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice refused (a kernel without THP: EINVAL) leaves ordinary pages.
  if (large && impl_huge_pages()) (void)::madvise(ptr, rounded / huge_page_bytes * huge_page_bytes, MADV_HUGEPAGE);
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
