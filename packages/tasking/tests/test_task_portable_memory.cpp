// The portable memory cases (see portable_task_test_util.hpp), on every
// back-end, Cuda included: a respawn chain of 100,000 in a small pool, and a
// million tasks through a 1 MiB pool by a throttling spawner; both end with
// the pool empty. The host-only cases stay in test_task_memory.cpp: a full
// pool on host_spawn throws there (on Cuda host spawns are staged in an
// arena of their own), a record larger than the largest block is a
// std::length_error naming the functor there, and the host figures read
// host-only statistics (respawns, the pool's high water on one thread).
#include "portable_task_test_util.hpp"

#include <vector>

namespace {

using tessera::test::portable::CountView;
using tessera::test::portable::pool_blocks_in_use;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortableMemory : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableMemory, PortableTaskSpaces, tessera::test::SpaceNames);

template <class Sched>
struct ChainLink {
  using value_type = long long;
  long long v;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& r) { r = v; }
};

// Runs `length` times: each run spawns a child computing k, respawns on it,
// and adds the child's value on the next run. Only the current child is
// referenced, so old children are freed as the chain goes on.
template <class Sched>
struct Chain {
  using value_type = long long;
  Sched sched;
  long long length;
  long long k = 0;
  long long acc = 0;
  tessera::BasicFuture<long long, Sched> child;

  TESSERA_FUNCTION Chain(const Sched& s, long long n) : sched(s), length(n) {}

  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& result) {
    if (!child.is_null()) acc += child.get();
    if (k == length) {
      result = acc;
      return;
    }
    child = tessera::task_spawn(tessera::TaskSingle(sched), ChainLink<Sched>{k});
    if (child.is_null()) {  // pool full right now: try again later
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    ++k;
    tessera::respawn(this, child);
  }
};

TYPED_TEST(TaskPortableMemory, RespawnChainOfOneHundredThousandInBoundedMemory) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  // 100,000 children of 64-128 bytes would need > 6 MB if they were kept:
  // a chain that leaked them would fill the pool and never finish.
  Sched sched(typename Sched::memory_space(), std::size_t(256) << 10);
  const long long n = 100000;
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), Chain<Sched>(sched, n));
  tessera::wait(sched);
  EXPECT_EQ(static_cast<long long>(f.get()), n * (n - 1) / 2);
  const auto s = sched.statistics();
  EXPECT_EQ(s.spawned, std::uint64_t(n) + 1) << "the chain and its children";
  EXPECT_EQ(s.completed, std::uint64_t(n) + 1);
  EXPECT_LE(s.pool_high_water_bytes, s.pool_capacity_bytes);
  f.clear();
  tessera::wait(sched);  // (on Cuda a host future's release is applied by the next wait)
  EXPECT_EQ(pool_blocks_in_use(sched), 0u) << "the pool is empty again";
}

template <class Sched, class View>
struct Leaf {
  View count;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_add(&count(0), 1ll); }
};

// Spawns `total` leaves; when the pool is full it respawns itself at Low
// priority, so that the leaves already spawned run (and free their records)
// before it goes on. count(1): the spawns refused.
template <class Sched, class View>
struct Throttle {
  Sched sched;
  View count;
  long long total;
  long long spawned = 0;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    while (spawned < total) {
      auto f = tessera::task_spawn(tessera::TaskSingle(sched), Leaf<Sched, View>{count});
      if (f.is_null()) {
        tessera::atomic_add(&count(1), 1ll);
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
      ++spawned;
    }
  }
};

TYPED_TEST(TaskPortableMemory, MillionTasksThroughOneMebibytePool) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  const long long n = 1000000;
  View count("count", 2);
  tessera::host_spawn(tessera::TaskSingle(sched), Throttle<Sched, View>{sched, count, n});
  tessera::wait(sched);
  const auto c = to_host<TypeParam>(count);
  EXPECT_EQ(c[0], n) << "every leaf ran once";
  const auto s = sched.statistics();
  EXPECT_EQ(s.spawned, std::uint64_t(n) + 1);
  EXPECT_EQ(s.completed, std::uint64_t(n) + 1);
  EXPECT_EQ(s.failed_spawns, std::uint64_t(c[1])) << "each refused spawn is counted";
  EXPECT_LE(s.pool_high_water_bytes, s.pool_capacity_bytes);
  EXPECT_EQ(pool_blocks_in_use(sched), 0u) << "the pool is empty again";
}

}  // namespace
