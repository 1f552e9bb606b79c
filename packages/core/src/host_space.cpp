#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

// AddressSanitizer sees only what goes through malloc: under it, large
// blocks stay malloc's (its checks over them matter more than their pages).
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_IMPL_HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_IMPL_HOST_ASAN 1
#endif
#endif

namespace tessera {

namespace {
std::atomic<bool> g_huge_pages{true};

// bytes rounded up to a multiple of unit; wraps past SIZE_MAX (callers that
// can be asked for that much compare the result with bytes).
constexpr std::size_t round_up_to(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

// What impl_allocate asks aligned_alloc (or the large blocks) for: a
// multiple of the alignment, and at least one, so that zero bytes still
// gets a unique pointer; impl_deallocate recomputes it from the same bytes.
constexpr std::size_t block_bytes(std::size_t bytes) {
  const std::size_t rounded = round_up_to(bytes, HostSpace::alignment);
  return bytes == 0 ? HostSpace::alignment : rounded;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(TESSERA_IMPL_HOST_ASAN)
#define TESSERA_IMPL_LARGE_BLOCKS 1
// Large blocks (2 MiB and more, huge pages on): mappings of their own that
// start on a 2 MiB boundary, their whole 2 MiB pieces advised as huge pages,
// and kept for the next request of the same mapped size when freed.
//
// Why both. Left where malloc puts them, large blocks often land on memory
// an earlier use had touched as 4 KiB pages, which the advice does not
// convert: on a 2048^2 grid, 1 thread, the Afforest compress pass took
// 5.4-5.9 ms instead of 2.2 and PageRank's first pass 15 ms instead of 9.5,
// with the same machine code. Aligned by malloc (posix_memalign), they made
// malloc's heap grow into fresh memory for the first 10-20 calls of code
// that allocates its work arrays on every call, each fresh piece a whole
// 2 MiB fault (Kronecker 20 BFS, 2 threads: 13.7 ms against 8.4). Reused
// mappings keep their faulted huge pages, so such a call's arrays cost no
// faults after the first. docs/perf/history.md has the figures.
//
// The cache holds at most kCacheBytes (less on small machines); a block
// that does not fit is unmapped, and so is the oldest block when a newer
// one needs its room.
class LargeBlocks {
 public:
  static LargeBlocks& instance() {
    // Never destroyed: frees may come from other objects' static destructors.
    static LargeBlocks* blocks = new LargeBlocks();
    return *blocks;
  }

  // A block of `bytes` (at least huge_page_bytes), or nullptr when the
  // system refuses a mapping.
  void* take(std::size_t bytes) {
    const std::size_t mapped = round_up(bytes);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      for (std::size_t i = m_free.size(); i-- > 0;) {  // the most recently freed first: its pages are warm
        if (m_free[i].first != mapped) continue;
        p = m_free[i].second;
        m_free.erase(m_free.begin() + std::ptrdiff_t(i));
        m_cached -= mapped;
        break;
      }
      if (p) m_live.emplace(p, mapped);
    }
    if (!p) {
      p = map_aligned(mapped);
      if (!p) return nullptr;
      std::lock_guard<std::mutex> lock(m_mutex);
      m_live.emplace(p, mapped);
    }
    // The whole 2 MiB pieces of what was asked; the rest of the mapping stays
    // in 4 KiB pages, so a block holds no more memory than it touches,
    // rounded to 2 MiB. Advised again on reuse: the setting may have changed.
    const std::size_t whole = bytes / HostSpace::huge_page_bytes * HostSpace::huge_page_bytes;
    (void)::madvise(p, whole, MADV_HUGEPAGE);
    if (whole < mapped) (void)::madvise(static_cast<char*>(p) + whole, mapped - whole, MADV_NOHUGEPAGE);
    return p;
  }

  // Takes back a block of take(); false when p is not one (a malloc block).
  bool give_back(void* p) {
    std::vector<std::pair<void*, std::size_t>> unmap;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      const auto it = m_live.find(p);
      if (it == m_live.end()) return false;
      const std::size_t mapped = it->second;
      m_live.erase(it);
      if (mapped > m_limit / 2) {
        unmap.emplace_back(p, mapped);
      } else {
        while (m_cached + mapped > m_limit && !m_free.empty()) {  // the oldest make room
          unmap.emplace_back(m_free.front().second, m_free.front().first);
          m_cached -= m_free.front().first;
          m_free.erase(m_free.begin());
        }
        m_free.emplace_back(mapped, p);
        m_cached += mapped;
      }
    }
    for (const auto& [q, n] : unmap) (void)::munmap(q, n);
    return true;
  }

  std::size_t cached() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_cached;
  }

  // Unmaps every kept block; returns their bytes.
  std::size_t release_all() {
    std::vector<std::pair<std::size_t, void*>> kept;
    std::size_t bytes = 0;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      kept.swap(m_free);
      bytes = m_cached;
      m_cached = 0;
    }
    for (const auto& [n, q] : kept) (void)::munmap(q, n);
    return bytes;
  }

 private:
  static constexpr std::size_t kCacheBytes = std::size_t(1) << 30;

  LargeBlocks() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const std::size_t physical = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
    m_limit = physical ? std::min(kCacheBytes, physical / 16) : kCacheBytes / 4;
  }
  static std::size_t round_up(std::size_t bytes) { return round_up_to(bytes, HostSpace::huge_page_bytes); }
  // A mapping of `mapped` bytes starting on a 2 MiB boundary: map 2 MiB more,
  // then unmap the slack before and after.
  static void* map_aligned(std::size_t mapped) {
    constexpr std::size_t h = HostSpace::huge_page_bytes;
    if (mapped > SIZE_MAX - h) return nullptr;
    void* raw = ::mmap(nullptr, mapped + h, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto first = reinterpret_cast<std::uintptr_t>(raw);
    const auto aligned = round_up_to(first, h);
    if (aligned > first) (void)::munmap(raw, aligned - first);
    const std::size_t tail = first + mapped + h - (aligned + mapped);
    if (tail > 0) (void)::munmap(reinterpret_cast<void*>(aligned + mapped), tail);
    return reinterpret_cast<void*>(aligned);
  }

  std::mutex m_mutex;
  std::unordered_map<void*, std::size_t> m_live;      // blocks handed out: their mapped sizes
  std::vector<std::pair<std::size_t, void*>> m_free;  // freed blocks kept, oldest first
  std::size_t m_cached = 0;
  std::size_t m_limit = 0;
};
#endif
}  // namespace

void HostSpace::impl_set_huge_pages(bool on) { g_huge_pages.store(on, std::memory_order_relaxed); }
bool HostSpace::impl_huge_pages() { return g_huge_pages.load(std::memory_order_relaxed); }

bool HostSpace::impl_large_blocks_are_mappings() {
#if defined(TESSERA_IMPL_LARGE_BLOCKS)
  return true;
#else
  return false;
#endif
}

std::size_t HostSpace::impl_cached_block_bytes() {
#if defined(TESSERA_IMPL_LARGE_BLOCKS)
  return LargeBlocks::instance().cached();
#else
  return 0;
#endif
}

std::size_t HostSpace::impl_release_cached_blocks() {
#if defined(TESSERA_IMPL_LARGE_BLOCKS)
  return LargeBlocks::instance().release_all();
#else
  return 0;
#endif
}

void* HostSpace::impl_allocate(const char* label, std::size_t bytes, std::size_t logical_bytes) const {
  // aligned_alloc wants a multiple of the alignment; zero bytes still gets a
  // unique pointer so that empty views have distinct, freeable storage.
  const std::size_t rounded = block_bytes(bytes);
  if (rounded < bytes) {  // overflow in the rounding
    throw allocation_error("tessera::HostSpace: cannot allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "': size overflows");
  }
#if defined(TESSERA_IMPL_LARGE_BLOCKS)
  if (rounded >= huge_page_bytes && impl_huge_pages()) {
    if (void* ptr = LargeBlocks::instance().take(rounded)) {
      if (profiling::active()) profiling::detail::on_allocate(name(), label, ptr, logical_bytes);
      return ptr;
    }
    // No mapping: malloc's block, advised below.
  }
#endif
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (!ptr) {
    throw allocation_error("tessera::HostSpace: failed to allocate " + std::to_string(logical_bytes) +
                           " bytes for '" + label + "'");
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // A large block from malloc (under AddressSanitizer, or when no mapping
  // was had): the advice covers its whole 2 MiB pieces; the partial pieces
  // at its ends stay in 4 KiB pages. Advice refused (a kernel without THP:
  // EINVAL) leaves ordinary pages.
  if (rounded >= huge_page_bytes && impl_huge_pages()) {
    const auto first = reinterpret_cast<std::uintptr_t>(ptr);
    const auto begin = round_up_to(first, huge_page_bytes);
    const auto end = (first + rounded) / huge_page_bytes * huge_page_bytes;
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
#endif
  if (profiling::active()) profiling::detail::on_allocate(name(), label, ptr, logical_bytes);
  return ptr;
}

void HostSpace::impl_deallocate(const char* label, void* ptr, [[maybe_unused]] std::size_t total_bytes,
                                std::size_t logical_bytes) const {
  if (!ptr) return;
  if (profiling::active()) profiling::detail::on_deallocate(name(), label, ptr, logical_bytes);
#if defined(TESSERA_IMPL_LARGE_BLOCKS)
  // Only a block of 2 MiB or more can be a mapping (whatever the huge-page
  // setting is now: it may have changed since the allocation).
  if (block_bytes(total_bytes) >= huge_page_bytes && LargeBlocks::instance().give_back(ptr)) return;
#endif
  std::free(ptr);
}

void* HostSpace::allocate(const char* label, std::size_t bytes) const {
  return impl_allocate(label, bytes, bytes);
}

void HostSpace::deallocate(const char* label, void* ptr, std::size_t bytes) const {
  impl_deallocate(label, ptr, bytes, bytes);
}

}  // namespace tessera
