// Threads racing in the scheduler (label "concurrency", run under
// ThreadSanitizer in CI): a random DAG of single and team tasks with random
// priorities, when_alls and respawn chains, futures shared across workers;
// host threads spawning while a wait runs.
#include "tasking_test_util.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

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

TYPED_TEST(TaskConcurrency, ManyShortWaitsReuseWorkers) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  for (int rep = 0; rep < 50; ++rep) {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), tessera::test::Fib<Sched>(sched, 8));
    tessera::wait(sched);
    ASSERT_EQ(f.get(), 21) << "repetition " << rep;
  }
}
