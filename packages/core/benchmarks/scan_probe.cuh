#pragma once
// Probe kernels for tessera_bench_cuda's `scan-probe` row: the library's
// single-pass scan (cuda_scan.hpp) rebuilt with plain pointers and its
// design choices as template switches, so that one GPU run shows which of
// them holds parallel_scan at 0.19-0.20 of CUB (H100 and H200 alike).
// Not library code: what wins moves into cuda_scan.hpp.
//
// Why these switches. Under decoupled look-back a tile walks back window by
// window until it meets a published inclusive prefix, so in steady state
// the tiles' throughput is about (tiles per window) / (latency of one
// window step): 32 tiles per step. The library's step costs two dependent
// L2 round trips (the flag, then the value it guards), 32 serial shuffles to
// join the window, and a __nanosleep back-off that starts at 32 ns; at
// 3,072 values per tile, 16 tiles per microsecond would be about 3 ms for
// 2^27 values, which is what the H200 measured (3.1 ms). CUB's step is one
// 16-byte load (status and value together) and a 5-step warp reduction.
//
//   Packed:    status and value in one 16-byte word, read and written by one
//              ld/st.relaxed.gpu.v2.u64 (as CUB's tile descriptors are),
//              instead of a flag (acquire) and then the value.
//   LogReduce: the window joined by 5 xor-shuffles of the lanes at or after
//              the newest inclusive prefix, instead of 32 serial shuffles.
//   Sleep:     __nanosleep back-off while a predecessor has published
//              nothing, or a plain spin.
//   Block, Items: tile = Block x Items values (fewer tiles, fewer steps).
//   NoWait:    no cross-tile prefix at all (wrong answers: the upper bound
//              of the tile body alone).
// Integers only (long long): any grouping of the joins gives the same bits.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>

namespace scan_probe {

struct alignas(16) Desc {
  unsigned long long status;  // 0: nothing yet, 1: aggregate, 2: inclusive prefix
  long long value;
};

__device__ inline void store_desc(Desc* d, unsigned long long status, long long value) {
  asm volatile("st.relaxed.gpu.v2.u64 [%0], {%1, %2};" ::"l"(d), "l"(status), "l"(value) : "memory");
}
__device__ inline void load_desc(const Desc* d, unsigned long long& status, long long& value) {
  asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(status), "=l"(value) : "l"(d) : "memory");
}

// The separate layout: flags[tile] (0, 1, 2) and values[2 * tiles]
// (aggregates, then inclusive prefixes), as the library keeps them.
struct Separate {
  unsigned* flags;
  long long* values;
};

template <bool Sleep>
__device__ inline void back_off(unsigned& ns) {
  if constexpr (Sleep) {
    __nanosleep(ns);
    if (ns < 256) ns *= 2;
  }
}

template <bool Packed, bool Sleep>
__device__ inline void read_tile(Desc* desc, Separate sep, unsigned tiles, long long tile, unsigned& state,
                                 long long& value) {
  unsigned ns = 32;
  if constexpr (Packed) {
    unsigned long long s;
    for (load_desc(desc + tile, s, value); s == 0; load_desc(desc + tile, s, value)) back_off<Sleep>(ns);
    state = unsigned(s);
  } else {
    unsigned s;
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> flag(sep.flags[tile]);
    while ((s = flag.load(::cuda::memory_order_acquire)) == 0u) back_off<Sleep>(ns);
    state = s;
    value = sep.values[s == 2u ? tiles + tile : tile];
  }
}

template <bool Packed>
__device__ inline void publish(Desc* desc, Separate sep, unsigned tiles, unsigned tile, unsigned state,
                               long long value) {
  if constexpr (Packed) {
    store_desc(desc + tile, state, value);
  } else {
    sep.values[state == 2u ? tiles + tile : tile] = value;
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(sep.flags[tile]).store(state, ::cuda::memory_order_release);
  }
}

// Tile x's exclusive prefix by decoupled look-back, on warp 0 (every lane
// returns it).
template <bool Packed, bool LogReduce, bool Sleep>
__device__ long long look_back(Desc* desc, Separate sep, unsigned tiles, unsigned x, long long aggregate,
                               unsigned lane) {
  if (lane == 0) publish<Packed>(desc, sep, tiles, x, x == 0 ? 2u : 1u, aggregate);
  long long exclusive = 0;
  if (x == 0) return 0;
  for (long long newest = (long long)x - 1;; newest -= 32) {
    const long long tile = newest - (long long)lane;
    unsigned state = 2u;  // before tile 0: the empty prefix
    long long value = 0;
    if (tile >= 0) read_tile<Packed, Sleep>(desc, sep, tiles, tile, state, value);
    const unsigned prefixes = __ballot_sync(0xffffffffu, state == 2u);
    const int last = prefixes ? __ffs(int(prefixes)) - 1 : 31;
    long long window = 0;
    if constexpr (LogReduce) {
      window = int(lane) <= last ? value : 0;
      for (int d = 16; d >= 1; d >>= 1) window += __shfl_xor_sync(0xffffffffu, window, d);
    } else {
      for (int l = 31; l >= 0; --l) {
        const long long v = __shfl_sync(0xffffffffu, value, l);
        if (l <= last) window += v;
      }
    }
    exclusive += window;
    if (prefixes) break;
  }
  if (lane == 0) publish<Packed>(desc, sep, tiles, x, 2u, exclusive + aggregate);
  return exclusive;
}

template <int Block, int Items, bool Packed, bool LogReduce, bool Sleep, bool NoWait>
__global__ void __launch_bounds__(Block) scan_kernel(const long long* in, long long* out, long long n,
                                                     unsigned* counter, Desc* desc, Separate sep, unsigned tiles) {
  constexpr int kWarps = Block / 32;
  __shared__ unsigned tile_shared;
  __shared__ long long warp_prefix[kWarps];
  __shared__ long long tile_prefix;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) tile_shared = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned x = tile_shared;
  const long long warp_base = (long long)x * Block * Items + (long long)warp * 32 * Items;
  long long v[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const long long k = warp_base + j * 32 + lane;
    v[j] = k < n ? in[k] : 0;
  }
  long long running = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    long long c = v[j];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const long long y = __shfl_up_sync(0xffffffffu, c, d);
      if (int(lane) >= d) c += y;
    }
    const long long total = __shfl_sync(0xffffffffu, c, 31);
    v[j] = running + c - v[j];  // exclusive within the warp's rows
    running += total;
  }
  if (lane == 0) warp_prefix[warp] = running;
  __syncthreads();
  if (warp == 0) {
    long long w = int(lane) < kWarps ? warp_prefix[lane] : 0;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const long long y = __shfl_up_sync(0xffffffffu, w, d);
      if (int(lane) >= d) w += y;
    }
    const long long aggregate = __shfl_sync(0xffffffffu, w, kWarps - 1);
    const long long before = __shfl_up_sync(0xffffffffu, w, 1);
    if (int(lane) < kWarps) warp_prefix[lane] = lane == 0 ? 0 : before;
    long long prefix = 0;
    if constexpr (!NoWait) prefix = look_back<Packed, LogReduce, Sleep>(desc, sep, tiles, x, aggregate, lane);
    if (lane == 0) tile_prefix = prefix;
  }
  __syncthreads();
  const long long base = tile_prefix + warp_prefix[warp];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const long long k = warp_base + j * 32 + lane;
    if (k < n) out[k] = base + v[j];
  }
}

// The scratch of every variant: the tile counter, flags and values for the
// separate layout, descriptors for the packed one, sized for the smallest
// tile (256 x 8 values).
struct Scratch {
  unsigned* counter = nullptr;
  Desc* desc = nullptr;
  Separate sep{};
  std::size_t bytes = 0;
  unsigned max_tiles = 0;
};
inline std::size_t scratch_bytes(long long n) {
  const unsigned tiles = unsigned((n + 256 * 8 - 1) / (256 * 8));
  return 256 + std::size_t(tiles) * (sizeof(Desc) + sizeof(unsigned) + 2 * sizeof(long long)) + 256;
}
inline Scratch scratch_at(void* base, long long n) {
  Scratch s;
  s.max_tiles = unsigned((n + 256 * 8 - 1) / (256 * 8));
  char* p = static_cast<char*>(base);
  s.counter = reinterpret_cast<unsigned*>(p);
  s.desc = reinterpret_cast<Desc*>(p + 256);
  s.sep.flags = reinterpret_cast<unsigned*>(p + 256 + std::size_t(s.max_tiles) * sizeof(Desc));
  s.sep.values = reinterpret_cast<long long*>(reinterpret_cast<char*>(s.sep.flags) +
                                              (std::size_t(s.max_tiles) * sizeof(unsigned) + 15) / 16 * 16);
  s.bytes = scratch_bytes(n);
  return s;
}

// One scan of in[0, n) into out with variant <...>: clears the scratch and
// launches, on `stream`.
template <int Block, int Items, bool Packed, bool LogReduce, bool Sleep, bool NoWait>
cudaError_t run(const long long* in, long long* out, long long n, const Scratch& s, cudaStream_t stream) {
  const unsigned tiles = unsigned((n + Block * Items - 1) / (Block * Items));
  cudaError_t e = cudaMemsetAsync(s.counter, 0, s.bytes, stream);
  if (e != cudaSuccess) return e;
  scan_kernel<Block, Items, Packed, LogReduce, Sleep, NoWait>
      <<<tiles, Block, 0, stream>>>(in, out, n, s.counter, s.desc, s.sep, tiles);
  return cudaGetLastError();
}

}  // namespace scan_probe
