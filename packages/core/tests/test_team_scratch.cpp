// Team scratch memory: levels 0 and 1, per team and per thread, Views carved
// Kokkos-style from member.team_scratch(l) / thread_scratch(l), and the
// errors for asking too much, on every back-end.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

template <class Space>
class TeamScratch : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TeamScratch, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {
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

// A functor asking for level-0 team scratch through team_shmem_size(team_size),
// as Kokkos functors do: parallel_for / parallel_reduce add it to whatever
// the policy reserved. Each team copies its block of x into a team array and
// a second one of team_size entries, sums through them and records the
// level-0 size it was given.
template <class Space>
struct ShmemSizeFunctor {
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  using Vec = tessera::View<long*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  tessera::View<long*, Space> x, out;
  tessera::View<std::size_t*, Space> given;
  int n, block;
  std::size_t team_shmem_size(int team_size) const { return Vec::shmem_size(block) + Vec::shmem_size(team_size); }
  TESSERA_INLINE_FUNCTION void operator()(const Member& m) const {
    Vec copy(m.team_shmem(), block);
    Vec partial(m.team_shmem(), m.team_size());
    const int b = m.league_rank() * block;
    tessera::parallel_for(tessera::TeamThreadRange(m, block), [&](int i) { copy(i) = b + i < n ? x(b + i) : 0; });
    m.team_barrier();
    long mine = 0;
    for (int i = m.team_rank(); i < block; i += m.team_size()) mine += copy(i);
    partial(m.team_rank()) = mine;
    m.team_barrier();
    tessera::single(tessera::PerTeam(m), [&]() {
      long s = 0;
      for (int r = 0; r < m.team_size(); ++r) s += partial(r);
      out(m.league_rank()) = s;
      given(m.league_rank()) = m.team_scratch(0).size(0);
    });
  }
  TESSERA_INLINE_FUNCTION void operator()(const Member& m, long& sum) const {
    Vec copy(m.team_shmem(), block);
    const int b = m.league_rank() * block;
    tessera::parallel_for(tessera::TeamThreadRange(m, block), [&](int i) { copy(i) = b + i < n ? x(b + i) : 0; });
    m.team_barrier();
    tessera::single(tessera::PerTeam(m), [&]() {
      for (int i = 0; i < block; ++i) sum += copy(i);
      given(m.league_rank()) = m.team_scratch(0).size(0);
    });
  }
};
// The same with Kokkos' older spelling, shmem_size(team_size).
template <class Space>
struct OldShmemSizeFunctor {
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  using Vec = tessera::View<double*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  tessera::View<std::size_t*, Space> given;
  std::size_t shmem_size(int team_size) const { return Vec::shmem_size(3 * team_size); }
  TESSERA_INLINE_FUNCTION void operator()(const Member& m) const {
    Vec v(m.team_shmem(), 3 * m.team_size());
    v(0) = 1;
    if (m.team_rank() == 0) given(m.league_rank()) = m.team_scratch(0).size(0);
  }
};
template <class Space>
struct TooMuchShmemFunctor {
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  std::size_t team_shmem_size(int) const { return tessera::TeamPolicy<Space>::scratch_size_max(0) + 1; }
  TESSERA_INLINE_FUNCTION void operator()(const Member&) const {}
};

TYPED_TEST(TeamScratch, FunctorTeamShmemSizeIsAddedToLevel0) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using F = ShmemSizeFunctor<Space>;
  using Vec = typename F::Vec;
  const int n = 5003, block = 128, league = (n + block - 1) / block;
  F f{tessera::View<long*, Space>("x", n), tessera::View<long*, Space>("out", league),
      tessera::View<std::size_t*, Space>("given", league), n, block};
  auto x = f.x;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { x(i) = (i * 7) % 23 - 11; });
  const int ts = test_team_size(Policy(1, 1));
  auto hx = tessera::create_mirror_view_and_copy(tessera::HostSpace(), f.x);
  long total = 0;
  for (int i = 0; i < n; ++i) total += hx(i);
  // Functor scratch alone, then on top of the policy's own PerTeam reservation.
  for (std::size_t extra : {std::size_t(0), std::size_t(40)}) {
    const std::size_t expect = extra + Vec::shmem_size(block) + Vec::shmem_size(ts);
    Policy policy(league, ts);
    if (extra) policy.set_scratch_size(0, tessera::PerTeam(std::int64_t(extra)));
    tessera::parallel_for("shmem functor", policy, f);
    EXPECT_EQ(policy.team_scratch_size(0), extra) << "the caller's policy is left unchanged";
    auto ho = tessera::create_mirror_view_and_copy(tessera::HostSpace(), f.out);
    auto hg = tessera::create_mirror_view_and_copy(tessera::HostSpace(), f.given);
    for (int l = 0; l < league; ++l) {
      long s = 0;
      for (int i = l * block; i < n && i < (l + 1) * block; ++i) s += hx(i);
      ASSERT_EQ(ho(l), s) << "block " << l;
      ASSERT_EQ(hg(l), expect) << "block " << l;
    }
    tessera::deep_copy(f.given, std::size_t(0));
    long sum = 0;
    tessera::parallel_reduce("shmem functor reduce", policy, f, sum);
    EXPECT_EQ(sum, total);
    tessera::deep_copy(hg, f.given);
    for (int l = 0; l < league; ++l) ASSERT_EQ(hg(l), expect) << "reduce, block " << l;
  }
  OldShmemSizeFunctor<Space> g{tessera::View<std::size_t*, Space>("given", 5)};
  tessera::parallel_for(Policy(5, ts), g);
  auto hg = tessera::create_mirror_view_and_copy(tessera::HostSpace(), g.given);
  for (int l = 0; l < 5; ++l) EXPECT_EQ(hg(l), OldShmemSizeFunctor<Space>::Vec::shmem_size(3 * ts));
  std::string msg = error_of([&] { tessera::parallel_for(Policy(2, 1), TooMuchShmemFunctor<Space>{}); });
  EXPECT_NE(msg.find("the functor's team_shmem_size(1) = " + std::to_string(Policy::scratch_size_max(0) + 1)),
            std::string::npos)
      << msg;
}

// Per-team transpose of T x T tiles through level-0 team scratch.
TYPED_TEST(TeamScratch, TransposeThroughLevel0TeamScratch) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Tile = tessera::View<double**, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  const int T = 16, tiles0 = 5, tiles1 = 3, rows = T * tiles0, cols = T * tiles1;
  tessera::View<double**, Space> a("a", rows, cols), b("b", cols, rows);
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<2>>({0, 0}, {rows, cols}),
                        TESSERA_LAMBDA(int i, int j) { a(i, j) = i * 1000.0 + j; });
  const int ts = test_team_size(Policy(1, 1));
  Policy policy(tiles0 * tiles1, ts);
  policy.set_scratch_size(0, tessera::PerTeam(Tile::shmem_size(T, T + 1)));
  EXPECT_EQ(policy.scratch_size(0), Tile::shmem_size(T, T + 1));
  tessera::parallel_for("transpose", policy, TESSERA_LAMBDA(const Member& m) {
    const int ti = m.league_rank() / tiles1, tj = m.league_rank() % tiles1;
    Tile tile(m.team_scratch(0), T, T + 1);  // padded row against bank conflicts on GPUs
    tessera::parallel_for(tessera::TeamThreadRange(m, T), [&](int i) {
      tessera::parallel_for(tessera::ThreadVectorRange(m, T), [&](int j) { tile(i, j) = a(ti * T + i, tj * T + j); });
    });
    m.team_barrier();
    tessera::parallel_for(tessera::TeamThreadRange(m, T), [&](int j) {
      tessera::parallel_for(tessera::ThreadVectorRange(m, T), [&](int i) { b(tj * T + j, ti * T + i) = tile(i, j); });
    });
  });
  auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), b);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) ASSERT_EQ(hb(j, i), i * 1000.0 + j);
}

// Block reduction: each thread sums its share into per-thread level-1
// scratch, publishes it to a level-1 team array, and rank 0 adds them up.
TYPED_TEST(TeamScratch, BlockReductionThroughLevel1TeamAndThreadScratch) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Vec = tessera::View<long*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  using Scalar = tessera::View<long, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  const int n = 10007, block = 512, league = (n + block - 1) / block;
  tessera::View<long*, Space> x("x", n), out("out", league);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { x(i) = (i * 13) % 101 - 40; });
  const int ts = test_team_size(Policy(1, 1));
  Policy policy(league, ts);
  policy.set_scratch_size(1, tessera::PerTeam(Vec::shmem_size(ts)), tessera::PerThread(Scalar::shmem_size()));
  EXPECT_EQ(policy.team_scratch_size(1), Vec::shmem_size(ts));
  EXPECT_EQ(policy.thread_scratch_size(1), Scalar::shmem_size());
  EXPECT_EQ(policy.scratch_size(1), Vec::shmem_size(ts) + std::size_t(ts) * Scalar::shmem_size());
  tessera::parallel_for(policy, TESSERA_LAMBDA(const Member& m) {
    Vec partials(m.team_scratch(1), m.team_size());
    Scalar mine(m.thread_scratch(1));
    mine() = 0;
    const int b = m.league_rank() * block;
    const int e = b + block < n ? b + block : n;
    tessera::parallel_for(tessera::TeamThreadRange(m, b, e), [&](int i) { mine() += x(i); });
    partials(m.team_rank()) = mine();
    m.team_barrier();
    tessera::single(tessera::PerTeam(m), [&]() {
      long s = 0;
      for (int r = 0; r < m.team_size(); ++r) s += partials(r);
      out(m.league_rank()) = s;
    });
  });
  auto hx = tessera::create_mirror_view_and_copy(tessera::HostSpace(), x);
  auto ho = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int l = 0; l < league; ++l) {
    long s = 0;
    for (int i = l * block; i < n && i < (l + 1) * block; ++i) s += hx(i);
    ASSERT_EQ(ho(l), s) << "block " << l;
  }
}

// Teams running at the same time own disjoint scratch; every league rank
// starts with the whole reservation (cursors restart); level 0 and 1 of one
// handle, raw get_shmem and several Views all fit as reserved.
TYPED_TEST(TeamScratch, RegionsAreDisjointAlignedAndRestartEveryLeagueRank) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Ints = tessera::View<int*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  using Dbls = tessera::View<double**, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  const int ts = test_team_size(Policy(1, 1));
  const int league = 200, ni = 37;
  Policy policy(league, ts);
  const std::size_t l0 = Ints::shmem_size(ni) + Dbls::shmem_size(3, 5) + 24;
  policy.set_scratch_size(0, tessera::PerTeam(l0), tessera::PerThread(Ints::shmem_size(7)))
      .set_scratch_size(1, tessera::PerTeam(8 + Ints::shmem_size(ni)));
  tessera::View<int*, Space> errors("errors", 6);
  tessera::parallel_for(policy, TESSERA_LAMBDA(const Member& m) {
    const int l = m.league_rank();
    Ints a(m.team_scratch(0), ni);
    Dbls d(m.team_scratch(0), 3, 5);
    void* raw = m.team_shmem().get_shmem(24);
    Ints mine(m.thread_scratch(0), 7);
    // One handle, two cursors: an explicit level argument, then level 1 as default.
    void* raw1 = m.team_scratch(0).get_shmem(8, 1);
    Ints lvl1(m.team_scratch(1), ni);
    if (reinterpret_cast<char*>(lvl1.data()) != static_cast<char*>(raw1) + 8) tessera::atomic_add(&errors(1), 1);
    if (reinterpret_cast<std::uintptr_t>(a.data()) % 64 != 0) tessera::atomic_add(&errors(0), 1);
    if (reinterpret_cast<std::uintptr_t>(mine.data()) % 64 != 0) tessera::atomic_add(&errors(0), 1);
    if (raw == nullptr || static_cast<void*>(a.data()) == raw) tessera::atomic_add(&errors(1), 1);
    tessera::parallel_for(tessera::TeamThreadRange(m, ni), [&](int i) {
      a(i) = l * 100 + i;
      lvl1(i) = -l;
    });
    for (int k = 0; k < 7; ++k) mine(k) = l * 10 + m.team_rank();
    m.team_barrier();
    tessera::parallel_for(tessera::TeamThreadRange(m, ni), [&](int i) {
      if (a(i) != l * 100 + i) tessera::atomic_add(&errors(2), 1);
      if (lvl1(i) != -l) tessera::atomic_add(&errors(3), 1);
    });
    for (int k = 0; k < 7; ++k)
      if (mine(k) != l * 10 + m.team_rank()) tessera::atomic_add(&errors(4), 1);
    if (m.team_scratch(0).free_bytes(0) > 64) tessera::atomic_add(&errors(5), 1);  // used as reserved
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(h(k), 0) << "check " << k;
}

TYPED_TEST(TeamScratch, TooMuchScratchIsAnErrorNamingLevelAndSizes) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const std::size_t max0 = Policy::scratch_size_max(0), max1 = Policy::scratch_size_max(1);
  EXPECT_GT(max0, 0u);
  EXPECT_GE(max1, max0);
  std::string msg = error_of([&] { Policy(4, 1).set_scratch_size(0, tessera::PerTeam(std::int64_t(max0) + 1)); });
  EXPECT_NE(msg.find("level 0 needs " + std::to_string(max0 + 1) + " bytes per team"), std::string::npos) << msg;
  EXPECT_NE(msg.find("scratch_size_max(0) is " + std::to_string(max0)), std::string::npos) << msg;
  msg = error_of([&] { Policy(4, 1).set_scratch_size(1, tessera::PerTeam(8), tessera::PerThread(std::int64_t(max1))); });
  EXPECT_NE(msg.find("level 1 needs " + std::to_string(max1 + 8)), std::string::npos) << msg;
  EXPECT_NE(msg.find("PerThread " + std::to_string(max1)), std::string::npos) << msg;
  msg = error_of([&] { Policy(4, 1).set_scratch_size(2, tessera::PerTeam(8)); });
  EXPECT_NE(msg.find("scratch level 2 does not exist"), std::string::npos) << msg;
  msg = error_of([&] { Policy(4, 1).set_scratch_size(0, tessera::PerTeam(-16)); });
  EXPECT_NE(msg.find("negative PerTeam(-16) for level 0"), std::string::npos) << msg;
  if constexpr (tessera::is_host_execution_space<Space>::value) {
    // Carving more than was reserved throws inside the kernel (Kokkos
    // returns a null pointer instead).
    using Dbls = tessera::View<double*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
    const int ts = test_team_size(Policy(1, 1));
    msg = error_of([&] {
      tessera::parallel_for(Policy(3, ts).set_scratch_size(0, tessera::PerTeam(Dbls::shmem_size(10))), [=](const Member& m) {
        Dbls ok(m.team_scratch(0), 10);
        Dbls too_much(m.team_scratch(0), 1);
        (void)ok;
        (void)too_much;
      });
    });
    EXPECT_NE(msg.find("team scratch level 0 exhausted: requested 8 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("only 0 of 80 bytes are left"), std::string::npos) << msg;
    msg = error_of([&] {
      tessera::parallel_for(Policy(2, 1).set_scratch_size(1, tessera::PerThread(16)), [=](const Member& m) {
        m.thread_scratch(1).get_shmem(24);
      });
    });
    EXPECT_NE(msg.find("thread scratch level 1 exhausted: requested 24 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PerThread"), std::string::npos) << msg;
    // A request of exactly the bytes reserved fails when its size is not a
    // multiple of 8: the message says what it took.
    msg = error_of([&] {
      tessera::parallel_for(Policy(2, 1).set_scratch_size(1, tessera::PerTeam(301)), [=](const Member& m) {
        m.team_scratch(1).get_shmem(301);
      });
    });
    EXPECT_NE(msg.find("requested 301 bytes (alignment 8; 304 bytes with the alignment and the size rounded up to a "
                       "multiple of 8) but only 301 of 301 bytes are left"),
              std::string::npos)
        << msg;
    msg = error_of([&] {
      tessera::parallel_for(Policy(1, 1), [=](const Member& m) { m.team_scratch(3); });
    });
    EXPECT_NE(msg.find("scratch level 3 does not exist"), std::string::npos) << msg;
  }
}
