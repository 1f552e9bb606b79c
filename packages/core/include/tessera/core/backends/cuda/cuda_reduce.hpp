#pragma once
// Block-level reduction and scan building blocks for the CUDA patterns
// (range, MDRange and team reductions all end here). A value is either one
// value_type held in registers (shuffled across a warp 32 bits at a time,
// then combined across warps through shared memory), or, for array
// reductions, value_count() values per thread in shared or global memory,
// combined by a tree in that memory.
//
// Joins happen in a fixed pattern for a fixed grid, so results are
// reproducible run to run on one device; like Kokkos on GPUs, the pattern is
// not left-to-right, so user joins must be associative and commutative.
#include <tessera/core/backends/cuda/cuda_launch.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera::detail::cuda {

// Values shuffled word by word must be trivially copyable.
template <class V>
inline constexpr bool shuffle_able = std::is_trivially_copyable_v<V>;

// Moves a value across the lanes of a warp 32 bits at a time: `one(word)`
// is the shuffle of one word (__shfl_down_sync, __shfl_up_sync, ...).
template <class V, class Shuffle>
__device__ inline V shuffle_words(const V& v, const Shuffle& one) {
  constexpr int kWords = int((sizeof(V) + 3) / 4);
  int words[kWords];
  memcpy(words, &v, sizeof(V));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = one(words[w]);
  V out = v;
  memcpy(static_cast<void*>(&out), words, sizeof(V));
  return out;
}

template <class V>
__device__ inline V shfl_down(const V& v, unsigned offset) {
  return shuffle_words(v, [offset](int w) { return __shfl_down_sync(0xffffffffu, w, offset); });
}
template <class V>
__device__ inline V shfl_up(const V& v, unsigned delta) {
  return shuffle_words(v, [delta](int w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}
template <class V>
__device__ inline V shfl(const V& v, int src_lane, int width = kWarpSize) {
  return shuffle_words(v, [src_lane, width](int w) { return __shfl_sync(0xffffffffu, w, src_lane, width); });
}

// Reduces `v` over the whole block (blockDim.x a multiple of 32): warp
// shuffles, then one value per warp in `smem` (blockDim.x / 32 slots),
// then the first warp. The result is valid in thread 0. Every thread of the
// block must call it.
template <class Ops, class V>
__device__ void block_reduce_value(const Ops& ops, V& v, V* smem) {
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned nwarps = blockDim.x / kWarpSize;
#pragma unroll
  for (unsigned off = kWarpSize / 2; off > 0; off >>= 1) {
    V other = shfl_down(v, off);
    if (lane + off < kWarpSize) ops.join(&v, &other);
  }
  if (nwarps == 1) return;
  if (lane == 0) memcpy(static_cast<void*>(smem + warp), &v, sizeof(V));
  __syncthreads();
  if (warp == 0) {
    if (lane < nwarps) memcpy(static_cast<void*>(&v), smem + lane, sizeof(V));
    else ops.init(&v);
#pragma unroll
    for (unsigned off = kWarpSize / 2; off > 0; off >>= 1) {
      V other = shfl_down(v, off);
      if (lane + off < kWarpSize) ops.join(&v, &other);
    }
  }
  __syncthreads();  // smem may be reused right after
}

// Tree reduction of blockDim.x slots of `count` values each (blockDim.x a
// power of two) into slot 0. Every thread of the block must call it.
template <class Ops, class V>
__device__ void block_reduce_slots(const Ops& ops, V* slots, std::size_t count) {
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) ops.join(slots + threadIdx.x * count, slots + (threadIdx.x + s) * count);
    __syncthreads();
  }
}

// Inclusive scan over the block of one value per thread, in thread order,
// using 2 * blockDim.x slots of `buf`. Returns the buffer holding the
// inclusive prefixes (entry t for thread t). The caller must __syncthreads()
// before reusing `buf`.
template <class Ops, class V>
__device__ V* block_inclusive_scan(const Ops& ops, const V& mine, V* buf) {
  V* in = buf;
  V* out = buf + blockDim.x;
  const unsigned t = threadIdx.x;
  in[t] = mine;
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d <<= 1) {
    V x = in[t];
    if (t >= d) {
      V y = in[t - d];
      ops.join(&y, &x);  // keeps thread order: earlier values on the left
      x = y;
    }
    out[t] = x;
    __syncthreads();
    V* tmp = in;
    in = out;
    out = tmp;
  }
  return in;
}

}  // namespace tessera::detail::cuda
