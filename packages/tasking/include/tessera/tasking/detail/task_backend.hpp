#pragma once
// TaskBackend<Exec>: which task driver an execution space gets. It is the
// seam between the scheduler's API (task_scheduler.hpp, future.hpp) and the
// drivers, as core's detail::Backend<Exec> is for data-parallel patterns:
// the API names queue_type and member_type, never a driver.
//   host execution spaces   the host driver (host_driver.hpp): one worker per
//                           thread of the space, work-stealing deques
//   Cuda (under nvcc)       the CUDA driver (cuda_driver.hpp; the API's
//                           Cuda specializations are in cuda_api.hpp, included
//                           at the end of task_scheduler.hpp)
//   anything else           no driver: a compile-time error that says so
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
                "tessera::TaskScheduler: this execution space has no task driver. Host spaces (Serial, Threads, "
                "OpenMP) have the host driver; Cuda has the CUDA driver only in translation units compiled by nvcc "
                "(its tasks are device code).");
};

template <class Exec>
struct TaskBackend<Exec, std::enable_if_t<is_host_execution_space<Exec>::value>> {
  using queue_type = TaskQueue<Exec>;
  using member_type = TaskMember<Exec>;
};

}  // namespace tessera::detail::tasking
