// Threads racing in the scheduler (label "concurrency", run under
// ThreadSanitizer in CI): a random DAG of single and team tasks with random
// priorities, when_alls and respawn chains, futures shared across workers;
// host threads spawning while a wait runs; and one stress test per defect
// found in the runtime (issue 15), each forcing its interleaving (with the
// test-only hooks of TESSERA_TASKING_TEST_HOOKS where needed) and guarded by
// a watchdog so that a regression fails in seconds instead of hanging.
#include "tasking_test_util.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#endif

template <class Space>
class TaskConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskConcurrency, tessera::test::TaskSpaces, tessera::test::SpaceNames);

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Nodes of the random tree below `seed` at `depth` (the expected result).
inline std::int64_t tree_size(std::uint64_t seed, int depth) {
  if (depth == 0) return 1;
  const int k = int(mix(seed) % 5);
  std::int64_t n = 1;
  for (int c = 0; c < k; ++c) n += tree_size(mix(seed + std::uint64_t(c) + 1), depth - 1);
  return n;
}

template <class Sched>
struct Node {
  using value_type = std::int64_t;
  using Member = typename Sched::member_type;
  Sched sched;
  std::uint64_t seed;
  int depth;
  std::mutex* shelf_mutex;
  std::vector<tessera::BasicFuture<std::int64_t, Sched>>* shelf;
  std::vector<tessera::BasicFuture<std::int64_t, Sched>> kids{};
  int next = 0;  // sequential mode: children consumed so far
  std::int64_t acc = 1;

  void operator()(Member& member, std::int64_t& result) {
    if (member.team_rank() != 0) return;  // team tasks: rank 0 does the DAG work
    const int k = depth == 0 ? 0 : int(mix(seed) % 5);
    const bool sequential = (seed >> 7) % 3 == 0;
    if (kids.empty() && k > 0) {
      for (int c = 0; c < k; ++c) {
        const std::uint64_t s = mix(seed + std::uint64_t(c) + 1);
        const auto prio = static_cast<tessera::TaskPriority>(s % 3);
        Node child{sched, s, depth - 1, shelf_mutex, shelf};
        auto f = (s >> 11) % 7 == 0 ? tessera::task_spawn(tessera::TaskTeam(sched, prio).set_team_size(2), child)
                                    : tessera::task_spawn(tessera::TaskSingle(sched, prio), child);
        if (f.is_null()) throw std::runtime_error("pool too small for the stress test");
        kids.push_back(f);
        if ((s >> 17) % 4 == 0) {  // share some futures with the host (copied on workers, released there)
          std::lock_guard<std::mutex> lock(*shelf_mutex);
          shelf->push_back(f);
        }
      }
      if (sequential) {
        tessera::respawn(this, kids[0]);
      } else {
        tessera::respawn(this, sched.when_all(kids));
      }
      return;
    }
    if (sequential && k > 0) {
      acc += kids[std::size_t(next)].get();
      if (++next < k) {
        tessera::respawn(this, kids[std::size_t(next)], tessera::TaskPriority::High);
        return;
      }
      result = acc;
    } else {
      result = 1;
      for (auto& f : kids) result += f.get();
    }
    kids.clear();  // release early: the closure is destroyed at completion anyway
  }
};

TYPED_TEST(TaskConcurrency, RandomDagOfSingleAndTeamTasks) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(64) << 20);
  std::mutex m;
  std::vector<tessera::BasicFuture<std::int64_t, Sched>> shelf;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const int depth = 7;
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), Node<Sched>{sched, seed, depth, &m, &shelf});
    tessera::wait(sched);
    EXPECT_EQ(f.get(), tree_size(seed, depth)) << "seed " << seed;
    for (auto& s : shelf) ASSERT_TRUE(s.is_ready());
    shelf.clear();
  }
  const auto s = sched.statistics();
  EXPECT_EQ(s.completed, s.spawned + s.aggregates);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.pool_in_use_bytes, 0u);
}

TYPED_TEST(TaskConcurrency, HostThreadSpawnsWhileWaitRuns) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 20);
  std::atomic<int> ran{0};
  std::vector<tessera::BasicFuture<void, Sched>> mine, theirs;
  for (int i = 0; i < 2000; ++i)
    mine.push_back(tessera::host_spawn(tessera::TaskSingle(sched), [&ran](Member&) { ran.fetch_add(1); }));
  std::thread other([&] {
    for (int i = 0; i < 2000; ++i)
      theirs.push_back(tessera::host_spawn(tessera::TaskSingle(sched), [&ran](Member&) { ran.fetch_add(1); }));
  });
  tessera::wait(sched);
  other.join();
  // What the other thread spawned after the DAG drained runs in the next wait.
  tessera::wait(sched);
  EXPECT_EQ(ran.load(), 4000);
  for (auto& f : mine) ASSERT_TRUE(f.is_ready());
  for (auto& f : theirs) ASSERT_TRUE(f.is_ready());
}

TYPED_TEST(TaskConcurrency, SecondHostThreadWaitingIsRefusedClearly) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  std::atomic<bool> started{false}, release{false};
  // A task that holds the first wait open until the second one was tried
  // (bounded: it gives up after 10 s so that a failure cannot hang).
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), [&](Member&) {
    started.store(true);
    const auto t0 = std::chrono::steady_clock::now();
    while (!release.load() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
      std::this_thread::yield();
  });
  std::thread first([&] { tessera::wait(sched); });
  const auto t0 = std::chrono::steady_clock::now();
  while (!started.load() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) std::this_thread::yield();
  ASSERT_TRUE(started.load());
  try {
    tessera::wait(sched);
    ADD_FAILURE() << "a second concurrent wait must be refused";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("already waiting"), std::string::npos) << e.what();
  }
  release.store(true);
  first.join();
  EXPECT_TRUE(f.is_ready());
  // Once the first wait ended, waiting again is fine.
  auto g = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&) {});
  tessera::wait(sched);
  EXPECT_TRUE(g.is_ready());
}

// A worker that runs out of work gives its cached records back to the pool
// in batches while other workers still spawn, and those spawns take the
// same blocks at once (a small pool, lowest blocks first). The cache's
// links must all be read before a batch goes back: a link read from a block
// already handed out again was a spawn's record, and the walk then freed
// live records (a crash in sparse's concurrency test, 1 run in about 20).
// Producers of uneven length keep some workers spawning while others idle.
template <class Sched>
struct UnevenProducer {
  using Member = typename Sched::member_type;
  Sched sched;
  std::atomic<std::int64_t>* ran;
  int id, round = 0;
  std::vector<tessera::BasicFuture<void, Sched>> kids{};
  void operator()(Member&) {
    kids.clear();  // the last references: the children's records go to this worker's cache
    if (round == 3 + id % 5) return;
    const int n = 40 + 37 * ((id + round) % 7);
    for (int i = 0; i < n; ++i) {
      auto f = tessera::task_spawn(tessera::TaskSingle(sched), [r = ran](Member&) { r->fetch_add(1); });
      if (f.is_null()) {  // pool full: what is spawned runs, the rest comes next round
        ran->fetch_add(1);
        continue;
      }
      kids.push_back(f);
    }
    ++round;
    tessera::respawn(this, sched.when_all(kids.data(), kids.size()));
  }
};

#if defined(TESSERA_TASKING_TEST_HOOKS)
// Makes the race certain: right after a cache returns a batch, this takes
// every free 64-byte block of the pool (the batch among them), writes over
// its first word, and gives it back, as a spawn on another worker could.
namespace {
std::atomic<int> g_scribbles{0};
template <class Pool>
void scribble_free_blocks(const Pool& pool) {
  std::vector<void*> blocks(pool.capacity() / 64);
  const std::size_t got = pool.allocate_batch(64, blocks.data(), blocks.size());
  for (std::size_t i = 0; i < got; ++i) *static_cast<std::uintptr_t*>(blocks[i]) = 0xdeadbeefdeadbeefull;
  pool.deallocate_batch(blocks.data(), got, 64);
}
}  // namespace
#endif

TYPED_TEST(TaskConcurrency, RecordCachesGoBackWhileOtherWorkersSpawn) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
#if defined(TESSERA_TASKING_TEST_HOOKS)
  using tessera::detail::tasking::TestPoint;
  static const typename Sched::memory_pool* pool = nullptr;
  pool = &sched.memory();
  g_scribbles.store(0);
  struct Unhook {
    ~Unhook() { tessera::detail::tasking::g_test_hook.store(nullptr); }
  } unhook;
  tessera::detail::tasking::g_test_hook.store(+[](TestPoint point, int) {
    if (point == TestPoint::RecordBatchReturned && g_scribbles.fetch_add(1) < 200) scribble_free_blocks(*pool);
  });
#endif
  std::int64_t expected = 0;
  for (int id = 0; id < 24; ++id)
    for (int round = 0; round < 3 + id % 5; ++round) expected += 40 + 37 * ((id + round) % 7);
  for (int rep = 0; rep < 40; ++rep) {
    std::atomic<std::int64_t> ran{0};
    for (int id = 0; id < 24; ++id)
      tessera::host_spawn(tessera::TaskSingle(sched), UnevenProducer<Sched>{sched, &ran, id});
    tessera::wait(sched);
    ASSERT_EQ(ran.load(), expected) << "repetition " << rep;
    ASSERT_EQ(sched.statistics().failed, 0u) << "repetition " << rep;
  }
}

TYPED_TEST(TaskConcurrency, ManyShortWaitsReuseWorkers) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  for (int rep = 0; rep < 50; ++rep) {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), tessera::test::Fib<Sched>(sched, 8));
    tessera::wait(sched);
    ASSERT_EQ(f.get(), 21) << "repetition " << rep;
  }
}

// Team leaves back to back on every worker: each leaf of a host_spawn_for
// of team tasks is a rendezvous (its lead waits for members to join, then to
// leave, on its doorbell), and one index per leaf keeps every worker leading
// or joining. An index run other than once shows in the counts; a lost
// wake-up, as a hang. Teams of 2, 3 and every thread.
struct CountIndex {
  std::atomic<int>* counts;
  void operator()(long long i) const { counts[i].fetch_add(1, std::memory_order_relaxed); }
};

TYPED_TEST(TaskConcurrency, TeamLeavesBackToBackOnEveryWorker) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  tessera::test::Watchdog dog("TeamLeavesBackToBackOnEveryWorker", 120);
  Sched sched(typename Sched::memory_space(), std::size_t(32) << 20);
  const int threads = TypeParam().concurrency();
  constexpr long long n = 10000;
  for (int team : {2, 3, threads}) {
    std::vector<std::atomic<int>> counts(n);
    auto policy = tessera::TaskTeam(sched);
    policy.set_team_size(team);
    auto f = tessera::host_spawn_for(policy, n, CountIndex{counts.data()}, 1ll);
    tessera::wait(sched);
    f.get();
    long long wrong = 0;
    for (const auto& c : counts) wrong += c.load() != 1;
    EXPECT_EQ(wrong, 0) << "team " << team << ": indices not run exactly once";
  }
}

// ---- issue 15: a team task spawned from the host as the wait ends ----------------
//
// The wait is over once no worker is busy and no host task is pending. If
// the workers decided that one by one, a worker still inside (or one that
// started late) could take a team task a host thread spawns just then and
// lead a team of every thread, waiting forever for the members that had
// already left. The hook holds one worker, idle just before its leave check
// or just before it starts, until every other worker has left and a host
// thread has spawned such a task; the workers must leave together (the task
// runs in the next wait), not hang.
#if defined(TESSERA_TASKING_TEST_HOOKS)
namespace {
using tessera::detail::tasking::TestPoint;
struct LateTeamSpawn {
  TestPoint hold_at = TestPoint::IdleBeforeLeaveCheck;
  std::atomic<bool> armed{false};      // hold the next worker that reaches hold_at
  std::atomic<int> held{-1};           // the worker held
  std::atomic<int> left{0};            // workers that left the wait
  std::atomic<bool> spawn_now{false};  // every other worker left: the host thread spawns
  std::atomic<bool> spawned{false};
  int others = 0;
};
LateTeamSpawn* g_late = nullptr;

void late_team_hook(TestPoint point, int worker) {
  LateTeamSpawn& s = *g_late;
  if (point == TestPoint::WorkerLeft) {
    s.left.fetch_add(1);
    return;
  }
  if (point != s.hold_at || !s.armed.load()) return;
  int none = -1;
  if (!s.held.compare_exchange_strong(none, worker)) return;
  tessera::test::wait_until([&] { return s.left.load() >= s.others; }, 5.0);
  s.spawn_now.store(true);
  tessera::test::wait_until([&] { return s.spawned.load(); }, 5.0);
}
}  // namespace

TYPED_TEST(TaskConcurrency, TeamTaskSpawnedAsWaitEndsRunsInTheNextWait) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  const int threads = TypeParam().concurrency();
  if (threads < 2) GTEST_SKIP() << "needs at least two threads (a worker still inside while others left)";
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  for (TestPoint hold_at : {TestPoint::IdleBeforeLeaveCheck, TestPoint::WorkerStarting})
    for (int rep = 0; rep < 3; ++rep) {
      SCOPED_TRACE(hold_at == TestPoint::WorkerStarting ? "worker held before it starts"
                                                        : "worker held before its leave check");
      LateTeamSpawn state;
      state.hold_at = hold_at;
      state.others = threads - 1;
      // Held at its start: from the beginning. At its leave check: once the DAG's work is done.
      state.armed.store(hold_at == TestPoint::WorkerStarting);
      g_late = &state;
      tessera::detail::tasking::g_test_hook.store(&late_team_hook);
      std::atomic<int> members{0}, seen_size{0};
      tessera::BasicFuture<void, Sched> team;
      std::thread host([&] {
        if (tessera::test::wait_until([&] { return state.spawn_now.load(); }, 10.0))
          team = tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(threads), [&](Member& m) {
            members.fetch_add(1);
            if (m.team_rank() == 0) seen_size.store(m.team_size());
          });
        state.spawned.store(true);
      });
      auto last = tessera::host_spawn(tessera::TaskSingle(sched), [&](Member&) { state.armed.store(true); });
      {
        tessera::test::Watchdog dog("TeamTaskSpawnedAsWaitEndsRunsInTheNextWait: wait()", 20);
        tessera::wait(sched);
      }
      host.join();
      tessera::detail::tasking::g_test_hook.store(nullptr);
      g_late = nullptr;
      ASSERT_TRUE(last.is_ready());
      ASSERT_GE(state.held.load(), 0) << "the hook never held a worker";
      ASSERT_FALSE(team.is_null()) << "the host thread never spawned";
      {
        tessera::test::Watchdog dog("TeamTaskSpawnedAsWaitEndsRunsInTheNextWait: second wait()", 20);
        tessera::wait(sched);
      }
      ASSERT_TRUE(team.is_ready()) << "repetition " << rep;
      EXPECT_EQ(members.load(), threads);
      EXPECT_EQ(seen_size.load(), threads);
    }
}
#endif

// ---- issue 15: the queue deleted while in use -------------------------------------
//
// Records allocated by workers are counted per worker and summed into the
// scheduler's live count when the wait ends; a host thread releasing the
// last future of such a record frees it at once. Releases by a host thread
// during a wait of records created inside tasks must not bring the live
// count to zero (and delete the scheduler under the running workers).
template <class Sched>
struct Holder {
  using Member = typename Sched::member_type;
  std::atomic<bool>* children_done;
  std::atomic<bool>* released;
  void operator()(Member&) const {
    children_done->store(true);
    tessera::test::wait_until([this] { return released->load(); }, 10.0);
  }
};

template <class Sched>
struct Parent {
  using Member = typename Sched::member_type;
  Sched sched;
  int children;
  std::mutex* shelf_mutex;
  std::vector<tessera::BasicFuture<int, Sched>>* shelf;
  std::atomic<bool>* children_done;
  std::atomic<bool>* released;
  void operator()(Member&) {
    std::vector<tessera::BasicFuture<int, Sched>> kids;
    for (int c = 0; c < children; ++c) {
      auto f = tessera::task_spawn(tessera::TaskSingle(sched), [c](Member&, int& r) { r = c; });
      if (f.is_null()) throw std::runtime_error("pool too small");
      kids.push_back(f);
    }
    {
      std::lock_guard<std::mutex> lock(*shelf_mutex);
      *shelf = kids;
    }
    // Held open (by a task that runs after the children) until the host
    // thread released the children's futures.
    auto all = sched.when_all(kids);
    if (tessera::task_spawn(tessera::TaskSingle(all), Holder<Sched>{children_done, released}).is_null())
      throw std::runtime_error("pool too small");
  }
};

TYPED_TEST(TaskConcurrency, HostReleasesOfTaskMadeFuturesDuringWaitKeepTheSchedulerAlive) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  for (int rep = 0; rep < 5; ++rep) {
    Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
    std::mutex m;
    std::vector<tessera::BasicFuture<int, Sched>> shelf;
    std::atomic<bool> children_done{false}, released{false};
    auto parent = tessera::host_spawn(tessera::TaskSingle(sched),
                                      Parent<Sched>{sched, 8, &m, &shelf, &children_done, &released});
    std::thread host([&] {
      tessera::test::wait_until([&] { return children_done.load(); }, 10.0);
      {
        std::lock_guard<std::mutex> lock(m);
        for (auto& f : shelf) EXPECT_TRUE(f.is_ready());
        shelf.clear();  // the last references: the records are freed here, on the host
      }
      released.store(true);
    });
    {
      tessera::test::Watchdog dog("HostReleasesOfTaskMadeFuturesDuringWaitKeepTheSchedulerAlive: wait()", 30);
      tessera::wait(sched);
    }
    host.join();
    ASSERT_TRUE(parent.is_ready());
    parent.clear();
    // The scheduler is intact and usable.
    EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u) << "repetition " << rep;
    auto again = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&, int& r) { r = 7; });
    tessera::wait(sched);
    EXPECT_EQ(again.get(), 7);
  }
}

// ---- issue 15: waiting on a queue another thread holds ----------------------------
//
// A pop holds a ready queue (its LOCKED marker) for two instructions; if the
// holder is preempted there, the threads waiting for the queue must give up
// their core (yield, then sleep) instead of spinning on it, or on a machine
// with more runnable threads than cores they stall the holder and each
// other. Here the test holds a queue itself for 100 ms and checks that a
// pop and a push waiting on it make voluntary context switches (which a
// pause-only spin never does).
#if defined(__linux__)
namespace {
long voluntary_switches_of_this_thread() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return r.ru_nvcsw;
}
}  // namespace

TEST(TaskConcurrencyQueues, WaitingOnAHeldQueueGivesUpTheCore) {
  using namespace tessera::detail::tasking;
  for (bool pop : {true, false}) {
    tessera::test::Watchdog dog("WaitingOnAHeldQueueGivesUpTheCore", 20);
    TaskBase record, other;
    std::atomic<TaskBase*> head{list_marker()};  // held, as by a pop between its two instructions
    std::atomic<bool> entered{false};
    long switches = -1;
    TaskBase* popped = nullptr;
    std::thread waiter([&] {
      const long before = voluntary_switches_of_this_thread();
      entered.store(true);
      if (pop)
        popped = queue_pop(head);
      else
        queue_push(head, &record);
      switches = voluntary_switches_of_this_thread() - before;
    });
    ASSERT_TRUE(tessera::test::wait_until([&] { return entered.load(); }, 10.0));
    // Held for 300 ms: a waiter that backs off sleeps hundreds of times in
    // that span even on a loaded machine (where it may get the CPU only a
    // few times); one that spins on pause gives up its core not once.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    other.next = nullptr;
    head.store(&other);  // released: the pop takes `other`, the push goes on top of it
    waiter.join();
    if (pop) {
      EXPECT_EQ(popped, &other);
      EXPECT_EQ(head.load(), nullptr);
    } else {
      EXPECT_EQ(head.load(), &record);
      EXPECT_EQ(record.next, &other);
    }
    EXPECT_GE(switches, 3) << (pop ? "pop" : "push") << " spun on the held queue without giving up its core";
  }
}
// ---- the lead of a host team task sleeps while it waits for its members ----------
//
// LeadDoorbell (lead_doorbell.hpp) is the lead's wait for members to join
// and to leave. A member that is not running must not cost the lead its
// core: the lead spins a few microseconds, then sleeps until the member
// rings. Here the member sleeps 300 ms before it changes the condition; the
// lead must sleep (voluntary context switches) and burn well under the
// 300 ms of CPU that a spin or a sched_yield loop would.
namespace {
double cpu_seconds_of_this_thread() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}
}  // namespace

TEST(TaskConcurrencyLeadDoorbell, LeadSleepsWhileItsMemberIsNotRunning) {
  tessera::test::Watchdog dog("LeadSleepsWhileItsMemberIsNotRunning", 20);
  tessera::detail::tasking::LeadDoorbell bell;
  std::atomic<int> out{1};
  std::thread member([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    out.store(0, std::memory_order_release);
    bell.ring();
  });
  const long switches_before = voluntary_switches_of_this_thread();
  const double cpu_before = cpu_seconds_of_this_thread();
  bell.wait_until([&] { return out.load(std::memory_order_acquire) == 0; });
  const double cpu = cpu_seconds_of_this_thread() - cpu_before;
  const long switches = voluntary_switches_of_this_thread() - switches_before;
  member.join();
  EXPECT_EQ(out.load(), 0);
  EXPECT_GE(switches, 1) << "the lead never slept while its member was away";
  EXPECT_LT(cpu, 0.1) << "the lead used " << cpu << " s of CPU waiting 300 ms for its member";
}
#endif

// Many rounds of a lead and its members, as a team task's join and leave:
// each member changes the condition and rings, some at once and some after a
// pause long enough for the lead to have gone to sleep. Members ring the
// lead's doorbell late too, after it has moved on to the next round (the
// host driver's last ring after members_out falls to 0). A lost wake-up
// hangs the lead, which the watchdog turns into a failure.
TEST(TaskConcurrencyLeadDoorbell, NoWakeUpIsLostOverManyRounds) {
  tessera::test::Watchdog dog("NoWakeUpIsLostOverManyRounds", 120);
  tessera::detail::tasking::LeadDoorbell bell;
  constexpr int kMembers = 3;
  constexpr int kRounds = 1000;
  std::atomic<int> round{-1}, left{0};
  std::vector<std::thread> members;
  for (int m = 0; m < kMembers; ++m)
    members.emplace_back([&, m] {
      for (int r = 0; r < kRounds; ++r) {
        for (int now = round.load(std::memory_order_acquire); now < r; now = round.load(std::memory_order_acquire))
          round.wait(now, std::memory_order_acquire);
        const std::uint64_t h = mix(std::uint64_t(r) * kMembers + std::uint64_t(m));
        if (h % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200 + h % 300));
        else if (h % 4 == 0) std::this_thread::yield();
        left.fetch_sub(1, std::memory_order_release);
        bell.ring();
      }
    });
  long rounds_done = 0;
  for (int r = 0; r < kRounds; ++r) {
    left.store(kMembers, std::memory_order_relaxed);
    round.store(r, std::memory_order_release);
    round.notify_all();
    bell.wait_until([&] { return left.load(std::memory_order_acquire) == 0; });
    ++rounds_done;
  }
  for (auto& t : members) t.join();
  EXPECT_EQ(rounds_done, kRounds);
  EXPECT_EQ(left.load(), 0);
}

// ---- issue 15: records caught in a dependence cycle are reclaimed ------------------
//
// Many cycles at once, on every worker, with tasks and when_all nodes
// hanging off them: the wait reports them, every task caught is cancelled
// (its future is ready, get() throws), every record is freed, and the
// scheduler is destroyed cleanly (LeakSanitizer checks this in the ASan row).
template <class Sched>
struct RingMember {
  using Member = typename Sched::member_type;
  using value_type = int;
  std::shared_ptr<std::vector<tessera::BasicFuture<int, Sched>>> ring;  // the ring's futures
  int index;
  bool first_run = true;
  void operator()(Member&, int& r) {
    if (!first_run) {
      r = index;  // never reached: the ring waits on itself
      return;
    }
    first_run = false;
    tessera::respawn(this, (*ring)[(std::size_t(index) + 1) % ring->size()]);
  }
};

TYPED_TEST(TaskConcurrency, ManyDependenceCyclesAreCancelledAndFreed) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  using Ring = std::vector<tessera::BasicFuture<int, Sched>>;
  tessera::test::Watchdog dog("ManyDependenceCyclesAreCancelledAndFreed", 60);
  typename Sched::memory_pool pool;
  {
    Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
    pool = sched.memory();
    const int rings = 40, size = 5;
    std::atomic<int> ran{0};
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<std::shared_ptr<Ring>> all;
      std::vector<tessera::BasicFuture<void, Sched>> hanging;
      for (int k = 0; k < rings; ++k) {
        auto ring = std::make_shared<Ring>(std::size_t(size));
        for (int i = 0; i < size; ++i)
          (*ring)[std::size_t(i)] =
              tessera::host_spawn(tessera::TaskSingle(sched, static_cast<tessera::TaskPriority>((k + i) % 3)),
                                  RingMember<Sched>{ring, i});
        // Hanging off the ring: a task, a team task, and a task after a when_all of the ring.
        hanging.push_back(
            tessera::host_spawn(tessera::TaskSingle((*ring)[0]), [&ran](Member&) { ran.fetch_add(1); }));
        hanging.push_back(
            tessera::host_spawn(tessera::TaskTeam((*ring)[1]), [&ran](Member&) { ran.fetch_add(1); }));
        auto whole = sched.when_all(*ring);
        hanging.push_back(whole);
        hanging.push_back(
            tessera::host_spawn(tessera::TaskSingle(whole), [&ran](Member&) { ran.fetch_add(1); }));
        all.push_back(ring);
      }
      const int expected = rings * (size + 4);  // ring members, 3 tasks and one when_all node per ring
      try {
        tessera::wait(sched);
        ADD_FAILURE() << "the cycles were not reported";
      } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(expected) + " task(s) can never run"),
                  std::string::npos)
            << e.what();
      }
      EXPECT_EQ(ran.load(), 0);
      for (auto& ring : all)
        for (auto& f : *ring) {
          ASSERT_TRUE(f.is_ready());
          EXPECT_THROW(f.get(), std::runtime_error);
        }
      for (auto& f : hanging) ASSERT_TRUE(f.is_ready());
      all.clear();
      hanging.clear();
      EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u) << "repetition " << rep;
      // Nothing is reported twice, and the scheduler still works.
      auto ok = tessera::host_spawn(tessera::TaskSingle(sched), tessera::test::Fib<Sched>(sched, 10));
      EXPECT_NO_THROW(tessera::wait(sched));
      EXPECT_EQ(ok.get(), 55);
    }
  }
  EXPECT_EQ(pool.use_count(), 1) << "the scheduler was not freed";
}
