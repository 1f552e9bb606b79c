#pragma once
// TaskBackend<Exec>: which task driver an execution space gets. It is the
// seam between the scheduler's API (task_scheduler.hpp, future.hpp) and the
// drivers, as core's detail::Backend<Exec> is for data-parallel patterns:
// the API names queue_type and member_type, never a driver.
//   host execution spaces   the host driver (host_driver.hpp): one worker per
//                           thread of the space, work-stealing deques
//   anything else           no driver yet: a compile-time error that says so
#include <tessera/core.hpp>
#include <tessera/tasking/detail/host_driver.hpp>
#include <tessera/tasking/detail/typed_task.hpp>

#include <type_traits>

namespace tessera::detail::tasking {

template <class T>
inline constexpr bool no_task_driver = false;

template <class Exec, class Enable = void>
struct TaskBackend {
  static_assert(no_task_driver<Exec>,
                "tessera::TaskScheduler: only host execution spaces (Serial, Threads, OpenMP) have a task driver in "
                "this release; the CUDA persistent-kernel driver (a team per warp) is not implemented yet. Run the "
                "task DAG on a host space and launch CUDA kernels from inside tasks.");
};

template <class Exec>
struct TaskBackend<Exec, std::enable_if_t<is_host_execution_space<Exec>::value>> {
  using queue_type = TaskQueue<Exec>;
  using member_type = TaskMember<Exec>;
};

}  // namespace tessera::detail::tasking
