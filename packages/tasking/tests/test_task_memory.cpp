// Memory behaviour of the task DAG: long respawn chains in bounded memory,
// a million tasks through a 1 MiB pool by a throttling driver task, pool
// exhaustion on the host, records freed with their last future.
// The first two are also in test_task_portable_memory.cpp, for every
// back-end (Cuda included); here they count through std::atomic and check
// host-only statistics (respawns, the pool's high water on one thread).
// Host-only: host_spawn on a full pool throws (on Cuda host spawns go to a
// staging arena of their own), and the std::length_error naming a functor
// larger than the largest block (device code reports it through the wait).
#include "tasking_test_util.hpp"

#include <atomic>
#include <vector>

template <class Space>
class TaskMemory : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskMemory, tessera::test::TaskSpaces, tessera::test::SpaceNames);

// Runs `length` times: each run spawns a child computing k, respawns on it,
// and adds the child's value on the next run. Only the current child is
// referenced, so old children are freed as the chain goes on.
template <class Sched>
struct Chain {
  using value_type = std::int64_t;
  using Member = typename Sched::member_type;
  Sched sched;
  std::int64_t length;
  std::int64_t k = 0;
  std::int64_t acc = 0;
  tessera::BasicFuture<std::int64_t, Sched> child;

  void operator()(Member&, std::int64_t& result) {
    if (!child.is_null()) acc += child.get();
    if (k == length) {
      result = acc;
      return;
    }
    const std::int64_t v = k++;
    child = tessera::task_spawn(tessera::TaskSingle(sched), [v](Member&, std::int64_t& r) { r = v; });
    if (child.is_null()) {  // pool full right now: try again later
      --k;
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    tessera::respawn(this, child);
  }
};

TYPED_TEST(TaskMemory, RespawnChainOfOneHundredThousandInBoundedMemory) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  // 100,000 children of 64-128 bytes would need >6 MB if they were kept.
  Sched sched(typename Sched::memory_space(), std::size_t(256) << 10);
  const std::int64_t n = 100000;
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), Chain<Sched>{sched, n, 0, 0, {}});
  tessera::wait(sched);
  EXPECT_EQ(f.get(), n * (n - 1) / 2);
  const auto s = sched.statistics();
  EXPECT_EQ(s.respawned, std::uint64_t(n) + s.failed_spawns);
  EXPECT_EQ(s.spawned, std::uint64_t(n) + 1);
  EXPECT_LE(s.pool_high_water_bytes, s.pool_capacity_bytes / 4) << s;
  f.clear();
  EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u);
}

// Spawns `total` leaf tasks; when the pool is full it respawns itself at
// Low priority, so that the leaves already spawned run (and free their
// records) before it continues.
template <class Sched>
struct Driver {
  using Member = typename Sched::member_type;
  Sched sched;
  std::int64_t total;
  std::atomic<std::int64_t>* done;
  std::int64_t spawned = 0;
  std::int64_t throttled = 0;

  void operator()(Member&) {
    while (spawned < total) {
      std::atomic<std::int64_t>* d = done;
      auto f = tessera::task_spawn(tessera::TaskSingle(sched),
                                   [d](Member&) { d->fetch_add(1, std::memory_order_relaxed); });
      if (f.is_null()) {
        ++throttled;
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
      ++spawned;
    }
  }
};

TYPED_TEST(TaskMemory, MillionTasksThroughOneMebibytePool) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  const std::int64_t n = 1000000;
  std::atomic<std::int64_t> done{0};
  tessera::host_spawn(tessera::TaskSingle(sched), Driver<Sched>{sched, n, &done});
  tessera::wait(sched);
  EXPECT_EQ(done.load(), n);
  const auto s = sched.statistics();
  EXPECT_EQ(s.spawned, std::uint64_t(n) + 1);
  EXPECT_EQ(s.completed, std::uint64_t(n) + 1);
  EXPECT_EQ(s.respawned, s.failed_spawns) << "the driver respawns once per refused spawn";
  EXPECT_LE(s.pool_high_water_bytes, s.pool_capacity_bytes);
  EXPECT_EQ(s.pool_in_use_bytes, 0u);
  if (TypeParam().concurrency() == 1) {
    // One thread: every spawn first runs the ready leaves, so the pool never fills.
    EXPECT_EQ(s.failed_spawns, 0u) << s;
  }
}

TYPED_TEST(TaskMemory, HostSpawnOnFullPoolThrowsWithPoolSize) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 10, 64, 1024, 2048);
  std::vector<tessera::BasicFuture<void, Sched>> held;
  bool threw = false;
  for (int i = 0; i < 100000 && !threw; ++i) {
    try {
      held.push_back(tessera::host_spawn(tessera::TaskSingle(sched), [](Member&) {}));
    } catch (const tessera::allocation_error& e) {
      threw = true;
      const std::string what = e.what();
      EXPECT_NE(what.find("host_spawn"), std::string::npos) << what;
      EXPECT_NE(what.find("capacity " + std::to_string(sched.memory().capacity()) + " bytes"), std::string::npos)
          << what;
    }
  }
  ASSERT_TRUE(threw);
  EXPECT_GE(sched.statistics().failed_spawns, 1u);
  // The tasks that fit still run; then the pool is empty again.
  tessera::wait(sched);
  for (auto& f : held) EXPECT_TRUE(f.is_ready());
  held.clear();
  EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u);
  EXPECT_NO_THROW(tessera::host_spawn(tessera::TaskSingle(sched), [](Member&) {}));
  tessera::wait(sched);
}

struct Huge {
  using value_type = int;
  char payload[8192];
  template <class M>
  void operator()(M&, int& r) {
    r = payload[0];
  }
};

TYPED_TEST(TaskMemory, TaskLargerThanLargestBlockIsRejectedByName) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  try {
    tessera::host_spawn(tessera::TaskSingle(sched), Huge{});
    FAIL() << "expected std::length_error";
  } catch (const std::length_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Huge"), std::string::npos) << what;
    EXPECT_NE(what.find("4096"), std::string::npos) << what;
  }
  // With a larger largest block it fits.
  Sched big(typename Sched::memory_space(), std::size_t(1) << 20, 0, 16384);
  auto f = tessera::host_spawn(tessera::TaskSingle(big), Huge{});
  tessera::wait(big);
  EXPECT_EQ(f.get(), 0);
}

// A scheduler's own pool has at least TaskScheduler::kMinSuperblocks
// superblocks, whatever capacity was asked: a superblock serves one block
// size at a time, so a pool of one superblock (256 bytes asked used to give
// one 4 KiB superblock) could hold records of a single size, and a DAG of
// two record sizes stopped with the pool nearly empty.
TYPED_TEST(TaskMemory, TinyPoolStillHoldsRecordsOfSeveralSizes) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), 256);
  EXPECT_GE(sched.memory().capacity(), Sched::kMinSuperblocks * sched.memory().max_block_size());
  static_assert(Sched::kMinSuperblocks >= 3);
  std::atomic<long> sum{0};
  std::atomic<long>* s = &sum;
  for (int i = 0; i < 200; ++i) {
    // Three record sizes alive at once: a void task holding one pointer
    // (64 bytes), one holding five words (128) and one with a 200-byte
    // closure (256).
    struct Wide {
      std::atomic<long>* s;
      long pad[24];
      void operator()(Member&) { s->fetch_add(pad[0] + 100, std::memory_order_relaxed); }
    };
    auto a = tessera::host_spawn(tessera::TaskSingle(sched), [s](Member&) { s->fetch_add(1, std::memory_order_relaxed); });
    auto b = tessera::host_spawn(tessera::TaskSingle(sched), [s, x = long(i), y = 2L, z = 3L, w = 4L](Member&) {
      s->fetch_add(10 + (x + y + z + w) * 0, std::memory_order_relaxed);
    });
    auto c = tessera::host_spawn(tessera::TaskSingle(sched), Wide{s, {}});
    tessera::wait(sched);
    ASSERT_TRUE(a.is_ready() && b.is_ready() && c.is_ready()) << "round " << i;
  }
  EXPECT_EQ(sum.load(), 200L * 111);
  EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u);
}
