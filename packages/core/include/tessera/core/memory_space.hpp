#pragma once
// HostSpace: ordinary CPU memory, reachable from every host execution space.
#include <tessera/config.hpp>
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <new>
#include <string>
#include <utility>

namespace tessera {

// Thrown when a memory space cannot provide the bytes a View or pool asked
// for; the message names the allocation's label, the size and the space.
class allocation_error : public std::bad_alloc {
 public:
  allocation_error(std::string message) : m_message(std::move(message)) {}
  const char* what() const noexcept override { return m_message.c_str(); }

 private:
  std::string m_message;
};

class Serial;
class Threads;
class OpenMP;
template <class ExecSpace, class MemSpace>
struct Device;

// The best enabled host back-end: OpenMP > Threads > Serial. It is the
// execution space of HostSpace (and of every host mirror), so it is chosen
// here; default_spaces.hpp completes the types.
#if TESSERA_ENABLE_OPENMP
using DefaultHostExecutionSpace = OpenMP;
#elif TESSERA_ENABLE_THREADS
using DefaultHostExecutionSpace = Threads;
#else
using DefaultHostExecutionSpace = Serial;
#endif

class HostSpace {
 public:
  using memory_space = HostSpace;
  // What works on host memory by default (Kokkos: HostSpace::execution_space).
  using execution_space = DefaultHostExecutionSpace;
  using device_type = Device<execution_space, HostSpace>;
  using size_type = std::size_t;
  // Alignment of every allocation: a cache line, and enough for AVX-512.
  static constexpr std::size_t alignment = 64;

  static constexpr const char* name() { return "Host"; }

  // Allocates `bytes` aligned to `alignment`; throws allocation_error naming
  // `label` on failure. Zero bytes gives a valid, unique, non-null pointer.
  void* allocate(const char* label, std::size_t bytes) const;
  void* allocate(std::size_t bytes) const { return allocate("(unlabeled)", bytes); }
  void deallocate(const char* label, void* ptr, std::size_t bytes) const;
  void deallocate(void* ptr, std::size_t bytes) const { deallocate("(unlabeled)", ptr, bytes); }

  // For allocation records that put a header before the data: allocates
  // `total_bytes` but reports `logical_bytes` (what the user asked for) to
  // the profiling tools and in error messages, as Kokkos does.
  void* impl_allocate(const char* label, std::size_t total_bytes, std::size_t logical_bytes) const;
  void impl_deallocate(const char* label, void* ptr, std::size_t total_bytes, std::size_t logical_bytes) const;

  // Allocations of at least this size are, on Linux, mappings of their own
  // that start on a 2 MiB boundary, with their whole 2 MiB pieces advised as
  // transparent huge pages (madvise MADV_HUGEPAGE; a partial last piece
  // stays in 4 KiB pages), kept when freed for the next request of the same
  // size (at most 1 GiB, or 1/16 of the memory, of them: host_space.cpp
  // says why; finalize() gives them back to the system), unless
  // initialize() was told otherwise (--tessera-disable-huge-pages,
  // TESSERA_HUGE_PAGES=0: malloc's blocks, not advised). Under AddressSanitizer they are malloc's blocks, their
  // whole pieces advised. Why huge pages:
  // arrays read at random (a graph's PageRank contributions, a BFS bitmap,
  // a hash table) miss the TLB on most reads with 4 KiB pages once they
  // outgrow what its entries cover (a few MiB), and first touch takes one
  // fault per 2 MiB instead of 512. Debian and most distributions ship the
  // kernel in "madvise" mode, where only advised memory gets huge pages.
  // The kernel may still refuse (no free 2 MiB frame, mode "never"): the
  // memory is then ordinary pages, nothing fails.
  static constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;
  static void impl_set_huge_pages(bool on);
  static bool impl_huge_pages();
  // Whether this build makes large blocks mappings of their own when huge
  // pages are on (Linux, not under AddressSanitizer), so that a test need
  // not repeat the conditions.
  static bool impl_large_blocks_are_mappings();
  // The freed large blocks kept for reuse: their bytes, and giving them back
  // to the system (finalize() does; a program may between phases). Returns
  // the bytes given back. Blocks still in use are not touched.
  static std::size_t impl_cached_block_bytes();
  static std::size_t impl_release_cached_blocks();
};

}  // namespace tessera
