// The work-stealing deque of the scheduler (detail/work_deque.hpp) under
// races (label "concurrency", run under ThreadSanitizer in CI): an owner
// pushing and popping in bursts that make the ring grow while thieves steal,
// and the race for the last task, round after round. Every task must be
// taken exactly once; a watchdog turns a hang into a failure in seconds.
#include "deque_test_util.hpp"
#include "tasking_test_util.hpp"

#include <tessera/tasking/detail/work_deque.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace {

using tessera::detail::tasking::TaskBase;
using tessera::detail::tasking::WorkDeque;

using Tally = tessera::test::TakenOnceTally<TaskBase, &TaskBase::alloc_bytes>;

}  // namespace

TEST(WorkDequeConcurrency, OwnerAndThievesTakeEveryTaskOnceWhileTheRingGrows) {
  tessera::test::Watchdog dog("OwnerAndThievesTakeEveryTaskOnceWhileTheRingGrows", 120);
  const std::size_t n = 60000;
  const int thieves = 3;
  Tally tally(n);
  WorkDeque deque;
  std::atomic<std::size_t> stolen{0};
  tessera::test::Thieves thief_threads(thieves, [&] {
    TaskBase* t = deque.steal();
    if (t == nullptr) return false;
    tally.take(t);
    stolen.fetch_add(1, std::memory_order_relaxed);
    return true;
  });
  // Owner: bursts of pushes (up to 1500: past the initial 256 slots, so the
  // ring grows while thieves read it) and pops of part of each burst; it
  // yields now and then, so that thieves get a core on a small machine.
  std::uint64_t seed = 12345;
  std::size_t next = 0, popped = 0;
  while (next < n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t burst = std::min<std::size_t>(n - next, 1 + (seed >> 33) % 1500);
    for (std::size_t i = 0; i < burst; ++i, ++next) {
      deque.push(tally.stamped(next));
    }
    const std::size_t pops = (seed >> 20) % (burst / 2 + 1);
    for (std::size_t i = 0; i < pops; ++i)
      if (TaskBase* t = deque.pop()) {
        tally.take(t);
        ++popped;
      }
    if ((seed >> 40) % 4 == 0) std::this_thread::yield();
  }
  // What is left goes to the thieves (the owner takes it back after a while).
  tessera::test::wait_until([&] { return deque.seems_empty(); }, 5.0);
  while (TaskBase* t = deque.pop()) {
    tally.take(t);
    ++popped;
  }
  EXPECT_TRUE(deque.empty_owner());
  thief_threads.stop();
  deque.reclaim();  // no thief runs any more
  EXPECT_EQ(popped + stolen.load(), n);
  EXPECT_GT(stolen.load(), 0u) << "the thieves never took a task: the test raced nothing";
  EXPECT_EQ(tally.wrong(), 0u) << "tasks taken zero or several times";
}

TEST(WorkDequeConcurrency, StressRaceForTheLastTask) {
  // A few tasks at a time (1 to 3): the owner pushes them and pops them
  // back at once while thieves try to steal them, so that pops and steals
  // race for the last tasks in almost every round; exactly one taker gets
  // each.
  tessera::test::Watchdog dog("StressRaceForTheLastTask", 120);
  const std::size_t min_rounds = 60000, max_rounds = 300000, min_stolen = 200;
  const int thieves = 3;
  Tally tally(max_rounds);
  WorkDeque deque;
  std::atomic<std::size_t> stolen{0};
  tessera::test::Thieves thief_threads(
      thieves,
      [&] {
        TaskBase* t = deque.steal();
        if (t == nullptr) return false;
        tally.take(t);
        stolen.fetch_add(1, std::memory_order_relaxed);
        return true;
      },
      /*keep_racing=*/true);
  std::size_t popped = 0;
  // Rounds go on until the thieves have won some races (or a few seconds
  // have passed: on a loaded machine they may rarely get a core).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::size_t i = 0;
  while (i + 3 <= max_rounds) {
    if (i >= min_rounds && (stolen.load() >= min_stolen || std::chrono::steady_clock::now() > give_up)) break;
    if (i % 256 == 0) std::this_thread::yield();  // thieves get a core on a small machine
    const std::size_t k = 1 + i % 3;
    for (std::size_t j = 0; j < k; ++j, ++i) {
      deque.push(tally.stamped(i));
    }
    // A window of varying width for the thieves, then the owner's pops
    // (a long one now and then when they have had no core so far).
    if (i >= min_rounds && i % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
    for (std::size_t s = 0; s < (i % 5) * 4; ++s) tessera::detail::host_cpu_relax();
    for (std::size_t j = 0; j < k; ++j)
      if (TaskBase* t = deque.pop()) {
        tally.take(t);
        ++popped;
      }
    EXPECT_TRUE(deque.empty_owner()) << "round " << i;
  }
  thief_threads.stop();
  const std::size_t rounds = i;
  EXPECT_EQ(popped + stolen.load(), rounds);
  EXPECT_GT(stolen.load(), 0u) << "the thieves never took a task in " << rounds << " rounds: the test raced nothing";
  RecordProperty("rounds", int(rounds));
  RecordProperty("stolen", int(stolen.load()));
  EXPECT_EQ(tally.wrong(rounds), 0u) << "tasks taken zero or several times";
}

// The scheduler on top of the deques: a Fibonacci DAG whose tasks thieves
// take from the top of each worker's deques while the owners pop at the
// bottom, repeated so that waits start and end with deques of grown rings.
template <class Space>
class TaskDequeConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskDequeConcurrency, tessera::test::TaskSpaces, tessera::test::SpaceNames);

TYPED_TEST(TaskDequeConcurrency, StressFibonacciAndWideFanOut) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  tessera::test::Watchdog dog("StressFibonacciAndWideFanOut", 120);
  Sched sched(typename Sched::memory_space(), std::size_t(32) << 20);
  struct FanOut {
    Sched sched;
    int n;
    std::atomic<int>* ran;
    std::vector<tessera::BasicFuture<void, Sched>> kids{};
    void operator()(Member&) {
      if (!kids.empty()) return;
      for (int i = 0; i < n; ++i) {
        auto f = tessera::task_spawn(tessera::TaskSingle(sched, static_cast<tessera::TaskPriority>(i % 3)),
                                     [r = ran](Member&) { r->fetch_add(1, std::memory_order_relaxed); });
        if (f.is_null()) throw std::runtime_error("pool too small");
        kids.push_back(std::move(f));
      }
      tessera::respawn(this, sched.when_all(kids));
    }
  };
  for (int rep = 0; rep < 4; ++rep) {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), tessera::test::Fib<Sched>(sched, 18));
    std::atomic<int> ran{0};
    tessera::host_spawn(tessera::TaskSingle(sched), FanOut{sched, 3000, &ran});
    tessera::wait(sched);
    EXPECT_EQ(f.get(), tessera::test::fibonacci_closed_form(18));
    EXPECT_EQ(ran.load(), 3000);
  }
  const auto s = sched.statistics();
  EXPECT_EQ(s.completed, s.spawned + s.aggregates);
  EXPECT_EQ(s.executed, s.spawned + s.respawned);
  EXPECT_EQ(s.failed, 0u);
}
