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

namespace detail {
// Host-only: throws std::runtime_error with the message. Kept out of line of
// device passes so that kernels never see exceptions.
[[noreturn]] inline void throw_runtime_error(const std::string& message) {
  throw std::runtime_error(message);
}
}  // namespace detail

}  // namespace tessera
