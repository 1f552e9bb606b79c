#pragma once
// Update matrices of either scalar from the one BufferPool, which hands
// out doubles (its interface is shared with the pool's other users and
// stays double-only). A std::complex<double> is layout-compatible with
// double[2] (the standard guarantees it, [complex.numbers]), and a
// buffer from new double[] is aligned for it, so a complex buffer of
// `count` entries is a double buffer of 2 count entries, acquired and
// released with that count so that the pool files it under the same size
// class both ways.
#include <tessera/sparse/detail/buffer_pool.hpp>

#include <cstddef>

namespace tessera::sparse::detail {

template <class T>
inline constexpr std::size_t doubles_per = sizeof(T) / sizeof(double);

template <class T>
T* acquire_buffer(BufferPool& pool, std::size_t count) {
  static_assert(sizeof(T) % sizeof(double) == 0 && alignof(T) <= alignof(double) * 2);
  return reinterpret_cast<T*>(pool.acquire(count * doubles_per<T>));
}

template <class T>
void release_buffer(BufferPool& pool, T* p, std::size_t count) {
  pool.release(reinterpret_cast<double*>(p), count * doubles_per<T>);
}

}  // namespace tessera::sparse::detail
