// Tasks spawned from two translation units on one scheduler (issue
// gpu-tasking part 2). Host back-ends run them: one program, one scheduler.
// On Cuda, without relocatable device code, each TU is its own module (its
// own driver kernel, its own device function pointers), and the driver's
// contract is to refuse such a wait with a clear error: host_spawn throws,
// or wait throws a TaskFailure naming the translation unit, and no task of
// the other module runs. The other TU is two_tu_spawns.cpp.
#include "tasking_test_util.hpp"
#include "two_tu_spawns.hpp"

#if defined(__NVCC__)
#pragma nv_diag_suppress 20014
#endif

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
// DISABLED until the module identity is made per-TU: today the refusal
// cannot be relied on (see the tasking manual, CUDA section, "two
// translation units"). cuda_host_module() and the host side of
// cuda_task_driver<0> are inline / template entities with external
// linkage, so the linker keeps one copy for the program: every TU's
// host_spawn stamps the same module marker (the host-side check never
// fires), and which module's driver kernel a wait launches depends on how
// the CUDA runtime resolves a host stub that two modules registered. The
// wait then either runs both tasks (a function pointer of one module called
// from the other's kernel, which CUDA does not promise) or refuses them.
// Run it with --gtest_also_run_disabled_tests on a GPU to see which.
TEST(TaskTwoTu, DISABLED_CudaRefusesTasksOfAnotherTranslationUnit) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  using Sched = tessera::TaskScheduler<tessera::Cuda>;
  Sched sched(Sched::memory_space(), std::size_t(4) << 20);
  tessera::View<long long*, tessera::CudaSpace> count("count", 1);
  tessera::host_spawn(tessera::TaskSingle(sched), AddOne<Sched>{count.data()});
  bool refused = false;
  std::string why;
  try {
    two_tu::spawn_from_other_tu(sched, count.data());
    tessera::wait(sched);
  } catch (const std::exception& e) {
    refused = true;
    why = e.what();
  }
  EXPECT_TRUE(refused) << "a wait over tasks of two translation units ran without an error";
  EXPECT_NE(why.find("translation unit"), std::string::npos) << why;
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), count);
  EXPECT_NE(h(0), 11) << "both modules' tasks ran";
}
#endif

}  // namespace
