// The bounded-pool generator protocol (detail/task_room.hpp): a generator
// that finds the pool full drops the futures of complete tasks and retries,
// or stalls and is restarted by the host after a wait; only a restart that
// cannot spawn one task is a "pool too small" verdict. Label `concurrency`
// (run under ThreadSanitizer in CI): a real scheduler with a pool far too
// small for the whole DAG, on every back-end.
#include "sparse_test_util.hpp"

#include <tessera/sparse/detail/task_room.hpp>

#include <atomic>
#include <mutex>

namespace {

using tessera::sparse::detail::TaskRoom;

// A stand-in for a future: null, or naming a task that is ready or not.
struct FakeFuture {
  int state = 0;  // 0 null, 1 pending, 2 ready
  bool is_null() const { return state == 0; }
  bool is_ready() const { return state == 2; }
};

TEST(TaskRoom, DropsOnlyCompleteFutures) {
  std::vector<FakeFuture> a{{0}, {1}, {2}, {2}}, b{{2}, {1}};
  EXPECT_EQ(TaskRoom::drop_complete<FakeFuture>({&a, &b}), 3);
  EXPECT_EQ(a[1].state, 1);
  EXPECT_EQ(b[1].state, 1);
  EXPECT_TRUE(a[2].is_null() && a[3].is_null() && b[0].is_null());
}

TEST(TaskRoom, RetriesWhileTasksAreOutstandingOrFuturesCanBeDropped) {
  TaskRoom room;
  std::vector<FakeFuture> deps{{1}};
  room.spawned = 3;
  room.completed = 2;
  EXPECT_TRUE(room.make_room<FakeFuture>({&deps}));  // one task still running
  room.completed = 3;
  deps[0].state = 2;
  EXPECT_TRUE(room.make_room<FakeFuture>({&deps}));  // dropped one
  EXPECT_FALSE(room.stalled);
  EXPECT_FALSE(room.make_room<FakeFuture>({&deps}));  // nothing left to wait for
  EXPECT_TRUE(room.stalled);
}

TEST(TaskRoom, RestartsAfterEachStallThatMadeProgressAndFailsOnlyOnARestartThatCannot) {
  // A generator that spawns one task per run and then stalls, until 5.
  TaskRoom room;
  std::vector<FakeFuture> deps;
  int starts = 0;
  auto stall = [&] {
    room.completed = room.spawned;
    EXPECT_FALSE(room.make_room<FakeFuture>({&deps}));
  };
  EXPECT_TRUE(room.run<FakeFuture>(
      {&deps},
      [&] {
        ++starts;
        ++room.spawned;
        deps.push_back({1});  // still pending inside the run
        if (room.spawned < 5) stall();
      },
      [&] {  // the wait: every task completes
        for (auto& d : deps)
          if (d.state == 1) d.state = 2;
      }));
  EXPECT_EQ(starts, 5);
  EXPECT_EQ(room.spawned, 5);
  // The host dropped the complete futures after each stall (not after the
  // last run, which ended without one).
  for (std::size_t i = 0; i + 1 < deps.size(); ++i) EXPECT_TRUE(deps[i].is_null()) << i;
  EXPECT_TRUE(deps.back().is_ready());

  // A generator that never fits: the first run may stall for lack of a
  // quiescent point, the restart proves it; no third run.
  TaskRoom tiny;
  std::vector<FakeFuture> none;
  starts = 0;
  EXPECT_FALSE(tiny.run<FakeFuture>(
      {&none},
      [&] {
        ++starts;
        EXPECT_FALSE(tiny.make_room<FakeFuture>({&none}));
      },
      [] {}));
  EXPECT_EQ(starts, 2);
}

// A real generator: `chains` chains of tasks, each task after the previous
// one of its chain, spawned a window at a time into the smallest pool (one
// 4 KiB superblock: a few dozen records) so that it fills many times.
template <class Space>
struct ChainGenerator {
  using scheduler_type = tessera::TaskScheduler<Space>;
  using Future = tessera::BasicFuture<void, scheduler_type>;
  struct State {
    scheduler_type sched;
    std::int64_t total = 0, next = 0;
    std::vector<Future> last;  // per chain: its latest task
    TaskRoom room;
    std::vector<std::vector<std::int64_t>> order;  // per chain: the tasks as they ran
    std::mutex order_mutex;
    std::atomic<std::int64_t> sum{0};
    std::int64_t runs = 0;
  };
  State* st;

  void operator()(typename scheduler_type::member_type&) {
    State& S = *st;
    ++S.runs;
    int budget = 16;
    while (S.next < S.total) {
      const std::int64_t i = S.next;
      const std::size_t chain = std::size_t(i) % S.last.size();
      State* sp = &S;
      auto body = [sp, i, chain](typename scheduler_type::member_type&) {
        {
          std::lock_guard<std::mutex> lock(sp->order_mutex);
          sp->order[chain].push_back(i);
        }
        sp->sum.fetch_add(i, std::memory_order_relaxed);
        sp->room.completed.fetch_add(1, std::memory_order_release);
      };
      const Future& dep = S.last[chain];
      Future t = dep.is_null() ? Future(tessera::task_spawn(tessera::TaskSingle(S.sched), body))
                               : Future(tessera::task_spawn(tessera::TaskSingle(dep), body));
      if (t.is_null()) {
        if (S.room.template make_room<Future>({&S.last})) tessera::respawn(this, S.sched, tessera::TaskPriority::Low);
        return;
      }
      ++S.room.spawned;
      S.last[chain] = t;
      ++S.next;
      if (--budget == 0) return tessera::respawn(this, S.sched, tessera::TaskPriority::Low);
    }
  }
};

template <class Space>
class TaskRoomStress : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskRoomStress, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(TaskRoomStress, EveryTaskOfADagMuchLargerThanThePoolRunsOnceInChainOrder) {
  using Space = TypeParam;
  using Gen = ChainGenerator<Space>;
  for (int rep = 0; rep < 5; ++rep) {
    typename Gen::State S;
    S.sched = typename Gen::scheduler_type(typename Gen::scheduler_type::memory_space(), 4096);
    S.total = 20000;
    S.last.resize(7);
    S.order.resize(7);
    const bool fits = S.room.template run<typename Gen::Future>(
        {&S.last}, [&] { tessera::host_spawn(tessera::TaskSingle(S.sched, tessera::TaskPriority::Low), Gen{&S}); },
        [&] { tessera::wait(S.sched); });
    ASSERT_TRUE(fits);
    EXPECT_EQ(S.next, S.total);
    EXPECT_EQ(S.room.spawned, S.total);
    EXPECT_EQ(S.room.completed.load(), S.total);
    EXPECT_EQ(S.sum.load(), S.total * (S.total - 1) / 2);
    for (std::size_t c = 0; c < S.order.size(); ++c) {
      ASSERT_EQ(S.order[c].size(), std::size_t((S.total - std::int64_t(c) + 6) / 7)) << "chain " << c;
      for (std::size_t k = 0; k < S.order[c].size(); ++k)
        ASSERT_EQ(S.order[c][k], std::int64_t(c + 7 * k)) << "chain " << c << " position " << k;
    }
    EXPECT_GT(S.runs, S.total / 16);  // the window and the full pool made it respawn
  }
}

}  // namespace
