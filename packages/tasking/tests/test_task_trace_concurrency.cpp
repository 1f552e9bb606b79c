// Task timelines while threads race: host threads spawn chains of tasks
// (each after the previous one) while the scheduler's workers run them, so
// that threads make their event logs and take ids at the same time. Every
// task gives one slice and every link of a chain one dependence arrow,
// whichever thread recorded it. (Labelled concurrency: the ThreadSanitizer
// row runs it.)
#include "tasking_test_util.hpp"
#include "trace_file_reader.hpp"

#include <tessera/core/trace_sink.hpp>

#include <cstdio>
#include <thread>
#include <vector>

namespace {
template <class Sched>
struct ChainLink {
  void operator()(typename Sched::member_type&) const {}
};
}  // namespace

template <class Space>
class TaskTraceConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskTraceConcurrency, tessera::test::TaskSpaces, tessera::test::SpaceNames);

TYPED_TEST(TaskTraceConcurrency, HostThreadsSpawnChainsDuringATracedWait) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Future = tessera::BasicFuture<void, Sched>;
  constexpr int kHosts = 3, kLinks = 400;
  const std::string path = tessera::test::trace_path("concurrency");
  ASSERT_TRUE(tessera::profiling::start_trace(path));
  {
    Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
    tessera::test::Watchdog watchdog("HostThreadsSpawnChainsDuringATracedWait", 120);
    std::vector<std::thread> hosts;
    for (int h = 0; h < kHosts; ++h)
      hosts.emplace_back([&sched] {
        Future prev;
        for (int i = 0; i < kLinks; ++i)
          prev = prev.is_null() ? tessera::host_spawn(tessera::TaskSingle(sched), ChainLink<Sched>{})
                                : tessera::host_spawn(tessera::TaskSingle(prev), ChainLink<Sched>{});
      });
    // Waits while the chains grow (each wait runs what is ready), then once
    // more after the host threads are done.
    for (int w = 0; w < 20; ++w) tessera::wait(sched);
    for (auto& t : hosts) t.join();
    tessera::wait(sched);
    EXPECT_EQ(sched.statistics().completed, std::uint64_t(kHosts * kLinks)) << "every task completed";
  }
  tessera::profiling::stop_trace();
  auto trace = tessera::test::read_trace(path);
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->task_slices("ChainLink"), std::size_t(kHosts * kLinks));
  EXPECT_EQ(trace->flow_pairs("dependence"), std::size_t(kHosts * (kLinks - 1)));
  EXPECT_EQ(trace->flow_pairs("respawn"), 0u);
  tessera::test::expect_flows_bind_to_task_slices(*trace);
  std::remove(path.c_str());
}
