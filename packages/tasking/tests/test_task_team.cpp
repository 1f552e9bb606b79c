// TaskTeam tasks: teams of the requested size, nested TeamThreadRange /
// ThreadVectorRange parallel_for / parallel_reduce / parallel_scan,
// team_barrier and broadcast inside tasks, team tasks mixed with single
// tasks, respawned team tasks, and an exception thrown by one member.
// test_task_portable_team.cpp and test_task_portable.cpp have them for
// every back-end (Cuda included), with team sizes that are powers of two (a
// Cuda team is a warp of M x 32/M lanes). Host-only: team sizes of 3, and
// the exception thrown by one member (device code cannot throw).
#include "tasking_test_util.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

template <class Space>
class TaskTeams : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskTeams, tessera::test::TaskSpaces, tessera::test::SpaceNames);

// Sums i over [0, n) with a nested parallel_reduce, squares with a nested
// ThreadVectorRange inside TeamThreadRange, checks a nested scan and a
// broadcast; rank 0 writes the result (members share it).
template <class Sched>
struct TeamSum {
  using value_type = std::int64_t;
  using Member = typename Sched::member_type;
  std::int64_t n;
  std::atomic<int>* observed_team_size;
  std::atomic<int>* errors;

  void operator()(Member& member, std::int64_t& result) const {
    std::int64_t sum = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(member, n), [&](std::int64_t i, std::int64_t& s) { s += i; }, sum);
    std::int64_t squares = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(member, 10),
        [&](int i, std::int64_t& s) {
          std::int64_t inner = 0;
          tessera::parallel_reduce(
              tessera::ThreadVectorRange(member, 10), [&](int j, std::int64_t& t) { t += i * 10 + j; }, inner);
          s += inner;
        },
        squares);
    std::int64_t scan_total = 0;
    tessera::parallel_scan(
        tessera::TeamThreadRange(member, 100),
        [&](int i, std::int64_t& update, bool) { update += i; }, scan_total);
    int root_rank = member.team_rank() == member.team_size() - 1 ? 77 : -1;
    member.team_broadcast(root_rank, member.team_size() - 1);
    member.team_barrier();
    if (squares != 4950 || scan_total != 4950 || root_rank != 77) errors->fetch_add(1);
    if (member.team_rank() == 0) {
      result = sum;
      observed_team_size->store(member.team_size());
    }
  }
};

TYPED_TEST(TaskTeams, NestedReduceOnTeamsOfRequestedSize) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  const int threads = TypeParam().concurrency();
  EXPECT_EQ(sched.team_size(), std::min(threads, 4));
  for (int requested : {1, 2, 3, threads, 64}) {
    std::atomic<int> seen{0}, errors{0};
    const std::int64_t n = 100003;
    auto f = tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(requested),
                                 TeamSum<Sched>{n, &seen, &errors});
    tessera::wait(sched);
    EXPECT_EQ(f.get(), n * (n - 1) / 2) << "team size " << requested;
    EXPECT_EQ(seen.load(), std::min(requested, threads)) << "a team never exceeds the threads running the DAG";
    EXPECT_EQ(errors.load(), 0) << "team size " << requested;
  }
  // The scheduler-wide default applies when the policy does not say.
  sched.set_team_size(2);
  std::atomic<int> seen{0}, errors{0};
  auto f = tessera::host_spawn(tessera::TaskTeam(sched, tessera::TaskPriority::High), TeamSum<Sched>{1000, &seen, &errors});
  tessera::wait(sched);
  EXPECT_EQ(f.get(), 999 * 1000 / 2);
  EXPECT_EQ(seen.load(), std::min(2, threads));
}

// A driver spawning many team and single tasks at once: teams form while
// other workers run single tasks, and every task runs exactly once.
template <class Sched>
struct MixedDriver {
  using Member = typename Sched::member_type;
  Sched sched;
  std::atomic<int>* errors;
  std::atomic<std::int64_t>* singles;
  std::vector<tessera::BasicFuture<std::int64_t, Sched>> teams;
  std::atomic<int>* sizes;

  void operator()(Member&) {
    if (!teams.empty()) {
      for (auto& t : teams)
        if (t.get() != 499500) errors->fetch_add(1);
      return;
    }
    std::vector<tessera::BasicFuture<void, Sched>> all;
    for (int k = 0; k < 60; ++k) {
      auto t = tessera::task_spawn(tessera::TaskTeam(sched).set_team_size(1 + k % 3), TeamSum<Sched>{1000, sizes, errors});
      teams.push_back(t);
      all.push_back(t);
      std::atomic<std::int64_t>* s = singles;
      for (int j = 0; j < 20; ++j) all.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [s](Member&) { s->fetch_add(1); }));
    }
    tessera::respawn(this, sched.when_all(all));
  }
};

TYPED_TEST(TaskTeams, TeamAndSingleTasksInterleave) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  std::atomic<int> errors{0}, sizes{0};
  std::atomic<std::int64_t> singles{0};
  tessera::host_spawn(tessera::TaskSingle(sched), MixedDriver<Sched>{sched, &errors, &singles, {}, &sizes});
  tessera::wait(sched);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(singles.load(), 60 * 20);
  EXPECT_EQ(sched.statistics().executed, 1u + 60 + 60 * 20 + 1);
}

// A team task that respawns itself: it stays a team task.
template <class Sched>
struct TeamRespawner {
  using value_type = int;
  using Member = typename Sched::member_type;
  Sched sched;
  int runs = 0;
  std::atomic<int>* bad_size;
  int expected_size;
  void operator()(Member& member, int& result) {
    if (member.team_size() != expected_size) bad_size->fetch_add(1);
    member.team_barrier();  // every rank reads `runs` before rank 0 changes it
    if (member.team_rank() == 0) {
      result = ++runs;
    }
    member.team_barrier();
    if (runs < 5) tessera::respawn(this, sched, tessera::TaskPriority::Low);  // only rank 0's call counts
  }
};

TYPED_TEST(TaskTeams, RespawnedTeamTaskKeepsItsTeam) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  std::atomic<int> bad{0};
  const int size = std::min(2, TypeParam().concurrency());
  auto f = tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(2), TeamRespawner<Sched>{sched, 0, &bad, size});
  tessera::wait(sched);
  EXPECT_EQ(f.get(), 5);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(sched.statistics().respawned, 4u);
}

struct MemberThrows {
  template <class M>
  void operator()(M& member) const {
    if (member.team_rank() == member.team_size() - 1) throw std::domain_error("member failed");
    member.team_barrier();  // the others wait here: the abort must release them
  }
};

TYPED_TEST(TaskTeams, ExceptionInOneMemberDoesNotHangTheTeam) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(4), MemberThrows{});
  try {
    tessera::wait(sched);
    FAIL();
  } catch (const tessera::TaskFailure& e) {
    EXPECT_NE(std::string(e.what()).find("MemberThrows"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("member failed"), std::string::npos) << e.what();
  }
  // The team context is reusable afterwards.
  std::atomic<int> seen{0}, errors{0};
  auto f = tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(4), TeamSum<Sched>{10, &seen, &errors});
  tessera::host_spawn(tessera::TaskSingle(sched), [](Member&) {});
  tessera::wait(sched);
  EXPECT_EQ(f.get(), 45);
  EXPECT_EQ(errors.load(), 0);
}
