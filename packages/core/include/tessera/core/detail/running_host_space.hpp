#pragma once
// Which host execution space the calling thread is running a kernel for, and
// its rank among that space's threads.
//
// The back-ends with a pool record both on each pool thread around a
// region's body (Threads in threads.cpp, OpenMP inside its parallel region),
// out of line of the patterns' code: a marker in host_region, inlined into
// every pattern, slowed a Serial triangle count by 20% (GCC's inlining
// choices), although Serial never ran it.
//
// Code inside a kernel can then tell its own space's threads from another's.
// A duplicated ScatterView needs that: it gives each of its space's threads a
// private copy by rank, and Space::impl_thread_pool_rank() alone is only a
// rank among Space's threads. With OpenMP and Threads both enabled, every
// Threads thread reads omp_get_thread_num() == 0, and would share copy 0
// without atomics. Reading the rank recorded here is also cheaper than the
// back-end's call (two thread-local loads).
#include <tessera/core/macros.hpp>

namespace tessera::detail {

// One address per host execution space type: its identity at run time.
template <class Exec>
inline constexpr char host_space_tag = 0;

// constinit: thread_locals with no dynamic initialization are read directly,
// without a call to an initialization wrapper.
//
// The tag of the space whose region this thread runs; nullptr elsewhere.
inline constinit thread_local const void* t_running_host_space = nullptr;
// This thread's rank in that space's pool (the physical thread, also inside a
// nested dispatch that runs serially on it).
inline constinit thread_local int t_running_host_rank = 0;

// The calling thread's rank among Exec's threads; -1 when it runs a region of
// another host space's pool. Elsewhere (outside kernels, Serial kernels, a
// pool of one thread), Exec's own answer: the thread runs alone there.
template <class Exec>
inline int host_rank_in() {
  if (t_running_host_space == &host_space_tag<Exec>) return t_running_host_rank;
  if (t_running_host_space != nullptr) return -1;
  return Exec::impl_thread_pool_rank();
}

// Marks the calling thread as thread `rank` of a kernel of Exec for its
// lifetime, and restores what it replaced. A nested dispatch of the same
// space, run serially on this thread (rank 0 of 1), keeps the outer rank.
template <class Exec>
class RunningHostSpace {
 public:
  explicit RunningHostSpace(int rank) : m_space(t_running_host_space), m_rank(t_running_host_rank) {
    if (m_space != &host_space_tag<Exec>) t_running_host_rank = rank;
    t_running_host_space = &host_space_tag<Exec>;
  }
  ~RunningHostSpace() {
    t_running_host_space = m_space;
    t_running_host_rank = m_rank;
  }
  RunningHostSpace(const RunningHostSpace&) = delete;
  RunningHostSpace& operator=(const RunningHostSpace&) = delete;

 private:
  const void* m_space;
  int m_rank;
};

}  // namespace tessera::detail
