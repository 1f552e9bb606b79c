// The task DAG on every host back-end: Fibonacci by spawn + respawn +
// when_all, large when_alls, priorities, results, futures and statistics.
// The cases device code can run are also in test_task_portable_dag.cpp (for
// every back-end, Cuda included): when_all of 10,000 futures, dependences
// ordering tasks. These stay host-only: their closures hold host objects
// (std::vector of futures, std::atomic, shared_ptr, references to the test's
// locals), and they read host-only API (reference_count, the statistics of
// respawns and executions, the exact order of one Serial worker).
#include "tasking_test_util.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

using tessera::test::Fib;
using tessera::test::FibPair;
using tessera::test::fibonacci_closed_form;

// A parent spawns 10,000 children of two result types, waits on all of
// them through a when_all of void futures, and adds their results.
template <class Sched>
struct MixedParent {
  using Member = typename Sched::member_type;
  using value_type = double;
  Sched sched;
  std::vector<tessera::BasicFuture<int, Sched>> ints;
  std::vector<tessera::BasicFuture<double, Sched>> doubles;
  void operator()(Member&, double& result) {
    if (ints.empty()) {
      std::vector<tessera::BasicFuture<void, Sched>> all;
      for (int i = 0; i < 5000; ++i) {
        ints.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [i](Member&, int& r) { r = i; }));
        doubles.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [i](Member&, double& r) { r = 0.5 * i; }));
        all.push_back(ints.back());
        all.push_back(doubles.back());
      }
      tessera::respawn(this, sched.when_all(all));
      return;
    }
    for (auto& f : ints) result += f.get();
    for (auto& f : doubles) result += f.get();
  }
};

template <class Space>
class TaskDag : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskDag, tessera::test::TaskSpaces, tessera::test::SpaceNames);

TYPED_TEST(TaskDag, FibonacciMatchesClosedForm) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(32) << 20);
  for (int n : {0, 1, 2, 3, 5, 10, 15, 20, 25}) {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<Sched>(sched, n));
    EXPECT_FALSE(f.is_ready());
    tessera::wait(sched);
    ASSERT_TRUE(f.is_ready()) << "n=" << n;
    EXPECT_EQ(f.get(), fibonacci_closed_form(n)) << "n=" << n;
  }
  const tessera::TaskStatistics s = sched.statistics();
  // fib(n) creates 2 fib(n+1) - 1 tasks; summed over the n above.
  std::uint64_t expected = 0;
  for (int n : {0, 1, 2, 3, 5, 10, 15, 20, 25}) expected += std::uint64_t(2 * fibonacci_closed_form(n + 1) - 1);
  EXPECT_EQ(s.spawned, expected);
  EXPECT_EQ(s.failed_spawns, 0u);
  EXPECT_EQ(s.completed, s.spawned + s.aggregates);
  EXPECT_EQ(s.executed, s.spawned + s.respawned);
  EXPECT_EQ(s.failed, 0u);
}

TYPED_TEST(TaskDag, FibonacciOnSmallPoolThrottles) {
  // 256 KiB: fib(20) (21891 tasks of 128 bytes) cannot be alive at once on
  // a breadth-first schedule; tasks retry on full pool and the result is right.
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(256) << 10, 64, 1024, 16 << 10);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<Sched>(sched, 20));
  tessera::wait(sched);
  EXPECT_EQ(f.get(), fibonacci_closed_form(20));
  if (TypeParam().concurrency() == 1) {
    // One thread: a spawn first runs ready tasks, so the DAG is explored
    // depth first and only a few hundred records are ever alive.
    EXPECT_EQ(sched.statistics().failed_spawns, 0u);
    EXPECT_LE(sched.statistics().pool_high_water_bytes, std::size_t(64) << 10);
  }
}

TYPED_TEST(TaskDag, WhenAllOfTenThousandFutures) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
  const int n = 10000;
  std::vector<tessera::BasicFuture<std::int64_t, Sched>> fs;
  for (int i = 0; i < n; ++i)
    fs.push_back(tessera::host_spawn(tessera::TaskSingle(sched), [i](Member&, std::int64_t& r) { r = i; }));
  // 10,000 pointers do not fit one 4 KiB block: when_all builds a tree.
  EXPECT_GT(sched.when_all_allocation_size(n), sched.memory().max_block_size());
  auto all = sched.when_all(fs);
  ASSERT_FALSE(all.is_null());
  auto sum = tessera::host_spawn(tessera::TaskSingle(all), [fs](Member&, std::int64_t& r) {
    for (const auto& f : fs) r += f.get();  // every input is ready when the when_all is
  });
  tessera::wait(sched);
  EXPECT_TRUE(all.is_ready());
  EXPECT_EQ(sum.get(), std::int64_t(n) * (n - 1) / 2);
  EXPECT_GE(sched.statistics().aggregates, 3u);
}

TYPED_TEST(TaskDag, WhenAllInsideTaskAndMixedResultTypes) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), MixedParent<Sched>{sched, {}, {}});
  tessera::wait(sched);
  EXPECT_DOUBLE_EQ(f.get(), 1.5 * (4999.0 * 5000.0 / 2.0));
}

TYPED_TEST(TaskDag, WhenAllEdgeCases) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  std::vector<tessera::BasicFuture<int, Sched>> none;
  auto empty = sched.when_all(none);
  EXPECT_TRUE(empty.is_null());
  EXPECT_TRUE(empty.is_ready());
  std::vector<tessera::BasicFuture<int, Sched>> nulls(3);
  EXPECT_TRUE(sched.when_all(nulls).is_null());
  EXPECT_THROW(sched.when_all(nulls.data(), -1), std::invalid_argument);
  // Already complete inputs: the when_all is complete at once.
  auto a = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&, int& r) { r = 7; });
  tessera::wait(sched);
  std::vector<tessera::BasicFuture<int, Sched>> done = {a, tessera::BasicFuture<int, Sched>(), a};
  auto all = sched.when_all(done);
  EXPECT_FALSE(all.is_null());
  EXPECT_TRUE(all.is_ready());
  // Futures of another scheduler are rejected by name.
  Sched other(typename Sched::memory_space(), std::size_t(1) << 20);
  auto b = tessera::host_spawn(tessera::TaskSingle(other), [](Member&, int& r) { r = 1; });
  std::vector<tessera::BasicFuture<int, Sched>> mixed = {a, b};
  try {
    sched.when_all(mixed);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("future 1"), std::string::npos) << e.what();
  }
  // The generator form.
  auto c = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&) {});
  auto gen = sched.when_all(2, [&](int i) { return i == 0 ? tessera::BasicFuture<void, Sched>(a) : c; });
  EXPECT_FALSE(gen.is_ready());
  tessera::wait(other);
  tessera::wait(sched);
  EXPECT_TRUE(gen.is_ready());
}

TYPED_TEST(TaskDag, WhenAllOfNamedFutures) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
  // Host code: mixed result types and a null future (ignored).
  std::atomic<int> step{0};
  auto a = tessera::host_spawn(tessera::TaskSingle(sched), [&step](Member&, long& r) {
    r = 40;
    step.fetch_add(1);
  });
  auto b = tessera::host_spawn(tessera::TaskSingle(sched), [&step](Member&) { step.fetch_add(1); });
  tessera::BasicFuture<double, Sched> none;
  auto all = sched.when_all(a, none, b);
  ASSERT_FALSE(all.is_null());
  EXPECT_FALSE(all.is_ready());
  EXPECT_EQ(a.reference_count(), 3) << "a's future, the when_all node's input, the scheduler";
  auto after = tessera::host_spawn(tessera::TaskSingle(all), [&step, a](Member&, long& r) { r = a.get() + step.load(); });
  tessera::wait(sched);
  EXPECT_TRUE(all.is_ready());
  EXPECT_EQ(after.get(), 42);
  EXPECT_TRUE(sched.when_all(none).is_null()) << "only null futures: nothing to wait for";
  EXPECT_TRUE(sched.when_all(a).is_ready()) << "complete inputs: complete at once";
  // Futures of another scheduler are rejected by position.
  Sched other(typename Sched::memory_space(), std::size_t(1) << 20);
  auto c = tessera::host_spawn(tessera::TaskSingle(other), [](Member&) {});
  try {
    sched.when_all(a, b, c);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("future 2"), std::string::npos) << e.what();
  }
  tessera::wait(other);
  // Inside tasks: Fibonacci, with exact statistics.
  sched.reset_statistics();
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), FibPair<Sched>(sched, 20));
  tessera::wait(sched);
  EXPECT_EQ(f.get(), fibonacci_closed_form(20));
  const auto s = sched.statistics();
  const std::uint64_t tasks = std::uint64_t(2 * fibonacci_closed_form(21) - 1);
  EXPECT_EQ(s.spawned, tasks);
  EXPECT_EQ(s.aggregates, s.respawned) << "one when_all per inner call";
  EXPECT_EQ(s.executed, s.spawned + s.respawned);
  EXPECT_EQ(s.completed, s.spawned + s.aggregates);
}

TEST(TaskDagSerial, PriorityOrderHighFirstThenLastReadyFirst) {
  using Sched = tessera::TaskScheduler<tessera::Serial>;
  using Member = Sched::member_type;
  Sched sched(tessera::HostSpace(), std::size_t(1) << 20);
  std::vector<int> order;
  const tessera::TaskPriority prio[] = {tessera::TaskPriority::Low, tessera::TaskPriority::Regular,
                                        tessera::TaskPriority::High};
  // Spawn ids 0..8 as Low, Regular, High, Low, Regular, High, ...
  for (int i = 0; i < 9; ++i)
    tessera::host_spawn(tessera::TaskSingle(sched, prio[i % 3]), [&order, i](Member&) { order.push_back(i); });
  tessera::wait(sched);
  EXPECT_EQ(order, (std::vector<int>{8, 5, 2, 7, 4, 1, 6, 3, 0}));

  // A task made ready by a completing dependence goes by its priority too,
  // and a respawn may change the priority.
  order.clear();
  struct Twice {
    std::vector<int>* order;
    Sched sched;
    int runs = 0;
    void operator()(Member&) {
      order->push_back(100 + runs);
      if (runs++ == 0) tessera::respawn(this, sched, tessera::TaskPriority::Low);
    }
  };
  tessera::host_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Twice{&order, sched});
  tessera::host_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::Regular),
                      [&order](Member&) { order.push_back(1); });
  tessera::wait(sched);
  EXPECT_EQ(order, (std::vector<int>{100, 1, 101}));
}

TYPED_TEST(TaskDag, DependencesOrderTasks) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  // A chain of 2000 tasks, each spawned from the host with the previous one
  // as dependence, each checking that its predecessor has already run.
  std::vector<int> seen(2000, 0);
  std::atomic<int> wrong{0};
  tessera::BasicFuture<void, Sched> prev;
  for (int i = 0; i < 2000; ++i) {
    auto body = [&seen, &wrong, i](Member&) {
      if (i > 0 && seen[std::size_t(i - 1)] != 1) wrong.fetch_add(1);
      seen[std::size_t(i)] = 1;
    };
    prev = prev.is_null() ? tessera::host_spawn(tessera::TaskSingle(sched), body)
                          : tessera::host_spawn(tessera::TaskSingle(prev), body);
  }
  tessera::wait(sched);
  EXPECT_EQ(wrong.load(), 0);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(seen[std::size_t(i)], 1) << i;
}

TYPED_TEST(TaskDag, FuturesAreReferenceCountedHandles) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  tessera::BasicFuture<int, Sched> f = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&, int& r) { r = 42; });
  EXPECT_EQ(f.reference_count(), 2);  // the future and the not-yet-complete task
  {
    auto g = f;
    EXPECT_EQ(f.reference_count(), 3);
    auto h = std::move(g);
    EXPECT_TRUE(g.is_null());
    EXPECT_EQ(h, f);
    tessera::Future<int, TypeParam> k;  // the execution-space spelling of the same type
    k = h;
    EXPECT_EQ(f.reference_count(), 4);
  }
  tessera::wait(sched);
  EXPECT_EQ(f.reference_count(), 1);  // complete: only this future holds the record
  EXPECT_EQ(f.get(), 42);
  EXPECT_GT(sched.statistics().pool_in_use_bytes, 0u);
  f.clear();
  EXPECT_TRUE(f.is_null());
  EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u) << "the last future frees the task";
}

TYPED_TEST(TaskDag, ClosureIsDestroyedBeforeDependentsRun) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  auto alive = std::make_shared<int>(1);
  std::weak_ptr<int> watch = alive;
  std::atomic<int> still_alive_when_dependent_ran{-1};
  auto first = tessera::host_spawn(tessera::TaskSingle(sched), [alive](Member&) {});
  alive.reset();
  tessera::host_spawn(tessera::TaskSingle(first), [watch, &still_alive_when_dependent_ran](Member&) {
    still_alive_when_dependent_ran = watch.expired() ? 0 : 1;
  });
  tessera::wait(sched);
  EXPECT_EQ(still_alive_when_dependent_ran.load(), 0);
  EXPECT_TRUE(first.is_ready());  // the record lives on while the future does
}

TYPED_TEST(TaskDag, SchedulerFromExistingPoolAndHandleLifetime) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  typename Sched::memory_pool pool(typename Sched::memory_space(), std::size_t(1) << 20);
  tessera::BasicFuture<int, Sched> f;
  {
    Sched sched(pool);
    EXPECT_EQ(sched.memory().capacity(), pool.capacity());
    Sched copy = sched;
    EXPECT_TRUE(copy == sched);
    f = tessera::host_spawn(tessera::TaskSingle(copy), [](Member&, int& r) { r = 5; });
    tessera::wait(sched);
  }
  // Every scheduler handle is gone; the future still reads its result.
  EXPECT_EQ(f.get(), 5);
  f.clear();  // frees the record and then the scheduler's state
  Sched null_sched;
  EXPECT_FALSE(bool(null_sched));
  EXPECT_THROW(tessera::wait(null_sched), std::invalid_argument);
}

TYPED_TEST(TaskDag, StatisticsArePrintable) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<Sched>(sched, 12));
  tessera::wait(sched);
  const auto s = sched.statistics();
  EXPECT_EQ(s.threads, TypeParam().concurrency());
  EXPECT_EQ(s.pool_capacity_bytes, sched.memory().capacity());
  EXPECT_GT(s.pool_high_water_bytes, 0u);
  EXPECT_GT(s.peak_ready, 0u);
  EXPECT_EQ(s.respawned, s.aggregates);  // each inner fib respawns once on one when_all
  std::ostringstream out;
  out << s;
  EXPECT_NE(out.str().find("tasks spawned " + std::to_string(s.spawned)), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("high water"), std::string::npos);
  sched.reset_statistics();
  EXPECT_EQ(sched.statistics().spawned, 0u);
  EXPECT_GT(sched.template spawn_allocation_size<Fib<Sched>>(), sizeof(Fib<Sched>));
}
