#pragma once
// Termination of a wait on the CUDA driver: the busy count, which warps
// update when they go idle or busy, not per task.
//
// All warps start busy (the host sets the count to the number of warps). A
// warp whose cuda_take_work found nothing leaves the count (one atomic) and
// then polls: it leaves the kernel once the count is closed; it closes it
// (CAS 0 -> kCudaClosed) when it reads 0; it takes part again, by an
// increment that counts for nothing once the count is closed, when it sees a
// task in some queue; else it sleeps a little and polls again.
//
// Why a count of 0 means the DAG has nothing left to run:
//   * a warp pushes (onto its inbox, deques or the overflow stacks) only
//     while it runs tasks, so only while it is counted busy;
//   * it goes idle only when its own deques and inbox are empty, and nobody
//     else pushes onto them;
//   * the overflow stacks: every push or successful pop is made by a busy
//     warp, which takes work again before it can go idle, and that take pops
//     the stacks. After the last successful change of a stack nobody changes
//     it any more, so that pop cannot lose a race: it finds the stack empty
//     or takes the entry (the pop's 4 tries, and a steal that loses its
//     race, only delay a warp; they never strand a task).
// So when the count is 0 no task is queued and none runs; what is still
// incomplete waits on another incomplete record (a dependence cycle, which
// the host reports). A rejoin that finds the count at 0 (it saw a task that
// has run since) only goes idle again. A count update is relaxed: the
// argument needs each warp's own order and the count's modification order
// only, and the kernel's end publishes the results to the host.
//
// Host-device functions over libcu++'s atomic_ref, so that the host test of
// cuda_warp_queues.hpp runs them on threads too.
#include <tessera/core/macros.hpp>
#include <tessera/tasking/detail/cuda_deque.hpp>
#include <tessera/tasking/detail/cuda_warp_queues.hpp>
#include <tessera/tasking/detail/test_points.hpp>

#if defined(__CUDACC__) || defined(TESSERA_CUDA_QUEUES_ON_HOST)

namespace tessera::detail::tasking {

inline constexpr long long kCudaClosed = 1ll << 40;

enum class CudaIdleStep : int {
  Leave,     // the count is closed: the wait is over
  Rejoined,  // counted busy again: take work
  Wait,      // still idle: sleep, then poll again
};

// A warp whose take found nothing: leaves the count, once per idle spell.
TESSERA_INLINE_FUNCTION void cuda_become_idle(long long& count, bool& busy) {
  if (!busy) return;
  busy = false;
  cuda_device_ref<long long>(count).fetch_sub(1ll, ::cuda::std::memory_order_relaxed);
}

// An idle warp's poll. `work_visible()` is asked only while other warps are
// busy (cuda_work_visible: whether some queue seems to hold a task).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable  // a lambda of device code (cuda_idle_step's, in the kernel)
#endif
template <class WorkVisible>
TESSERA_INLINE_FUNCTION CudaIdleStep cuda_idle_poll(long long& count_word, bool& busy,
                                                    WorkVisible&& work_visible) {
  cuda_device_ref<long long> count(count_word);
  long long b = count.load(::cuda::std::memory_order_acquire);
  if (b & kCudaClosed) return CudaIdleStep::Leave;
  if (b == 0) {
    TESSERA_TASKING_TEST_POINT(IdleBeforeClose, -1);
    if (count.compare_exchange_strong(b, kCudaClosed, ::cuda::std::memory_order_acq_rel,
                                      ::cuda::std::memory_order_acquire) ||
        (b & kCudaClosed))
      return CudaIdleStep::Leave;
    return CudaIdleStep::Wait;  // another warp rejoined first
  }
  if (!work_visible()) return CudaIdleStep::Wait;
  TESSERA_TASKING_TEST_POINT(IdleBeforeRejoin, -1);
  // One increment, not a compare-and-swap loop: when work appears, every
  // idle warp may rejoin at once (1,583 on an H200), and a CAS loop lets one
  // of them through per round trip to L2. On an H200 (2026-12-04) the
  // increment took the empty tiled-Cholesky DAG's wait from 386 to 343 ms.
  // An increment that lands on a closed count changes nothing another warp
  // reads (all test the closed bit first) and is taken back before the warp
  // leaves, so the count ends at exactly kCudaClosed.
  const long long before = count.fetch_add(1ll, ::cuda::std::memory_order_acq_rel);
  if (before & kCudaClosed) {
    count.fetch_sub(1ll, ::cuda::std::memory_order_relaxed);
    return CudaIdleStep::Leave;
  }
  busy = true;
  return CudaIdleStep::Rejoined;
}

// What lane 0 of the driver does when its batch came back empty: leave the
// count (once per idle spell), then poll it.
template <class State, class Warp>
TESSERA_INLINE_FUNCTION CudaIdleStep cuda_idle_step(State* s, int wid, Warp& me, bool& busy) {
  cuda_become_idle(s->busy, busy);
  return cuda_idle_poll(s->busy, busy, [&] { return cuda_work_visible(s, wid, me); });
}

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__ || TESSERA_CUDA_QUEUES_ON_HOST
