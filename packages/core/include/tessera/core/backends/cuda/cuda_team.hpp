#pragma once
// TeamPolicy on Cuda: a team is a block.
//
// A dispatch launches blocks of (vector_length, team_size) threads:
// threadIdx.y is the team rank, threadIdx.x the vector lane. Vector lanes of
// one team rank are consecutive lanes of one warp (vector_length is a power
// of two <= 32), so vector-level collectives are warp shuffles among them.
// Block b runs league ranks b, b + gridDim.x, ... (grid-stride), with a
// block barrier between two league ranks so that scratch memory and the
// team's exchange buffer can be reused.
//
// As in Kokkos, code outside vector loops runs on every vector lane of a
// thread with the same values; team-level collectives (team_reduce,
// team_scan, team_broadcast, nested TeamThreadRange reductions and scans,
// and the per-thread value of parallel_reduce) take lane 0's value as the
// thread's value and hand the result to every lane.
//
// Collectives go through warp shuffles, then a small exchange buffer at the
// start of the block's dynamic shared memory (kTeamBufferBytes): one slot
// per warp for values of up to kTeamSlotBytes, otherwise one slot that the
// warps fill in turn. Level-0 scratch follows the buffer in shared memory
// (the team part, then one 64-byte aligned part per team rank); level-1
// scratch is global memory carved from the execution-space instance's
// cached dispatch scratch, one region per block; a dispatch that uses it
// launches at most as many blocks as the device holds at once.
//
// parallel_reduce(TeamPolicy): each thread (lane) accumulates its league
// ranks into a private value; per block, the values of lane 0 of each team
// rank are combined by a tree in shared memory (in global memory when the
// slots do not fit); then the last block to finish combines the block
// partials exactly like range reductions (one ticket, no second kernel).
// Schedule<Dynamic> and chunk sizes are accepted and ignored, as for ranges.
#include <tessera/core/atomics.hpp>
#include <tessera/core/backends/cuda/cuda_space.hpp>
#include <tessera/core/error.hpp>
#include <tessera/core/macros.hpp>
#include <tessera/core/md_range_policy.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/scratch_memory_space.hpp>
#include <tessera/core/team_policy.hpp>
#if defined(__CUDACC__)
#include <tessera/core/backends/cuda/cuda_range.hpp>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::detail {

namespace cuda {
// The team's exchange buffer at the start of dynamic shared memory: large
// enough for one slot of kTeamSlotBytes per warp of a 1024-thread block.
inline constexpr std::size_t kTeamBufferBytes = 1024;
inline constexpr std::size_t kTeamSlotBytes = 32;
// Room to align the base of dynamic shared memory to 64 bytes at run time.
inline constexpr std::size_t kTeamSharedAlign = 64;
inline constexpr std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }
inline constexpr std::size_t round256(std::size_t n) { return (n + 255) / 256 * 256; }
}  // namespace cuda

// The geometry and memory of one team dispatch, passed to the kernel.
struct CudaTeamLaunch {
  int league_size;
  // Level 0, in dynamic shared memory (offsets from its 64-byte aligned base).
  std::size_t team0_offset, team0_bytes, thread0_offset, thread0_stride, thread0_bytes;
  // Level 1, in global memory: block b's region starts at level1 + b * level1_stride.
  char* level1;
  std::size_t level1_stride, team1_bytes, thread1_offset, thread1_stride, thread1_bytes;
  // Outer-reduction slots in shared memory (when they fit there).
  std::size_t reduce_offset;
};

#if defined(__CUDACC__)
namespace cuda {

// ---- device collectives ------------------------------------------------------

TESSERA_IMPL_DEVICE inline int team_tid() { return int(threadIdx.x + threadIdx.y * blockDim.x); }
TESSERA_IMPL_DEVICE inline int team_nthreads() { return int(blockDim.x * blockDim.y); }
// Lanes of the calling thread's warp that exist (the block's last warp may be partial).
TESSERA_IMPL_DEVICE inline int team_warp_lanes() {
  const int rest = team_nthreads() - (team_tid() & ~(kWarpSize - 1));
  return rest >= kWarpSize ? kWarpSize : rest;
}
TESSERA_IMPL_DEVICE inline unsigned lanes_mask(int n) { return n >= kWarpSize ? 0xffffffffu : ((1u << n) - 1u); }
// The lanes of the calling thread's vector group (vl consecutive lanes).
TESSERA_IMPL_DEVICE inline unsigned vector_mask(int vl) {
  const int base = (team_tid() & (kWarpSize - 1)) & ~(vl - 1);
  return vl >= kWarpSize ? 0xffffffffu : (((1u << vl) - 1u) << base);
}

template <class V>
inline constexpr bool team_exchange_able = std::is_trivially_copyable_v<V>;

template <class V>
TESSERA_IMPL_DEVICE inline void check_team_value() {
  static_assert(std::is_trivially_copyable_v<V>,
                "tessera: values of team collectives on Cuda (team_reduce, team_scan, team_broadcast, nested "
                "reductions and scans) must be trivially copyable");
  static_assert(sizeof(V) <= kTeamBufferBytes,
                "tessera: values of team collectives on Cuda are limited to 1024 bytes (the team's exchange buffer)");
}

template <class V>
TESSERA_IMPL_DEVICE inline V shfl_down_masked(const V& v, int offset, unsigned mask, int width) {
  constexpr int kWords = int((sizeof(V) + 3) / 4);
  int words[kWords];
  memcpy(words, &v, sizeof(V));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_down_sync(mask, words[w], unsigned(offset), width);
  V out = v;
  memcpy(static_cast<void*>(&out), words, sizeof(V));
  return out;
}
template <class V>
TESSERA_IMPL_DEVICE inline V shfl_up_masked(const V& v, int offset, unsigned mask, int width) {
  constexpr int kWords = int((sizeof(V) + 3) / 4);
  int words[kWords];
  memcpy(words, &v, sizeof(V));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_up_sync(mask, words[w], unsigned(offset), width);
  V out = v;
  memcpy(static_cast<void*>(&out), words, sizeof(V));
  return out;
}
template <class V>
TESSERA_IMPL_DEVICE inline V shfl_masked(const V& v, int src, unsigned mask, int width) {
  constexpr int kWords = int((sizeof(V) + 3) / 4);
  int words[kWords];
  memcpy(words, &v, sizeof(V));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_sync(mask, words[w], src, width);
  V out = v;
  memcpy(static_cast<void*>(&out), words, sizeof(V));
  return out;
}

template <class V>
TESSERA_IMPL_DEVICE inline void store_value(void* dst, const V& v) {
  memcpy(dst, static_cast<const void*>(&v), sizeof(V));
}
template <class V>
TESSERA_IMPL_DEVICE inline V load_value(const void* src) {
  V v;
  memcpy(static_cast<void*>(&v), src, sizeof(V));
  return v;
}

// Reduces v over the participants of a team collective and returns the
// result on every thread of the block. Participants are the threads whose
// lane is a multiple of `stride`: every thread (stride 1) or lane 0 of each
// team rank (stride = vector_length). Every thread of the block must call it.
// The join pattern is fixed and one thread computes the result, so every
// thread gets the same bits.
template <class V, class Join>
TESSERA_IMPL_DEVICE V team_allreduce(V v, const Join& join, int stride, char* buf) {
  check_team_value<V>();
  const int tid = team_tid(), lane = tid & (kWarpSize - 1), warp = tid / kWarpSize;
  const int nlanes = team_warp_lanes();
  const unsigned mask = lanes_mask(nlanes);
  for (int off = stride; off < kWarpSize; off <<= 1) {
    V other = shfl_down_masked(v, off, mask, kWarpSize);
    if (lane + off < nlanes) join(v, other);
  }
  const int nwarps = (team_nthreads() + kWarpSize - 1) / kWarpSize;
  if (nwarps == 1) return shfl_masked(v, 0, mask, kWarpSize);
  if constexpr (sizeof(V) <= kTeamSlotBytes) {
    if (lane == 0) store_value(buf + std::size_t(warp) * sizeof(V), v);
    __syncthreads();
    if (warp == 0) {
      // nwarps > 1: warp 0 is complete.
      V w = load_value<V>(buf + std::size_t(lane < nwarps ? lane : 0) * sizeof(V));
      for (int off = 1; off < kWarpSize; off <<= 1) {
        V other = shfl_down_masked(w, off, 0xffffffffu, kWarpSize);
        if (lane + off < nwarps) join(w, other);
      }
      __syncwarp();
      if (lane == 0) store_value(buf, w);
    }
  } else {
    // Large values: the warps hand their value to thread 0 one at a time.
    V acc = v;
    for (int w = 1; w < nwarps; ++w) {
      if (warp == w && lane == 0) store_value(buf, v);
      __syncthreads();
      if (tid == 0) {
        V other = load_value<V>(buf);
        join(acc, other);
      }
      __syncthreads();
    }
    if (tid == 0) store_value(buf, acc);
  }
  __syncthreads();
  V result = load_value<V>(buf);
  __syncthreads();  // the buffer may be reused right after
  return result;
}

// Exclusive prefix sums (operator+, in participant order) of v over the
// participants (as for team_allreduce), and their total on every thread.
template <class V>
TESSERA_IMPL_DEVICE void team_exclusive_scan(const V& v, int stride, char* buf, V& prefix, V& total) {
  check_team_value<V>();
  const int tid = team_tid(), lane = tid & (kWarpSize - 1), warp = tid / kWarpSize;
  const int nlanes = team_warp_lanes();
  const unsigned mask = lanes_mask(nlanes);
  V incl = v;
  for (int off = stride; off < kWarpSize; off <<= 1) {
    V other = shfl_up_masked(incl, off, mask, kWarpSize);
    if (lane >= off) incl = other + incl;
  }
  V excl = stride < kWarpSize ? shfl_up_masked(incl, stride, mask, kWarpSize) : incl;
  if (lane < stride) excl = V();
  // The warp's total is the inclusive value of its last participant.
  const V warp_total = shfl_masked(incl, nlanes - stride, mask, kWarpSize);
  const int nwarps = (team_nthreads() + kWarpSize - 1) / kWarpSize;
  if (nwarps == 1) {
    prefix = excl;
    total = warp_total;
    return;
  }
  V base = V(), sum = V();
  if constexpr (sizeof(V) <= kTeamSlotBytes) {
    if (lane == 0) store_value(buf + std::size_t(warp) * sizeof(V), warp_total);
    __syncthreads();
    for (int w = 0; w < nwarps; ++w) {
      const V t = load_value<V>(buf + std::size_t(w) * sizeof(V));
      if (w < warp) base = base + t;
      sum = sum + t;
    }
  } else {
    for (int w = 0; w < nwarps; ++w) {
      if (warp == w && lane == 0) store_value(buf, warp_total);
      __syncthreads();
      const V t = load_value<V>(buf);
      if (w < warp) base = base + t;
      sum = sum + t;
      __syncthreads();
    }
  }
  __syncthreads();
  prefix = base + excl;
  total = sum;
}

// Reduces v over the vl lanes of the calling thread's vector group; every
// lane gets lane 0's result.
template <class V, class Join>
TESSERA_IMPL_DEVICE V vector_allreduce(V v, const Join& join, int vl) {
  if (vl == 1) return v;
  check_team_value<V>();
  const unsigned mask = vector_mask(vl);
  const int x = int(threadIdx.x);
  for (int off = 1; off < vl; off <<= 1) {
    V other = shfl_down_masked(v, off, mask, vl);
    if (x + off < vl) join(v, other);
  }
  return shfl_masked(v, 0, mask, vl);
}

// The 64-byte aligned base of the block's dynamic shared memory.
TESSERA_IMPL_DEVICE inline char* team_shared_base() {
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(shared_memory());
  return reinterpret_cast<char*>((p + kTeamSharedAlign - 1) / kTeamSharedAlign * kTeamSharedAlign);
}

}  // namespace cuda
#endif  // __CUDACC__

// The team member of Cuda (TeamPolicy<Cuda>::member_type). Built by the
// kernel on every thread for each league rank; its kernel-facing functions
// are host-device so that TESSERA_LAMBDA kernels compile, but only their
// device bodies do anything (a Cuda member never exists on the host).
class CudaTeamMember {
 public:
  using execution_space = Cuda;
  using scratch_memory_space = ScratchMemorySpace<Cuda>;
  using team_handle = CudaTeamMember;

#if defined(__CUDACC__)
  TESSERA_IMPL_DEVICE CudaTeamMember(const CudaTeamLaunch& L, char* shared, int league_rank)
      : m_league_rank(league_rank),
        m_league_size(L.league_size),
        m_team_rank(int(threadIdx.y)),
        m_team_size(int(blockDim.y)),
        m_vector_length(int(blockDim.x)),
        m_buffer(shared),
        m_team_scratch(shared + L.team0_offset, L.team0_bytes,
                       L.level1 ? L.level1 + std::size_t(blockIdx.x) * L.level1_stride : nullptr, L.team1_bytes,
                       false),
        m_thread_scratch(shared + L.thread0_offset + std::size_t(threadIdx.y) * L.thread0_stride, L.thread0_bytes,
                         L.level1 ? L.level1 + std::size_t(blockIdx.x) * L.level1_stride + L.thread1_offset +
                                        std::size_t(threadIdx.y) * L.thread1_stride
                                  : nullptr,
                         L.thread1_bytes, true) {}
#endif

  TESSERA_INLINE_FUNCTION int league_rank() const { return m_league_rank; }
  TESSERA_INLINE_FUNCTION int league_size() const { return m_league_size; }
  TESSERA_INLINE_FUNCTION int team_rank() const { return m_team_rank; }
  TESSERA_INLINE_FUNCTION int team_size() const { return m_team_size; }
  // Lanes per team rank (the policy's vector_length).
  TESSERA_INLINE_FUNCTION int impl_vector_length() const { return m_vector_length; }

  TESSERA_INLINE_FUNCTION void team_barrier() const {
#if TESSERA_IMPL_ON_DEVICE
    __syncthreads();
#endif
  }

  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_scratch(int level) const {
    check_level(level);
    return m_team_scratch.impl_set_default_level(level);
  }
  TESSERA_INLINE_FUNCTION const scratch_memory_space& thread_scratch(int level) const {
    check_level(level);
    return m_thread_scratch.impl_set_default_level(level);
  }
  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_shmem() const { return team_scratch(0); }

  // Sets value on every thread (and lane) to root's value.
  template <class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(T& value, int root) const {
#if TESSERA_IMPL_ON_DEVICE
    cuda::check_team_value<T>();
    if (root < 0 || root >= m_team_size)
      ::tessera::abort("tessera::TeamMember::team_broadcast: root is not a rank of the team");
    if (m_team_size == 1) return;  // the lanes of rank 0 already agree
    if (m_team_rank == root && threadIdx.x == 0) cuda::store_value(m_buffer, value);
    __syncthreads();
    value = cuda::load_value<T>(m_buffer);
    __syncthreads();
#else
    (void)value;
    (void)root;
#endif
  }
  // Applies f to root's value, then broadcasts it.
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(const F& f, T& value, int root) const {
#if TESSERA_IMPL_ON_DEVICE
    if (m_team_rank == root) f(value);
    team_broadcast(value, root);
#else
    (void)f;
    (void)value;
    (void)root;
#endif
  }

  // Joins every team rank's reducer.reference() (or `contribution`) and
  // stores the result in every thread's reducer.reference().
  template <class R>
    requires is_reducer_v<R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer) const {
    team_reduce(reducer, reducer.reference());
  }
  template <class R>
    requires is_reducer_v<R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer, const typename R::value_type& contribution) const {
#if TESSERA_IMPL_ON_DEVICE
    using V = typename R::value_type;
    reducer.reference() = cuda::team_allreduce(
        V(contribution), [&](V& dst, const V& src) { reducer.join(dst, src); }, m_vector_length, m_buffer);
#else
    reducer.reference() = contribution;
#endif
  }

  // Exclusive prefix sum of `value` over the team ranks. With global_accum,
  // the team's total is added to *global_accum atomically and every result
  // is offset by the value it held before (each team gets its own disjoint
  // range of a global counter).
  template <class T>
  TESSERA_INLINE_FUNCTION T team_scan(const T& value, T* global_accum = nullptr) const {
#if TESSERA_IMPL_ON_DEVICE
    T prefix, total;
    cuda::team_exclusive_scan(value, m_vector_length, m_buffer, prefix, total);
    if (global_accum) {
      T base = T();
      if (m_team_rank == 0 && threadIdx.x == 0) base = atomic_fetch_add(global_accum, total);
      team_broadcast_any(base);
      prefix = base + prefix;
    }
    return prefix;
#else
    (void)global_accum;
    return value;
#endif
  }

  // ---- nested-policy protocol (see nested_policies.hpp) --------------------

  template <class R, class F>
  TESSERA_INLINE_FUNCTION void impl_nested_for(const R& r, const F& f) const {
#if TESSERA_IMPL_ON_DEVICE
    const Part p = part_of<R>();
    if constexpr (R::is_md) {
      visit_collapsed_md(r, p.first, p.step, [&](auto... idx) { f(idx...); });
    } else {
      using I = typename R::index_type;
      const I end = r.end < r.start ? r.start : r.end;
      for (I i = r.start + I(p.first); i < end; i += I(p.step)) f(i);
    }
#else
    (void)r;
    (void)f;
#endif
  }

  // Result into reducer.reference(): on every thread (and lane) of the team
  // for TeamThread/TeamVector ranges, on every lane of the calling thread
  // for ThreadVector ranges.
  template <class R, class F, class Red>
  TESSERA_INLINE_FUNCTION void impl_nested_reduce(const R& r, const F& f, const Red& reducer) const {
#if TESSERA_IMPL_ON_DEVICE
    using V = typename Red::value_type;
    const Part p = part_of<R>();
    V v;
    reducer.init(v);
    if constexpr (R::is_md) {
      visit_collapsed_md(r, p.first, p.step, [&](auto... idx) { f(idx..., v); });
    } else {
      using I = typename R::index_type;
      const I end = r.end < r.start ? r.start : r.end;
      for (I i = r.start + I(p.first); i < end; i += I(p.step)) f(i, v);
    }
    auto join = [&](V& dst, const V& src) { reducer.join(dst, src); };
    if constexpr (R::level == NestLevel::ThreadVector) {
      reducer.reference() = cuda::vector_allreduce(v, join, vector_lanes());
    } else if constexpr (R::level == NestLevel::TeamThread) {
      reducer.reference() = cuda::team_allreduce(v, join, m_vector_length, m_buffer);
    } else {
      reducer.reference() = cuda::team_allreduce(v, join, 1, m_buffer);
    }
#else
    // Never runs (a Cuda member exists only on the device); defined values
    // keep host-pass warnings about the caller's result away.
    (void)r;
    (void)f;
    reducer.init(reducer.reference());
#endif
  }

  // Inclusive/exclusive scan through the functor's `final` flag (sums); the
  // sum of all contributions goes to *total when given, on every thread
  // that took part. TeamThread and TeamVector ranges are split into
  // contiguous blocks, one per participant, in index order.
  template <class R, class F, class V>
  TESSERA_INLINE_FUNCTION void impl_nested_scan(const R& r, const F& f, V* total) const {
#if TESSERA_IMPL_ON_DEVICE
    static_assert(!R::is_md, "tessera: parallel_scan does not take multidimensional nested ranges");
    using I = typename R::index_type;
    const I end = r.end < r.start ? r.start : r.end;
    if constexpr (R::level == NestLevel::ThreadVector) {
      const int vl = vector_lanes();
      if (vl == 1) {
        V update = V();
        for (I i = r.start; i < end; ++i) f(i, update, true);
        if (total) *total = update;
        return;
      }
      // Steps of vl indices: a shuffle scan over the lanes, then the final calls.
      const unsigned mask = cuda::vector_mask(vl);
      const int x = int(threadIdx.x);
      V running = V();
      for (I b = r.start; b < end; b += I(vl)) {
        const I i = b + I(x);
        V c = V();
        if (i < end) f(i, c, false);
        V incl = c;
        for (int off = 1; off < vl; off <<= 1) {
          V other = cuda::shfl_up_masked(incl, off, mask, vl);
          if (x >= off) incl = other + incl;
        }
        V excl = cuda::shfl_up_masked(incl, 1, mask, vl);
        if (x == 0) excl = V();
        if (i < end) {
          V update = running + excl;
          f(i, update, true);
        }
        running = running + cuda::shfl_masked(incl, vl - 1, mask, vl);
      }
      if (total) *total = running;
    } else {
      // Participants: every thread (TeamVector) or lane 0 of each rank (TeamThread).
      const bool vector = R::level == NestLevel::TeamVector;
      const int stride = vector ? 1 : m_vector_length;
      const std::int64_t parts = vector ? std::int64_t(m_team_size) * m_vector_length : m_team_size;
      const std::int64_t me = vector ? std::int64_t(m_team_rank) * m_vector_length + threadIdx.x : m_team_rank;
      const std::int64_t n = std::int64_t(end) - std::int64_t(r.start);
      const std::int64_t q = n / parts, rem = n % parts;
      const I first = r.start + I(me * q + (me < rem ? me : rem));
      const I last = first + I(q + (me < rem ? 1 : 0));
      V part = V();
      for (I i = first; i < last; ++i) f(i, part, false);
      V offset, sum;
      cuda::team_exclusive_scan(part, stride, m_buffer, offset, sum);
      for (I i = first; i < last; ++i) f(i, offset, true);
      if (total) *total = sum;
    }
#else
    (void)r;
    (void)f;
    if (total) *total = V();
#endif
  }

  // single(PerTeam): lane 0 of rank 0; no barrier. Vector loops inside run
  // on that lane alone.
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f) const {
#if TESSERA_IMPL_ON_DEVICE
    if (m_team_rank == 0 && threadIdx.x == 0) run_single(f);
#else
    (void)f;
#endif
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f, T& value) const {
#if TESSERA_IMPL_ON_DEVICE
    if (m_team_rank == 0 && threadIdx.x == 0) run_single([&]() { f(value); });
    team_broadcast_any(value);
#else
    (void)f;
    (void)value;
#endif
  }
  // single(PerThread): lane 0 of the calling thread.
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f) const {
#if TESSERA_IMPL_ON_DEVICE
    if (threadIdx.x == 0 || m_in_single) run_single(f);
#else
    (void)f;
#endif
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f, T& value) const {
#if TESSERA_IMPL_ON_DEVICE
    if (threadIdx.x == 0 || m_in_single) run_single([&]() { f(value); });
    const int vl = vector_lanes();
    if (vl > 1) {
      cuda::check_team_value<T>();
      value = cuda::shfl_masked(value, 0, cuda::vector_mask(vl), vl);
    }
#else
    (void)f;
    (void)value;
#endif
  }

 private:
  TESSERA_INLINE_FUNCTION static void check_level(int level) {
    if (level != 0 && level != 1) {
      TESSERA_IF_ON_HOST(throw_runtime_error("tessera::TeamMember: scratch level " + std::to_string(level) +
                                             " does not exist (levels are 0 and 1)");)
      TESSERA_IF_ON_DEVICE(::tessera::abort("tessera::TeamMember::team_scratch/thread_scratch: scratch level "
                                            "does not exist (levels are 0 and 1)");)
    }
  }

  // Vector lanes taking part in a vector loop: all of them, or only the
  // calling lane inside single().
  TESSERA_INLINE_FUNCTION int vector_lanes() const { return m_in_single ? 1 : m_vector_length; }

  template <class F>
  TESSERA_INLINE_FUNCTION void run_single(const F& f) const {
    const bool was = m_in_single;
    m_in_single = true;
    f();
    m_in_single = was;
  }

#if defined(__CUDACC__)
  // Broadcast from lane 0 of rank 0 to the whole team.
  template <class T>
  TESSERA_IMPL_DEVICE void team_broadcast_any(T& value) const {
    cuda::check_team_value<T>();
    if (m_team_size == 1 && m_vector_length == 1) return;
    if (m_team_rank == 0 && threadIdx.x == 0) cuda::store_value(m_buffer, value);
    __syncthreads();
    value = cuda::load_value<T>(m_buffer);
    __syncthreads();
  }

  // The indices of a nested range this thread visits: first, first + step, ...
  struct Part {
    std::int64_t first;
    std::int64_t step;
  };
  template <class R>
  TESSERA_IMPL_DEVICE Part part_of() const {
    if constexpr (R::level == NestLevel::ThreadVector) {
      const int vl = vector_lanes();
      return {vl == 1 ? 0 : std::int64_t(threadIdx.x), vl};
    } else if constexpr (R::level == NestLevel::TeamThread) {
      return {m_team_rank, m_team_size};
    } else {
      return {std::int64_t(m_team_rank) * m_vector_length + threadIdx.x,
              std::int64_t(m_team_size) * m_vector_length};
    }
  }

#endif

  int m_league_rank = 0;
  int m_league_size = 0;
  int m_team_rank = 0;
  int m_team_size = 1;
  int m_vector_length = 1;
  char* m_buffer = nullptr;
  mutable bool m_in_single = false;
  scratch_memory_space m_team_scratch;
  scratch_memory_space m_thread_scratch;
};

// Team limits of Cuda: from the device once the back-end is available,
// the usual limits of NVIDIA GPUs otherwise (so that policies can be built
// and queried on a machine without one).
template <>
struct TeamPolicyBackend<Cuda, void> {
  using member_type = CudaTeamMember;
  static constexpr int fallback_threads_per_block = 1024;
  static constexpr std::size_t fallback_shared_per_block = 48 * 1024;
  static constexpr std::size_t fallback_level1 = std::size_t(1) << 30;

  static int max_threads() {
    return Cuda::impl_is_available() ? cuda_device_info().max_threads_per_block : fallback_threads_per_block;
  }
  static int team_size_max(const Cuda&, int vector_length) {
    return std::max(1, max_threads() / std::max(1, vector_length));
  }
  // AUTO: 256 threads per block (a common sweet spot of occupancy and
  // barrier cost), counting vector lanes.
  static int team_size_recommended(const Cuda& exec, int /*league_size*/, int vector_length) {
    return std::max(1, std::min(team_size_max(exec, vector_length), 256 / std::max(1, vector_length)));
  }
  // A team rank's lanes live in one warp.
  static int vector_length_max() { return 32; }
  // Level 0: the block's shared memory less the team's exchange buffer;
  // level 1: the device's global memory.
  static std::size_t scratch_size_max(int level) {
    const bool up = Cuda::impl_is_available();
    if (level == 0) {
      const std::size_t shared = up ? std::size_t(cuda_device_info().max_shared_per_block) : fallback_shared_per_block;
      return shared - cuda::kTeamBufferBytes - cuda::kTeamSharedAlign;
    }
    return up ? cuda_device_info().global_memory : fallback_level1;
  }
};

#if defined(__CUDACC__)
namespace cuda {

// ---- kernels ------------------------------------------------------------------

template <class Tag, class H>
__device__ inline void team_for_body(const H& h, const CudaTeamLaunch& L) {
  const auto& f = h.get();
  char* shared = team_shared_base();
  for (std::int64_t lr = blockIdx.x; lr < L.league_size; lr += gridDim.x) {
    const CudaTeamMember member(L, shared, int(lr));
    invoke_tagged<Tag>(f, member);
    // The next league rank reuses scratch and the exchange buffer.
    if (lr + gridDim.x < L.league_size) __syncthreads();
  }
}
template <class Tag, class H>
__global__ void team_for_kernel(H h, CudaTeamLaunch L) {
  team_for_body<Tag>(h, L);
}
template <class Tag, class H, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB) team_for_kernel_lb(H h, CudaTeamLaunch L) {
  team_for_body<Tag>(h, L);
}

// Tree over n slots of `count` values, `stride` slots apart, into slot 0.
// `me` is the caller's slot index, or -1 for threads that do not take part.
// Every thread of the block must call it.
template <class Ops, class V>
__device__ void team_tree_reduce(const Ops& ops, V* slots, std::size_t count, int n, int stride, int me) {
  int p = 1;
  while (p < n) p <<= 1;
  for (int s = p >> 1; s > 0; s >>= 1) {
    __syncthreads();
    if (me >= 0 && me < s && me + s < n)
      ops.join(slots + std::size_t(me) * stride * count, slots + std::size_t(me + s) * stride * count);
  }
  __syncthreads();
}

template <class Tag, class H, class Ops>
__device__ void team_reduce_body(const H& h, Ops ops, const CudaTeamLaunch& L,
                                 const ReduceArgs<typename Ops::value_type>& a) {
  using V = typename Ops::value_type;
  using Fn = std::remove_cvref_t<decltype(h.get())>;
  const Fn& f = h.get();
  rebind_functor(ops, &f);
  const std::size_t count = ops.value_count();
  char* shared = team_shared_base();
  const int tid = team_tid(), nthreads = team_nthreads();
  V* slots = a.global_slots ? a.global_slots + std::size_t(blockIdx.x) * nthreads * count
                            : reinterpret_cast<V*>(shared + L.reduce_offset);
  V* mine = slots + std::size_t(tid) * count;
  auto each_league_rank = [&](V* v) {
    for (std::int64_t lr = blockIdx.x; lr < L.league_size; lr += gridDim.x) {
      const CudaTeamMember member(L, shared, int(lr));
      ops.template call<Tag, Fn, const CudaTeamMember&>(f, v, member);
      if (lr + gridDim.x < L.league_size) __syncthreads();
    }
  };
  if (count == 1) {
    V v;  // in registers while the functor runs
    ops.init(&v);
    each_league_rank(&v);
    *mine = v;
  } else {
    ops.init(mine);
    each_league_rank(mine);
  }
  // One value per team rank: lane 0's (the lanes of a rank hold the same).
  team_tree_reduce(ops, slots, count, int(blockDim.y), int(blockDim.x), threadIdx.x == 0 ? int(threadIdx.y) : -1);
  __shared__ bool last_block;
  if (tid == 0) {
    for (std::size_t c = 0; c < count; ++c) a.partials[std::size_t(blockIdx.x) * count + c] = slots[c];
    __threadfence();
    last_block = atomicAdd(a.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  ops.init(mine);
  for (unsigned j = unsigned(tid); j < gridDim.x; j += unsigned(nthreads)) ops.join(mine, a.partials + std::size_t(j) * count);
  team_tree_reduce(ops, slots, count, nthreads, 1, tid);
  if (tid == 0) {
    ops.final(slots);
    store_final(ops, a.result, slots, count);
    *a.counter = 0;
  }
}
template <class Tag, class H, class Ops>
__global__ void team_reduce_kernel(H h, Ops ops, CudaTeamLaunch L, ReduceArgs<typename Ops::value_type> a) {
  team_reduce_body<Tag>(h, ops, L, a);
}
template <class Tag, class H, class Ops, unsigned MaxT, unsigned MinB>
__global__ void __launch_bounds__(MaxT, MinB)
    team_reduce_kernel_lb(H h, Ops ops, CudaTeamLaunch L, ReduceArgs<typename Ops::value_type> a) {
  team_reduce_body<Tag>(h, ops, L, a);
}

// ---- host side ------------------------------------------------------------------

// How one team dispatch runs: team size, grid, shared memory and the global
// memory it needs (level-1 scratch, and reduction partials and slots).
struct TeamPlan {
  int team_size = 1;
  int vector_length = 1;
  unsigned grid = 1;
  std::size_t shared_bytes = 0;
  CudaTeamLaunch launch{};
  std::size_t level1_bytes = 0;  // all blocks
  // Reductions only:
  bool global_slots = false;
  std::size_t partial_bytes = 0, result_bytes = 0, slot_bytes = 0;
  std::size_t data_bytes() const { return partial_bytes + result_bytes + slot_bytes + level1_bytes; }
};

// `what` names the pattern in messages; `kernel_limit` is the most threads
// per block the kernel can run with; `value_bytes` is the size of one
// thread's reduction value(s) (0 for parallel_for).
template <class Policy>
TeamPlan plan_team(const Policy& p, const char* what, const void* kernel, int kernel_limit, std::size_t value_bytes,
                   bool reduce) {
  const auto& dev = cuda_device_info();
  TeamPlan plan;
  const int vl = p.vector_length();
  int ts = p.team_size();
  if (ts * vl > kernel_limit) {
    if (!p.impl_auto_team_size())
      throw_runtime_error(std::string(what) + ": team_size " + std::to_string(ts) + " x vector_length " +
                          std::to_string(vl) + " = " + std::to_string(ts * vl) +
                          " threads per block, but this kernel can run at most " + std::to_string(kernel_limit) +
                          " (registers or LaunchBounds); use a smaller team_size or AUTO");
    ts = std::max(1, kernel_limit / vl);
  }
  plan.team_size = ts;
  plan.vector_length = vl;
  const int nthreads = ts * vl;
  CudaTeamLaunch& L = plan.launch;
  L.league_size = p.league_size();
  // Shared memory: [exchange buffer | level-0 team | level-0 per rank | reduction slots]
  std::size_t off = kTeamBufferBytes;
  L.team0_offset = off;
  L.team0_bytes = p.team_scratch_size(0);
  off += round64(L.team0_bytes);
  L.thread0_offset = off;
  L.thread0_bytes = p.thread_scratch_size(0);
  L.thread0_stride = round64(L.thread0_bytes);
  off += std::size_t(ts) * L.thread0_stride;
  const std::size_t max_shared = std::size_t(dev.max_shared_per_block);
  if (off + kTeamSharedAlign > max_shared)
    throw_runtime_error(std::string(what) + ": scratch level 0 needs " + std::to_string(p.scratch_size(0, ts)) +
                        " bytes per team (PerTeam " + std::to_string(L.team0_bytes) + " + team_size " +
                        std::to_string(ts) + " x PerThread " + std::to_string(L.thread0_bytes) +
                        ") but a block has " + std::to_string(max_shared - kTeamBufferBytes - kTeamSharedAlign) +
                        " bytes of shared memory for scratch");
  L.reduce_offset = off;
  const std::size_t slots = std::size_t(nthreads) * value_bytes;
  if (reduce && off + slots + kTeamSharedAlign <= max_shared) off += slots;
  else if (reduce) plan.global_slots = true;
  plan.shared_bytes = off + kTeamSharedAlign;
  // Level 1: one region per block, in global memory.
  L.team1_bytes = p.team_scratch_size(1);
  L.thread1_bytes = p.thread_scratch_size(1);
  L.thread1_offset = round64(L.team1_bytes);
  L.thread1_stride = round64(L.thread1_bytes);
  L.level1_stride = L.thread1_offset + std::size_t(ts) * L.thread1_stride;
  L.level1 = nullptr;
  // Grid: every league rank its own block, unless per-block global memory
  // (level 1, reduction partials) asks for no more blocks than run at once.
  std::int64_t grid = std::min<std::int64_t>(std::max(L.league_size, 1), dev.max_grid_x);
  if (reduce || L.level1_stride > 0) {
    // Blocks resident at once, given threads, registers and shared memory.
    int per_sm = 0;
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, nthreads, plan.shared_bytes),
               "tessera::Cuda: querying the occupancy of a team kernel");
    grid = std::min(grid, std::int64_t(dev.sm_count) * std::max(1, per_sm));
  }
  plan.grid = unsigned(std::max<std::int64_t>(grid, 1));
  plan.level1_bytes = L.level1_stride * plan.grid;
  if (reduce) {
    // 256-byte aligned regions (the instance scratch is 256-byte aligned).
    plan.partial_bytes = round256(std::size_t(plan.grid) * value_bytes);
    plan.result_bytes = round256(value_bytes);
    plan.slot_bytes = plan.global_slots ? round256(std::size_t(plan.grid) * slots) : 0;
  }
  return plan;
}

// The functor holder the dispatch will use (see with_functor).
template <class F>
using team_holder_t = std::conditional_t<functor_fits_param<F>, FunctorByValue<F>, FunctorInGlobal<F>>;

template <class LB>
int team_kernel_limit(const void* kernel) {
  cudaFuncAttributes attr{};
  cuda_check(cudaFuncGetAttributes(&attr, kernel), "tessera::Cuda: querying kernel attributes");
  int limit = attr.maxThreadsPerBlock;
  if (lb_max_threads<LB> > 0) limit = std::min<int>(limit, int(lb_max_threads<LB>));
  return limit;
}

template <class... P, class F>
void team_parallel_for(const TeamPolicy<P...>& p, const F& f) {
  using Policy = TeamPolicy<P...>;
  using Tag = typename Policy::work_tag;
  using LB = typename Policy::launch_bounds;
  using H = team_holder_t<F>;
  static constexpr const char* what = "tessera::parallel_for(TeamPolicy) on Cuda";
  Cuda::impl_require_available(what);
  if (p.league_size() == 0) return;
  CudaInstance& inst = p.space().impl_internal();
  const void* kernel;
  if constexpr (lb_max_threads<LB> > 0)
    kernel = reinterpret_cast<const void*>(&team_for_kernel_lb<Tag, H, lb_max_threads<LB>, lb_min_blocks<LB>>);
  else
    kernel = reinterpret_cast<const void*>(&team_for_kernel<Tag, H>);
  static const int limit = team_kernel_limit<LB>(kernel);
  TeamPlan plan = plan_team(p, what, kernel, limit, 0, false);
  // The instance's scratch holds level-1 memory and large functors: grow it
  // before the functor is copied there, so that the copy does not move.
  std::lock_guard<std::mutex> lock(inst.mutex);
  if (plan.level1_bytes > 0 || !functor_fits_param<F>) {
    auto s = inst.scratch(functor_fits_param<F> ? 0 : sizeof(F), plan.level1_bytes);
    plan.launch.level1 = plan.level1_bytes > 0 ? static_cast<char*>(s.data) : nullptr;
  }
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    const dim3 block(unsigned(plan.vector_length), unsigned(plan.team_size));
    if constexpr (lb_max_threads<LB> > 0)
      team_for_kernel_lb<Tag, H, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<plan.grid, block, plan.shared_bytes, inst.stream>>>(holder, plan.launch);
    else
      team_for_kernel<Tag, H><<<plan.grid, block, plan.shared_bytes, inst.stream>>>(holder, plan.launch);
    check_launch(what);
  });
}

template <class... P, class F, class Ops>
void team_parallel_reduce(const TeamPolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = TeamPolicy<P...>;
  using Tag = typename Policy::work_tag;
  using LB = typename Policy::launch_bounds;
  using H = team_holder_t<F>;
  using V = typename Ops::value_type;
  static constexpr const char* what = "tessera::parallel_reduce(TeamPolicy) on Cuda";
  Cuda::impl_require_available(what);
  CudaInstance& inst = p.space().impl_internal();
  const std::size_t count = ops.value_count();
  const void* kernel;
  if constexpr (lb_max_threads<LB> > 0)
    kernel = reinterpret_cast<const void*>(&team_reduce_kernel_lb<Tag, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>);
  else
    kernel = reinterpret_cast<const void*>(&team_reduce_kernel<Tag, H, Ops>);
  static const int limit = team_kernel_limit<LB>(kernel);
  TeamPlan plan = plan_team(p, what, kernel, limit, count * sizeof(V), true);
  std::lock_guard<std::mutex> lock(inst.mutex);
  // Grown before the functor may be copied there (with_functor), so that the copy does not move.
  const auto s = inst.scratch(functor_fits_param<F> ? 0 : sizeof(F), plan.data_bytes());
  char* data = static_cast<char*>(s.data);
  const bool direct = result_goes_to_device(ops);
  ReduceArgs<V> args{reinterpret_cast<V*>(data),
                     plan.global_slots ? reinterpret_cast<V*>(data + plan.partial_bytes + plan.result_bytes) : nullptr,
                     final_value_slot(ops, direct, reinterpret_cast<V*>(data + plan.partial_bytes)), s.counter};
  plan.launch.level1 =
      plan.level1_bytes ? data + plan.partial_bytes + plan.result_bytes + plan.slot_bytes : nullptr;
  with_functor(inst, f, [&](auto holder) {
    static_assert(std::is_same_v<decltype(holder), H>);
    const dim3 block(unsigned(plan.vector_length), unsigned(plan.team_size));
    if constexpr (lb_max_threads<LB> > 0)
      team_reduce_kernel_lb<Tag, H, Ops, lb_max_threads<LB>, lb_min_blocks<LB>>
          <<<plan.grid, block, plan.shared_bytes, inst.stream>>>(holder, ops, plan.launch, args);
    else
      team_reduce_kernel<Tag, H, Ops><<<plan.grid, block, plan.shared_bytes, inst.stream>>>(holder, ops, plan.launch, args);
    check_launch(what);
    finish_reduction(inst, ops, args.result, direct);
  });
}

template <class... P, class F, class Ops, class V>
void team_parallel_scan(const TeamPolicy<P...>&, const F&, const Ops&, V*) {
  static_assert(sizeof(F) == 0, "tessera::parallel_scan does not take a TeamPolicy (as in Kokkos): use a nested "
                                "parallel_scan over TeamThreadRange inside a parallel_for instead");
}

}  // namespace cuda
#endif  // __CUDACC__

}  // namespace tessera::detail
