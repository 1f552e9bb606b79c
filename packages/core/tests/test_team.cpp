// TeamPolicy dispatch and team member collectives, on every back-end.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

template <class Space>
class Team : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Team, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {
struct TagA {};
struct TagB {};

// Functor with tagged operators for parallel_for and parallel_reduce.
template <class Member, class V>
struct Tagged {
  V v;
  TESSERA_INLINE_FUNCTION void operator()(TagA, const Member& m) const {
    if (m.team_rank() == 0) v(m.league_rank()) += 10;
  }
  TESSERA_INLINE_FUNCTION void operator()(TagB, const Member& m) const {
    if (m.team_rank() == 0) v(m.league_rank()) += 1;
  }
  TESSERA_INLINE_FUNCTION void operator()(TagA, const Member& m, long& s) const { s += m.league_rank(); }
};

// A team size worth testing with: up to 4 threads, never above the limit.
template <class Policy>
int test_team_size(const Policy& p) {
  const int max = p.team_size_max(0, tessera::ParallelForTag());
  return max < 4 ? max : 4;
}

template <class F>
std::string error_of(const F& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}
}  // namespace

TYPED_TEST(Team, EveryLeagueRankRunsOnceOnEveryThreadOfItsTeam) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int ts = test_team_size(Policy(1, 1));
  for (int league : {0, 1, 3, 17, 1000}) {
    for (int t = 1; t <= ts; ++t) {
      tessera::View<int**, Space> seen("seen", league, t);
      tessera::View<int*, Space> bad("bad", 1);
      Policy p(league, t);
      ASSERT_EQ(p.league_size(), league);
      ASSERT_EQ(p.team_size(), t);
      tessera::parallel_for("team", p, TESSERA_LAMBDA(const Member& m) {
        if (m.league_size() != league || m.team_size() != t || m.team_rank() < 0 || m.team_rank() >= t)
          tessera::atomic_add(&bad(0), 1);
        tessera::atomic_add(&seen(m.league_rank(), m.team_rank()), 1);
      });
      auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), seen);
      auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), bad);
      EXPECT_EQ(hb(0), 0);
      for (int l = 0; l < league; ++l)
        for (int r = 0; r < t; ++r) ASSERT_EQ(h(l, r), 1) << "league " << l << " rank " << r << " team_size " << t;
    }
  }
}

TYPED_TEST(Team, SchedulesStaticChunkedAndDynamicCoverTheLeague) {
  using Space = TypeParam;
  using Static = tessera::TeamPolicy<Space>;
  using Dyn = tessera::TeamPolicy<Space, tessera::Schedule<tessera::Dynamic>>;
  using Member = typename Static::member_type;
  const int ts = test_team_size(Static(1, 1));
  const int league = 517;
  for (int chunk : {0, 1, 7, 1000}) {
    tessera::View<int*, Space> a("a", league), b("b", league);
    tessera::parallel_for(Static(league, ts).set_chunk_size(chunk), TESSERA_LAMBDA(const Member& m) {
      tessera::atomic_add(&a(m.league_rank()), 1 + m.team_rank());
    });
    tessera::parallel_for(Dyn(league, ts).set_chunk_size(chunk), TESSERA_LAMBDA(const Member& m) {
      tessera::atomic_add(&b(m.league_rank()), 1 + m.team_rank());
    });
    auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), a);
    auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), b);
    for (int l = 0; l < league; ++l) {
      ASSERT_EQ(ha(l), ts * (ts + 1) / 2) << "static chunk " << chunk << " league " << l;
      ASSERT_EQ(hb(l), ts * (ts + 1) / 2) << "dynamic chunk " << chunk << " league " << l;
    }
  }
}

TYPED_TEST(Team, AutoTeamSizeAndQueries) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const auto f = TESSERA_LAMBDA(const Member&){};
  Policy small(1, tessera::AUTO);
  Policy big(100000, tessera::AUTO, tessera::AUTO);
  const int max = small.team_size_max(f, tessera::ParallelForTag());
  EXPECT_GE(max, 1);
  EXPECT_EQ(max, small.team_size_max(f, tessera::ParallelReduceTag()));
  EXPECT_TRUE(small.impl_auto_team_size());
  EXPECT_TRUE(big.impl_auto_vector_length());
  for (const Policy& p : {small, big}) {
    const int t = p.team_size();
    EXPECT_GE(t, 1);
    EXPECT_LE(t, max);
    EXPECT_EQ(t, p.team_size_recommended(f, tessera::ParallelForTag()));
  }
  if constexpr (tessera::is_host_execution_space<Space>::value) {
    const int pool = Space().concurrency();
    // AUTO divides the pool; a big league gets one-thread teams, a league of
    // one gets one team as wide as allowed.
    EXPECT_EQ(pool % small.team_size(), 0);
    EXPECT_EQ(big.team_size(), 1);
    EXPECT_EQ(small.team_size(), max == pool ? pool : small.team_size());
    EXPECT_EQ(max, pool < 64 ? pool : 64);
  }
  // AUTO runs correctly.
  tessera::View<int*, Space> v("v", 40);
  tessera::parallel_for(Policy(40, tessera::AUTO), TESSERA_LAMBDA(const Member& m) {
    if (m.team_rank() == 0) v(m.league_rank()) = m.league_rank() + 1;
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  for (int l = 0; l < 40; ++l) ASSERT_EQ(h(l), l + 1);
  Policy with_vector(10, 1, 8);
  EXPECT_EQ(with_vector.vector_length(), 8);
  EXPECT_GE(Policy::vector_length_max(), 8);
}

TYPED_TEST(Team, ReduceScalarReducersFunctorAndDeterminism) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Dyn = tessera::TeamPolicy<Space, tessera::Schedule<tessera::Dynamic>>;
  using Member = typename Policy::member_type;
  const int ts = test_team_size(Policy(1, 1));
  const int league = 333;
  long sum = -1;
  tessera::parallel_reduce("league sum", Policy(league, ts), TESSERA_LAMBDA(const Member& m, long& s) {
    s += long(m.league_rank()) * 10 + m.team_rank();
  }, sum);
  // Every thread of every team contributes.
  EXPECT_EQ(sum, 10L * ts * league * (league - 1) / 2 + long(league) * ts * (ts - 1) / 2);
  int mn = 0, mx = 0;
  tessera::parallel_reduce(Dyn(league, ts).set_chunk_size(4), TESSERA_LAMBDA(const Member& m, int& lo, int& hi) {
    const int v = (m.league_rank() * 37) % 101 - 50 + m.team_rank();
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }, tessera::Min<int>(mn), tessera::Max<int>(mx));
  int emn = 1 << 30, emx = -(1 << 30);
  for (int l = 0; l < league; ++l)
    for (int r = 0; r < ts; ++r) {
      const int v = (l * 37) % 101 - 50 + r;
      emn = v < emn ? v : emn;
      emx = v > emx ? v : emx;
    }
  EXPECT_EQ(mn, emn);
  EXPECT_EQ(mx, emx);
  for (int dyn = 0; dyn < 2; ++dyn) {
    double first = 0;
    for (int rep = 0; rep < 4; ++rep) {
      double s = 0;
      auto body = TESSERA_LAMBDA(const Member& m, double& acc) { acc += 1.0 / (1.0 + m.league_rank() + 0.1 * m.team_rank()); };
      if (dyn) tessera::parallel_reduce(Dyn(5000, ts), body, s);
      else tessera::parallel_reduce(Policy(5000, ts), body, s);
      if (rep == 0) first = s;
      EXPECT_EQ(s, first) << "dynamic=" << dyn;
    }
  }
  // Empty league: the identity, and nothing runs.
  double e = 5;
  tessera::parallel_reduce(Policy(0, 1), TESSERA_LAMBDA(const Member&, double& acc) { acc += 1; }, e);
  EXPECT_EQ(e, 0.0);
}

TYPED_TEST(Team, WorkTagsSelectTheTaggedOperator) {
  using Space = TypeParam;
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  const int ts = test_team_size(tessera::TeamPolicy<Space>(1, 1));
  tessera::View<int*, Space> v("v", 50);
  using F = Tagged<Member, decltype(v)>;
  tessera::parallel_for(tessera::TeamPolicy<Space, TagA>(50, ts), F{v});
  tessera::parallel_for(tessera::TeamPolicy<TagB, Space>(50, tessera::AUTO), F{v});
  long s = 0;
  tessera::parallel_reduce(tessera::TeamPolicy<Space, TagA>(50, ts), F{v}, s);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  for (int l = 0; l < 50; ++l) ASSERT_EQ(h(l), 11);
  EXPECT_EQ(s, long(ts) * 50 * 49 / 2);
}

TYPED_TEST(Team, BarrierOrdersWritesAndReadsOfTheTeam) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int ts = test_team_size(Policy(1, 1));
  const int league = 64, rounds = 20;
  tessera::View<int**, Space> buf("buf", league, ts);
  tessera::View<int*, Space> errors("errors", 1);
  tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
    const int l = m.league_rank(), r = m.team_rank(), n = m.team_size();
    for (int k = 0; k < rounds; ++k) {
      buf(l, r) = k * 1000 + r;
      m.team_barrier();
      const int other = (r + 1) % n;
      if (buf(l, other) != k * 1000 + other) tessera::atomic_add(&errors(0), 1);
      m.team_barrier();
    }
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  EXPECT_EQ(h(0), 0);
}

TYPED_TEST(Team, BroadcastReduceAndScanAcrossTheTeam) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int ts = test_team_size(Policy(1, 1));
  const int league = 23;
  tessera::View<int*, Space> errors("errors", 8);
  tessera::View<long*, Space> totals("totals", league);
  tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
    const int r = m.team_rank(), n = m.team_size(), l = m.league_rank();
    // broadcast from the last rank
    int b = r == n - 1 ? 100 + l : -1;
    m.team_broadcast(b, n - 1);
    if (b != 100 + l) tessera::atomic_add(&errors(0), 1);
    // lambda form: the root applies f, everyone gets the result
    double d = r;
    // (a plain lambda: nvcc allows no extended lambda inside another one)
    m.team_broadcast([](double& x) { x = x * 2 + 0.5; }, d, 0);
    if (d != 0.5) tessera::atomic_add(&errors(1), 1);
    // team_reduce with a reducer: every thread gets the result
    long s = r + 1;
    m.team_reduce(tessera::Sum<long>(s));
    if (s != long(n) * (n + 1) / 2) tessera::atomic_add(&errors(2), 1);
    tessera::MaxLoc<int, int>::value_type ml{3 * r % 5, r};
    m.team_reduce(tessera::MaxLoc<int, int>(ml));
    int best = -1, best_at = 0;
    for (int q = 0; q < n; ++q)
      if (3 * q % 5 > best) {
        best = 3 * q % 5;
        best_at = q;
      }
    if (ml.val != best || ml.loc != best_at) tessera::atomic_add(&errors(3), 1);
    // team_scan: exclusive prefix of (rank + 1)
    const int pre = m.team_scan(r + 1);
    if (pre != r * (r + 1) / 2) tessera::atomic_add(&errors(4), 1);
    // with a global accumulator: each team gets a disjoint range
    long base = m.team_scan(long(r + 1), &totals(0));
    if (base < 0) tessera::atomic_add(&errors(5), 1);
    if (r == 0) totals(1 + l % (league - 1)) += 0;  // keep the view captured
  });
  auto he = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(he(k), 0) << "check " << k;
  auto ht = tessera::create_mirror_view_and_copy(tessera::HostSpace(), totals);
  EXPECT_EQ(ht(0), long(league) * ts * (ts + 1) / 2);
}

TYPED_TEST(Team, TeamScanWithGlobalAccumulatorHandsOutDisjointRanges) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int ts = test_team_size(Policy(1, 1));
  const int league = 40;
  // Team l, rank r asks for (l + r) % 3 + 1 slots; every slot must be taken once.
  long total_slots = 0;
  for (int l = 0; l < league; ++l)
    for (int r = 0; r < ts; ++r) total_slots += (l + r) % 3 + 1;
  tessera::View<int*, Space> owner("owner", total_slots);
  tessera::View<long*, Space> counter("counter", 1);
  tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
    const long want = (m.league_rank() + m.team_rank()) % 3 + 1;
    const long start = m.team_scan(want, &counter(0));
    for (long k = 0; k < want; ++k) tessera::atomic_add(&owner(start + k), 1);
  });
  auto ho = tessera::create_mirror_view_and_copy(tessera::HostSpace(), owner);
  auto hc = tessera::create_mirror_view_and_copy(tessera::HostSpace(), counter);
  EXPECT_EQ(hc(0), total_slots);
  for (long k = 0; k < total_slots; ++k) ASSERT_EQ(ho(k), 1) << "slot " << k;
}

TYPED_TEST(Team, ErrorsNameTheParameterAtFault) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  const int max = Policy(1, 1).team_size_max(0, tessera::ParallelForTag());
  std::string msg = error_of([&] { Policy(10, max + 1); });
  EXPECT_NE(msg.find("team_size " + std::to_string(max + 1)), std::string::npos) << msg;
  EXPECT_NE(msg.find("team_size_max() = " + std::to_string(max)), std::string::npos) << msg;
  msg = error_of([&] { Policy(-3, 1); });
  EXPECT_NE(msg.find("negative league_size -3"), std::string::npos) << msg;
  msg = error_of([&] { Policy(3, 0); });
  EXPECT_NE(msg.find("team_size 0 must be at least 1"), std::string::npos) << msg;
  msg = error_of([&] { Policy(3, 1, 3); });
  EXPECT_NE(msg.find("vector_length 3 must be a power of two"), std::string::npos) << msg;
  msg = error_of([&] { Policy(3, 1).set_chunk_size(-2); });
  EXPECT_NE(msg.find("negative chunk size -2"), std::string::npos) << msg;
  if constexpr (tessera::is_host_execution_space<Space>::value) {
    using Member = typename Policy::member_type;
    msg = error_of([&] {
      tessera::parallel_for(Policy(4, 1), [=](const Member& m) {
        int x = 1;
        m.team_broadcast(x, 1);
      });
    });
    EXPECT_NE(msg.find("root 1 is not a rank of a team of size 1"), std::string::npos) << msg;
    // An exception on one member reaches the caller and does not leave the
    // rest of the team waiting in a barrier.
    const int ts = test_team_size(Policy(1, 1));
    msg = error_of([&] {
      tessera::parallel_for(Policy(8, ts), [=](const Member& m) {
        if (m.league_rank() == 5 && m.team_rank() == ts - 1) throw std::runtime_error("member failed at league 5");
        m.team_barrier();
      });
    });
    EXPECT_EQ(msg, "member failed at league 5");
    // A nested dispatch runs on the calling thread: a team wider than one thread is refused there.
    if (ts > 1) {
      msg = error_of([&] {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 2), [=](int) {
          tessera::parallel_for(Policy(1, tessera::AUTO), [=](const Member&) {});
          // AUTO adapts; an explicit wide team cannot be honoured.
          Policy wide(1, 1);
          tessera::parallel_for(wide, [=](const Member&) {});
          tessera::parallel_for(Policy(1, 2), [=](const Member&) {});
        });
      });
      EXPECT_NE(msg.find("team_size 2"), std::string::npos) << msg;
    }
  }
}
