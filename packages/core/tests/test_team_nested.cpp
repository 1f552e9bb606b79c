// Nested parallelism inside TeamPolicy kernels: TeamThreadRange,
// TeamVectorRange, ThreadVectorRange, the MD variants, nested reductions
// with every built-in reducer, nested scans and single(), on every back-end.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <vector>

template <class Space>
class TeamNested : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TeamNested, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {
template <class Policy>
int test_team_size(const Policy& p) {
  const int max = p.team_size_max(0, tessera::ParallelForTag());
  return max < 4 ? max : 4;
}
// Team sizes worth testing: 1 and the widest allowed (up to 4).
template <class Space>
std::vector<int> team_sizes() {
  const int ts = test_team_size(tessera::TeamPolicy<Space>(1, 1));
  return ts > 1 ? std::vector<int>{1, ts} : std::vector<int>{1};
}
}  // namespace

TYPED_TEST(TeamNested, ForRangesCoverEveryIndexOnceIncludingTinyAndEmpty) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  for (int ts : team_sizes<Space>()) {
    for (int n : {0, 1, 3, 100}) {  // n < ts: teams larger than the work
      const int league = 7;
      tessera::View<int**, Space> tt("tt", league, n + 5), tv("tv", league, n + 5), vv("vv", league, n + 5);
      tessera::parallel_for(Policy(league, ts, 4), TESSERA_LAMBDA(const Member& m) {
        const int l = m.league_rank();
        // Every vector lane of a thread runs a TeamThreadRange body (Kokkos
        // semantics; on Cuda the lanes are real threads): one lane writes.
        tessera::parallel_for(tessera::TeamThreadRange(m, n), [&](int i) {
          tessera::single(tessera::PerThread(m), [&]() { tt(l, i) += 1; });
        });
        tessera::parallel_for(tessera::TeamVectorRange(m, 2, n + 2), [&](int i) { tv(l, i) += 1; });
        // Each thread runs its own vector loop: a per-thread column split.
        tessera::parallel_for(tessera::TeamThreadRange(m, 1), [&](int) {
          tessera::parallel_for(tessera::ThreadVectorRange(m, 5, n + 5), [&](int i) { vv(l, i) += 1; });
        });
      });
      auto htt = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tt);
      auto htv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tv);
      auto hvv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), vv);
      for (int l = 0; l < league; ++l)
        for (int i = 0; i < n + 5; ++i) {
          ASSERT_EQ(htt(l, i), i < n ? 1 : 0) << "TeamThreadRange ts=" << ts << " n=" << n << " i=" << i;
          ASSERT_EQ(htv(l, i), (i >= 2 && i < n + 2) ? 1 : 0) << "TeamVectorRange ts=" << ts << " n=" << n;
          ASSERT_EQ(hvv(l, i), (i >= 5) ? 1 : 0) << "ThreadVectorRange ts=" << ts << " n=" << n;
        }
    }
  }
}

TYPED_TEST(TeamNested, ThreadVectorInsideTeamThreadComputesAMatrixVectorProduct) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int rows = 37, cols = 29, blocks = 5;
  tessera::View<double***, Space> a("a", blocks, rows, cols);
  tessera::View<double*, Space> x("x", cols);
  tessera::View<double**, Space> y("y", blocks, rows);
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<3>>({0, 0, 0}, {blocks, rows, cols}),
                        TESSERA_LAMBDA(int b, int i, int j) {
                          a(b, i, j) = (b + 1) * 0.5 + i - 0.25 * j;
                          if (b == 0 && i == 0) x(j) = 1.0 + j % 3;
                        });
  for (int ts : team_sizes<Space>()) {
    tessera::parallel_for(Policy(blocks, ts, 8), TESSERA_LAMBDA(const Member& m) {
      const int b = m.league_rank();
      tessera::parallel_for(tessera::TeamThreadRange(m, rows), [&](int i) {
        double s = 0;
        tessera::parallel_reduce(tessera::ThreadVectorRange(m, cols), [&](int j, double& acc) { acc += a(b, i, j) * x(j); }, s);
        tessera::single(tessera::PerThread(m), [&]() { y(b, i) = s; });
      });
    });
    auto hy = tessera::create_mirror_view_and_copy(tessera::HostSpace(), y);
    for (int b = 0; b < blocks; ++b)
      for (int i = 0; i < rows; ++i) {
        double e = 0;
        for (int j = 0; j < cols; ++j) e += ((b + 1) * 0.5 + i - 0.25 * j) * (1.0 + j % 3);
        ASSERT_DOUBLE_EQ(hy(b, i), e) << "ts=" << ts;
      }
  }
}

// Every built-in reducer through TeamThreadRange, TeamVectorRange and
// ThreadVectorRange; the result must reach every thread of the team.
TYPED_TEST(TeamNested, ReductionsWithEveryBuiltInReducerReachEveryThread) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int n = 61, league = 6;
  constexpr int checks = 14;
  for (int ts : team_sizes<Space>()) {
    tessera::View<int**, Space> errors("errors", 3, checks);
    tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
      const int l = m.league_rank();
      // data(i) in [-30, 30], with a unique min at i = 17 and max at i = 44.
      auto data = [&](int i) -> int { return i == 17 ? -40 - l : i == 44 ? 40 + l : ((i * 7 + l) % 61) - 30; };
      auto run = [&](auto make_range, int which) {
        auto err = [&](int k) { tessera::atomic_add(&errors(which, k), 1); };
        long sum = -5;
        tessera::parallel_reduce(make_range(), [&](int i, long& s) { s += data(i); }, sum);
        long esum = 0;
        for (int i = 0; i < n; ++i) esum += data(i);
        if (sum != esum) err(0);
        long sum2 = 0;
        tessera::parallel_reduce(make_range(), [&](int i, long& s) { s += data(i); }, tessera::Sum<long>(sum2));
        if (sum2 != esum) err(1);
        double prod = 0;
        tessera::parallel_reduce(make_range(), [&](int i, double& p) { p *= (i % 4 == 0) ? 2.0 : 1.0; }, tessera::Prod<double>(prod));
        if (prod != double(1L << ((n + 3) / 4))) err(2);
        int mn = 0, mx = 0;
        tessera::parallel_reduce(make_range(), [&](int i, int& v) { v = data(i) < v ? data(i) : v; }, tessera::Min<int>(mn));
        tessera::parallel_reduce(make_range(), [&](int i, int& v) { v = data(i) > v ? data(i) : v; }, tessera::Max<int>(mx));
        if (mn != -40 - l) err(3);
        if (mx != 40 + l) err(4);
        int land = 0, lor = 1;
        tessera::parallel_reduce(make_range(), [&](int i, int& v) { v = v && (data(i) > -100); }, tessera::LAnd<int>(land));
        tessera::parallel_reduce(make_range(), [&](int i, int& v) { v = v || (i == n - 1); }, tessera::LOr<int>(lor));
        if (land != 1) err(5);
        if (lor != 1) err(6);
        unsigned band = 0, bor = 0;
        tessera::parallel_reduce(make_range(), [&](int i, unsigned& v) { v &= ~(1u << (i % 8)) | 0xF0u; }, tessera::BAnd<unsigned>(band));
        tessera::parallel_reduce(make_range(), [&](int i, unsigned& v) { v |= 1u << (i % 5); }, tessera::BOr<unsigned>(bor));
        if (band != 0xFFFFFFF0u) err(7);
        if (bor != 0x1Fu) err(8);
        using ML = tessera::MinLoc<int, int>;
        using XL = tessera::MaxLoc<int, int>;
        typename ML::value_type minloc;
        typename XL::value_type maxloc;
        tessera::parallel_reduce(make_range(), [&](int i, typename ML::value_type& v) {
          if (data(i) < v.val) { v.val = data(i); v.loc = i; }
        }, ML(minloc));
        tessera::parallel_reduce(make_range(), [&](int i, typename XL::value_type& v) {
          if (data(i) > v.val) { v.val = data(i); v.loc = i; }
        }, XL(maxloc));
        if (minloc.val != -40 - l || minloc.loc != 17) err(9);
        if (maxloc.val != 40 + l || maxloc.loc != 44) err(10);
        using MM = tessera::MinMax<int>;
        typename MM::value_type minmax;
        tessera::parallel_reduce(make_range(), [&](int i, typename MM::value_type& v) {
          if (data(i) < v.min_val) v.min_val = data(i);
          if (data(i) > v.max_val) v.max_val = data(i);
        }, MM(minmax));
        if (minmax.min_val != -40 - l || minmax.max_val != 40 + l) err(11);
        using MML = tessera::MinMaxLoc<int, int>;
        typename MML::value_type mml;
        tessera::parallel_reduce(make_range(), [&](int i, typename MML::value_type& v) {
          if (data(i) < v.min_val) { v.min_val = data(i); v.min_loc = i; }
          if (data(i) > v.max_val) { v.max_val = data(i); v.max_loc = i; }
        }, MML(mml));
        if (mml.min_val != -40 - l || mml.min_loc != 17 || mml.max_val != 40 + l || mml.max_loc != 44) err(12);
        // Floating sum over a range offset by a begin index.
        double fs = 0;
        tessera::parallel_reduce(make_range(), [&](int i, double& s) { s += 0.5 * i; }, fs);
        if (fs != 0.25 * n * (n - 1)) err(13);
      };
      run([&]() { return tessera::TeamThreadRange(m, n); }, 0);
      run([&]() { return tessera::TeamVectorRange(m, 0, n); }, 1);
      run([&]() { return tessera::ThreadVectorRange(m, n); }, 2);
    });
    auto he = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
    for (int w = 0; w < 3; ++w)
      for (int k = 0; k < checks; ++k) EXPECT_EQ(he(w, k), 0) << "range kind " << w << " check " << k << " ts=" << ts;
  }
}

TYPED_TEST(TeamNested, ScansAreExclusiveOrInclusiveAndGiveTheTotal) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int league = 5;
  for (int ts : team_sizes<Space>()) {
    for (int n : {0, 1, 2, 50}) {
      tessera::View<long**, Space> ex("ex", league, n + 1), in("in", league, n + 1), vex("vex", league, n + 1);
      tessera::View<long**, Space> totals("totals", league, 4);
      tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
        const int l = m.league_rank();
        long total = -1;
        tessera::parallel_scan(tessera::TeamThreadRange(m, n), [&](int i, long& update, bool final) {
          if (final) ex(l, i) = update;
          update += i + l;
          if (final) in(l, i) = update;
        }, total);
        // Every thread receives the total.
        tessera::atomic_add(&totals(l, 0), total);
        long vtotal = 0;
        tessera::parallel_scan(tessera::TeamVectorRange(m, n), [&](int i, long& update, bool final) {
          update += 2 * i;
          if (final) vex(l, i) = update;
        }, vtotal);
        tessera::atomic_add(&totals(l, 1), vtotal);
        // ThreadVectorRange: one thread scans on its own.
        tessera::single(tessera::PerTeam(m), [&]() {
          long t = 0;
          tessera::parallel_scan(tessera::ThreadVectorRange(m, n), [&](int i, long& update, bool final) {
            if (final && update != long(i) * (i - 1) / 2) totals(l, 3) += 1;
            update += i;
          }, t);
          totals(l, 2) = t;
        });
        // Without a total.
        tessera::parallel_scan(tessera::TeamThreadRange(m, n), [&](int i, long& update, bool final) {
          if (final && update != ex(l, i)) tessera::atomic_add(&totals(l, 3), 1L);
          update += i + l;
        });
      });
      auto hex = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ex);
      auto hin = tessera::create_mirror_view_and_copy(tessera::HostSpace(), in);
      auto hv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), vex);
      auto ht = tessera::create_mirror_view_and_copy(tessera::HostSpace(), totals);
      for (int l = 0; l < league; ++l) {
        long acc = 0, vacc = 0;
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(hex(l, i), acc) << "exclusive ts=" << ts << " n=" << n << " i=" << i;
          acc += i + l;
          ASSERT_EQ(hin(l, i), acc) << "inclusive ts=" << ts << " n=" << n << " i=" << i;
          vacc += 2 * i;
          ASSERT_EQ(hv(l, i), vacc);
        }
        EXPECT_EQ(ht(l, 0), acc * ts) << "total on every thread, ts=" << ts << " n=" << n;
        EXPECT_EQ(ht(l, 1), vacc * ts);
        EXPECT_EQ(ht(l, 2), long(n) * (n - 1) / 2);
        EXPECT_EQ(ht(l, 3), 0);
      }
    }
  }
}

TYPED_TEST(TeamNested, MDRangesCoverTheBoxAndReduce) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int league = 4, n0 = 5, n1 = 7, n2 = 3;
  for (int ts : team_sizes<Space>()) {
    tessera::View<int****, Space> c2("c2", league, n0, n1, 1), c3("c3", league, n0, n1, n2), cv("cv", league, n0, n1, n2);
    tessera::View<long**, Space> sums("sums", league, 3);
    tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
      const int l = m.league_rank();
      tessera::parallel_for(tessera::TeamThreadMDRange(m, n0, n1), [&](int i, int j) { c2(l, i, j, 0) += 1 + i * j; });
      tessera::parallel_for(tessera::TeamThreadMDRange<tessera::Rank<3, tessera::Iterate::Left>, Member>(m, n0, n1, n2),
                            [&](int i, int j, int k) { c3(l, i, j, k) += 1 + i + j * k; });
      tessera::parallel_for(tessera::TeamVectorMDRange(m, n0, n1, n2), [&](int i, int j, int k) { cv(l, i, j, k) += 2; });
      long s = 0;
      tessera::parallel_reduce(tessera::TeamThreadMDRange(m, n0, n1), [&](int i, int j, long& acc) { acc += i * n1 + j; }, s);
      if (m.team_rank() == 0) sums(l, 0) = s;
      int mx = 0;
      tessera::parallel_reduce(tessera::TeamThreadMDRange(m, n0, n1, n2),
                               [&](int i, int j, int k, int& v) { v = (i + j + k) > v ? (i + j + k) : v; }, tessera::Max<int>(mx));
      if (m.team_rank() == m.team_size() - 1) sums(l, 1) = mx;
      long e = -1;
      tessera::parallel_reduce(tessera::TeamThreadMDRange(m, 0, n1), [&](int, int, long& acc) { acc += 1; }, e);
      if (m.team_rank() == 0) sums(l, 2) = e;
    });
    auto h2 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), c2);
    auto h3 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), c3);
    auto hv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), cv);
    auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), sums);
    for (int l = 0; l < league; ++l) {
      for (int i = 0; i < n0; ++i)
        for (int j = 0; j < n1; ++j) {
          ASSERT_EQ(h2(l, i, j, 0), 1 + i * j);
          for (int k = 0; k < n2; ++k) {
            ASSERT_EQ(h3(l, i, j, k), 1 + i + j * k);
            ASSERT_EQ(hv(l, i, j, k), 2);
          }
        }
      EXPECT_EQ(hs(l, 0), long(n0 * n1) * (n0 * n1 - 1) / 2);
      EXPECT_EQ(hs(l, 1), n0 + n1 + n2 - 3);
      EXPECT_EQ(hs(l, 2), 0);
    }
  }
}

// On one thread, a ThreadVectorMDRange visits its box in its direction: the
// order shows through a running counter.
TYPED_TEST(TeamNested, MDRangeDirectionIsTheVisitingOrder) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const int n0 = 3, n1 = 4, n2 = 2;
  tessera::View<int***, Space> right("right", n0, n1, n2), left("left", n0, n1, n2);
  tessera::parallel_for(Policy(1, 1), TESSERA_LAMBDA(const Member& m) {
    int counter = 0;
    tessera::parallel_for(tessera::ThreadVectorMDRange<tessera::Rank<3, tessera::Iterate::Right>, Member>(m, n0, n1, n2),
                          [&](int i, int j, int k) { right(i, j, k) = counter++; });
    counter = 0;
    tessera::parallel_for(tessera::ThreadVectorMDRange<tessera::Rank<3, tessera::Iterate::Left>, Member>(m, n0, n1, n2),
                          [&](int i, int j, int k) { left(i, j, k) = counter++; });
  });
  auto hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), right);
  auto hl = tessera::create_mirror_view_and_copy(tessera::HostSpace(), left);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) {
        ASSERT_EQ(hr(i, j, k), (i * n1 + j) * n2 + k);
        ASSERT_EQ(hl(i, j, k), (k * n1 + j) * n0 + i);
      }
}

// A TeamThreadRange scan with one index per thread exposes the partition:
// the exclusive prefix of ones is each index's position in visiting order.
TYPED_TEST(TeamNested, TeamScanAndTeamThreadOrderAgree) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  for (int ts : team_sizes<Space>()) {
    const int n = 23;
    tessera::View<int*, Space> pos("pos", n);
    tessera::parallel_for(Policy(1, ts), TESSERA_LAMBDA(const Member& m) {
      tessera::parallel_scan(tessera::TeamThreadRange(m, 3, n), [&](int i, int& update, bool final) {
        if (final) pos(i) = update;
        update += 1;
      });
    });
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), pos);
    for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), i < 3 ? 0 : i - 3);
  }
}

TYPED_TEST(TeamNested, SinglePerTeamAndPerThreadWithBroadcast) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  for (int ts : team_sizes<Space>()) {
    const int league = 9;
    tessera::View<int**, Space> counts("counts", league, 4);
    tessera::parallel_for(Policy(league, ts), TESSERA_LAMBDA(const Member& m) {
      const int l = m.league_rank();
      tessera::single(tessera::PerTeam(m), [&]() { tessera::atomic_add(&counts(l, 0), 1); });
      tessera::single(tessera::PerThread(m), [&]() { tessera::atomic_add(&counts(l, 1), 1); });
      double v = -1;
      tessera::single(tessera::PerTeam(m), [&](double& x) { x = 10.0 * l; }, v);
      if (v == 10.0 * l) tessera::atomic_add(&counts(l, 2), 1);  // every thread got it
      int w = m.team_rank();
      tessera::single(tessera::PerThread(m), [&](int& x) { x += 100; }, w);
      if (w == m.team_rank() + 100) tessera::atomic_add(&counts(l, 3), 1);
    });
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), counts);
    for (int l = 0; l < league; ++l) {
      EXPECT_EQ(h(l, 0), 1) << "ts=" << ts;
      EXPECT_EQ(h(l, 1), ts);
      EXPECT_EQ(h(l, 2), ts);
      EXPECT_EQ(h(l, 3), ts);
    }
  }
}
