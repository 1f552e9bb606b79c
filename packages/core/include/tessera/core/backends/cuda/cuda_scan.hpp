#pragma once
// parallel_scan over a RangePolicy on Cuda in one pass over the data, with
// results that are the same from run to run (floating point included).
//
// The range is cut into tiles of kScanItems(V) x block-size indices; blocks
// take tiles in order from an atomic counter, so every tile a block waits
// for belongs to a block that is already running (no deadlock, whatever the
// scheduler does). Inside a tile each warp owns kScanItems rows of 32
// consecutive indices (coalesced, whatever the functor reads), scans each
// row with shuffles and carries the row totals; a warp of the block then
// scans the warps' totals. That gives the tile's aggregate A(x).
//
// Across tiles, integer values use decoupled look-back (Merrill and
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA TR, 2016): tile x combines the aggregates and prefixes of
// whichever predecessors have published so far, so the grouping of the
// joins depends on timing, which integers do not notice. For every other
// value type (floating point) the grouping is fixed by x alone: tile x's exclusive prefix is the join, from high bits to low, of
// the sums of the aligned power-of-two ranges of tiles given by the set bits
// of x (a Fenwick decomposition: for x = 13 = 0b1101, tiles [0,8), [8,12),
// [12,13)). The sum of an aligned range [e - 2^m, e) is published by its
// last tile, e - 1, as soon as it knows it: level 0 is its own aggregate, and
// level m joins the published level m-1 sum of the left half with its own
// level m-1 sum. The slots a tile reads are published by earlier tiles, and
// the ones tile x needs for its prefix are exactly those it needs to publish
// its own levels. Each tile reads popcount(x) slots (one per lane of a warp,
// in parallel) and writes at most log2 of the tile count, on average two.
// It publishes before it reads the pieces that only its own prefix needs,
// so no tile's publication waits on its predecessor's prefix.
//
// The functor runs twice per index, as on every Tessera back-end: once
// (final = false) for the contributions, once (final = true) with the
// exclusive prefix; the second pass reads what the first brought into cache.
#include <tessera/core/backends/cuda/cuda_launch.hpp>
#include <tessera/core/backends/cuda/cuda_reduce.hpp>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera::detail::cuda {

// Indices per thread: enough values in flight per thread to cover memory
// latency, few enough registers that the block stays resident.
template <class V>
inline constexpr int kScanItems = sizeof(V) <= 4 ? 16 : sizeof(V) <= 8 ? 12 : 6;
inline constexpr int kScanBlock = 256;

// Whether the single-pass kernel serves a value type (values kept in
// registers and shuffled); array reductions and larger values take the
// two-pass path of cuda_range.hpp.
template <class V>
inline constexpr bool single_pass_scan_able = shuffle_able<V> && sizeof(V) <= 16;
// Values whose joins give the same result in any grouping: integers. Their
// scans may combine tiles in whatever order timing offers (look-back).
template <class V>
inline constexpr bool exact_scan_value = std::is_integral_v<V>;

template <class V>
struct ScanTiles {
  unsigned* tile_counter;  // zero on entry
  unsigned* flags;         // 2 * tiles, zero on entry: 1 once the slot is published
  V* slots;                // 2 * tiles: aligned range sums, level by level
  V* grand;                // the total of the whole range
  unsigned tiles;
};

// Slot of the level-m range that ends at tile e (exclusive): levels are
// stored one after another, level m holding floor(tiles / 2^m) ranges.
__device__ inline std::size_t scan_slot(unsigned tiles, unsigned m, unsigned e) {
  std::size_t offset = 0;
  for (unsigned l = 0; l < m; ++l) offset += tiles >> l;
  return offset + (e >> m) - 1;
}

template <class V>
__device__ inline void publish_slot(const ScanTiles<V>& t, std::size_t slot, const V& value) {
  t.slots[slot] = value;
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(t.flags[slot]).store(1u, ::cuda::memory_order_release);
}

// Look-back slots: the value first, then the tile's flag (release), which
// only grows (0, 1: aggregate, 2: inclusive prefix).
template <class V>
__device__ inline void publish_flagged(const ScanTiles<V>& t, unsigned tile, std::size_t slot, const V& value,
                                       unsigned state) {
  t.slots[slot] = value;
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(t.flags[tile]).store(state, ::cuda::memory_order_release);
}
// Waits until tile `tile` has published something; returns its state.
template <class V>
__device__ inline unsigned wait_flag(const ScanTiles<V>& t, std::size_t tile) {
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> flag(t.flags[tile]);
  unsigned state;
  for (unsigned sleep_ns = 32; (state = flag.load(::cuda::memory_order_acquire)) == 0u;) {
    __nanosleep(sleep_ns);
    if (sleep_ns < 256) sleep_ns *= 2;
  }
  return state;
}

template <class V>
__device__ inline V read_slot(const ScanTiles<V>& t, std::size_t slot) {
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> flag(t.flags[slot]);
  // The slot's tile is running on another block: poll, backing off.
  for (unsigned sleep_ns = 32; flag.load(::cuda::memory_order_acquire) == 0u;) {
    __nanosleep(sleep_ns);
    if (sleep_ns < 256) sleep_ns *= 2;
  }
  return t.slots[slot];
}

// Tile x's exclusive prefix, the same bits whatever the timing (floating
// point): the Fenwick decomposition of the header comment. Called by the
// whole of warp 0; every lane returns the prefix.
template <class V, class Ops>
__device__ V fixed_order_prefix(const ScanTiles<V>& t, const Ops& ops, unsigned x, const V& aggregate, unsigned lane) {
  // Level 0 first, before waiting for anything: later tiles need it.
  if (lane == 0) publish_slot(t, scan_slot(t.tiles, 0, x + 1), aggregate);
  // Lane b reads the level-b range sum that ends where x's bits above b
  // end, for each set bit b of x. The bits below the trailing ones' count
  // `ones` give the left halves of the ranges x publishes: read those
  // first and publish at once, so that a tile's publishing never waits for
  // its own prefix (that would chain every tile to the one before it; this
  // way each published sum is at most log2(tiles) publications away from
  // the aggregates it covers).
  const unsigned ones = unsigned(__ffs(int(~x))) - 1u;
  V piece;
  ops.init(&piece);
  if (lane < ones) piece = read_slot(t, scan_slot(t.tiles, lane, (x >> lane) << lane));
  __syncwarp();
  // Lane 0 publishes x's higher levels: level m = (the left half, the
  // level m-1 sum published by tile x - 2^(m-1)) joined with x's own level
  // m-1 sum, for m = 1 .. ones.
  V own = aggregate;
  for (unsigned m = 1; m <= ones; ++m) {
    V left = shfl(piece, int(m - 1));
    ops.join(&left, &own);
    own = left;
    if (lane == 0) publish_slot(t, scan_slot(t.tiles, m, x + 1), own);
  }
  // Then the pieces above: the rest of x's prefix. Lane 0 joins all the
  // pieces from the highest bit down (a fixed order).
  if (lane > ones && ((x >> lane) & 1u)) piece = read_slot(t, scan_slot(t.tiles, lane, (x >> lane) << lane));
  __syncwarp();
  V prefix;
  ops.init(&prefix);
  for (int b = kWarpSize - 1; b >= 0; --b) {
    const V p = shfl(piece, b);
    if ((x >> b) & 1u) ops.join(&prefix, &p);
  }
  return prefix;
}

// Tile x's exclusive prefix by decoupled look-back (Merrill and Garland;
// what CUB's DeviceScan does): x publishes its aggregate at once, then
// warp 0 looks at its 32 predecessors in one step (lane l at tile x-1-l),
// each waited for until it has published at least its aggregate; the
// nearest one that has published its inclusive prefix ends the walk, else
// the window's aggregates are joined and the next 32 are read. x then
// publishes its own inclusive prefix. Which tiles have published which value
// depends on timing, so the grouping of the joins does too: only for exact
// value types (integers), where every grouping gives the same result.
// Slots: [0, tiles) aggregates, [tiles, 2 tiles) inclusive prefixes; flag
// 1 = aggregate, 2 = inclusive prefix.
template <class V, class Ops>
__device__ V look_back_prefix(const ScanTiles<V>& t, const Ops& ops, unsigned x, const V& aggregate, unsigned lane) {
  V exclusive;
  ops.init(&exclusive);
  if (lane == 0) {
    if (x == 0) publish_flagged(t, x, t.tiles + std::size_t(x), aggregate, 2u);
    else publish_flagged(t, x, x, aggregate, 1u);
  }
  if (x == 0) return exclusive;
  for (long long newest = (long long)x - 1;; newest -= kWarpSize) {
    const long long tile = newest - (long long)lane;
    unsigned state = 2u;  // before tile 0: the empty prefix
    V value;
    ops.init(&value);
    if (tile >= 0) {
      state = wait_flag(t, std::size_t(tile));
      value = t.slots[state == 2u ? t.tiles + std::size_t(tile) : std::size_t(tile)];
    }
    const unsigned prefixes = __ballot_sync(0xffffffffu, state == 2u);
    const int last = prefixes ? __ffs(int(prefixes)) - 1 : kWarpSize - 1;
    // The window's share, oldest first: lanes last, last-1, ..., 0.
    V window;
    ops.init(&window);
    for (int l = kWarpSize - 1; l >= 0; --l) {
      const V v = shfl(value, l);
      if (l <= last) ops.join(&window, &v);
    }
    ops.join(&window, &exclusive);  // this window lies before what was gathered so far
    exclusive = window;
    if (prefixes) break;
  }
  if (lane == 0) {
    V inclusive = exclusive;
    ops.join(&inclusive, &aggregate);
    publish_flagged(t, x, t.tiles + std::size_t(x), inclusive, 2u);
  }
  return exclusive;
}

template <class Tag, class I, class H, class Ops>
__device__ void scan_single_pass_body(const H& h, Ops ops, I begin, std::int64_t n, const ScanTiles<typename Ops::value_type>& t) {
  using V = typename Ops::value_type;
  constexpr int kItems = kScanItems<V>;
  const auto& f = h.get();
  rebind_functor(ops, &f);
  // Raw shared storage: V need not be default-constructible in shared memory.
  __shared__ unsigned tile_shared;
  __shared__ alignas(alignof(V) > 16 ? alignof(V) : 16) unsigned char shared_values[33 * sizeof(V)];
  V* warp_prefix = reinterpret_cast<V*>(shared_values);
  V& tile_prefix = warp_prefix[32];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned nwarps = blockDim.x / kWarpSize;
  if (threadIdx.x == 0) tile_shared = atomicAdd(t.tile_counter, 1u);
  __syncthreads();
  const unsigned x = tile_shared;
  const std::int64_t tile_base = std::int64_t(x) * blockDim.x * kItems;
  const std::int64_t warp_base = tile_base + std::int64_t(warp) * kWarpSize * kItems;

  // Contributions, one row of 32 consecutive indices per item, all
  // computed before any shuffle: the functor's loads of the kItems rows are
  // then in flight together (a shuffle between two of them would make each
  // row wait for the memory latency of its own loads, which held the scan to
  // a sixth of the bandwidth).
  V excl[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t k = warp_base + std::int64_t(j) * kWarpSize + lane;
    V c;  // a scalar temporary: an array element whose address reaches the functor lands on the stack
    ops.init(&c);
    if (k < n) invoke_tagged<Tag>(f, static_cast<I>(begin + static_cast<I>(k)), c, false);
    excl[j] = c;
  }
  // Each lane's exclusive prefix within the warp's rows, in place.
  V running;
  ops.init(&running);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    V c = excl[j];
#pragma unroll
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      V y = shfl_up(c, d);
      if (lane >= d) {
        ops.join(&y, &c);  // earlier indices on the left
        c = y;
      }
    }
    V before = shfl_up(c, 1);
    if (lane == 0) ops.init(&before);
    V e = running;
    ops.join(&e, &before);
    excl[j] = e;
    const V row_total = shfl(c, kWarpSize - 1);
    ops.join(&running, &row_total);
  }

  // The warps' totals, scanned by warp 0: each warp's prefix in the tile,
  // and the tile's aggregate.
  if (lane == 0) warp_prefix[warp] = running;
  __syncthreads();
  if (warp == 0) {
    V w;
    if (lane < nwarps) w = warp_prefix[lane];
    else ops.init(&w);
#pragma unroll
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      V y = shfl_up(w, d);
      if (lane >= d) {
        ops.join(&y, &w);
        w = y;
      }
    }
    V before = shfl_up(w, 1);
    if (lane == 0) ops.init(&before);
    const V aggregate = shfl(w, int(nwarps) - 1);
    if (lane < nwarps) warp_prefix[lane] = before;

    V prefix;
    if constexpr (exact_scan_value<V>) prefix = look_back_prefix(t, ops, x, aggregate, lane);
    else prefix = fixed_order_prefix(t, ops, x, aggregate, lane);
    if (lane == 0) {
      tile_prefix = prefix;
      if (x + 1 == t.tiles) {
        V total = prefix;
        ops.join(&total, &aggregate);
        *t.grand = total;
      }
    }
  }
  __syncthreads();

  // The final pass: each index's exclusive prefix is the tile's, the warp's
  // within the tile, and its own within the warp, joined in that order.
  V base = tile_prefix;
  ops.join(&base, &warp_prefix[warp]);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t k = warp_base + std::int64_t(j) * kWarpSize + lane;
    if (k < n) {
      V update = base;
      const V e = excl[j];
      ops.join(&update, &e);
      invoke_tagged<Tag>(f, static_cast<I>(begin + static_cast<I>(k)), update, true);
    }
  }
}

template <class Tag, class I, class H, class Ops>
__global__ void __launch_bounds__(kScanBlock, 4)
    scan_single_pass_kernel(H h, Ops ops, I begin, std::int64_t n, ScanTiles<typename Ops::value_type> t) {
  scan_single_pass_body<Tag>(h, ops, begin, n, t);
}

// Bytes of scratch the single-pass scan needs for `tiles` tiles: the tile
// counter and flags (zeroed before each scan), then the slots and the total.
template <class V>
inline std::size_t scan_tiles_flag_bytes(unsigned tiles) {
  return (sizeof(unsigned) * (1 + 2 * std::size_t(tiles)) + 255) / 256 * 256;
}
template <class V>
inline std::size_t scan_tiles_bytes(unsigned tiles) {
  return scan_tiles_flag_bytes<V>(tiles) + (sizeof(V) * (2 * std::size_t(tiles) + 1) + 255) / 256 * 256;
}

template <class V>
inline ScanTiles<V> scan_tiles_at(void* data, unsigned tiles) {
  char* base = static_cast<char*>(data);
  ScanTiles<V> t;
  t.tile_counter = reinterpret_cast<unsigned*>(base);
  t.flags = t.tile_counter + 1;
  t.slots = reinterpret_cast<V*>(base + scan_tiles_flag_bytes<V>(tiles));
  t.grand = t.slots + 2 * std::size_t(tiles);
  t.tiles = tiles;
  return t;
}

}  // namespace tessera::detail::cuda
