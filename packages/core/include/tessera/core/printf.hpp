#pragma once
// tessera::printf: formatted output callable from host code and from inside
// kernels on every back-end. On a GPU it is the device printf (output appears
// at the next synchronization); on host back-ends it is std::printf, which
// POSIX makes atomic per call, so lines printed by different threads never
// interleave mid-line.
#include <tessera/core/macros.hpp>

#include <cstdio>

namespace tessera {

#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#pragma GCC diagnostic push
// The format is the caller's; -Wformat checks cannot see through the
// forwarding, exactly as with Kokkos::printf.
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#endif

template <class... Args>
TESSERA_INLINE_FUNCTION int printf(const char* format, Args... args) {
  // The format is always interpreted (as Kokkos does), so "100%%" prints
  // "100%" even without arguments.
#if TESSERA_IMPL_ON_DEVICE
  return ::printf(format, args...);
#else
  return std::printf(format, args...);
#endif
}

#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#pragma GCC diagnostic pop
#endif

}  // namespace tessera
