#pragma once
// Parallel sorting of rank-1 Views, with Kokkos' names:
//
//   tessera::sort(v);                          // ascending, in v's execution space
//   tessera::sort(v, begin, end);              // only v(begin..end-1)
//   tessera::sort(v, TESSERA_LAMBDA(int a, int b) { return a > b; });
//   tessera::sort_by_key(keys, values);        // stable: equal keys keep their order
//   tessera::sort_by_key(keys, values, comp);
//
// Host back-ends (Serial, Threads, OpenMP), all built on the host pattern
// layer, so they use the space's own thread pool:
//  - integer keys with the default order: parallel LSD radix sort, 8 bits a
//    pass, per-thread histograms and stable scatter. Byte positions where all
//    keys agree are skipped (found in one pre-pass), so e.g. 64-bit vertex ids
//    below 2^24 take three passes.
//  - any other key type or comparator: parallel merge sort. Each thread sorts
//    one block, then the blocks are merged pairwise, every merge cut into
//    equal pieces by merge-path co-ranking so all threads work on every round.
// CUDA (compiled by nvcc): CUB's radix sort for arithmetic keys in the
// default order, Thrust's merge sort otherwise, on the instance's stream
// (backends/cuda/cuda_sort.hpp). Both sort_by_key variants are stable
// everywhere (Kokkos does not promise that). As in Kokkos, the forms that
// take an execution space instance return without waiting for it (a Cuda
// sort is then queued on the instance's stream); the forms without one wait.
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/detail/host_region.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/profiling.hpp>
#include <tessera/core/view.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__) && TESSERA_ENABLE_CUDA
#include <tessera/core/backends/cuda/cuda_sort.hpp>
#endif

namespace tessera {

namespace detail {

// The default order: operator<, callable on host and device.
struct SortLess {
  template <class T>
  TESSERA_INLINE_FUNCTION bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};

template <class T>
inline constexpr bool radix_sortable_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Maps an integer to an unsigned one with the same order.
template <class K>
inline auto radix_bits(K k) {
  using U = std::make_unsigned_t<K>;
  U u = static_cast<U>(k);
  if constexpr (std::is_signed_v<K>) u ^= U(U(1) << (sizeof(K) * 8 - 1));
  return u;
}

struct NoValues {};

// Uninitialized scratch of n elements (the sort writes every one before reading).
template <class T>
std::unique_ptr<T[]> scratch(std::size_t n) {
  if constexpr (std::is_trivially_default_constructible_v<T>) return std::unique_ptr<T[]>(new T[n]);
  else return std::unique_ptr<T[]>(new T[n]());
}

// Runs f(b) for every block b in [0, nb) on the pool; one block runs on the
// caller without waking the pool (small inputs, nested calls).
template <class Exec, class F>
void for_blocks(const Exec& exec, int nb, const F& f) {
  if (nb == 1) {
    f(0);
    return;
  }
  host_region(exec, [&](int tid, int nth) {
    for (int b = tid; b < nb; b += nth) f(b);
  });
}

template <class Exec, class T>
void host_parallel_copy(const Exec& exec, T* dst, const T* src, std::size_t n) {
  const int nb = n < (std::size_t(1) << 15) ? 1 : exec.impl_thread_pool_size();
  for_blocks(exec, nb, [&](int b) {
    auto blk = block_of<std::size_t>(0, n, b, nb);
    std::copy(src + blk.first, src + blk.last, dst + blk.first);
  });
}

// Stable LSD radix sort of keys[0, n), moving vals (if any) along.
template <class Exec, class K, class V>
void host_radix_sort(const Exec& exec, K* keys, V* vals, std::size_t n) {
  constexpr bool has_vals = !std::is_same_v<V, NoValues>;
  if (n < 2) return;
  using U = decltype(radix_bits(K()));
  const int nb = n < (std::size_t(1) << 15) ? 1 : exec.impl_thread_pool_size();
  // Pre-pass: which bits differ from the first key anywhere.
  std::vector<U> diff_part(nb, 0);
  const U first = radix_bits(keys[0]);
  for_blocks(exec, nb, [&](int b) {
    auto blk = block_of<std::size_t>(0, n, b, nb);
    U d = 0;
    for (std::size_t i = blk.first; i < blk.last; ++i) d |= U(radix_bits(keys[i]) ^ first);
    diff_part[b] = d;
  });
  U diff = 0;
  for (U d : diff_part) diff |= d;
  if (diff == 0) return;  // all keys equal: already sorted, and stable

  auto key_buf = scratch<K>(n);
  std::unique_ptr<V[]> val_buf;
  if constexpr (has_vals) val_buf = scratch<V>(n);
  K* ks = keys;
  K* kd = key_buf.get();
  V* vs = vals;
  V* vd = val_buf.get();
  std::vector<std::size_t> hist(std::size_t(nb) * 256);

  for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
    if (((diff >> shift) & U(0xff)) == 0) continue;  // every key has the same byte here
    std::fill(hist.begin(), hist.end(), 0);
    for_blocks(exec, nb, [&](int b) {
      auto blk = block_of<std::size_t>(0, n, b, nb);
      std::size_t* h = &hist[std::size_t(b) * 256];
      for (std::size_t i = blk.first; i < blk.last; ++i) ++h[(radix_bits(ks[i]) >> shift) & 0xff];
    });
    // Exclusive offsets, digit-major then block order: stable.
    std::size_t running = 0;
    for (int d = 0; d < 256; ++d)
      for (int b = 0; b < nb; ++b) {
        std::size_t c = hist[std::size_t(b) * 256 + d];
        hist[std::size_t(b) * 256 + d] = running;
        running += c;
      }
    for_blocks(exec, nb, [&](int b) {
      auto blk = block_of<std::size_t>(0, n, b, nb);
      std::size_t* off = &hist[std::size_t(b) * 256];
      for (std::size_t i = blk.first; i < blk.last; ++i) {
        const std::size_t pos = off[(radix_bits(ks[i]) >> shift) & 0xff]++;
        kd[pos] = ks[i];
        if constexpr (has_vals) vd[pos] = vs[i];
      }
    });
    std::swap(ks, kd);
    if constexpr (has_vals) std::swap(vs, vd);
  }
  if (ks != keys) {
    host_parallel_copy(exec, keys, ks, n);
    if constexpr (has_vals) host_parallel_copy(exec, vals, vs, n);
  }
}

// Elements of A taken among the first k outputs of the stable merge of A and
// B (ties go to A): the merge-path co-rank.
template <class T, class Comp>
std::size_t merge_corank(const T* a, std::size_t m, const T* b, std::size_t l, std::size_t k, const Comp& comp) {
  std::size_t lo = k > l ? k - l : 0, hi = std::min(k, m);
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2, j = k - i;
    if (j > 0 && i < m && !comp(b[j - 1], a[i])) lo = i + 1;  // b[j-1] >= a[i]: a[i] comes first
    else hi = i;
  }
  return lo;
}

// Parallel merge sort of a[0, n) by comp; stable when `stable`.
template <class Exec, class T, class Comp>
void host_merge_sort(const Exec& exec, T* a, std::size_t n, const Comp& comp, bool stable) {
  const int nt = exec.impl_thread_pool_size();
  if (nt == 1 || n < (std::size_t(1) << 14)) {
    if (stable) std::stable_sort(a, a + n, comp);
    else std::sort(a, a + n, comp);
    return;
  }
  std::vector<std::size_t> bounds(std::size_t(nt) + 1);
  for (int b = 0; b < nt; ++b) bounds[b] = block_of<std::size_t>(0, n, b, nt).first;
  bounds[nt] = n;
  for_blocks(exec, nt, [&](int b) {
    if (stable) std::stable_sort(a + bounds[b], a + bounds[b + 1], comp);
    else std::sort(a + bounds[b], a + bounds[b + 1], comp);
  });

  auto buf = scratch<T>(n);
  T* src = a;
  T* dst = buf.get();
  struct Piece {
    std::size_t a0, a1, b0, b1, out;
  };
  std::vector<Piece> pieces;
  const std::size_t piece_len = std::max<std::size_t>(4096, n / (std::size_t(nt) * 4));
  while (bounds.size() > 2) {
    pieces.clear();
    std::vector<std::size_t> next{0};
    const std::size_t runs = bounds.size() - 1;
    for (std::size_t r = 0; r < runs; r += 2) {
      const std::size_t s0 = bounds[r], s1 = bounds[r + 1], s2 = r + 1 < runs ? bounds[r + 2] : s1;
      const std::size_t m = s1 - s0, l = s2 - s1, len = m + l;
      const std::size_t parts = std::max<std::size_t>(1, (len + piece_len - 1) / piece_len);
      std::size_t i_prev = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t k1 = (p + 1) * len / parts, k0 = p * len / parts;
        const std::size_t i1 = p + 1 == parts ? m : merge_corank(src + s0, m, src + s1, l, k1, comp);
        pieces.push_back({s0 + i_prev, s0 + i1, s1 + (k0 - i_prev), s1 + (k1 - i1), s0 + k0});
        i_prev = i1;
      }
      next.push_back(s2);
    }
    std::atomic<std::size_t> counter{0};
    host_region(exec, [&](int, int) {
      for (std::size_t p; (p = counter.fetch_add(1, std::memory_order_relaxed)) < pieces.size();) {
        const Piece& q = pieces[p];
        std::merge(src + q.a0, src + q.a1, src + q.b0, src + q.b1, dst + q.out, comp);
      }
    });
    std::swap(src, dst);
    bounds.swap(next);
  }
  if (src != a) host_parallel_copy(exec, a, src, n);
}

template <class K, class V>
struct KeyValue {
  K key;
  V value;
};

template <class V>
constexpr bool contiguous_rank1(const V& v) {
  return v.extent(0) <= 1 || v.stride(0) == 1;
}

template <class V>
void check_range(const char* what, const V& v, std::size_t begin, std::size_t end) {
  if (begin > end || end > v.extent(0))
    throw_runtime_error(std::string("tessera::") + what + " of View '" + v.label() + "': range [" +
                        std::to_string(begin) + ", " + std::to_string(end) + ") is not inside [0, " +
                        std::to_string(v.extent(0)) + ")");
}

// Sorts the host array a[0, n) on exec.
template <class Exec, class T, class Comp>
void host_sort_array(const Exec& exec, T* a, std::size_t n, const Comp& comp) {
  if constexpr (radix_sortable_v<T> && std::is_same_v<Comp, SortLess>) host_radix_sort(exec, a, (NoValues*)nullptr, n);
  else host_merge_sort(exec, a, n, comp, false);
}

template <class Exec, class K, class V, class Comp>
void host_sort_by_key_array(const Exec& exec, K* k, V* v, std::size_t n, const Comp& comp) {
  if constexpr (radix_sortable_v<K> && std::is_same_v<Comp, SortLess>) {
    host_radix_sort(exec, k, v, n);
  } else {
    if (n < 2) return;
    auto kv = scratch<KeyValue<K, V>>(n);
    KeyValue<K, V>* p = kv.get();
    const int nb = n < (std::size_t(1) << 15) ? 1 : exec.impl_thread_pool_size();
    for_blocks(exec, nb, [&](int b) {
      auto blk = block_of<std::size_t>(0, n, b, nb);
      for (std::size_t i = blk.first; i < blk.last; ++i) p[i] = {k[i], v[i]};
    });
    host_merge_sort(
        exec, p, n, [&comp](const KeyValue<K, V>& x, const KeyValue<K, V>& y) { return comp(x.key, y.key); }, true);
    for_blocks(exec, nb, [&](int b) {
      auto blk = block_of<std::size_t>(0, n, b, nb);
      for (std::size_t i = blk.first; i < blk.last; ++i) {
        k[i] = p[i].key;
        v[i] = p[i].value;
      }
    });
  }
}

// A contiguous host copy of v(begin..end-1) (or v's own memory when it is
// contiguous and host-accessible), written back by finish().
template <class HostExec, class View1>
struct HostRange {
  using T = typename View1::non_const_value_type;
  const View1& v;
  std::size_t begin, n;
  T* ptr = nullptr;
  View<T*, Device<HostExec, HostSpace>> copy;
  HostRange(const View1& view, std::size_t b, std::size_t e) : v(view), begin(b), n(e - b) {
    if constexpr (host_accessible<typename View1::memory_space>::value) {
      if (contiguous_rank1(v)) {
        ptr = const_cast<T*>(v.data()) + begin;
        return;
      }
    }
    copy = View<T*, Device<HostExec, HostSpace>>(view_alloc("tessera::sort scratch", WithoutInitializing), n);
    deep_copy(copy, subview(v, std::pair<std::size_t, std::size_t>(begin, begin + n)));
    ptr = copy.data();
  }
  void finish() {
    if (copy.data()) deep_copy(subview(v, std::pair<std::size_t, std::size_t>(begin, begin + n)), copy);
  }
};


template <class Exec, class View1, class Comp>
void sort_impl(const Exec& exec, const View1& v, std::size_t begin, std::size_t end, const Comp& comp) {
  static_assert(View1::rank == 1, "tessera::sort sorts rank-1 Views");
  static_assert(!std::is_const_v<typename View1::value_type>, "tessera::sort: the View must not be const");
  check_range("sort", v, begin, end);
  profiling::KernelScope scope(profiling::Kind::parallel_for, "tessera::sort [" + v.label() + "]", Exec::name());
  if (end - begin < 2) return;
  if constexpr (is_host_execution_space<Exec>::value) {
    HostRange<Exec, View1> r(v, begin, end);
    host_sort_array(exec, r.ptr, r.n, comp);
    r.finish();
  } else {
#if defined(__CUDACC__) && TESSERA_ENABLE_CUDA
    if constexpr (std::is_same_v<Exec, Cuda>) {
      if (contiguous_rank1(v)) {
        using T = typename View1::non_const_value_type;
        if constexpr (cuda::radix_sort_key<T> && std::is_same_v<Comp, SortLess>)
          cuda::device_radix_sort(exec, v.data() + begin, end - begin);
        else
          cuda::device_merge_sort(exec, v.data() + begin, end - begin, comp);
        return;
      }
    }
#endif
    exec.fence();  // the host copy below reads what the instance's earlier work wrote
    HostRange<DefaultHostExecutionSpace, View1> r(v, begin, end);
    host_sort_array(DefaultHostExecutionSpace(), r.ptr, r.n, comp);
    r.finish();
  }
}

template <class Exec, class KV, class VV, class Comp>
void sort_by_key_impl(const Exec& exec, const KV& keys, const VV& values, const Comp& comp) {
  static_assert(KV::rank == 1 && VV::rank == 1, "tessera::sort_by_key sorts rank-1 Views");
  static_assert(!std::is_const_v<typename KV::value_type> && !std::is_const_v<typename VV::value_type>,
                "tessera::sort_by_key: the Views must not be const");
  if (keys.extent(0) != values.extent(0))
    throw_runtime_error("tessera::sort_by_key: keys '" + keys.label() + "' has " + std::to_string(keys.extent(0)) +
                        " elements but values '" + values.label() + "' has " + std::to_string(values.extent(0)));
  profiling::KernelScope scope(profiling::Kind::parallel_for, "tessera::sort_by_key [" + keys.label() + "]",
                               Exec::name());
  const std::size_t n = keys.extent(0);
  if (n < 2) return;
  if constexpr (is_host_execution_space<Exec>::value) {
    HostRange<Exec, KV> k(keys, 0, n);
    HostRange<Exec, VV> v(values, 0, n);
    host_sort_by_key_array(exec, k.ptr, v.ptr, n, comp);
    k.finish();
    v.finish();
  } else {
#if defined(__CUDACC__) && TESSERA_ENABLE_CUDA
    if constexpr (std::is_same_v<Exec, Cuda>) {
      if (contiguous_rank1(keys) && contiguous_rank1(values)) {
        using K = typename KV::non_const_value_type;
        if constexpr (cuda::radix_sort_by_key_key<K> && std::is_same_v<Comp, SortLess>)
          cuda::device_radix_sort_by_key(exec, keys.data(), values.data(), n);
        else
          cuda::device_merge_sort_by_key(exec, keys.data(), values.data(), n, comp);
        return;
      }
    }
#endif
    exec.fence();  // the host copies below read what the instance's earlier work wrote
    HostRange<DefaultHostExecutionSpace, KV> k(keys, 0, n);
    HostRange<DefaultHostExecutionSpace, VV> v(values, 0, n);
    host_sort_by_key_array(DefaultHostExecutionSpace(), k.ptr, v.ptr, n, comp);
    k.finish();
    v.finish();
  }
}

}  // namespace detail

// ---- sort ----------------------------------------------------------------------

template <class Exec, class DT, class... DP, class Comp>
  requires is_execution_space_v<Exec>
void sort(const Exec& exec, const View<DT, DP...>& view, const Comp& comp) {
  detail::sort_impl(exec, view, 0, view.extent(0), comp);
}
template <class Exec, class DT, class... DP>
  requires is_execution_space_v<Exec>
void sort(const Exec& exec, const View<DT, DP...>& view) {
  detail::sort_impl(exec, view, 0, view.extent(0), detail::SortLess());
}
template <class DT, class... DP>
void sort(const View<DT, DP...>& view) {
  using Exec = typename View<DT, DP...>::execution_space;
  detail::sort_impl(Exec(), view, 0, view.extent(0), detail::SortLess());
  Exec().fence("tessera::sort");
}
template <class DT, class... DP, class Comp>
  requires(!std::is_integral_v<Comp>)
void sort(const View<DT, DP...>& view, const Comp& comp) {
  using Exec = typename View<DT, DP...>::execution_space;
  detail::sort_impl(Exec(), view, 0, view.extent(0), comp);
  Exec().fence("tessera::sort");
}
// Sorts view(begin), ..., view(end - 1) only.
template <class Exec, class DT, class... DP>
  requires is_execution_space_v<Exec>
void sort(const Exec& exec, const View<DT, DP...>& view, std::size_t begin, std::size_t end) {
  detail::sort_impl(exec, view, begin, end, detail::SortLess());
}
template <class DT, class... DP>
void sort(const View<DT, DP...>& view, std::size_t begin, std::size_t end) {
  using Exec = typename View<DT, DP...>::execution_space;
  detail::sort_impl(Exec(), view, begin, end, detail::SortLess());
  Exec().fence("tessera::sort");
}

// ---- sort_by_key ---------------------------------------------------------------

// Reorders keys ascending (or by comp) and values along with them; stable.
template <class Exec, class KT, class... KP, class VT, class... VP, class Comp>
  requires is_execution_space_v<Exec>
void sort_by_key(const Exec& exec, const View<KT, KP...>& keys, const View<VT, VP...>& values, const Comp& comp) {
  detail::sort_by_key_impl(exec, keys, values, comp);
}
template <class Exec, class KT, class... KP, class VT, class... VP>
  requires is_execution_space_v<Exec>
void sort_by_key(const Exec& exec, const View<KT, KP...>& keys, const View<VT, VP...>& values) {
  detail::sort_by_key_impl(exec, keys, values, detail::SortLess());
}
template <class KT, class... KP, class VT, class... VP>
void sort_by_key(const View<KT, KP...>& keys, const View<VT, VP...>& values) {
  using Exec = typename View<KT, KP...>::execution_space;
  detail::sort_by_key_impl(Exec(), keys, values, detail::SortLess());
  Exec().fence("tessera::sort_by_key");
}
template <class KT, class... KP, class VT, class... VP, class Comp>
void sort_by_key(const View<KT, KP...>& keys, const View<VT, VP...>& values, const Comp& comp) {
  using Exec = typename View<KT, KP...>::execution_space;
  detail::sort_by_key_impl(Exec(), keys, values, comp);
  Exec().fence("tessera::sort_by_key");
}

namespace Experimental {
using tessera::sort_by_key;
}

}  // namespace tessera
