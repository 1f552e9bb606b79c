// Level-0 team scratch of team tasks (TaskScheduler::set_team_scratch_size,
// member.team_scratch(0)), portable: on every back-end, Cuda included (see
// portable_task_test_util.hpp). Members write distinct values into scratch,
// meet at a barrier and read each other's; the whole asked size is usable;
// team tasks running at the same time never see each other's scratch;
// single tasks get none; a size over the back-end's limit is refused with
// the sizes in the message.
#include "portable_task_test_util.hpp"

#include <string>

namespace {

using tessera::test::portable::CountView;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortableScratch : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableScratch, PortableTaskSpaces, tessera::test::SpaceNames);

template <class Space, class T>
using ScratchView = tessera::View<T*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;

// Each member writes seed * 1000 + rank into slot `rank`, then, after a
// barrier, checks every member's slot. obs(0): wrong values seen,
// obs(1): the team size, obs(2): the scratch size the team saw.
template <class Sched, class View>
struct Exchange {
  using Space = typename Sched::execution_space;
  View obs;
  long long seed;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) const {
    ScratchView<Space, long long> slot(m.team_scratch(0), m.team_size());
    // Every vector lane of a member writes the same value: no race.
    slot(m.team_rank()) = seed * 1000 + m.team_rank();
    m.team_barrier();
    long long wrong = 0;
    for (int r = 0; r < m.team_size(); ++r)
      if (slot(r) != seed * 1000 + r) ++wrong;
    tessera::single(tessera::PerThread(m), [&]() {
      if (wrong) tessera::atomic_add(&obs(0), wrong);
    });
    tessera::single(tessera::PerTeam(m), [&]() {
      obs(1) = m.team_size();
      obs(2) = (long long)m.team_shmem().size();
    });
  }
};

TYPED_TEST(TaskPortableScratch, MembersExchangeValuesThroughScratch) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  sched.set_team_scratch_size(32 * sizeof(long long));
  EXPECT_EQ(sched.team_scratch_size(), 32 * sizeof(long long));
  for (int requested : {1, 2, 4, 32}) {
    View obs("obs", 3);
    auto policy = tessera::TaskTeam(sched);
    policy.set_team_size(requested);
    tessera::host_spawn(policy, Exchange<Sched, View>{obs, 7 + requested});
    tessera::wait(sched);
    const auto o = to_host<TypeParam>(obs);
    EXPECT_EQ(o[0], 0) << "team size " << requested;
    EXPECT_GE(o[1], 1);
    EXPECT_EQ(o[2], (long long)(32 * sizeof(long long))) << "team size " << requested;
  }
}

// Fills all of the asked scratch (as ints, over the team's 32 or fewer
// lanes), then sums what the team reads back. obs(0): mismatches,
// obs(1): the handle's size.
template <class Sched, class View>
struct FillAll {
  using Space = typename Sched::execution_space;
  View obs;
  int n;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) const {
    ScratchView<Space, int> a(m.team_scratch(0), n);
    tessera::parallel_for(tessera::TeamVectorRange(m, n), [&](int i) { a(i) = 3 * i + 1; });
    m.team_barrier();
    long long wrong = 0;
    tessera::parallel_reduce(
        tessera::TeamVectorRange(m, n), [&](int i, long long& w) { w += a(n - 1 - i) != 3 * (n - 1 - i) + 1; },
        wrong);
    tessera::single(tessera::PerTeam(m), [&]() {
      obs(0) += wrong;
      obs(1) = (long long)m.team_scratch(0).size();
    });
  }
};

TYPED_TEST(TaskPortableScratch, TheWholeAskedSizeIsUsable) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  // 40 KiB stays under every back-end's limit (Cuda: 48 KiB a block without opting in).
  for (std::size_t bytes : {std::size_t(8), std::size_t(1000), std::size_t(40) << 10}) {
    sched.set_team_scratch_size(bytes);
    View obs("obs", 2);
    tessera::host_spawn(tessera::TaskTeam(sched), FillAll<Sched, View>{obs, int(bytes / sizeof(int))});
    tessera::wait(sched);
    const auto o = to_host<TypeParam>(obs);
    EXPECT_EQ(o[0], 0) << bytes << " bytes";
    EXPECT_EQ(o[1], (long long)bytes);
  }
}

// Team task `id` fills its scratch with id, works a while (re-reading it
// `rounds` times), and counts every slot that no longer holds id: another
// team writing the same memory. obs(0): such slots, obs(1): tasks that
// ran, obs(2)/obs(3): tasks running now / the most seen at once.
template <class Sched, class View>
struct Private {
  using Space = typename Sched::execution_space;
  View obs;
  int id, n, rounds;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) const {
    ScratchView<Space, int> a(m.team_scratch(0), n);
    tessera::single(tessera::PerTeam(m), [&]() {
      const long long now = tessera::atomic_fetch_add(&obs(2), 1ll) + 1;
      tessera::atomic_max(&obs(3), now);
    });
    tessera::parallel_for(tessera::TeamVectorRange(m, n), [&](int i) { a(i) = id; });
    m.team_barrier();
    long long foreign = 0;
    for (int r = 0; r < rounds; ++r) {
      long long f = 0;
      tessera::parallel_reduce(
          tessera::TeamVectorRange(m, n), [&](int i, long long& w) { w += a(i) != id; }, f);
      foreign += f;
    }
    m.team_barrier();
    tessera::single(tessera::PerTeam(m), [&]() {
      tessera::atomic_add(&obs(0), foreign);
      tessera::atomic_add(&obs(1), 1ll);
      tessera::atomic_add(&obs(2), -1ll);
    });
  }
};

TYPED_TEST(TaskPortableScratch, ConcurrentTeamsHaveTheirOwnScratch) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const int n = 1024;
  sched.set_team_scratch_size(n * sizeof(int));
  // Teams of one run side by side on a 2-core host; teams of 2 and the
  // default size take turns there, and run side by side on a GPU's warps.
  for (int requested : {1, 2, 0}) {
    View obs("obs", 4);
    const int tasks = 128;
    for (int id = 1; id <= tasks; ++id) {
      auto policy = tessera::TaskTeam(sched);
      if (requested) policy.set_team_size(requested);
      tessera::host_spawn(policy, Private<Sched, View>{obs, id, n, requested == 1 ? 400 : 20});
    }
    tessera::wait(sched);
    const auto o = to_host<TypeParam>(obs);
    EXPECT_EQ(o[0], 0) << "team size " << requested << ": slots overwritten by another team";
    EXPECT_EQ(o[1], tasks);
    if (requested == 1 && tessera::test::portable::is_host_space<TypeParam> && TypeParam().concurrency() > 1)
      this->RecordProperty("teams_of_one_at_once_" + std::string(TypeParam::name()), int(o[3]));
  }
}

// A single task's member has no level-0 scratch (32 of them share a warp on
// Cuda). obs(0): the size it saw.
template <class Sched, class View>
struct SingleSees {
  View obs;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) const {
    obs(0) = (long long)m.team_scratch(0).size() + 1;
  }
};

TYPED_TEST(TaskPortableScratch, SingleTasksGetNone) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  sched.set_team_scratch_size(4096);
  View obs("obs", 1);
  tessera::host_spawn(tessera::TaskSingle(sched), SingleSees<Sched, View>{obs});
  tessera::wait(sched);
  EXPECT_EQ(to_host<TypeParam>(obs)[0], 1);
}

TYPED_TEST(TaskPortableScratch, TooLargeIsRefusedWithTheSizes) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  sched.set_team_scratch_size(512);
  const std::size_t too_much = std::size_t(64) << 20;  // over every back-end's level-0 limit
  try {
    sched.set_team_scratch_size(too_much);
    FAIL() << "expected a refusal";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("set_team_scratch_size"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(too_much)), std::string::npos) << what;
    EXPECT_NE(what.find("at most"), std::string::npos) << what;
  }
  EXPECT_EQ(sched.team_scratch_size(), 512u) << "a refused size leaves the old one";
}

}  // namespace
