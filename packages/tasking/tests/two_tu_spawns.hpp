#pragma once
// The other translation unit of test_task_two_tu.cpp (two_tu_spawns.cpp):
// it spawns a task of its own type on a scheduler the test made.
#include <tessera/tasking.hpp>

namespace two_tu {

// Host back-ends: spawns one task that adds 10 to *count.
void spawn_from_other_tu(tessera::TaskScheduler<tessera::Serial>& sched, long long* count);
#if TESSERA_ENABLE_CUDA
// Cuda: spawns one task that adds 10 to count[0] (device memory).
void spawn_from_other_tu(tessera::TaskScheduler<tessera::Cuda>& sched, long long* count);
// Cuda: tessera::wait(sched) called from this TU (with this TU's driver).
void wait_from_other_tu(tessera::TaskScheduler<tessera::Cuda>& sched);
#endif

}  // namespace two_tu
