#pragma once
// Test points: a callback at the places where a race of the task runtime can
// be widened or staged deterministically. Compiled only into tests that
// define TESSERA_TASKING_TEST_HOOKS (every tasking test, see
// tests/CMakeLists.txt); elsewhere, and in device code, the macro expands to
// nothing.
//   * the host driver's worker loop (worker_state.hpp, host_driver.hpp,
//     queue_records.hpp; tests/test_task_concurrency.cpp);
//   * the CUDA driver's queues and termination count run on host threads
//     (cuda_deque.hpp, cuda_termination.hpp;
//     tests/test_task_cuda_deque_concurrency.cpp,
//     tests/test_task_cuda_termination_concurrency.cpp), worker -1: inside
//     each window where another warp's operation decides the outcome.
#if defined(TESSERA_TASKING_TEST_HOOKS)
#include <atomic>

namespace tessera::detail::tasking {

enum class TestPoint {
  WorkerStarting,        // a worker (several threads) is about to count itself busy for the first time
  IdleBeforeLeaveCheck,  // an idle worker (several threads) is about to decide whether the wait is over
  WorkerLeft,            // a worker left the wait's loop
  RecordBatchReturned,   // a worker's record cache gave a batch back to the pool (worker: -1) and walks on
  StealBeforeCas,        // CUDA deque: a thief read top, bottom and the slot, and is about to claim the slot
  BatchPopBeforeTopRead, // CUDA deque: the owner published its lowered bottom and is about to read top
  OverflowPopBeforeCas,  // CUDA overflow stack: a popper read the head and its `next`, and is about to swing the head
  IdleBeforeClose,       // CUDA termination: an idle warp read a busy count of 0 and is about to close it
  IdleBeforeRejoin,      // CUDA termination: an idle warp saw a task and is about to count itself busy again
};
using TestHook = void (*)(TestPoint, int worker);
inline std::atomic<TestHook> g_test_hook{nullptr};

}  // namespace tessera::detail::tasking
#endif

#if defined(TESSERA_TASKING_TEST_HOOKS) && !defined(__CUDA_ARCH__)
#define TESSERA_TASKING_TEST_POINT(point, worker)                                                     \
  do {                                                                                                \
    if (auto tessera_hook_ = ::tessera::detail::tasking::g_test_hook.load(std::memory_order_acquire)) \
      tessera_hook_(::tessera::detail::tasking::TestPoint::point, (worker));                          \
  } while (0)
#else
#define TESSERA_TASKING_TEST_POINT(point, worker) ((void)0)
#endif
