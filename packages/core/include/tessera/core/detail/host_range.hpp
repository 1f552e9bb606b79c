#pragma once
// RangePolicy patterns on every host back-end (Serial, Threads, OpenMP).
//
// Static schedule: each thread owns one contiguous block (or, with a chunk
// size, round-robin chunks). Dynamic: threads take chunks from an atomic
// counter. Reductions join partial results in a fixed order (thread order,
// or chunk order for Dynamic), so a given back-end and thread count always
// produce bit-identical results.
#include <tessera/core/detail/host_region.hpp>
#include <tessera/core/detail/reduction_ops.hpp>
#include <tessera/core/range_policy.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace tessera::detail {

template <class Policy>
inline std::int64_t dynamic_chunk(const Policy& p, std::int64_t n, int nt) {
  std::int64_t chunk = p.chunk_size();
  if (chunk <= 0) chunk = std::max<std::int64_t>(1, n / (std::int64_t(nt) * 16));
  // Deterministic dynamic reductions keep one partial per chunk: bound their number.
  return std::max<std::int64_t>(chunk, (n + 4095 * nt) / (4096 * std::int64_t(nt)));
}

// Calls body(first, last) for the pieces of [b, e) that thread tid runs,
// in ascending order, following the policy's schedule. `next` is the shared
// counter of the Dynamic schedule.
template <class Policy, class I, class Body>
inline void host_schedule(const Policy& p, I b, I e, int tid, int nt, std::atomic<std::int64_t>& next,
                          std::int64_t chunk, const Body& body) {
  if constexpr (Policy::traits::is_dynamic) {
    for (;;) {
      std::int64_t s = next.fetch_add(chunk, std::memory_order_relaxed);
      if (s >= std::int64_t(e - b)) break;
      body(static_cast<I>(b + s), static_cast<I>(b + std::min<std::int64_t>(s + chunk, e - b)));
    }
  } else if (p.chunk_size() > 0) {
    for (std::int64_t s = std::int64_t(tid) * chunk; s < std::int64_t(e - b); s += std::int64_t(nt) * chunk)
      body(static_cast<I>(b + s), static_cast<I>(b + std::min<std::int64_t>(s + chunk, e - b)));
  } else {
    auto blk = block_of(b, e, tid, nt);
    if (blk.first < blk.last) body(blk.first, blk.last);
  }
}

template <class... P, class F>
void host_parallel_for(const RangePolicy<P...>& p, const F& f) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  const I b = p.begin(), e = p.end();
  if (!(b < e)) return;
  const auto& exec = p.space();
  using Exec = std::decay_t<decltype(exec)>;
  const int nt = single_thread_v<Exec> ? 1 : exec.impl_thread_pool_size();
  if (nt == 1) {
    host_index_loop(b, e, [&](I i) { invoke_tagged<Tag>(f, i); });
    return;
  }
  if constexpr (!single_thread_v<Exec>) {
    std::atomic<std::int64_t> next{0};
    const std::int64_t chunk = Policy::traits::is_dynamic ? dynamic_chunk(p, std::int64_t(e - b), nt)
                                                          : p.chunk_size();
    host_region(exec, [&](int tid, int n) {
      host_schedule(p, b, e, tid, n, next, chunk, [&](I first, I last) {
        host_index_loop(first, last, [&](I i) { invoke_tagged<Tag>(f, i); });
      });
    });
  }
}

template <class... P, class F, class Ops>
void host_parallel_reduce(const RangePolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  using V = typename Ops::value_type;
  const I b = p.begin(), e = p.end();
  const auto& exec = p.space();
  using Exec = std::decay_t<decltype(exec)>;
  const int nt = (!single_thread_v<Exec> && b < e) ? exec.impl_thread_pool_size() : 1;
  const std::size_t count = ops.value_count();

  if (nt == 1) {
    PaddedSlots<V> slot(1, count);
    V* v = slot[0];
    ops.init(v);
    host_index_loop(b, e, [&](I i) { ops.template call<Tag>(f, v, i); });
    ops.final(v);
    copy_out_host(ops, v);
    return;
  }
  if constexpr (!single_thread_v<Exec>) {
    const std::int64_t n = std::int64_t(e - b);
    const bool per_chunk = Policy::traits::is_dynamic || p.chunk_size() > 0;
    const std::int64_t chunk =
        Policy::traits::is_dynamic ? dynamic_chunk(p, n, nt)
        : per_chunk                ? std::max<std::int64_t>(p.chunk_size(), (n + 4095 * nt) / (4096 * std::int64_t(nt)))
                                   : 0;
    const std::size_t slots = per_chunk ? std::size_t((n + chunk - 1) / chunk) : std::size_t(nt);
    PaddedSlots<V> partial(slots, count);
    std::atomic<std::int64_t> next{0};
    if (!per_chunk)
      for (std::size_t s = 0; s < slots; ++s) ops.init(partial[s]);
    host_region(exec, [&](int tid, int nthreads) {
      if (!per_chunk) {
        // Blocks are cut for nt threads even if the runtime gave fewer, so the
        // partials (and the result) never depend on how many actually ran.
        for (int blk_id = tid; blk_id < nt; blk_id += nthreads) {
          V* v = partial[blk_id];
          auto blk = block_of(b, e, blk_id, nt);
          host_index_loop(blk.first, blk.last, [&](I i) { ops.template call<Tag>(f, v, i); });
        }
      } else {
        host_schedule(p, b, e, tid, nthreads, next, chunk, [&](I first, I last) {
          V* v = partial[std::size_t((first - b) / chunk)];
          ops.init(v);
          host_index_loop(first, last, [&](I i) { ops.template call<Tag>(f, v, i); });
        });
      }
    });
    V* result = partial[0];
    for (std::size_t s = 1; s < slots; ++s) ops.join(result, partial[s]);
    ops.final(result);
    copy_out_host(ops, result);
  }
}

// Scan: two passes over the same static blocks. Pass one sums each block
// (final = false); the block offsets are an exclusive scan of those sums;
// pass two runs the functor again with final = true from each offset.
template <class... P, class F, class Ops>
void host_parallel_scan(const RangePolicy<P...>& p, const F& f, const Ops& ops,
                        typename Ops::value_type* total) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  using V = typename Ops::value_type;
  const I b = p.begin(), e = p.end();
  const auto& exec = p.space();
  using Exec = std::decay_t<decltype(exec)>;
  const int nt = (!single_thread_v<Exec> && b < e) ? exec.impl_thread_pool_size() : 1;

  if (nt == 1) {
    // Value-initialized although init() sets it: GCC 12 at -O2 cannot see
    // through init() and warns (-Wmaybe-uninitialized) where -O3 inlines it.
    V update{};
    ops.init(&update);
    for (I i = b; i < e; ++i) invoke_tagged<Tag>(f, i, update, true);
    if (total) *total = update;
    return;
  }
  if constexpr (!single_thread_v<Exec>) {
    PaddedSlots<V> partial(nt + 1, 1);
    for (int t = 0; t <= nt; ++t) ops.init(partial[t]);
    // Pass one uses the pool's thread count; the block split must be the same
    // in pass two, so both use `nt` blocks regardless of how many threads ran.
    host_region(exec, [&](int tid, int nthreads) {
      for (int blk_id = tid; blk_id < nt; blk_id += nthreads) {
        auto blk = block_of(b, e, blk_id, nt);
        V* v = partial[blk_id + 1];
        for (I i = blk.first; i < blk.last; ++i) invoke_tagged<Tag>(f, i, *v, false);
      }
    });
    for (int t = 1; t <= nt; ++t) ops.join(partial[t], partial[t - 1]);  // inclusive over blocks
    host_region(exec, [&](int tid, int nthreads) {
      for (int blk_id = tid; blk_id < nt; blk_id += nthreads) {
        auto blk = block_of(b, e, blk_id, nt);
        V update = *partial[blk_id];
        for (I i = blk.first; i < blk.last; ++i) invoke_tagged<Tag>(f, i, update, true);
      }
    });
    if (total) *total = *partial[nt];
  }
}

}  // namespace tessera::detail
