#pragma once
// The member_type of TaskScheduler<Cuda>: what a task's functor receives.
//
// A single task runs on one lane: a team of one (team_rank 0, team_size 1;
// nested ranges run sequentially on it). A team task runs on the 32 lanes of
// a warp: team_rank is the lane, team_size 32, team_barrier a __syncwarp,
// TeamThreadRange and TeamVectorRange stride over the lanes,
// ThreadVectorRange runs on the calling lane (vector length 1: the M x V
// splits of the issue are not implemented yet), and reductions combine the
// lanes by shuffles. Team collectives must be reached by all 32 lanes, as
// on every back-end.
#include <tessera/core.hpp>
#include <tessera/tasking/detail/cuda_task_queue.hpp>

#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)

namespace tessera::detail::tasking {

class CudaTaskMember {
 public:
  using execution_space = Cuda;
  using scheduler_type = TaskScheduler<Cuda>;

  __device__ CudaTaskMember(CudaQueueState* s, CudaTaskRecord* t, int rank, int size)
      : m_state(s), m_task(t), m_rank(rank), m_size(size) {}

  TESSERA_INLINE_FUNCTION int team_rank() const { return m_rank; }
  TESSERA_INLINE_FUNCTION int team_size() const { return m_size; }
  TESSERA_INLINE_FUNCTION int league_rank() const { return 0; }
  TESSERA_INLINE_FUNCTION int league_size() const { return 1; }
  TESSERA_INLINE_FUNCTION void team_barrier() const {
#if TESSERA_IMPL_ON_DEVICE
    if (m_size > 1) __syncwarp();
#endif
  }

  // The scheduler running this task (a handle that does not keep it alive).
  TESSERA_INLINE_FUNCTION scheduler_type scheduler() const;

  // ---- collectives ----
  template <class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(T& value, int root) const {
#if TESSERA_IMPL_ON_DEVICE
    if (m_size > 1) value = shuffle(value, root);
#else
    (void)value;
    (void)root;
#endif
  }
  template <class R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer, const typename R::value_type& contribution) const {
    typename R::value_type v = contribution;
    combine(reducer, v);
    reducer.reference() = v;
  }
  template <class R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer) const {
    team_reduce(reducer, reducer.reference());
  }

  // ---- the nested-parallelism protocol of core/nested_policies.hpp (1-D ranges) ----
  template <class Rg, class F>
  TESSERA_INLINE_FUNCTION void impl_nested_for(const Rg& r, const F& f) const {
    static_assert(!Rg::is_md, "tessera: task members on Cuda take 1-D nested ranges only (not implemented yet)");
    using I = typename Rg::index_type;
    const I end = r.end < r.start ? r.start : r.end;
    const int step = Rg::level == NestLevel::ThreadVector ? 1 : m_size;
    const int first = Rg::level == NestLevel::ThreadVector ? 0 : m_rank;
    for (I i = r.start + I(first); i < end; i += I(step)) f(i);
  }
  template <class Rg, class F, class Red>
  TESSERA_INLINE_FUNCTION void impl_nested_reduce(const Rg& r, const F& f, const Red& reducer) const {
    static_assert(!Rg::is_md, "tessera: task members on Cuda take 1-D nested ranges only (not implemented yet)");
    using I = typename Rg::index_type;
    using V = typename Red::value_type;
    V v;
    reducer.init(v);
    const I end = r.end < r.start ? r.start : r.end;
    const int step = Rg::level == NestLevel::ThreadVector ? 1 : m_size;
    const int first = Rg::level == NestLevel::ThreadVector ? 0 : m_rank;
    for (I i = r.start + I(first); i < end; i += I(step)) f(i, v);
    if constexpr (Rg::level != NestLevel::ThreadVector) combine(reducer, v);
    reducer.reference() = v;
  }
  template <class Rg, class F, class V>
  TESSERA_INLINE_FUNCTION void impl_nested_scan(const Rg&, const F&, V*) const {
    static_assert(sizeof(V) == 0, "tessera: parallel_scan inside a Cuda task is not implemented yet");
  }
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f) const {
    if (m_rank == 0) f();
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f, T& value) const {
    if (m_rank == 0) f(value);
    team_broadcast(value, 0);
  }
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f) const {
    f();
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f, T& value) const {
    f(value);
  }

  // ---- implementation ----
  TESSERA_INLINE_FUNCTION CudaQueueState* impl_state() const { return m_state; }
  TESSERA_INLINE_FUNCTION CudaTaskRecord* impl_task() const { return m_task; }
  TESSERA_INLINE_FUNCTION bool impl_failed() const { return m_failed; }
  TESSERA_INLINE_FUNCTION void impl_set_failed() { m_failed = true; }

 private:
  template <class T>
  TESSERA_INLINE_FUNCTION static T shuffle(const T& v, int src) {
#if TESSERA_IMPL_ON_DEVICE
    static_assert(std::is_trivially_copyable_v<T>, "tessera: team collectives on Cuda need trivially copyable values");
    constexpr int kWords = int((sizeof(T) + 3) / 4);
    int words[kWords];
    memcpy(words, &v, sizeof(T));
    for (int w = 0; w < kWords; ++w) words[w] = __shfl_sync(0xffffffffu, words[w], src);
    T out;
    memcpy(static_cast<void*>(&out), words, sizeof(T));
    return out;
#else
    (void)src;
    return v;
#endif
  }
  template <class T>
  TESSERA_INLINE_FUNCTION static T shuffle_xor(const T& v, int mask) {
#if TESSERA_IMPL_ON_DEVICE
    constexpr int kWords = int((sizeof(T) + 3) / 4);
    int words[kWords];
    memcpy(words, &v, sizeof(T));
    for (int w = 0; w < kWords; ++w) words[w] = __shfl_xor_sync(0xffffffffu, words[w], mask);
    T out;
    memcpy(static_cast<void*>(&out), words, sizeof(T));
    return out;
#else
    (void)mask;
    return v;
#endif
  }
  // Every lane ends with the join of all lanes' values (a butterfly).
  template <class Red, class V>
  TESSERA_INLINE_FUNCTION void combine(const Red& reducer, V& v) const {
    if (m_size == 1) return;
    for (int mask = 16; mask > 0; mask >>= 1) {
      const V other = shuffle_xor(v, mask);
      reducer.join(v, other);
    }
  }

  CudaQueueState* m_state;
  CudaTaskRecord* m_task;
  int m_rank;
  int m_size;
  bool m_failed = false;
};

// The typed task's entry point: the functor on this lane (or on every lane
// of a team), then its name when it is the task that failed first.
template <class F>
__device__ void CudaTask<F>::run(CudaTaskRecord* b, CudaTaskMember& member) {
  CudaTask* t = of(b);
  if constexpr (std::is_void_v<value_type>) {
    t->functor()(member);
  } else {
    t->functor()(member, t->value.get());
  }
  if (member.impl_failed()) cuda_record_error_name(member.impl_state(), b, cuda_functor_name<F>());
}

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__
