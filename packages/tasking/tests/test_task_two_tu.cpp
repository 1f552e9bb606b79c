// Tasks spawned from two translation units on one scheduler (issue
// gpu-tasking part 2). Host back-ends run them: one program, one scheduler.
// On Cuda, without relocatable device code, each TU is its own module (its
// own driver kernel, its own device function pointers), and the driver's
// contract is to refuse mixing them with a clear error before anything runs:
// a host_spawn onto a scheduler holding another TU's staged tasks throws,
// and so does a wait from another TU than the staged tasks'. The other TU
// is two_tu_spawns.cpp.
#include "tasking_test_util.hpp"
#include "two_tu_spawns.hpp"

#include <string>

namespace {

template <class Sched>
struct AddOne {
  long long* count;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_add(count, 1ll); }
};

TEST(TaskTwoTu, HostSchedulerRunsTasksOfBothTranslationUnits) {
  using Sched = tessera::TaskScheduler<tessera::Serial>;
  Sched sched(Sched::memory_space(), std::size_t(1) << 20);
  long long count = 0;
  tessera::host_spawn(tessera::TaskSingle(sched), AddOne<Sched>{&count});
  two_tu::spawn_from_other_tu(sched, &count);
  tessera::wait(sched);
  EXPECT_EQ(count, 11);
}

#if TESSERA_ENABLE_CUDA
// Without relocatable device code each TU is its own CUDA module, with its
// own driver kernel, module marker and task function pointers (all with
// internal linkage), and a wait runs only tasks spawned by its own TU.

TEST(TaskTwoTu, CudaRefusesAHostSpawnFromAnotherTranslationUnit) {
  // This TU's task is staged; the other TU's host_spawn on the same
  // scheduler throws, naming the cause. This TU's task then runs alone.
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  using Sched = tessera::TaskScheduler<tessera::Cuda>;
  Sched sched(Sched::memory_space(), std::size_t(4) << 20);
  tessera::View<long long*, tessera::CudaSpace> count("count", 1);
  tessera::host_spawn(tessera::TaskSingle(sched), AddOne<Sched>{count.data()});
  std::string why;
  try {
    two_tu::spawn_from_other_tu(sched, count.data());
  } catch (const std::exception& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("another translation unit"), std::string::npos)
      << "the other TU's host_spawn was not refused: " << why;
  tessera::wait(sched);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), count);
  EXPECT_EQ(h(0), 1) << "this TU's task must run once, the other's never";
}

TEST(TaskTwoTu, CudaWaitFromAnotherTranslationUnitIsRefusedAndLosesNothing) {
  // This TU's task is staged and the other TU calls wait: refused before
  // anything runs, and the task stays staged, so this TU's wait runs it.
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  using Sched = tessera::TaskScheduler<tessera::Cuda>;
  Sched sched(Sched::memory_space(), std::size_t(4) << 20);
  tessera::View<long long*, tessera::CudaSpace> count("count", 1);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), AddOne<Sched>{count.data()});
  std::string why;
  try {
    two_tu::wait_from_other_tu(sched);
  } catch (const std::exception& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("another translation unit"), std::string::npos)
      << "a wait in the other TU ran this TU's task: " << why;
  EXPECT_FALSE(f.is_ready());
  tessera::wait(sched);
  EXPECT_TRUE(f.is_ready());
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), count);
  EXPECT_EQ(h(0), 1);
}

TEST(TaskTwoTu, CudaEachTranslationUnitWaitsOnItsOwnTasks) {
  // Two schedulers, one per TU: each TU spawns and waits on its own, and
  // both run (the refusal is per wait, not per program).
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  using Sched = tessera::TaskScheduler<tessera::Cuda>;
  Sched mine(Sched::memory_space(), std::size_t(4) << 20);
  Sched theirs(Sched::memory_space(), std::size_t(4) << 20);
  tessera::View<long long*, tessera::CudaSpace> count("count", 1);
  tessera::host_spawn(tessera::TaskSingle(mine), AddOne<Sched>{count.data()});
  two_tu::spawn_from_other_tu(theirs, count.data());
  two_tu::wait_from_other_tu(theirs);
  tessera::wait(mine);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), count);
  EXPECT_EQ(h(0), 11);
}
#endif

}  // namespace
