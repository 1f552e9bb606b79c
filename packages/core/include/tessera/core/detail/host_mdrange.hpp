#pragma once
// MDRangePolicy patterns on every host back-end (Serial, Threads, OpenMP).
//
// The box is cut into tiles; tiles are numbered in the policy's outer
// direction and each thread owns one contiguous run of tile numbers (Static),
// or takes chunks of tiles from a counter (Dynamic). Inside a tile the loops
// nest in the inner direction, the fastest one being a plain unit-step loop
// that the compiler can vectorize. With the default tiles (fastest dimension
// whole, the others one index wide) a thread's run of tiles is a contiguous
// slab of the box, i.e. exactly what `omp parallel for collapse(N-1)` does.
//
// Reductions keep one partial per thread block (or per Dynamic chunk) and
// join them in block order, so results are bit-identical run to run for a
// fixed back-end and thread count.
#include <tessera/core/detail/host_range.hpp>
#include <tessera/core/detail/host_region.hpp>
#include <tessera/core/detail/reduction_ops.hpp>
#include <tessera/core/md_range_policy.hpp>

#include <algorithm>
#include <climits>
#include <atomic>
#include <cstdint>

namespace tessera::detail {

// The tile geometry of a policy, in plain arrays.
template <class Policy>
struct MDTiles {
  static constexpr int N = int(Policy::rank);
  static constexpr bool outer_right = Policy::outer_direction == Iterate::Right;
  using I = typename Policy::index_type;
  I lower[N], upper[N], tile[N];
  std::int64_t ntiles[N];

  explicit MDTiles(const Policy& p) {
    for (int r = 0; r < N; ++r) {
      lower[r] = p.lower()[r];
      upper[r] = p.upper()[r];
      tile[r] = p.tile_size()[r];
      ntiles[r] = p.num_tiles(unsigned(r));
    }
  }

  // Tile coordinates of tile number t (numbered in the outer direction).
  void decode(std::int64_t t, std::int64_t* c) const {
    if constexpr (outer_right) {
      for (int r = N - 1; r >= 0; --r) {
        c[r] = t % ntiles[r];
        t /= ntiles[r];
      }
    } else {
      for (int r = 0; r < N; ++r) {
        c[r] = t % ntiles[r];
        t /= ntiles[r];
      }
    }
  }
  // Advances tile coordinates to the next tile number.
  void next(std::int64_t* c) const {
    if constexpr (outer_right) {
      for (int r = N - 1; r >= 0; --r) {
        if (++c[r] < ntiles[r]) return;
        c[r] = 0;
      }
    } else {
      for (int r = 0; r < N; ++r) {
        if (++c[r] < ntiles[r]) return;
        c[r] = 0;
      }
    }
  }
  void bounds(const std::int64_t* c, I* lo, I* hi) const {
    for (int r = 0; r < N; ++r) {
      lo[r] = static_cast<I>(lower[r] + static_cast<I>(c[r]) * tile[r]);
      hi[r] = static_cast<I>(std::min<std::int64_t>(std::int64_t(lo[r]) + std::int64_t(tile[r]), std::int64_t(upper[r])));
    }
  }

  // Runs body(tile_lo, tile_hi) for tiles [t0, t1), in order.
  template <class Body>
  void for_tiles(std::int64_t t0, std::int64_t t1, const Body& body) const {
    if (t0 >= t1) return;
    std::int64_t c[N];
    I lo[N], hi[N];
    decode(t0, c);
    for (std::int64_t t = t0; t < t1; ++t) {
      bounds(c, lo, hi);
      body(lo, hi);
      next(c);
    }
  }
};

// The loops of one tile. Right: dimension 0 outermost, N-1 innermost, the
// indices appended as the recursion goes in; Left: the mirror image. The
// innermost level is a plain counted loop calling call(indices...).
template <int N, bool Right>
struct MDTileLoop {

  template <int D, class I, class Call, class... Idx>
  TESSERA_FORCEINLINE_FUNCTION static void run(const I* lo, const I* hi, const Call& call, Idx... idx) {
    if constexpr (Right) {
      const I b = lo[D], e = hi[D];
      if constexpr (D == N - 1) {
        host_index_loop(b, e, [&](I i) { call(idx..., i); });
      } else {
        for (I i = b; i < e; ++i) run<D + 1>(lo, hi, call, idx..., i);
      }
    } else {
      const I b = lo[D], e = hi[D];
      if constexpr (D == 0) {
        host_index_loop(b, e, [&](I i) { call(i, idx...); });
      } else {
        for (I i = b; i < e; ++i) run<D - 1>(lo, hi, call, i, idx...);
      }
    }
  }
  template <class I, class Call>
  TESSERA_FORCEINLINE_FUNCTION static void tile(const I* lo, const I* hi, const Call& call) {
    if constexpr (Right) run<0>(lo, hi, call);
    else run<N - 1>(lo, hi, call);
  }
};

template <class... P>
inline std::int64_t md_dynamic_chunk(const MDRangePolicy<P...>& p, std::int64_t ntiles, int nt) {
  std::int64_t chunk = p.chunk_size();
  if (chunk <= 0) chunk = std::max<std::int64_t>(1, ntiles / (std::int64_t(nt) * 16));
  // Deterministic dynamic reductions keep one partial per chunk: bound their number.
  return std::max<std::int64_t>(chunk, (ntiles + 4095 * nt) / (4096 * std::int64_t(nt)));
}

template <class... P, class F>
void host_parallel_for(const MDRangePolicy<P...>& p, const F& f) {
  using Policy = MDRangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using Tiles = MDTiles<Policy>;
  using Loop = MDTileLoop<Tiles::N, Policy::inner_direction == Iterate::Right>;
  const std::int64_t total = p.num_tiles();
  if (total == 0 || p.size() == 0) return;
  const Tiles tiles(p);
  auto run_tile = [&](const auto* lo, const auto* hi) {
    Loop::tile(lo, hi, [&](auto... idx) { invoke_tagged<Tag>(f, idx...); });
  };
  const auto& exec = p.space();
  using Exec = std::decay_t<decltype(exec)>;
  const int nt = single_thread_v<Exec> ? 1 : exec.impl_thread_pool_size();
  if (nt == 1) {
    tiles.for_tiles(0, total, run_tile);
    return;
  }
  if constexpr (!single_thread_v<Exec>) {
    std::atomic<std::int64_t> next{0};
    const std::int64_t chunk = Policy::traits::is_dynamic ? md_dynamic_chunk(p, total, nt) : 0;
    host_region(exec, [&](int tid, int nthreads) {
      if constexpr (Policy::traits::is_dynamic) {
        for (;;) {
          const std::int64_t s = next.fetch_add(chunk, std::memory_order_relaxed);
          if (s >= total) break;
          tiles.for_tiles(s, std::min(s + chunk, total), run_tile);
        }
      } else {
        const auto blk = block_of<std::int64_t>(0, total, tid, nthreads);
        tiles.for_tiles(blk.first, blk.last, run_tile);
      }
    });
  }
}

template <class... P, class F, class Ops>
void host_parallel_reduce(const MDRangePolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = MDRangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using Tiles = MDTiles<Policy>;
  using Loop = MDTileLoop<Tiles::N, Policy::inner_direction == Iterate::Right>;
  using V = typename Ops::value_type;
  const std::int64_t total = (p.size() == 0) ? 0 : p.num_tiles();
  const Tiles tiles(p);
  const auto& exec = p.space();
  using Exec = std::decay_t<decltype(exec)>;
  const int nt = (!single_thread_v<Exec> && total > 0) ? exec.impl_thread_pool_size() : 1;
  const std::size_t count = ops.value_count();

  // Accumulates tiles [t0, t1) into v. A scalar accumulates in a local copy
  // so that it can live in a register across the innermost loop.
  auto reduce_tiles = [&](std::int64_t t0, std::int64_t t1, V* v) {
    if (count == 1) {
      V local = *v;
      tiles.for_tiles(t0, t1, [&](const auto* lo, const auto* hi) {
        Loop::tile(lo, hi, [&](auto... idx) { ops.template call<Tag>(f, &local, idx...); });
      });
      *v = local;
    } else {
      tiles.for_tiles(t0, t1, [&](const auto* lo, const auto* hi) {
        Loop::tile(lo, hi, [&](auto... idx) { ops.template call<Tag>(f, v, idx...); });
      });
    }
  };

  if (nt == 1) {
    PaddedSlots<V> slot(1, count);
    V* v = slot[0];
    ops.init(v);
    reduce_tiles(0, total, v);
    ops.final(v);
    copy_out_host(ops, v);
    return;
  }

  if constexpr (!single_thread_v<Exec>) {
    constexpr bool dynamic = Policy::traits::is_dynamic;
    const std::int64_t chunk = dynamic ? md_dynamic_chunk(p, total, nt) : 0;
    const std::size_t slots = dynamic ? std::size_t((total + chunk - 1) / chunk) : std::size_t(nt);
    PaddedSlots<V> partial(slots, count);
    for (std::size_t s = 0; s < slots; ++s) ops.init(partial[s]);
    std::atomic<std::int64_t> next{0};
    host_region(exec, [&](int tid, int nthreads) {
      if constexpr (dynamic) {
        for (;;) {
          const std::int64_t s = next.fetch_add(chunk, std::memory_order_relaxed);
          if (s >= total) break;
          reduce_tiles(s, std::min(s + chunk, total), partial[std::size_t(s / chunk)]);
        }
      } else {
        // Blocks are cut for nt threads even if the runtime gave fewer, so the
        // partials (and the result) never depend on how many actually ran.
        for (int b = tid; b < nt; b += nthreads) {
          const auto blk = block_of<std::int64_t>(0, total, b, nt);
          reduce_tiles(blk.first, blk.last, partial[std::size_t(b)]);
        }
      }
    });
    V* result = partial[0];
    for (std::size_t s = 1; s < slots; ++s) ops.join(result, partial[s]);
    ops.final(result);
    copy_out_host(ops, result);
  }
}

template <class... P, class F, class Ops, class V>
void host_parallel_scan(const MDRangePolicy<P...>&, const F&, const Ops&, V*) {
  static_assert(sizeof(F) == 0, "tessera::parallel_scan does not take an MDRangePolicy (as in Kokkos): "
                                "scan over a RangePolicy of the flattened index instead");
}

}  // namespace tessera::detail
