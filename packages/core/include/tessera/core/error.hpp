#pragma once
// Error reporting usable from host code and from inside kernels.
#include <tessera/core/macros.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tessera {

// Aborts the whole program with a message. Callable inside kernels: on a GPU
// it prints and traps, which ends the kernel with an error the host sees at
// the next fence.
TESSERA_INLINE_FUNCTION void abort(const char* message) {
#if TESSERA_IMPL_ON_DEVICE
  ::printf("tessera::abort: %s\n", message);
  __trap();
#else
  std::fprintf(stderr, "tessera::abort: %s\n", message);
  std::fflush(stderr);
  std::abort();
#endif
}

// TESSERA_ASSERT(cond) (Kokkos' KOKKOS_ASSERT), with TESSERA_EXPECTS and
// TESSERA_ENSURES for pre- and postconditions: aborts with the condition,
// file and line when it is false, on host and device. Active unless NDEBUG
// is defined (as assert()); Kokkos ties it to KOKKOS_ENABLE_DEBUG.
#define TESSERA_IMPL_STR2(x) #x
#define TESSERA_IMPL_STR(x) TESSERA_IMPL_STR2(x)
#if defined(NDEBUG)
#define TESSERA_ASSERT(...) ((void)0)
#else
#define TESSERA_ASSERT(...)                                                                                  \
  do {                                                                                                       \
    if (!(__VA_ARGS__))                                                                                      \
      ::tessera::abort("assertion '" #__VA_ARGS__ "' failed at " __FILE__ ":" TESSERA_IMPL_STR(__LINE__)); \
  } while (false)
#endif
#define TESSERA_EXPECTS(...) TESSERA_ASSERT(__VA_ARGS__)
#define TESSERA_ENSURES(...) TESSERA_ASSERT(__VA_ARGS__)

namespace detail {
// Host-only: throws std::runtime_error with the message. Kept out of line of
// device passes so that kernels never see exceptions.
[[noreturn]] inline void throw_runtime_error(const std::string& message) {
  throw std::runtime_error(message);
}
}  // namespace detail

}  // namespace tessera
