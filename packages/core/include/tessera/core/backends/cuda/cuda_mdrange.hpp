#pragma once
// MDRangePolicy patterns on Cuda: tiles -> blocks.
//
// Tiles are numbered in the policy's outer direction; block b takes tiles
// b, b + gridDim.x, ... For each tile, the block's threads take its points
// in the inner direction (the fastest dimension varies fastest across
// threads, so consecutive threads touch consecutive addresses of a View in
// the matching layout). The block size is the tile volume rounded up to a
// warp, at most 256 (a bigger tile is swept in several passes). Reductions
// fold each thread's points and then combine exactly like range reductions.
#include <tessera/core/backends/cuda/cuda_range.hpp>
#include <tessera/core/detail/fast_divisor.hpp>
#include <tessera/core/md_range_policy.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>

namespace tessera::detail::cuda {

// The tile geometry of a policy, trivially copyable into a kernel.
template <class Policy>
struct MDGeometry {
  static constexpr int N = int(Policy::rank);
  static constexpr bool outer_right = Policy::outer_direction == Iterate::Right;
  static constexpr bool inner_right = Policy::inner_direction == Iterate::Right;
  using I = typename Policy::index_type;
  I lower[N], upper[N], tile[N];
  std::int64_t ntiles[N];
  std::int64_t total_tiles;

  // The fast path (for_my_points_fast): every tile's points fit one pass of
  // the block, and tile and point numbers fit 32 bits.
  bool fast = false;
  std::uint32_t full_volume = 0;  // points of a whole tile (clipped to the extents)
  FastDivisor tiles_div[N], points_div[N];

  explicit MDGeometry(const Policy& p) : total_tiles(p.size() == 0 ? 0 : p.num_tiles()) {
    for (int r = 0; r < N; ++r) {
      lower[r] = p.lower()[r];
      upper[r] = p.upper()[r];
      tile[r] = p.tile_size()[r];
      ntiles[r] = p.num_tiles(unsigned(r));
    }
  }
  // Decides the fast path for a block of `block` threads.
  void prepare_fast(int block) {
    const std::int64_t v = max_tile_volume();
    // An empty range (some extent 0) has no tiles and nothing to divide by.
    fast = total_tiles > 0 && v > 0 && v <= block && total_tiles < (std::int64_t(1) << 31);
    for (int r = 0; r < N && fast; ++r) {
      const std::int64_t extent = std::int64_t(upper[r] - lower[r]);
      fast = ntiles[r] < (std::int64_t(1) << 31) && extent < (std::int64_t(1) << 31) &&
             std::int64_t(tile[r]) < (std::int64_t(1) << 31);
    }
    if (!fast) return;
    full_volume = std::uint32_t(v);
    for (int r = 0; r < N; ++r) {
      tiles_div[r] = FastDivisor(std::uint32_t(ntiles[r]));
      points_div[r] = FastDivisor(std::uint32_t(std::min<std::int64_t>(std::int64_t(tile[r]), std::int64_t(upper[r] - lower[r]))));
    }
  }
  // The largest number of points in one tile.
  std::int64_t max_tile_volume() const {
    std::int64_t v = 1;
    for (int r = 0; r < N; ++r) v *= std::min<std::int64_t>(std::int64_t(tile[r]), std::int64_t(upper[r] - lower[r]));
    return v;
  }

  // Calls call(i0, ..., iN-1) for the points of this block's tiles that this
  // thread owns.
  template <class Call>
  __device__ void for_my_points(const Call& call) const {
    if (fast) for_my_points_fast(call);
    else for_my_points_general(call);
  }

  // One point per thread per tile: the thread's offset inside a tile is
  // found once; per tile, only the tile's coordinates (N fast divisions).
  // Threads past an edge tile's clipped extents skip it.
  template <class Call>
  __device__ void for_my_points_fast(const Call& call) const {
    if (threadIdx.x >= full_volume) return;
    std::uint32_t local[N];
    std::uint32_t k = threadIdx.x;
#pragma unroll
    for (int q = 0; q < N; ++q) {
      const int r = inner_right ? N - 1 - q : q;
      const std::uint32_t next = points_div[r].divide(k);
      local[r] = k - next * points_div[r].divisor;
      k = next;
    }
    for (std::uint32_t t = blockIdx.x; t < std::uint32_t(total_tiles); t += gridDim.x) {
      I idx[N];
      bool inside = true;
      std::uint32_t rest = t;
#pragma unroll
      for (int q = 0; q < N; ++q) {
        const int r = outer_right ? N - 1 - q : q;
        const std::uint32_t next = tiles_div[r].divide(rest);
        const std::uint32_t c = rest - next * tiles_div[r].divisor;
        rest = next;
        idx[r] = static_cast<I>(lower[r] + static_cast<I>(std::int64_t(c) * tile[r] + local[r]));
        inside = inside && idx[r] < upper[r];
      }
      if (inside) apply(call, idx, std::make_integer_sequence<int, N>());
    }
  }

  template <class Call>
  __device__ void for_my_points_general(const Call& call) const {
    for (std::int64_t t = blockIdx.x; t < total_tiles; t += gridDim.x) {
      I lo[N];
      std::int64_t ext[N];
      std::int64_t rest = t, volume = 1;
#pragma unroll
      for (int q = 0; q < N; ++q) {
        const int r = outer_right ? N - 1 - q : q;
        const std::int64_t c = rest % ntiles[r];
        rest /= ntiles[r];
        lo[r] = static_cast<I>(lower[r] + static_cast<I>(c) * tile[r]);
        const std::int64_t hi = std::min<std::int64_t>(std::int64_t(lo[r]) + std::int64_t(tile[r]), std::int64_t(upper[r]));
        ext[r] = hi - std::int64_t(lo[r]);
        volume *= ext[r];
      }
      for (std::int64_t k = threadIdx.x; k < volume; k += blockDim.x) {
        I idx[N];
        std::int64_t p = k;
#pragma unroll
        for (int q = 0; q < N; ++q) {
          const int r = inner_right ? N - 1 - q : q;
          idx[r] = static_cast<I>(lo[r] + static_cast<I>(p % ext[r]));
          p /= ext[r];
        }
        apply(call, idx, std::make_integer_sequence<int, N>());
      }
    }
  }

 private:
  template <class Call, int... R>
  __device__ static void apply(const Call& call, const I* idx, std::integer_sequence<int, R...>) {
    call(idx[R]...);
  }
};

template <class Tag, class G, class H>
__device__ inline void md_for_body(const H& h, const G& g) {
  const auto& f = h.get();
  g.for_my_points([&](auto... i) { invoke_tagged<Tag>(f, i...); });
}
template <class Tag, class G, class H>
__global__ void md_for_kernel(H h, G g) {
  md_for_body<Tag>(h, g);
}
template <class Tag, class G, class H, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB) md_for_kernel_lb(H h, G g) {
  md_for_body<Tag>(h, g);
}

template <class Tag, class G, class H, class Ops>
__device__ inline void md_reduce_body(const H& h, Ops ops, const G& g, const ReduceArgs<typename Ops::value_type>& a) {
  using V = typename Ops::value_type;
  const auto& f = h.get();
  rebind_functor(ops, &f);
  reduce_block_and_grid(ops, a, [&](V* v) {
    g.for_my_points([&](auto... i) { ops.template call<Tag>(f, v, i...); });
  });
}
template <class Tag, class G, class H, class Ops>
__global__ void md_reduce_kernel(H h, Ops ops, G g, ReduceArgs<typename Ops::value_type> a) {
  md_reduce_body<Tag>(h, ops, g, a);
}
template <class Tag, class G, class H, class Ops, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB) md_reduce_kernel_lb(H h, Ops ops, G g, ReduceArgs<typename Ops::value_type> a) {
  md_reduce_body<Tag>(h, ops, g, a);
}

// Threads per block for tiles of `volume` points.
inline int md_block(std::int64_t volume, int limit, bool power_of_two) {
  int b = int(std::min<std::int64_t>(std::max<std::int64_t>(volume, 1), limit));
  if (power_of_two) {
    int p = kWarpSize;
    while (p < b && p * 2 <= limit) p *= 2;
    return p;
  }
  return std::min(limit, (b + kWarpSize - 1) / kWarpSize * kWarpSize);
}

template <class... P, class F>
void md_parallel_for(const MDRangePolicy<P...>& p, const F& f) {
  using Policy = MDRangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using LB = typename Policy::launch_bounds;
  using G = MDGeometry<Policy>;
  Cuda::impl_require_available("tessera::parallel_for(MDRangePolicy) on Cuda");
  G g(p);
  if (g.total_tiles == 0) return;
  CudaInstance& inst = p.space().impl_internal();
  const auto& dev = cuda_device_info();
  auto launch = [&](auto holder) {
    using H = decltype(holder);
    const void* kernel;
    if constexpr (lb_max_threads<LB> > 0) kernel = reinterpret_cast<const void*>(&md_for_kernel_lb<Tag, G, H, lb_max_threads<LB>, lb_min_blocks<LB>>);
    else kernel = reinterpret_cast<const void*>(&md_for_kernel<Tag, G, H>);
    static const int limit = block_size_for<LB>(kernel, 256, false);
    const int block = md_block(g.max_tile_volume(), limit, false);
    g.prepare_fast(block);
    const unsigned grid = unsigned(std::min<std::int64_t>(g.total_tiles, dev.max_grid_x));
    if constexpr (lb_max_threads<LB> > 0)
      md_for_kernel_lb<Tag, G, H, lb_max_threads<LB>, lb_min_blocks<LB>><<<grid, block, 0, inst.stream>>>(holder, g);
    else
      md_for_kernel<Tag, G, H><<<grid, block, 0, inst.stream>>>(holder, g);
    check_launch("tessera::parallel_for(MDRangePolicy) on Cuda");
  };
  if constexpr (functor_fits_param<F>) {
    with_functor(inst, f, launch);
  } else {
    std::lock_guard<std::mutex> lock(inst.mutex);
    with_functor(inst, f, launch);
  }
}

template <class... P, class F, class Ops>
void md_parallel_reduce(const MDRangePolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = MDRangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using LB = typename Policy::launch_bounds;
  using G = MDGeometry<Policy>;
  using V = typename Ops::value_type;
  using H = functor_holder_t<F>;
  static constexpr const char* what = "tessera::parallel_reduce(MDRangePolicy) on Cuda";
  Cuda::impl_require_available(what);
  G g(p);
  CudaInstance& inst = p.space().impl_internal();
  const auto& dev = cuda_device_info();
  const std::size_t count = ops.value_count();
  const std::size_t vbytes = count * sizeof(V);
  const bool scalar = shuffle_able<V> && count == 1;
  const void* kernel;
  if constexpr (lb_max_threads<LB> > 0) kernel = reinterpret_cast<const void*>(&md_reduce_kernel_lb<Tag, G, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>);
  else kernel = reinterpret_cast<const void*>(&md_reduce_kernel<Tag, G, H, Ops>);
  static const int limit = block_size_for<LB>(kernel, 256, true);
  const ReduceShape shape = reduce_shape(md_block(g.max_tile_volume(), limit, true), vbytes, scalar, dev.max_shared_per_block);
  g.prepare_fast(shape.block);
  const std::int64_t full = std::int64_t(dev.sm_count) * std::max(1, dev.max_threads_per_sm / shape.block);
  const unsigned grid = unsigned(std::clamp<std::int64_t>(g.total_tiles, 1, full));
  const std::size_t partial_bytes = (std::size_t(grid) * vbytes + 255) / 256 * 256;
  const std::size_t result_bytes = (vbytes + 255) / 256 * 256;
  const std::size_t slot_bytes = shape.global_slots ? std::size_t(grid) * shape.block * vbytes : 0;
  std::lock_guard<std::mutex> lock(inst.mutex);
  // One request for the functor copy and the partials (see dispatch_scratch).
  const auto s = dispatch_scratch<F>(inst, partial_bytes + result_bytes + slot_bytes);
  char* data = static_cast<char*>(s.data);
  const bool direct = result_goes_to_device(ops);
  ReduceArgs<V> args{reinterpret_cast<V*>(data),
                     shape.global_slots ? reinterpret_cast<V*>(data + partial_bytes + result_bytes) : nullptr,
                     final_value_slot(ops, direct, reinterpret_cast<V*>(data + partial_bytes)), s.counter};
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    check_functor_placement(holder, s, what);
    if constexpr (lb_max_threads<LB> > 0)
      md_reduce_kernel_lb<Tag, G, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<grid, shape.block, shape.shared_bytes, inst.stream>>>(holder, ops, g, args);
    else
      md_reduce_kernel<Tag, G, H, Ops><<<grid, shape.block, shape.shared_bytes, inst.stream>>>(holder, ops, g, args);
    check_launch(what);
    finish_reduction(inst, ops, args.result, direct);
  });
}

}  // namespace tessera::detail::cuda
