#pragma once
// tessera::sort and sort_by_key on Cuda (nvcc only), on the instance's
// stream, without waiting for the host:
//  - arithmetic keys in the default order (sort), integer keys in the
//    default order (sort_by_key): CUB's onesweep radix sort
//    (cub::DeviceRadixSort), the fastest sort the CUDA toolkit ships. It
//    ping-pongs between the keys and one scratch buffer, and the result lands
//    back in the keys after an even number of passes (every 8-bit-digit
//    sort of 2-, 4- and 8-byte keys); otherwise one copy brings it back.
//    sort_by_key keeps floating-point keys off this path: the radix order
//    puts -0.0 before +0.0, which operator< calls equal, and the stable
//    sort must then keep their input order;
//  - anything else (a comparator, other key types): Thrust's merge sort on
//    the same stream (thrust::stable_sort_by_key for sort_by_key).
// Scratch comes from the stream-ordered pool (cuda_stream_allocate).
#if defined(__CUDACC__)
#include <tessera/core/backends/cuda/cuda_space.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera::detail::cuda {

template <class T>
inline constexpr bool radix_sort_key = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool radix_sort_by_key_key = std::is_integral_v<T> && !std::is_same_v<T, bool>;

inline std::size_t round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// N: the item count's type, 32 bits whenever the count fits (CUB's offsets
// then stay 32-bit).
template <class T, class N>
void radix_sort_keys(const Cuda& exec, T* keys, std::size_t n, N count) {
  static constexpr const char* what = "tessera::sort on Cuda (cub::DeviceRadixSort::SortKeys)";
  constexpr int bits = int(sizeof(T) * 8);
  cub::DoubleBuffer<T> b(keys, nullptr);
  std::size_t temp_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, b, count, 0, bits, exec.cuda_stream()), what);
  const std::size_t alt_bytes = round_up_256(n * sizeof(T));
  char* scratch = static_cast<char*>(cuda_stream_allocate(exec, alt_bytes + temp_bytes, what));
  b.d_buffers[1] = reinterpret_cast<T*>(scratch);
  cudaError_t e = cub::DeviceRadixSort::SortKeys(scratch + alt_bytes, temp_bytes, b, count, 0, bits, exec.cuda_stream());
  if (e == cudaSuccess && b.Current() != keys)
    e = cudaMemcpyAsync(keys, b.Current(), n * sizeof(T), cudaMemcpyDeviceToDevice, exec.cuda_stream());
  cuda_stream_free(exec, scratch);
  cuda_check(e, what);
}

template <class T>
void device_radix_sort(const Cuda& exec, T* keys, std::size_t n) {
  if (n <= 0xffffffffu) radix_sort_keys(exec, keys, n, std::uint32_t(n));
  else radix_sort_keys(exec, keys, n, std::uint64_t(n));
}

template <class K, class V, class N>
void radix_sort_pairs(const Cuda& exec, K* keys, V* values, std::size_t n, N count) {
  static constexpr const char* what = "tessera::sort_by_key on Cuda (cub::DeviceRadixSort::SortPairs)";
  constexpr int bits = int(sizeof(K) * 8);
  cub::DoubleBuffer<K> kb(keys, nullptr);
  cub::DoubleBuffer<V> vb(values, nullptr);
  std::size_t temp_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kb, vb, count, 0, bits, exec.cuda_stream()), what);
  const std::size_t key_bytes = round_up_256(n * sizeof(K));
  const std::size_t value_bytes = round_up_256(n * sizeof(V));
  char* scratch = static_cast<char*>(cuda_stream_allocate(exec, key_bytes + value_bytes + temp_bytes, what));
  kb.d_buffers[1] = reinterpret_cast<K*>(scratch);
  vb.d_buffers[1] = reinterpret_cast<V*>(scratch + key_bytes);
  cudaError_t e = cub::DeviceRadixSort::SortPairs(scratch + key_bytes + value_bytes, temp_bytes, kb, vb, count, 0, bits,
                                                  exec.cuda_stream());
  if (e == cudaSuccess && kb.Current() != keys)
    e = cudaMemcpyAsync(keys, kb.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice, exec.cuda_stream());
  if (e == cudaSuccess && vb.Current() != values)
    e = cudaMemcpyAsync(values, vb.Current(), n * sizeof(V), cudaMemcpyDeviceToDevice, exec.cuda_stream());
  cuda_stream_free(exec, scratch);
  cuda_check(e, what);
}

template <class K, class V>
void device_radix_sort_by_key(const Cuda& exec, K* keys, V* values, std::size_t n) {
  if (n <= 0xffffffffu) radix_sort_pairs(exec, keys, values, n, std::uint32_t(n));
  else radix_sort_pairs(exec, keys, values, n, std::uint64_t(n));
}

// Comparator sorts: Thrust on exec's stream (Thrust waits for its own work
// before returning).
template <class T, class Comp>
void device_merge_sort(const Cuda& exec, T* p, std::size_t n, const Comp& comp) {
  thrust::sort(thrust::cuda::par.on(exec.cuda_stream()), p, p + n, comp);
}
template <class K, class V, class Comp>
void device_merge_sort_by_key(const Cuda& exec, K* k, V* v, std::size_t n, const Comp& comp) {
  thrust::stable_sort_by_key(thrust::cuda::par.on(exec.cuda_stream()), k, k + n, v, comp);
}

}  // namespace tessera::detail::cuda
#endif
