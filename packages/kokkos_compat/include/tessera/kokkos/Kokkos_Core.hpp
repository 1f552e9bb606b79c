// Tessera's Kokkos compatibility layer: the Kokkos_Core.hpp of a Kokkos
// program. See packages/kokkos_compat/docs/README.md for what differs.
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_CORE_HPP
#define TESSERA_KOKKOS_COMPAT_CORE_HPP
#include <tessera/core.hpp>

#include <utility>

// Kokkos names that Tessera spells with its own prefix.
#define KOKKOS_ASSERT(...) TESSERA_ASSERT(__VA_ARGS__)
#define KOKKOS_EXPECTS(...) TESSERA_EXPECTS(__VA_ARGS__)
#define KOKKOS_ENSURES(...) TESSERA_ENSURES(__VA_ARGS__)

namespace Kokkos {
template <class MemorySpace = typename DefaultExecutionSpace::memory_space, class... Args>
void* kokkos_malloc(Args&&... args) {
  return ::tessera::tessera_malloc<MemorySpace>(std::forward<Args>(args)...);
}
template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void* kokkos_realloc(void* ptr, std::size_t bytes) {
  return ::tessera::tessera_realloc<MemorySpace>(ptr, bytes);
}
template <class MemorySpace = typename DefaultExecutionSpace::memory_space>
void kokkos_free(void* ptr) {
  ::tessera::tessera_free<MemorySpace>(ptr);
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr void kokkos_swap(T& a, T& b) noexcept(noexcept(::tessera::tessera_swap(a, b))) {
  ::tessera::tessera_swap(a, b);
}
}  // namespace Kokkos
#endif
