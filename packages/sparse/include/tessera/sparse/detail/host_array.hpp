#pragma once
// Large host arrays of the factorizations (the factor's panels, the update
// arenas) from core's HostSpace rather than new[].
//
// Why: HostSpace advises the whole 2 MiB pieces of blocks of 2 MiB and more
// as transparent huge pages, so that first touching them takes one page
// fault per 2 MiB instead of 512. A first factorization touches
// every page of its factor and of its update arena; with 4 KiB pages the
// faults were half its time on a 3-D Laplacian of 50^3 (3.5 s against 1.8 s
// for the same factorization repeated, in a virtual machine where a fault is
// expensive). A user who factors once pays exactly that. Blocks under 2 MiB
// are plain 64-byte-aligned memory, as before.
#include <tessera/core/memory_space.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace tessera::sparse::detail {

template <class T>
struct HostSpaceDelete {
  std::size_t count = 0;
  void operator()(T* p) const {
    if (p) tessera::HostSpace().deallocate("tessera::sparse", p, std::max<std::size_t>(count, 1) * sizeof(T));
  }
};

template <class T>
using host_array = std::unique_ptr<T[], HostSpaceDelete<T>>;

// `count` elements, default-initialized (left uninitialized for double, as
// new T[] leaves them). Throws tessera::allocation_error (a std::bad_alloc)
// naming the size when the system refuses.
template <class T>
host_array<T> make_host_array(std::size_t count) {
  static_assert(std::is_trivially_destructible_v<T>, "host_array holds trivially destructible values");
  T* p = static_cast<T*>(tessera::HostSpace().allocate("tessera::sparse", std::max<std::size_t>(count, 1) * sizeof(T)));
  std::uninitialized_default_construct_n(p, count);
  return host_array<T>(p, HostSpaceDelete<T>{count});
}

}  // namespace tessera::sparse::detail
