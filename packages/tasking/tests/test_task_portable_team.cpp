// The portable team-task cases (see portable_task_test_util.hpp), on every
// back-end, Cuda included: nested reductions on teams of the requested
// size, team and single tasks interleaved, and a respawned team task that
// keeps its team. A team on Cuda is one warp of M members x 32/M vector
// lanes (M a power of two up to 32); on a host back-end at most M threads.
// Nested scans and N-D ranges on every M x V split are in
// test_task_portable.cpp, beside the splits. Staying in test_task_team.cpp:
// team sizes that are not powers of two (none exists on Cuda), and an
// exception thrown by one member (device code cannot throw; task_fail is
// the way).
#include "portable_task_test_util.hpp"

#include <algorithm>
#include <vector>

namespace {

using tessera::test::portable::AddTo;
using tessera::test::portable::CountView;
using tessera::test::portable::is_host_space;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortableTeam : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableTeam, PortableTaskSpaces, tessera::test::SpaceNames);

// The team size a request for m members gets.
template <class Space>
int granted_team_size(int m) {
  if constexpr (is_host_space<Space>) return std::min(m, Space().concurrency());
  else return std::min(m, 32);
}

// Sums i over [0, n) with a TeamThreadRange reduction, 0..99 with a
// ThreadVectorRange reduction nested in a TeamThreadRange one, and checks a
// broadcast from the last member. obs(0): the team size, obs(1): errors.
template <class Sched, class View>
struct TeamSum {
  using value_type = long long;
  int n;
  View obs;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m, long long& result) const {
    long long sum = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(m, n), [&](int i, long long& s) { s += i; }, sum);
    long long nested = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(m, 10),
        [&](int i, long long& s) {
          long long inner = 0;
          tessera::parallel_reduce(
              tessera::ThreadVectorRange(m, 10), [&](int j, long long& t) { t += i * 10 + j; }, inner);
          s += inner;
        },
        nested);
    int root = m.team_rank() == m.team_size() - 1 ? 77 : -1;
    m.team_broadcast(root, m.team_size() - 1);
    m.team_barrier();
    if (sum != (long long)n * (n - 1) / 2 || nested != 4950 || root != 77) tessera::atomic_add(&obs(1), 1ll);
    tessera::single(tessera::PerTeam(m), [&]() {
      result = sum;
      obs(0) = m.team_size();
    });
  }
};

TYPED_TEST(TaskPortableTeam, NestedReduceOnTeamsOfRequestedSize) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  const int n = 100003;
  for (int requested : {1, 2, 4, 64}) {
    View obs("obs", 2);
    auto policy = tessera::TaskTeam(sched);
    policy.set_team_size(requested);
    auto f = tessera::host_spawn(policy, TeamSum<Sched, View>{n, obs});
    tessera::wait(sched);
    EXPECT_EQ(static_cast<long long>(f.get()), (long long)n * (n - 1) / 2) << "team size " << requested;
    const auto o = to_host<TypeParam>(obs);
    EXPECT_EQ(o[0], granted_team_size<TypeParam>(requested)) << "requested " << requested;
    EXPECT_EQ(o[1], 0) << "team size " << requested;
  }
  // The scheduler-wide default applies when the policy does not say.
  sched.set_team_size(2);
  View obs("obs", 2);
  auto f = tessera::host_spawn(tessera::TaskTeam(sched, tessera::TaskPriority::High), TeamSum<Sched, View>{1000, obs});
  tessera::wait(sched);
  EXPECT_EQ(static_cast<long long>(f.get()), 999ll * 1000 / 2);
  const auto o = to_host<TypeParam>(obs);
  EXPECT_EQ(o[0], granted_team_size<TypeParam>(2));
  EXPECT_EQ(o[1], 0);
}

// A driver spawning 60 team tasks (of 1, 2 and 4 members) and 20 single
// tasks after each, then respawning on a when_all of all 1,260 futures (a
// tree of nodes in device code), then checking the teams' results.
// count(0): singles run, count(1): wrong team results.
template <class Sched, class View>
struct MixedDriver {
  static constexpr int kTeams = 60, kPerTeam = 21;  // a team task and 20 single tasks
  Sched sched;
  View count, obs;
  int next = 0;
  int joined = 0;
  tessera::BasicFuture<long long, Sched> teams[kTeams];
  tessera::BasicFuture<void, Sched> all[kTeams * kPerTeam];

  TESSERA_FUNCTION MixedDriver(const Sched& s, const View& c, const View& o) : sched(s), count(c), obs(o) {}

  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    if (joined) {
      for (int k = 0; k < kTeams; ++k)
        if (teams[k].get() != 499500) tessera::atomic_add(&count(1), 1ll);
      return;
    }
    for (; next < kTeams * kPerTeam; ++next) {
      const int k = next / kPerTeam;
      if (next % kPerTeam == 0) {
        auto policy = tessera::TaskTeam(sched);
        policy.set_team_size(1 << (k % 3));
        teams[k] = tessera::task_spawn(policy, TeamSum<Sched, View>{1000, obs});
        all[next] = teams[k];
      } else {
        all[next] = tessera::task_spawn(tessera::TaskSingle(sched), AddTo<Sched, View>{count, 0, 1});
      }
      if (all[next].is_null()) {  // pool full: again once others have run
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
    }
    auto done = sched.when_all(all, kTeams * kPerTeam);
    if (done.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    joined = 1;
    tessera::respawn(this, done);
  }
};

TYPED_TEST(TaskPortableTeam, TeamAndSingleTasksInterleave) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using Driver = MixedDriver<Sched, View>;
  // The driver holds 1,320 futures: a largest block of 32 KiB holds it.
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20, 0, std::size_t(32) << 10);
  View count("count", 2), obs("obs", 2);
  tessera::host_spawn(tessera::TaskSingle(sched), Driver(sched, count, obs));
  tessera::wait(sched);
  const auto c = to_host<TypeParam>(count);
  EXPECT_EQ(c[0], Driver::kTeams * (Driver::kPerTeam - 1)) << "single tasks run";
  EXPECT_EQ(c[1], 0) << "team results";
  EXPECT_EQ(to_host<TypeParam>(obs)[1], 0) << "errors inside team tasks";
}

// A team task that respawns itself four times: it runs as a team of the same
// size every time. obs(0): runs on a team of another size.
template <class Sched, class View>
struct TeamRespawner {
  using value_type = int;
  Sched sched;
  View obs;
  int expected_size;
  int runs = 0;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m, int& result) {
    if (m.team_size() != expected_size) tessera::atomic_add(&obs(0), 1ll);
    m.team_barrier();  // every member reads `runs` before one changes it
    tessera::single(tessera::PerTeam(m), [&]() { result = ++runs; });
    m.team_barrier();
    if (runs < 5) tessera::respawn(this, sched, tessera::TaskPriority::Low);  // only rank 0's call counts
  }
};

TYPED_TEST(TaskPortableTeam, RespawnedTeamTaskKeepsItsTeam) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  View obs("obs", 1);
  auto policy = tessera::TaskTeam(sched);
  policy.set_team_size(2);
  auto f = tessera::host_spawn(policy, TeamRespawner<Sched, View>{sched, obs, granted_team_size<TypeParam>(2)});
  tessera::wait(sched);
  EXPECT_EQ(f.get(), 5);
  EXPECT_EQ(to_host<TypeParam>(obs)[0], 0);
}

}  // namespace
