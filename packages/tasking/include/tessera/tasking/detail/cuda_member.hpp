#pragma once
// The member_type of TaskScheduler<Cuda>: what a task's functor receives.
//
// A single task runs on one lane: a team of one (team_rank 0, team_size 1,
// vector length 1; nested ranges run sequentially on it). A team task runs
// on the 32 lanes of a warp split into M members x V vector lanes, M * V =
// 32 (M set per task by TaskTeam(...).set_team_size(M), default 32: V = 1),
// as core's TeamPolicy<Cuda> splits a block: member r is lanes [r V, r V +
// V). So, with Kokkos's semantics:
//  * code outside vector ranges runs on all V lanes of a member, redundantly
//    (put side effects in single(PerThread(m), ...));
//  * TeamThreadRange strides over the M members (each index on the V lanes of
//    one member), ThreadVectorRange over the calling member's V lanes,
//    TeamVectorRange over all 32 lanes;
//  * reductions over TeamThreadRange combine the members (shuffles of lane
//    distance V and more; the V lanes of a member hold the same value), over
//    ThreadVectorRange the member's lanes (distances below V, with the
//    member's lane mask, so one member may reduce alone), over
//    TeamVectorRange all lanes; every participating lane gets the result;
//  * N-D ranges (TeamThreadMDRange, ...) split their collapsed index space
//    as a 1-D range of that size; parallel_scan (1-D ranges) gives each
//    participant a contiguous block, in order, and shuffles the blocks'
//    sums, so its results are exact for integers and repeat run to run;
//  * team_barrier is a __syncwarp; team collectives (barrier, team_reduce,
//    team_scan, team_broadcast, TeamThread/TeamVector reductions and scans,
//    single(PerTeam) with a value) must be reached by all 32 lanes, as on
//    every back-end.
// The butterfly gives every lane the same bits for commutative joins (sums,
// min, max): each step joins the same two values on both partners.
// A team task's level-0 scratch is its warp's slice of the driver's dynamic
// shared memory (TaskScheduler::set_team_scratch_size), behind core's
// ScratchMemorySpace handle so that scratch Views work as in kernel teams.
#include <tessera/core.hpp>
#include <tessera/tasking/detail/cuda_task_queue.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)

namespace tessera::detail::tasking {

class CudaTaskMember {
 public:
  using execution_space = Cuda;
  using scheduler_type = TaskScheduler<Cuda>;

  // rank in [0, size), vlane in [0, vlen); size * vlen is 1 (a single task)
  // or 32 (a team task on the whole warp).
  using scratch_memory_space = ScratchMemorySpace<Cuda>;

  // `scratch`: the warp's slice of shared memory for a team task (bytes 0
  // for a single task: 32 of them share the warp).
  __device__ CudaTaskMember(CudaQueueState* s, CudaTaskRecord* t, int rank, int size, int vlane = 0, int vlen = 1,
                            void* scratch = nullptr, unsigned scratch_bytes = 0)
      : m_state(s),
        m_task(t),
        m_rank(rank),
        m_size(size),
        m_vlane(vlane),
        m_vlen(vlen),
        m_scratch(scratch, scratch_bytes, nullptr, 0, false) {}

  TESSERA_INLINE_FUNCTION int team_rank() const { return m_rank; }
  TESSERA_INLINE_FUNCTION int team_size() const { return m_size; }
  TESSERA_INLINE_FUNCTION int league_rank() const { return 0; }
  TESSERA_INLINE_FUNCTION int league_size() const { return 1; }
  // Lanes per member (V) and this lane's index among them.
  TESSERA_INLINE_FUNCTION int impl_vector_length() const { return m_vlen; }
  TESSERA_INLINE_FUNCTION int impl_vector_lane() const { return m_vlane; }
  TESSERA_INLINE_FUNCTION void team_barrier() const {
#if TESSERA_IMPL_ON_DEVICE
    if (is_warp()) __syncwarp();
#endif
  }

  // Level-0 team scratch (TaskScheduler::set_team_scratch_size), as a
  // kernel team member's: every lane carves the same sequence of sizes and
  // so gets the same addresses. Level 1 has no bytes in a task (a request
  // there aborts, as an exhausted level does).
  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_scratch(int level) const {
    return m_scratch.impl_set_default_level(level);
  }
  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_shmem() const { return team_scratch(0); }

  // The scheduler running this task (a handle that does not keep it alive).
  TESSERA_INLINE_FUNCTION scheduler_type scheduler() const;

  // ---- collectives ----
  // Every lane gets the value of member `root` (its vector lane 0).
  template <class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(T& value, int root) const {
#if TESSERA_IMPL_ON_DEVICE
    if (is_warp()) value = shuffle(value, root * m_vlen, 0xffffffffu, 32);
#else
    (void)value;
    (void)root;
#endif
  }
  // The exclusive prefix sum of one value per member (its V lanes hold the
  // same one), in rank order; with global_accum, the team's total is added
  // to *global_accum atomically and its old value added to every prefix (a
  // slot in a shared output). Every lane gets its member's result.
  template <class T>
  TESSERA_INLINE_FUNCTION T team_scan(const T& value, T* global_accum = nullptr) const {
    T prefix = T(), total = value;
    if (is_warp()) exclusive_scan(participants_at<NestLevel::TeamThread>(), value, prefix, total);
    if (global_accum) {
      T base = T();
      if (m_rank == 0 && m_vlane == 0) base = atomic_fetch_add(global_accum, total);
      if (is_warp()) base = shuffle(base, 0, 0xffffffffu, 32);
      prefix = base + prefix;
    }
    return prefix;
  }
  // One contribution per member (its V lanes hold the same one).
  template <class R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer, const typename R::value_type& contribution) const {
    typename R::value_type v = contribution;
    combine(reducer, v, m_vlen, 32, 0xffffffffu);
    reducer.reference() = v;
  }
  template <class R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer) const {
    team_reduce(reducer, reducer.reference());
  }

  // ---- the nested-parallelism protocol of core/nested_policies.hpp ----
  // An N-D range is walked as its collapsed index space, in the range's
  // direction, with the lane partition of a 1-D range of that size.
  template <class Rg, class F>
  TESSERA_INLINE_FUNCTION void impl_nested_for(const Rg& r, const F& f) const {
    const Part p = part_of<Rg>();
    if constexpr (Rg::is_md) {
      tessera::detail::visit_collapsed_md(r, p.first, p.step, [&](auto... idx) { f(idx...); });
    } else {
      using I = typename Rg::index_type;
      const I end = r.end < r.start ? r.start : r.end;
      for (I i = r.start + I(p.first); i < end; i += I(p.step)) f(i);
    }
  }
  template <class Rg, class F, class Red>
  TESSERA_INLINE_FUNCTION void impl_nested_reduce(const Rg& r, const F& f, const Red& reducer) const {
    using V = typename Red::value_type;
    V v;
    reducer.init(v);
    const Part p = part_of<Rg>();
    if constexpr (Rg::is_md) {
      tessera::detail::visit_collapsed_md(r, p.first, p.step, [&](auto... idx) { f(idx..., v); });
    } else {
      using I = typename Rg::index_type;
      const I end = r.end < r.start ? r.start : r.end;
      for (I i = r.start + I(p.first); i < end; i += I(p.step)) f(i, v);
    }
    if constexpr (Rg::level == NestLevel::ThreadVector) combine(reducer, v, 1, m_vlen, member_mask());
    else if constexpr (Rg::level == NestLevel::TeamThread) combine(reducer, v, m_vlen, 32, 0xffffffffu);
    else combine(reducer, v, 1, 32, 0xffffffffu);
    reducer.reference() = v;
  }
  // Prefix sums through the functor's `final` flag, with the host's
  // semantics. Each participant (a member's V lanes for TeamThreadRange, a
  // lane of the calling member for ThreadVectorRange, every lane for
  // TeamVectorRange) takes a contiguous block of the indices, in order, and
  // sums it (final = false); a shuffle scan over the participants gives each
  // block its offset, and the block is walked again from there
  // (final = true). *total, when given, gets the sum on every lane that took
  // part. Integers come out exact, and the order of the additions depends
  // only on the split, so a run repeats bit for bit. A single task (a team
  // of one lane) walks the range once.
  template <class Rg, class F, class V>
  TESSERA_INLINE_FUNCTION void impl_nested_scan(const Rg& r, const F& f, V* total) const {
    static_assert(!Rg::is_md, "tessera: parallel_scan does not take multidimensional nested ranges");
    using I = typename Rg::index_type;
    const I end = r.end < r.start ? r.start : r.end;
    const Participants q = participants_of<Rg>();
    if (!is_warp() || q.count == 1) {
      V update = V();
      for (I i = r.start; i < end; ++i) f(i, update, true);
      if (total) *total = update;
      return;
    }
    const std::int64_t n = std::int64_t(end) - std::int64_t(r.start);
    const std::int64_t per = n / q.count, extra = n % q.count;
    const I first = r.start + I(q.me * per + (q.me < extra ? q.me : extra));
    const I last = first + I(per + (q.me < extra ? 1 : 0));
    V part = V();
    for (I i = first; i < last; ++i) f(i, part, false);
    V offset, sum;
    exclusive_scan(q, part, offset, sum);
    for (I i = first; i < last; ++i) f(i, offset, true);
    if (total) *total = sum;
  }
  // single(PerTeam): vector lane 0 of member 0; with a value, then every lane gets it.
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f) const {
    if (m_rank == 0 && m_vlane == 0) f();
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f, T& value) const {
    if (m_rank == 0 && m_vlane == 0) f(value);
    team_broadcast(value, 0);
  }
  // single(PerThread): vector lane 0 of the calling member; with a value,
  // then the member's lanes get it (the member's mask: members need not all call it).
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f) const {
    if (m_vlane == 0) f();
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f, T& value) const {
    if (m_vlane == 0) f(value);
#if TESSERA_IMPL_ON_DEVICE
    if (m_vlen > 1) value = shuffle(value, 0, member_mask(), m_vlen);
#endif
  }

  // ---- implementation ----
  TESSERA_INLINE_FUNCTION CudaQueueState* impl_state() const { return m_state; }
  TESSERA_INLINE_FUNCTION CudaTaskRecord* impl_task() const { return m_task; }

 private:
  struct Part {
    int first, step;
  };
  // Where this lane starts in a nested range, and its stride.
  template <class Rg>
  TESSERA_INLINE_FUNCTION Part part_of() const {
    if constexpr (Rg::level == NestLevel::TeamThread) return {m_rank, m_size};
    else if constexpr (Rg::level == NestLevel::ThreadVector) return {m_vlane, m_vlen};
    else return {m_rank * m_vlen + m_vlane, m_size * m_vlen};
  }
  // The participants of a scan over a range of level Rg: how many, which
  // one this lane is, and the warp lane each sits on (for a TeamThreadRange,
  // the lane of this lane's vector index in each member, so that the V
  // lanes of a member scan side by side and agree).
  struct Participants {
    int count, me, first_lane, stride;
    unsigned mask;
    TESSERA_INLINE_FUNCTION int lane_of(int p) const { return first_lane + p * stride; }
  };
  template <NestLevel Level>
  TESSERA_INLINE_FUNCTION Participants participants_at() const {
    if constexpr (Level == NestLevel::ThreadVector) return {m_vlen, m_vlane, m_rank * m_vlen, 1, member_mask()};
    else if constexpr (Level == NestLevel::TeamThread) return {m_size, m_rank, m_vlane, m_vlen, 0xffffffffu};
    else return {m_size * m_vlen, m_rank * m_vlen + m_vlane, 0, 1, 0xffffffffu};
  }
  template <class Rg>
  TESSERA_INLINE_FUNCTION Participants participants_of() const {
    return participants_at<Rg::level>();
  }
  // Hillis-Steele over the participants q (their lanes q.stride apart):
  // `offset` gets the sum of the values of the participants before this
  // lane's, `sum` the sum of all, on every lane of q.mask.
  template <class V>
  TESSERA_INLINE_FUNCTION static void exclusive_scan(const Participants& q, const V& value, V& offset, V& sum) {
    const int lane = q.lane_of(q.me);
    V inclusive = value;
    for (int d = 1; d < q.count; d <<= 1) {
      const V other = shuffle(inclusive, q.me >= d ? q.lane_of(q.me - d) : lane, q.mask, 32);
      if (q.me >= d) inclusive = other + inclusive;
    }
    offset = shuffle(inclusive, q.me >= 1 ? q.lane_of(q.me - 1) : lane, q.mask, 32);
    if (q.me == 0) offset = V();
    sum = shuffle(inclusive, q.lane_of(q.count - 1), q.mask, 32);
  }
  TESSERA_INLINE_FUNCTION bool is_warp() const { return m_size * m_vlen > 1; }
  // The lanes of the calling member.
  TESSERA_INLINE_FUNCTION unsigned member_mask() const {
    return m_vlen >= 32 ? 0xffffffffu : ((1u << m_vlen) - 1u) << (m_rank * m_vlen);
  }

  template <class T>
  TESSERA_INLINE_FUNCTION static T shuffle(const T& v, int src, unsigned mask, int width) {
#if TESSERA_IMPL_ON_DEVICE
    static_assert(std::is_trivially_copyable_v<T>, "tessera: team collectives on Cuda need trivially copyable values");
    constexpr int kWords = int((sizeof(T) + 3) / 4);
    int words[kWords];
    memcpy(words, &v, sizeof(T));
    for (int w = 0; w < kWords; ++w) words[w] = __shfl_sync(mask, words[w], src, width);
    T out;
    memcpy(static_cast<void*>(&out), words, sizeof(T));
    return out;
#else
    (void)src;
    (void)mask;
    (void)width;
    return v;
#endif
  }
  template <class T>
  TESSERA_INLINE_FUNCTION static T shuffle_xor(const T& v, int lane_mask, unsigned mask, int width) {
#if TESSERA_IMPL_ON_DEVICE
    static_assert(std::is_trivially_copyable_v<T>, "tessera: team collectives on Cuda need trivially copyable values");
    constexpr int kWords = int((sizeof(T) + 3) / 4);
    int words[kWords];
    memcpy(words, &v, sizeof(T));
    for (int w = 0; w < kWords; ++w) words[w] = __shfl_xor_sync(mask, words[w], lane_mask, width);
    T out;
    memcpy(static_cast<void*>(&out), words, sizeof(T));
    return out;
#else
    (void)lane_mask;
    (void)mask;
    (void)width;
    return v;
#endif
  }
  // A butterfly over lane distances [lo, hi) (powers of two): every lane of
  // `mask` ends with the join of the values of the lanes whose index differs
  // from its own only in those bits.
  template <class Red, class V>
  TESSERA_INLINE_FUNCTION void combine(const Red& reducer, V& v, int lo, int hi, unsigned mask) const {
    if (!is_warp()) return;
    for (int d = hi >> 1; d >= lo; d >>= 1) {
      const V other = shuffle_xor(v, d, mask, 32);
      reducer.join(v, other);
    }
  }

  CudaQueueState* m_state;
  CudaTaskRecord* m_task;
  int m_rank;
  int m_size;
  int m_vlane;
  int m_vlen;
  scratch_memory_space m_scratch;
};

// The typed task's entry point: the functor on this lane (or on every lane
// of a team), then its name when it is the task that failed first, by
// task_fail or by a bad respawn (one lane of a team writes it).
template <class F>
__device__ void CudaTask<F>::run(CudaTaskRecord* b, CudaTaskMember& member) {
  CudaTask* t = of(b);
  if constexpr (std::is_void_v<value_type>) {
    t->functor()(member);
  } else {
    t->functor()(member, t->value.get());
  }
  if (cuda_cancelling(member.impl_state()) && member.team_rank() == 0 && member.impl_vector_lane() == 0)
    cuda_record_error_name(member.impl_state(), b, cuda_functor_name<F>());
}

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__
