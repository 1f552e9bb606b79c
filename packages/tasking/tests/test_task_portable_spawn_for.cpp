// host_spawn_for / task_spawn_for (spawn_for.hpp) on every back-end, Cuda
// included: every index runs exactly once for single and team leaves, the
// grains that make one leaf, a leaf per index, a partial last leaf and many
// tree levels; the set's future and its dependence order it against other
// tasks; a task fans out a set and waits on it; a pool far smaller than the
// tree slows it down without losing an index; the pool is empty afterwards;
// negative counts and grains are refused with the value named. Expected
// values are counts of a brute-force tally (every index once) and closed
// forms (sums of indices).
#include "portable_task_test_util.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using tessera::test::portable::CountView;
using tessera::test::portable::is_host_space;
using tessera::test::portable::pool_blocks_in_use;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortableSpawnFor : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableSpawnFor, PortableTaskSpaces, tessera::test::SpaceNames);

// seen(i) += 1 for its index, and (when a flag View is given) counts in
// bad(0) every index that ran before flag(0) was set.
template <class View, class Index = int>
struct Tally {
  View seen, flag, bad;
  TESSERA_FUNCTION void operator()(Index i) const {
    tessera::atomic_add(&seen(std::int64_t(i)), 1ll);
    if (flag.extent(0) > 0 && tessera::atomic_load(&flag(0)) == 0) tessera::atomic_add(&bad(0), 1ll);
  }
};

// Indices seen other than exactly once, and the first of them (-1: none).
struct NotOnce {
  long long wrong, first;
};
NotOnce not_once(const std::vector<long long>& seen) {
  long long wrong = 0, first = -1;
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 1) {
      if (first < 0) first = (long long)i;
      ++wrong;
    }
  return {wrong, first};
}

TYPED_TEST(TaskPortableSpawnFor, EveryIndexOnceForSingleAndTeamLeaves) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(32) << 20);
  // n = 0, 1 (one empty and one one-index leaf), 272 (grain 17: a node of
  // exactly kFan = 16 leaves; grain 16: 17 leaves, one more than a node
  // holds) and 100003 (prime: a partial last leaf at every grain) against
  // grain 0 (the default), 1 (a leaf per index: five levels of nodes), 16,
  // 17 and n + 5 (one leaf for all). Team leaves at n = 100003 leave out
  // grains 1 and 16 (n = 272 has them): on a host back-end each team leaf
  // gathers the workers, and 10^5 gatherings on two cores shared with other
  // programs took 70 s against 0.4 s alone (Threads, GCC -Og, two busy
  // loops beside it; 142 s under the ASan row), where the single leaves
  // check the same tree.
  for (int n : {0, 1, 17 * 16, 100003}) {
    for (int grain : {0, 1, 16, 17, n + 5}) {
      for (int team : {0, 4, 32}) {
        if (team && n == 100003 && (grain == 1 || grain == 16)) continue;
        View seen("seen", std::size_t(n) + 1), none("none", 0);
        auto policy = team ? tessera::TaskTeam(sched) : tessera::TaskSingle(sched);
        if (team) policy.set_team_size(team);
        auto f = tessera::host_spawn_for(policy, n, Tally<View>{seen, none, none}, grain);
        ASSERT_FALSE(f.is_null());
        tessera::wait(sched);
        EXPECT_TRUE(f.is_ready());
        auto v = to_host<TypeParam>(seen);
        EXPECT_EQ(v.back(), 0) << "an index past the end ran: n " << n << " grain " << grain << " team "
                               << team;
        v.pop_back();
        const auto [wrong, first] = not_once(v);
        EXPECT_EQ(wrong, 0) << "indices not run exactly once (first " << first << "): n " << n << " grain "
                            << grain << " team " << team;
      }
    }
  }
  EXPECT_EQ(pool_blocks_in_use(sched), 0u) << "every record went back to the pool";
}

// Sums the indices the set wrote: out(i) = i, so the sum is n(n-1)/2.
template <class View>
struct WriteIndex {
  View out;
  TESSERA_FUNCTION void operator()(long long i) const { out(i) = i; }
};
template <class Sched, class View>
struct SumAll {
  using value_type = long long;
  View out;
  long long n;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& r) {
    long long s = 0;
    for (long long i = 0; i < n; ++i) s += out(i);
    r = s;
  }
};
// Sets flag(0) (the indices of a set that depends on it check it).
template <class Sched, class View>
struct SetFlag {
  View flag;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_store(&flag(0), 1ll); }
};

TYPED_TEST(TaskPortableSpawnFor, TheSetsFutureAndDependenceOrderIt) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 20);
  const long long n = 50000;  // a long long count: the body gets long long indices
  View flag("flag", 1), bad("bad", 1), seen("seen", n), out("out", n);
  // Before: a task that raises the flag; the set depends on it, so no index
  // may see the flag down. After: a task on the set's future sums what the
  // set wrote, so it must see every index written.
  auto before = tessera::host_spawn(tessera::TaskSingle(sched), SetFlag<Sched, View>{flag});
  auto first =
      tessera::host_spawn_for(tessera::TaskSingle(before), n, Tally<View, long long>{seen, flag, bad}, 100ll);
  auto second = tessera::host_spawn_for(tessera::TaskTeam(first, tessera::TaskPriority::High), n,
                                        WriteIndex<View>{out});
  auto sum = tessera::host_spawn(tessera::TaskSingle(second), SumAll<Sched, View>{out, n});
  tessera::wait(sched);
  EXPECT_EQ(to_host<TypeParam>(bad)[0], 0) << "indices ran before the set's dependence";
  EXPECT_EQ(not_once(to_host<TypeParam>(seen)).wrong, 0) << "an index not run exactly once";
  EXPECT_EQ(static_cast<long long>(sum.get()), n * (n - 1) / 2);
  EXPECT_TRUE(first.is_ready());
  EXPECT_TRUE(second.is_ready());
}

// A task that fans out a set of n indices, respawns on its future, then
// checks (as the task after it) that all ran: errors(0) counts misses.
// A full pool: respawn and retry.
template <class Sched, class View>
struct FanOutAndJoin {
  Sched sched;
  View seen, errors, none;
  int n, grain;
  int team;
  tessera::BasicFuture<void, Sched> set;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    if (!set.is_null()) {
      for (int i = 0; i < n; ++i)
        if (seen(i) != 1) tessera::atomic_add(&errors(0), 1ll);
      return;
    }
    if (team)
      set = tessera::task_spawn_for(tessera::TaskTeam(sched), n, Tally<View>{seen, none, none}, grain);
    else
      set = tessera::task_spawn_for(tessera::TaskSingle(sched), n, Tally<View>{seen, none, none}, grain);
    if (set.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    tessera::respawn(this, set);
  }
};

TYPED_TEST(TaskPortableSpawnFor, ATaskFansOutASetAndWaitsOnIt) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
  for (int team : {0, 1}) {
    for (int grain : {0, 3}) {
      const int n = 20011;
      View seen("seen", n), errors("errors", 1), none("none", 0);
      tessera::host_spawn(tessera::TaskSingle(sched),
                          FanOutAndJoin<Sched, View>{sched, seen, errors, none, n, grain, team, {}});
      tessera::wait(sched);
      EXPECT_EQ(to_host<TypeParam>(errors)[0], 0)
          << "the parent ran before its set: team " << team << " grain " << grain;
      EXPECT_EQ(not_once(to_host<TypeParam>(seen)).wrong, 0) << "team " << team << " grain " << grain;
    }
  }
}

// A body of 400 bytes (Cuda takes up to 512: spawn_for.hpp): its nodes take
// 1 KiB blocks, so a pool of 32 KiB holds a few dozen, fewer than a tree of
// 30,000 leaves needs at once on any back-end.
template <class View>
struct HeavyTally {
  View seen;
  char payload[400] = {};
  TESSERA_FUNCTION void operator()(int i) const { tessera::atomic_add(&seen(i), 1ll + payload[i % 400]); }
};

TYPED_TEST(TaskPortableSpawnFor, APoolFarSmallerThanTheTreeSlowsItDown) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(32) << 10);
  const int n = 30000;
  View seen("seen", n);
  sched.reset_statistics();
  auto f = tessera::host_spawn_for(tessera::TaskSingle(sched), n, HeavyTally<View>{seen}, 1);
  tessera::wait(sched);
  EXPECT_TRUE(f.is_ready());
  const auto [wrong, first] = not_once(to_host<TypeParam>(seen));
  EXPECT_EQ(wrong, 0) << "first " << first;
  EXPECT_GT(sched.statistics().failed_spawns, 0u) << "the pool was meant to fill up";
  f = {};
  EXPECT_EQ(pool_blocks_in_use(sched), 0u);
}

TYPED_TEST(TaskPortableSpawnFor, AnUnsignedCountAndGrain) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const std::size_t n = 5000;
  View seen("seen", n), none("none", 0);
  tessera::host_spawn_for(tessera::TaskSingle(sched), n, Tally<View, std::size_t>{seen, none, none},
                          std::size_t(7));
  tessera::wait(sched);
  EXPECT_EQ(not_once(to_host<TypeParam>(seen)).wrong, 0);
}

// ---- bad input ------------------------------------------------------------------------------

template <class Sched, class View>
struct NegativeInTask {
  Sched sched;
  View seen, none;
  int n, grain;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    (void)tessera::task_spawn_for(tessera::TaskSingle(sched), n, Tally<View>{seen, none, none}, grain);
  }
};

TYPED_TEST(TaskPortableSpawnFor, NegativeCountsAndGrainsAreRefusedByValue) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  View seen("seen", 8), none("none", 0);
  const auto expect_refused = [](auto&& call, const std::string& where, const std::string& value) {
    try {
      call();
      ADD_FAILURE() << where << " accepted " << value;
    } catch (const std::exception& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(where), std::string::npos) << m;
      EXPECT_NE(m.find(value), std::string::npos) << m;
    }
  };
  expect_refused(
      [&] {
        tessera::host_spawn_for(tessera::TaskSingle(sched), -3, Tally<View>{seen, none, none});
      },
      "host_spawn_for", "-3");
  expect_refused(
      [&] {
        tessera::host_spawn_for(tessera::TaskSingle(sched), 8, Tally<View>{seen, none, none}, -2);
      },
      "host_spawn_for", "-2");
  // Nothing was spawned: the scheduler still runs a set.
  tessera::host_spawn_for(tessera::TaskSingle(sched), 8, Tally<View>{seen, none, none});
  tessera::wait(sched);
  EXPECT_EQ(not_once(to_host<TypeParam>(seen)).wrong, 0);
  // From a task: the wait reports it (on Cuda, device code records it).
  for (auto [n, grain, value] : {std::tuple{-5, 0, "-5"}, std::tuple{8, -7, "-7"}}) {
    Sched fresh(typename Sched::memory_space(), std::size_t(1) << 20);
    tessera::host_spawn(tessera::TaskSingle(fresh), NegativeInTask<Sched, View>{fresh, seen, none, n, grain});
    expect_refused([&] { tessera::wait(fresh); }, "task_spawn_for", value);
  }
}

// On host back-ends an exception in the body fails the wait with it, and
// the rest of the set is cancelled (device code has task_fail instead).
struct ThrowAt {
  int at;
  void operator()(int i) const {
    if (i == at) throw std::runtime_error("index " + std::to_string(i) + " refused");
  }
};

TYPED_TEST(TaskPortableSpawnFor, AnExceptionInTheBodyFailsTheWait) {
  if constexpr (!is_host_space<TypeParam>) {
    GTEST_SKIP() << "device code cannot throw; task_fail is tested in test_task_portable.cpp";
  } else {
    using Sched = tessera::TaskScheduler<TypeParam>;
    Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
    auto f = tessera::host_spawn_for(tessera::TaskSingle(sched), 10000, ThrowAt{4321}, 10);
    try {
      tessera::wait(sched);
      ADD_FAILURE() << "the wait did not report the body's exception";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("index 4321 refused"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
