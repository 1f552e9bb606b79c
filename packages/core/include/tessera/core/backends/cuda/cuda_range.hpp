#pragma once
// RangePolicy patterns on Cuda.
//
// parallel_for: one index per thread, grid-stride when the range exceeds
// the grid. parallel_reduce: each thread folds a grid-stride share of the
// range, the block combines (warp shuffles, then shared memory), each block
// stores its partial, and the last block to finish (found with one atomic
// ticket) combines the partials and writes the result: straight into device
// memory when the result is a device View (no wait), otherwise into scratch
// that is copied back after waiting for the stream. parallel_scan: two
// passes over the same contiguous block chunks (block totals; then prefixes
// in block-wide scans), with the block offsets scanned in between.
//
// Schedule<Dynamic> and chunk sizes only matter to host back-ends; on a GPU
// the hardware scheduler balances blocks.
#include <tessera/core/backends/cuda/cuda_launch.hpp>
#include <tessera/core/backends/cuda/cuda_reduce.hpp>
#include <tessera/core/backends/cuda/cuda_scan.hpp>
#include <tessera/core/detail/reduction_ops.hpp>
#include <tessera/core/range_policy.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera::detail::cuda {

// The functor holder with_functor will pass (by value, or a pointer to the
// copy in the instance scratch).
template <class F>
using functor_holder_t = std::conditional_t<functor_fits_param<F>, FunctorByValue<F>, FunctorInGlobal<F>>;

// The one scratch request of a dispatch that needs scratch data (reduction
// partials, scan totals): sized for the functor copy and the data together,
// before with_functor copies a large functor there. Growing the buffer later
// in the dispatch would free the memory the functor pointer handed to the
// kernel points into. Caller holds inst.mutex.
template <class F>
CudaInstance::Scratch dispatch_scratch(CudaInstance& inst, std::size_t data_bytes) {
  return inst.scratch(functor_fits_param<F> ? 0 : sizeof(F), data_bytes);
}

// Host-side guard for the rule above: the functor copy the kernel reads must
// be the one in the scratch the dispatch sized (`s`). A functor passed by
// value has nothing in the scratch.
template <class H>
void check_functor_placement(const H&, const CudaInstance::Scratch&, const char*) {}
template <class F>
void check_functor_placement(const FunctorInGlobal<F>& holder, const CudaInstance::Scratch& s, const char* what) {
  if (static_cast<const void*>(holder.f) != s.functor)
    throw std::logic_error(std::string(what) +
                           ": internal error: the functor copy is not in the dispatch scratch sized for it");
}

// ---- device bodies ------------------------------------------------------------

template <class Tag, class I, class H>
__device__ inline void range_for_body(const H& h, I begin, std::int64_t n) {
  const auto& f = h.get();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    invoke_tagged<Tag>(f, static_cast<I>(begin + static_cast<I>(k)));
}

template <class Tag, class I, class H>
__global__ void range_for_kernel(H h, I begin, std::int64_t n) {
  range_for_body<Tag>(h, begin, n);
}
template <class Tag, class I, class H, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB) range_for_kernel_lb(H h, I begin, std::int64_t n) {
  range_for_body<Tag>(h, begin, n);
}

// Arguments of the reduction kernels.
template <class V>
struct ReduceArgs {
  V* partials;        // gridDim.x * count values
  V* global_slots;    // per-thread slots when shared memory is too small, else null
  V* result;          // where the last block writes the final value(s)
  unsigned* counter;  // ticket counter, zero on entry, reset to zero on exit
};

// The last block's thread 0 stores the final value(s): into the result
// slot, and, for several results, each one that lives in device-accessible
// memory into its own destination.
template <class Ops, class V>
__device__ inline void store_final(const Ops& ops, V* result, const V* v, std::size_t count) {
  for (std::size_t c = 0; c < count; ++c) result[c] = v[c];
  if constexpr (requires { ops.write_device_results(*v); }) ops.write_device_results(*v);
}

// Combines this block's per-thread values and, in the last block, every
// block's partial. `fold(v)` accumulates the thread's share into v.
template <class Ops, class V, class Fold>
__device__ void reduce_block_and_grid(const Ops& ops, const ReduceArgs<V>& a, const Fold& fold) {
  const std::size_t count = ops.value_count();
  __shared__ bool last_block;
  const bool scalar = shuffle_able<V> && count == 1;
  V* slots = a.global_slots ? a.global_slots + std::size_t(blockIdx.x) * blockDim.x * count
                            : reinterpret_cast<V*>(shared_memory());
  if constexpr (shuffle_able<V>) {
    if (scalar) {
      V v;
      ops.init(&v);
      fold(&v);
      block_reduce_value(ops, v, slots);
      if (threadIdx.x == 0) a.partials[blockIdx.x] = v;
    }
  }
  if (!scalar) {
    V* mine = slots + threadIdx.x * count;
    ops.init(mine);
    fold(mine);
    block_reduce_slots(ops, slots, count);
    if (threadIdx.x == 0)
      for (std::size_t c = 0; c < count; ++c) a.partials[std::size_t(blockIdx.x) * count + c] = slots[c];
  }
  // Publish the partial, then take a ticket; the last ticket combines.
  if (threadIdx.x == 0) {
    __threadfence();
    last_block = atomicAdd(a.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  const V* partials = a.partials;
  auto fold_partials = [&](V* v) {
    for (unsigned j = threadIdx.x; j < gridDim.x; j += blockDim.x) ops.join(v, partials + std::size_t(j) * count);
  };
  if constexpr (shuffle_able<V>) {
    if (scalar) {
      V v;
      ops.init(&v);
      fold_partials(&v);
      block_reduce_value(ops, v, slots);
      if (threadIdx.x == 0) {
        ops.final(&v);
        store_final(ops, a.result, &v, 1);
        *a.counter = 0;
      }
      return;
    }
  }
  __syncthreads();  // slots were read by thread 0 above
  V* mine = slots + threadIdx.x * count;
  ops.init(mine);
  fold_partials(mine);
  block_reduce_slots(ops, slots, count);
  if (threadIdx.x == 0) {
    ops.final(slots);
    store_final(ops, a.result, slots, count);
    *a.counter = 0;
  }
}

template <class Tag, class I, class H, class Ops>
__device__ inline void range_reduce_body(const H& h, Ops ops, I begin, std::int64_t n,
                                         const ReduceArgs<typename Ops::value_type>& a) {
  using V = typename Ops::value_type;
  const auto& f = h.get();
  rebind_functor(ops, &f);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  reduce_block_and_grid(ops, a, [&](V* v) {
    for (std::int64_t k = first; k < n; k += stride)
      ops.template call<Tag>(f, v, static_cast<I>(begin + static_cast<I>(k)));
  });
}

template <class Tag, class I, class H, class Ops>
__global__ void range_reduce_kernel(H h, Ops ops, I begin, std::int64_t n, ReduceArgs<typename Ops::value_type> a) {
  range_reduce_body<Tag>(h, ops, begin, n, a);
}
template <class Tag, class I, class H, class Ops, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB)
    range_reduce_kernel_lb(H h, Ops ops, I begin, std::int64_t n, ReduceArgs<typename Ops::value_type> a) {
  range_reduce_body<Tag>(h, ops, begin, n, a);
}

// Scan pass over block `blockIdx.x`'s chunk [c0, c1) in steps of blockDim.x.
// With Final = false it stores the chunk's total in totals[blockIdx.x]; with
// Final = true it runs the functor with final = true from offsets[blockIdx.x].
template <bool Final, class Tag, class I, class H, class Ops>
__device__ void range_scan_body(const H& h, Ops ops, I begin, std::int64_t n, std::int64_t chunk,
                                typename Ops::value_type* totals, const typename Ops::value_type* offsets) {
  using V = typename Ops::value_type;
  const auto& f = h.get();
  rebind_functor(ops, &f);
  V* buf = reinterpret_cast<V*>(shared_memory());
  const std::int64_t c0 = std::int64_t(blockIdx.x) * chunk;
  const std::int64_t c1 = c0 + chunk < n ? c0 + chunk : n;
  V prefix;
  if constexpr (Final) prefix = offsets[blockIdx.x];
  else ops.init(&prefix);
  for (std::int64_t base = c0; base < c1; base += blockDim.x) {
    const std::int64_t k = base + threadIdx.x;
    const I i = static_cast<I>(begin + static_cast<I>(k));
    V contribution;
    ops.init(&contribution);
    if (k < c1) invoke_tagged<Tag>(f, i, contribution, false);
    V* incl = block_inclusive_scan(ops, contribution, buf);
    if constexpr (Final) {
      if (k < c1) {
        V update = prefix;
        if (threadIdx.x > 0) ops.join(&update, &incl[threadIdx.x - 1]);
        invoke_tagged<Tag>(f, i, update, true);
      }
    }
    ops.join(&prefix, &incl[blockDim.x - 1]);
    __syncthreads();
  }
  if constexpr (!Final) {
    if (threadIdx.x == 0) totals[blockIdx.x] = prefix;
  }
}

template <bool Final, class Tag, class I, class H, class Ops>
__global__ void range_scan_kernel(H h, Ops ops, I begin, std::int64_t n, std::int64_t chunk,
                                  typename Ops::value_type* totals, const typename Ops::value_type* offsets) {
  range_scan_body<Final, Tag>(h, ops, begin, n, chunk, totals, offsets);
}
template <bool Final, class Tag, class I, class H, class Ops, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB)
    range_scan_kernel_lb(H h, Ops ops, I begin, std::int64_t n, std::int64_t chunk,
                         typename Ops::value_type* totals, const typename Ops::value_type* offsets) {
  range_scan_body<Final, Tag>(h, ops, begin, n, chunk, totals, offsets);
}

// Exclusive scan of the block totals (few: at most kMaxScanBlocks) into
// offsets, and the grand total into *total. One thread: cheap and ordered.
template <class H, class Ops>
__global__ void scan_offsets_kernel(H h, Ops ops, const typename Ops::value_type* totals,
                                    typename Ops::value_type* offsets, unsigned nblocks,
                                    typename Ops::value_type* total) {
  using V = typename Ops::value_type;
  rebind_functor(ops, &h.get());
  V acc;
  ops.init(&acc);
  for (unsigned j = 0; j < nblocks; ++j) {
    offsets[j] = acc;
    ops.join(&acc, &totals[j]);
  }
  *total = acc;
}

inline constexpr unsigned kMaxScanBlocks = 1024;

// ---- host side ------------------------------------------------------------------

template <class... P, class F>
void range_parallel_for(const RangePolicy<P...>& p, const F& f) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  using LB = typename Policy::launch_bounds;
  Cuda::impl_require_available("tessera::parallel_for on Cuda");
  const std::int64_t n = std::int64_t(p.end()) - std::int64_t(p.begin());
  if (n <= 0) return;
  CudaInstance& inst = p.space().impl_internal();
  const auto& dev = cuda_device_info();
  auto launch = [&](auto holder) {
    using H = decltype(holder);
    const void* kernel;
    if constexpr (lb_max_threads<LB> > 0) kernel = reinterpret_cast<const void*>(&range_for_kernel_lb<Tag, I, H, lb_max_threads<LB>, lb_min_blocks<LB>>);
    else kernel = reinterpret_cast<const void*>(&range_for_kernel<Tag, I, H>);
    static const int block = block_size_for<LB>(kernel, 256, false);
    const std::int64_t grid = std::min<std::int64_t>((n + block - 1) / block, dev.max_grid_x);
    if constexpr (lb_max_threads<LB> > 0)
      range_for_kernel_lb<Tag, I, H, lb_max_threads<LB>, lb_min_blocks<LB>><<<unsigned(grid), block, 0, inst.stream>>>(holder, p.begin(), n);
    else
      range_for_kernel<Tag, I, H><<<unsigned(grid), block, 0, inst.stream>>>(holder, p.begin(), n);
    check_launch("tessera::parallel_for on Cuda");
  };
  if constexpr (functor_fits_param<F>) {
    with_functor(inst, f, launch);
  } else {
    std::lock_guard<std::mutex> lock(inst.mutex);
    with_functor(inst, f, launch);
  }
}

// Copies the final value back to host destinations (after waiting), or
// leaves it where the kernel wrote it (device destinations).
template <class Ops>
void finish_reduction(CudaInstance& inst, const Ops& ops, const typename Ops::value_type* device_result,
                      bool written_to_dest) {
  using V = typename Ops::value_type;
  if (written_to_dest) return;
  const std::size_t bytes = ops.value_count() * sizeof(V);
  void* host = inst.pinned(bytes);
  cuda_check(cudaMemcpyAsync(host, device_result, bytes, cudaMemcpyDeviceToHost, inst.stream),
             "tessera::parallel_reduce on Cuda: copying the result back");
  cuda_check(cudaStreamSynchronize(inst.stream), "tessera::parallel_reduce on Cuda (kernel failed?)");
  // Several results: the kernel wrote those in device-accessible memory.
  if constexpr (requires { ops.copy_host_results(static_cast<const V*>(host)); })
    ops.copy_host_results(static_cast<const V*>(host));
  else
    copy_out_host(ops, static_cast<const V*>(host));
}

// Whether the kernel writes every result itself, so that the host need not
// wait: one result in device-accessible memory (ops.dest), or several of
// which none is a host scalar.
template <class Ops>
bool result_goes_to_device(const Ops& ops) {
  if constexpr (requires { ops.any_host_scalar; }) return !ops.any_host_scalar;
  else if constexpr (requires { ops.dest; }) return !ops.dest_on_host && ops.dest != nullptr;
  else return false;
}
// Where the last block writes the final value: straight into a single
// device destination, else into `scratch` (several results are then
// scattered by store_final).
template <class Ops>
typename Ops::value_type* final_value_slot(const Ops& ops, bool direct, typename Ops::value_type* scratch) {
  if constexpr (requires { ops.dest; }) return direct ? ops.dest : scratch;
  else return scratch;
}


// Block size and shared memory of a reduction: scalar values need one slot
// per warp; array values one slot per thread, in global memory if the block
// cannot hold them even at 32 threads.
struct ReduceShape {
  int block;
  std::size_t shared_bytes;
  bool global_slots;
};
inline ReduceShape reduce_shape(int block, std::size_t value_bytes, bool scalar, int max_shared) {
  if (scalar) return {block, std::size_t(block / kWarpSize) * value_bytes, false};
  while (block > kWarpSize && std::size_t(block) * value_bytes > std::size_t(max_shared)) block /= 2;
  if (std::size_t(block) * value_bytes > std::size_t(max_shared)) return {block, 0, true};
  return {block, std::size_t(block) * value_bytes, false};
}

template <class... P, class F, class Ops>
void range_parallel_reduce(const RangePolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  using LB = typename Policy::launch_bounds;
  using V = typename Ops::value_type;
  using H = functor_holder_t<F>;
  static constexpr const char* what = "tessera::parallel_reduce on Cuda";
  Cuda::impl_require_available(what);
  const std::int64_t n = std::int64_t(p.end()) - std::int64_t(p.begin());
  CudaInstance& inst = p.space().impl_internal();
  const auto& dev = cuda_device_info();
  const std::size_t count = ops.value_count();
  const std::size_t vbytes = count * sizeof(V);
  const bool scalar = shuffle_able<V> && count == 1;
  const void* kernel;
  if constexpr (lb_max_threads<LB> > 0) kernel = reinterpret_cast<const void*>(&range_reduce_kernel_lb<Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>);
  else kernel = reinterpret_cast<const void*>(&range_reduce_kernel<Tag, I, H, Ops>);
  static const int preferred = block_size_for<LB>(kernel, 256, true);
  const ReduceShape shape = reduce_shape(preferred, vbytes, scalar, dev.max_shared_per_block);
  // Enough blocks to fill the device once; each thread then folds a
  // grid-stride share. A fixed grid per device keeps results reproducible.
  const std::int64_t full = std::int64_t(dev.sm_count) * std::max(1, dev.max_threads_per_sm / shape.block);
  const unsigned grid = unsigned(std::clamp<std::int64_t>((n + shape.block - 1) / shape.block, 1, full));
  const std::size_t partial_bytes = (std::size_t(grid) * vbytes + 255) / 256 * 256;
  const std::size_t result_bytes = (vbytes + 255) / 256 * 256;
  const std::size_t slot_bytes = shape.global_slots ? std::size_t(grid) * shape.block * vbytes : 0;
  std::lock_guard<std::mutex> lock(inst.mutex);
  // One request for the functor copy and the partials (see dispatch_scratch).
  const auto s = dispatch_scratch<F>(inst, partial_bytes + result_bytes + slot_bytes);
  char* data = static_cast<char*>(s.data);
  const bool direct = result_goes_to_device(ops);
  ReduceArgs<V> args{reinterpret_cast<V*>(data), shape.global_slots ? reinterpret_cast<V*>(data + partial_bytes + result_bytes) : nullptr,
                     final_value_slot(ops, direct, reinterpret_cast<V*>(data + partial_bytes)), s.counter};
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    check_functor_placement(holder, s, what);
    if constexpr (lb_max_threads<LB> > 0)
      range_reduce_kernel_lb<Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<grid, shape.block, shape.shared_bytes, inst.stream>>>(holder, ops, p.begin(), n, args);
    else
      range_reduce_kernel<Tag, I, H, Ops><<<grid, shape.block, shape.shared_bytes, inst.stream>>>(holder, ops, p.begin(), n, args);
    check_launch(what);
    finish_reduction(inst, ops, args.result, direct);
  });
}

// The single-pass scan of cuda_scan.hpp over [begin, begin + n), n > 0.
template <class Tag, class I, class F, class Ops>
void range_single_pass_scan(CudaInstance& inst, I begin, std::int64_t n, const F& f, const Ops& ops,
                            typename Ops::value_type* total) {
  using V = typename Ops::value_type;
  using H = functor_holder_t<F>;
  static constexpr const char* what = "tessera::parallel_scan on Cuda";
  const std::int64_t per_tile = std::int64_t(kScanBlock) * kScanItems<V>;
  const std::int64_t tiles64 = (n + per_tile - 1) / per_tile;
  if (tiles64 > std::int64_t(cuda_device_info().max_grid_x))
    throw std::runtime_error(std::string(what) + ": " + std::to_string(n) + " indices need " + std::to_string(tiles64) +
                             " tiles, more than the device's grid allows");
  const unsigned tiles = unsigned(tiles64);
  std::lock_guard<std::mutex> lock(inst.mutex);
  // One request for the functor copy and the tiles' state (see dispatch_scratch).
  const auto s = dispatch_scratch<F>(inst, scan_tiles_bytes<V>(tiles));
  const ScanTiles<V> t = scan_tiles_at<V>(s.data, tiles);
  cuda_check(cudaMemsetAsync(t.tile_counter, 0, scan_tiles_flag_bytes<V>(tiles), inst.stream),
             "tessera::parallel_scan on Cuda: clearing the tile flags");
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    check_functor_placement(holder, s, what);
    scan_single_pass_kernel<Tag, I, H, Ops><<<tiles, kScanBlock, 0, inst.stream>>>(holder, ops, begin, n, t);
    check_launch(what);
    if (total) {
      void* host = inst.pinned(sizeof(V));
      cuda_check(cudaMemcpyAsync(host, t.grand, sizeof(V), cudaMemcpyDeviceToHost, inst.stream),
                 "tessera::parallel_scan on Cuda: copying the total back");
      cuda_check(cudaStreamSynchronize(inst.stream), "tessera::parallel_scan on Cuda (kernel failed?)");
      *total = *static_cast<const V*>(host);
    }
  });
}

template <class... P, class F, class Ops>
void range_parallel_scan(const RangePolicy<P...>& p, const F& f, const Ops& ops, typename Ops::value_type* total) {
  using Policy = RangePolicy<P...>;
  using Tag = typename Policy::work_tag;
  using I = typename Policy::index_type;
  using LB = typename Policy::launch_bounds;
  using V = typename Ops::value_type;
  using H = functor_holder_t<F>;
  static constexpr const char* what = "tessera::parallel_scan on Cuda";
  Cuda::impl_require_available(what);
  const std::int64_t n = std::int64_t(p.end()) - std::int64_t(p.begin());
  if (n <= 0) {
    if (total) ops.init(total);
    return;
  }
  CudaInstance& inst = p.space().impl_internal();
  if constexpr (single_pass_scan_able<V> && (lb_max_threads<LB> == 0 || lb_max_threads<LB> >= kScanBlock)) {
    if (ops.value_count() == 1) {
      range_single_pass_scan<Tag, I>(inst, p.begin(), n, f, ops, total);
      return;
    }
  }
  const auto& dev = cuda_device_info();
  const void* k0;
  const void* k1;
  if constexpr (lb_max_threads<LB> > 0) {
    k0 = reinterpret_cast<const void*>(&range_scan_kernel_lb<false, Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>);
    k1 = reinterpret_cast<const void*>(&range_scan_kernel_lb<true, Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>);
  } else {
    k0 = reinterpret_cast<const void*>(&range_scan_kernel<false, Tag, I, H, Ops>);
    k1 = reinterpret_cast<const void*>(&range_scan_kernel<true, Tag, I, H, Ops>);
  }
  static const int preferred = std::min(block_size_for<LB>(k0, 256, true), block_size_for<LB>(k1, 256, true));
  int block = preferred;
  while (block > kWarpSize && 2 * std::size_t(block) * sizeof(V) > std::size_t(dev.max_shared_per_block)) block /= 2;
  if (2 * std::size_t(block) * sizeof(V) > std::size_t(dev.max_shared_per_block))
    throw std::runtime_error(std::string(what) + ": the scan value type (" + std::to_string(sizeof(V)) +
                             " bytes) is too large for a block-wide scan in shared memory");
  const std::size_t shared = 2 * std::size_t(block) * sizeof(V);
  // Contiguous chunks, a whole number of blocks long, at most kMaxScanBlocks of them.
  const std::int64_t per_block = std::max<std::int64_t>(
      block, ((n + kMaxScanBlocks - 1) / kMaxScanBlocks + block - 1) / block * block);
  const unsigned grid = unsigned((n + per_block - 1) / per_block);
  const std::size_t vb = (std::size_t(grid) * sizeof(V) + 255) / 256 * 256;
  std::lock_guard<std::mutex> lock(inst.mutex);
  // One request for the functor copy and the block totals (see dispatch_scratch).
  const auto s = dispatch_scratch<F>(inst, 2 * vb + 256);
  char* data = static_cast<char*>(s.data);
  V* totals = reinterpret_cast<V*>(data);
  V* offsets = reinterpret_cast<V*>(data + vb);
  V* grand = reinterpret_cast<V*>(data + 2 * vb);
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    check_functor_placement(holder, s, what);
    if constexpr (lb_max_threads<LB> > 0)
      range_scan_kernel_lb<false, Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<grid, block, shared, inst.stream>>>(holder, ops, p.begin(), n, per_block, totals, offsets);
    else
      range_scan_kernel<false, Tag, I, H, Ops><<<grid, block, shared, inst.stream>>>(holder, ops, p.begin(), n, per_block, totals, offsets);
    check_launch("tessera::parallel_scan on Cuda (pass 1)");
    scan_offsets_kernel<H, Ops><<<1, 1, 0, inst.stream>>>(holder, ops, totals, offsets, grid, grand);
    check_launch("tessera::parallel_scan on Cuda (block offsets)");
    if constexpr (lb_max_threads<LB> > 0)
      range_scan_kernel_lb<true, Tag, I, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<grid, block, shared, inst.stream>>>(holder, ops, p.begin(), n, per_block, totals, offsets);
    else
      range_scan_kernel<true, Tag, I, H, Ops><<<grid, block, shared, inst.stream>>>(holder, ops, p.begin(), n, per_block, totals, offsets);
    check_launch("tessera::parallel_scan on Cuda (pass 2)");
    if (total) {
      void* host = inst.pinned(sizeof(V));
      cuda_check(cudaMemcpyAsync(host, grand, sizeof(V), cudaMemcpyDeviceToHost, inst.stream),
                 "tessera::parallel_scan on Cuda: copying the total back");
      cuda_check(cudaStreamSynchronize(inst.stream), "tessera::parallel_scan on Cuda (kernel failed?)");
      *total = *static_cast<const V*>(host);
    }
  });
}

}  // namespace tessera::detail::cuda
