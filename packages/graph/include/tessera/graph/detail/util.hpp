#pragma once
// Small kernels and helpers the graph package shares: space resolution,
// exclusive scans, device lower_bound, the sort seam, host<->space copies.
#include <tessera/core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::graph::detail {

// A graph's Space parameter may be an execution space (algorithms run there)
// or a memory space (algorithms run on the default space for that memory).
template <class Space, class = void>
struct resolve_space {
  using memory_space = typename Space::memory_space;
  using execution_space = typename tessera::detail::default_execution_space_for<memory_space>::type;
};
template <class Space>
struct resolve_space<Space, std::enable_if_t<tessera::is_execution_space_v<Space>>> {
  using memory_space = typename Space::memory_space;
  using execution_space = Space;
};

[[noreturn]] inline void fail(const std::string& msg) { throw std::runtime_error("tessera::graph: " + msg); }

// Exclusive prefix sum of v(0..n-1) in place; v has n+1 entries and
// v(n) receives the total, which is returned.
template <class Exec, class V>
typename V::non_const_value_type exclusive_scan_inplace(const std::string& label, const V& v, std::int64_t n) {
  using T = typename V::non_const_value_type;
  T total = 0;
  tessera::parallel_scan(
      label, tessera::RangePolicy<Exec>(0, n + 1),
      TESSERA_LAMBDA(std::int64_t i, T & upd, bool final) {
        const T x = i < n ? v(i) : T(0);
        if (final) v(i) = upd;
        upd += x;
      },
      total);
  return total;
}

// Vector lanes per vertex for a row-per-team-rank kernel over `slots` stored
// edges of n vertices: the average degree rounded up to a power of two,
// from 4 to 32 (a warp) or the space's vector_length_max() if smaller.
template <class Policy>
int lanes_for_average_degree(std::int64_t slots, std::int64_t n) {
  const std::int64_t avg = n > 0 ? (slots + n - 1) / n : 1;
  int lanes = 4;
  while (lanes < avg && lanes < 32) lanes *= 2;
  return lanes < Policy::vector_length_max() ? lanes : Policy::vector_length_max();
}

// League size of a TeamPolicy reduction whose team ranks stride over
// `items` on their own (item i, i + stride, ...; stride = league * ranks):
// on a GPU the teams the device holds at once (concurrency / (ranks x
// lanes) blocks), on a host space a team per thread, never more than the
// items need. Cuda's team reductions run a resident grid whose blocks take
// their league ranks one after another with a block barrier between two
// (cuda_team.hpp), so a team per `ranks` items would make every group wait
// for its slowest item: on a power-law graph, far above the mean.
template <class Exec>
std::int64_t striding_league(std::int64_t items, int ranks, int lanes) {
  const std::int64_t conc = std::int64_t(Exec().concurrency());
  const std::int64_t resident =
      tessera::is_host_execution_space<Exec>::value ? conc : conc / (std::int64_t(ranks) * lanes);
  const std::int64_t needed = (items + ranks - 1) / ranks;
  return needed < resident ? needed : (resident > 0 ? resident : 1);
}

// Orders three values ascending (a triangle's vertices for its visitor).
template <class V>
TESSERA_INLINE_FUNCTION void sort3(V& a, V& b, V& c) {
  if (b < a) { const V t = a; a = b; b = t; }
  if (c < b) { const V t = b; b = c; c = t; }
  if (b < a) { const V t = a; a = b; b = t; }
}

// First position in [lo, hi) of the sorted array a whose value is >= x.
template <class T, class I>
TESSERA_INLINE_FUNCTION I lower_bound(const T* a, I lo, I hi, T x) {
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Last position p in [lo, hi) with a[p] <= x, for a sorted (prefix) array.
template <class T, class I>
TESSERA_INLINE_FUNCTION I upper_bound_minus_one(const T* a, I lo, I hi, T x) {
  while (hi - lo > 1) {
    const I mid = lo + (hi - lo) / 2;
    if (a[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Fills a rank-1 View on Exec (deep_copy would use the memory space's
// default execution space, not the graph's).
template <class Exec, class V>
void fill(const V& v, const typename V::non_const_value_type& x) {
  tessera::parallel_for("graph::fill", tessera::RangePolicy<Exec>(0, std::int64_t(v.extent(0))),
                        TESSERA_LAMBDA(std::int64_t i) { v(i) = x; });
}

// Index of the lowest set bit of a nonzero word, on host and device.
TESSERA_INLINE_FUNCTION int lowest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// Loads and stores of words other threads may be writing, where no ordering
// is needed (a stale value only costs a redundant atomic later): plain moves
// on the host, volatile accesses on a GPU. tessera::atomic_store is sequentially
// consistent (an exchange on x86), which hot loops cannot afford.
template <class T>
TESSERA_INLINE_FUNCTION T load_relaxed(const T* p) {
#if TESSERA_IMPL_ON_DEVICE
  return *reinterpret_cast<const volatile T*>(p);
#else
  T v;
  __atomic_load(p, &v, __ATOMIC_RELAXED);
  return v;
#endif
}
template <class T>
TESSERA_INLINE_FUNCTION void store_relaxed(T* p, T v) {
#if TESSERA_IMPL_ON_DEVICE
  *reinterpret_cast<volatile T*>(p) = v;
#else
  __atomic_store(p, &v, __ATOMIC_RELAXED);
#endif
}

// The sort seam: every sort the package does goes through here, so the core
// sort can be swapped for another without touching the algorithms.
template <class Exec, class KV, class VV>
void sort_by_key(const Exec& exec, const KV& keys, const VV& values) {
  tessera::sort_by_key(exec, keys, values);
}

// A View of the graph's space holding a copy of host data.
template <class T, class Space, class U>
tessera::View<T*, Space> to_space(const std::string& label, const std::vector<U>& h) {
  tessera::View<T*, Space> d(tessera::view_alloc(label, tessera::WithoutInitializing), h.size());
  auto m = tessera::create_mirror_view(tessera::HostSpace(), d);
  for (std::size_t i = 0; i < h.size(); ++i) m(i) = static_cast<T>(h[i]);
  tessera::deep_copy(d, m);
  return d;
}

// One element of a (possibly device) View, read from the host.
// Host-accessible Views are read and written directly: a deep_copy would
// start a parallel region per element, which dominates level-synchronous
// loops (one read per BFS level).
template <class V>
typename V::non_const_value_type read_one(const V& v, std::int64_t i) {
  using T = typename V::non_const_value_type;
  if constexpr (tessera::detail::host_accessible<typename V::memory_space>::value) {
    return v(i);
  }
  tessera::View<T, tessera::HostSpace> h("read_one");
  tessera::deep_copy(h, tessera::subview(v, i));
  return h();
}

template <class V>
void write_one(const V& v, std::int64_t i, const typename V::non_const_value_type& x) {
  using T = typename V::non_const_value_type;
  if constexpr (tessera::detail::host_accessible<typename V::memory_space>::value) {
    v(i) = x;
    return;
  }
  tessera::View<T, tessera::HostSpace> h("write_one");
  h() = x;
  tessera::deep_copy(tessera::subview(v, i), h);
}

// Sets every element of v to zero: a store where the host can reach v; on a
// device, a fill queued on Exec's default instance, without a round trip to
// the host (what follows on that instance sees the zeros). write_one, by
// contrast, returns once the value is there.
template <class Exec, class V>
void zero_queued(const V& v) {
  using T = typename V::non_const_value_type;
  if constexpr (tessera::detail::host_accessible<typename V::memory_space>::value) {
    for (std::size_t i = 0; i < v.extent(0); ++i) v(i) = T(0);
  } else {
    tessera::deep_copy(Exec(), v, T(0));
  }
}

template <class V>
std::vector<typename V::non_const_value_type> to_host_vector(const V& v) {
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  std::vector<typename V::non_const_value_type> out(v.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = h(i);
  return out;
}

}  // namespace tessera::graph::detail
