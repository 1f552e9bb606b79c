// parallel_for / parallel_reduce over MDRangePolicy, on every back-end.
#include "tessera_test_spaces.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

template <class Space>
class MDRange : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MDRange, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {
struct TagA {};
struct TagB {};

// Writes a distinct code per point and counts visits; tags select the code.
template <class V>
struct TaggedFill {
  V v;
  TESSERA_INLINE_FUNCTION void operator()(TagA, std::int64_t i, std::int64_t j) const { v(i, j) += 1 + int(i * 100 + j); }
  TESSERA_INLINE_FUNCTION void operator()(TagB, std::int64_t i, std::int64_t j) const { v(i, j) += 2; }
  TESSERA_INLINE_FUNCTION void operator()(TagA, std::int64_t i, std::int64_t j, long& s) const { s += i * j; }
};

// Functor-defined reduction: max of |i - j| with init/join/final.
struct MaxAbsDiff {
  using value_type = long;
  TESSERA_INLINE_FUNCTION void operator()(int i, int j, long& m) const {
    const long d = i > j ? i - j : j - i;
    if (d > m) m = d;
  }
  TESSERA_INLINE_FUNCTION void init(long& m) const { m = -1000; }
  TESSERA_INLINE_FUNCTION void join(long& a, const long& b) const {
    if (b > a) a = b;
  }
  TESSERA_INLINE_FUNCTION void final(long& m) const { m *= 10; }
};

// Array reduction of runtime length: histogram of (i + j) % count.
struct Histogram {
  using value_type = long[];
  int value_count;
  TESSERA_INLINE_FUNCTION void operator()(int i, int j, long* h) const { h[(i + j) % value_count] += 1; }
};
}  // namespace

TYPED_TEST(MDRange, Rank2ForEveryPointOnceWithOffsetsAndUnevenTiles) {
  using Space = TypeParam;
  const int n0 = 37, n1 = 53;
  for (int t0 : {0, 1, 5, 64}) {
    for (int t1 : {0, 3, 7}) {
      tessera::View<int**, Space> v("v", n0, n1);
      tessera::parallel_for("fill", tessera::MDRangePolicy<Space, tessera::Rank<2>>({2, 3}, {n0, n1}, {t0, t1}),
                            TESSERA_LAMBDA(int i, int j) { v(i, j) += 1 + i * 1000 + j; });
      auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
      for (int i = 0; i < n0; ++i)
        for (int j = 0; j < n1; ++j)
          ASSERT_EQ(h(i, j), (i >= 2 && j >= 3) ? 1 + i * 1000 + j : 0) << "tile " << t0 << "x" << t1 << " at " << i << "," << j;
    }
  }
}

TYPED_TEST(MDRange, Rank3LeftAndRightVisitEveryPointOnce) {
  using Space = TypeParam;
  const int n = 19;
  tessera::View<int***, Space> r("r", n, n + 1, n + 2), l("l", n, n + 1, n + 2);
  using Right = tessera::MDRangePolicy<Space, tessera::Rank<3, tessera::Iterate::Right, tessera::Iterate::Right>>;
  using Left = tessera::MDRangePolicy<Space, tessera::Rank<3, tessera::Iterate::Left, tessera::Iterate::Left>>;
  tessera::parallel_for(Right({0, 0, 0}, {n, n + 1, n + 2}, {4, 3, 5}), TESSERA_LAMBDA(int i, int j, int k) { r(i, j, k) += i + 2 * j + 3 * k; });
  tessera::parallel_for(Left({0, 0, 0}, {n, n + 1, n + 2}, {4, 3, 5}), TESSERA_LAMBDA(int i, int j, int k) { l(i, j, k) += i + 2 * j + 3 * k; });
  auto hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), r);
  auto hl = tessera::create_mirror_view_and_copy(tessera::HostSpace(), l);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n + 1; ++j)
      for (int k = 0; k < n + 2; ++k) {
        ASSERT_EQ(hr(i, j, k), i + 2 * j + 3 * k);
        ASSERT_EQ(hl(i, j, k), i + 2 * j + 3 * k);
      }
}

TYPED_TEST(MDRange, Ranks4To6CoverTheBox) {
  using Space = TypeParam;
  tessera::View<int****, Space> v4("v4", 3, 4, 5, 6);
  tessera::View<int*****, Space> v5("v5", 2, 3, 4, 3, 5);
  tessera::View<int******, Space> v6("v6", 2, 3, 2, 4, 3, 5);
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<4>>({0, 0, 0, 0}, {3, 4, 5, 6}, {2, 3, 2, 4}),
                        TESSERA_LAMBDA(int a, int b, int c, int d) { v4(a, b, c, d) += 1 + a + b + c + d; });
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<5, tessera::Iterate::Left>>({0, 0, 0, 0, 0}, {2, 3, 4, 3, 5}),
                        TESSERA_LAMBDA(int a, int b, int c, int d, int e) { v5(a, b, c, d, e) += 1 + a * b + c * d + e; });
  tessera::parallel_for(
      tessera::MDRangePolicy<Space, tessera::Rank<6>>({0, 0, 0, 0, 0, 0}, {2, 3, 2, 4, 3, 5}, {1, 2, 2, 3, 2, 2}),
      TESSERA_LAMBDA(int a, int b, int c, int d, int e, int f) { v6(a, b, c, d, e, f) += 1 + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f; });
  long sum6 = 0;
  tessera::parallel_reduce(
      tessera::MDRangePolicy<Space, tessera::Rank<6, tessera::Iterate::Left, tessera::Iterate::Right>>({0, 0, 0, 0, 0, 0}, {2, 3, 2, 4, 3, 5}, {2, 2, 1, 3, 2, 4}),
      TESSERA_LAMBDA(int a, int b, int c, int d, int e, int f, long& s) { s += v6(a, b, c, d, e, f); }, sum6);
  auto h4 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v4);
  auto h5 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v5);
  auto h6 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v6);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 5; ++c)
        for (int d = 0; d < 6; ++d) ASSERT_EQ(h4(a, b, c, d), 1 + a + b + c + d);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 3; ++d)
          for (int e = 0; e < 5; ++e) ASSERT_EQ(h5(a, b, c, d, e), 1 + a * b + c * d + e);
  long expect6 = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 4; ++d)
          for (int e = 0; e < 3; ++e)
            for (int f = 0; f < 5; ++f) {
              const int want = 1 + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
              ASSERT_EQ(h6(a, b, c, d, e, f), want);
              expect6 += want;
            }
  EXPECT_EQ(sum6, expect6);
}

TYPED_TEST(MDRange, EmptyBoxesRunNothingAndReduceToTheIdentity) {
  using Space = TypeParam;
  tessera::View<int*, Space> hits("hits", 1);
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<3>>({0, 0, 0}, {5, 0, 5}),
                        TESSERA_LAMBDA(int, int, int) { tessera::atomic_add(&hits(0), 1); });
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<2>>({4, 4}, {4, 9}, {2, 2}),
                        TESSERA_LAMBDA(int, int) { tessera::atomic_add(&hits(0), 1); });
  long sum = 99;
  tessera::parallel_reduce(tessera::MDRangePolicy<Space, tessera::Rank<2>>({0, 0}, {0, 7}),
                           TESSERA_LAMBDA(int, int, long& s) { s += 1; }, sum);
  double mx = 0;
  tessera::parallel_reduce(tessera::MDRangePolicy<Space, tessera::Rank<2>>({3, 0}, {3, 0}),
                           TESSERA_LAMBDA(int, int, double& m) { m = 1; }, tessera::Max<double>(mx));
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), hits);
  EXPECT_EQ(h(0), 0);
  EXPECT_EQ(sum, 0);
  EXPECT_EQ(mx, tessera::reduction_identity<double>::max());
}

TYPED_TEST(MDRange, ReduceEveryResultForm) {
  using Space = TypeParam;
  const int n0 = 41, n1 = 29;
  using P = tessera::MDRangePolicy<Space, tessera::Rank<2>>;
  // Scalar.
  long sum = 0;
  tessera::parallel_reduce("sum", P({0, 0}, {n0, n1}, {8, 8}), TESSERA_LAMBDA(int i, int j, long& s) { s += i * n1 + j; }, sum);
  EXPECT_EQ(sum, long(n0 * n1) * (n0 * n1 - 1) / 2);
  // Rank-0 View result.
  tessera::View<long, tessera::HostSpace> vsum("vsum");
  tessera::parallel_reduce(P({0, 0}, {n0, n1}), TESSERA_LAMBDA(int i, int j, long& s) { s += i + j; }, vsum);
  EXPECT_EQ(vsum(), long(n1) * n0 * (n0 - 1) / 2 + long(n0) * n1 * (n1 - 1) / 2);
  // Reducers, one and several.
  tessera::MinLoc<double, int>::value_type minloc;
  tessera::parallel_reduce(P({0, 0}, {n0, n1}, {5, 6}),
                           TESSERA_LAMBDA(int i, int j, tessera::MinLoc<double, int>::value_type& m) {
                             const double val = (i - 17) * (i - 17) + (j - 11) * (j - 11) + 0.5;
                             if (val < m.val) {
                               m.val = val;
                               m.loc = i * n1 + j;
                             }
                           },
                           tessera::MinLoc<double, int>(minloc));
  EXPECT_EQ(minloc.val, 0.5);
  EXPECT_EQ(minloc.loc, 17 * n1 + 11);
  int mn = 0, mx = 0;
  long cnt = 0;
  tessera::parallel_reduce(
      P({1, 2}, {n0, n1}, {3, 4}),
      TESSERA_LAMBDA(int i, int j, int& lo, int& hi, long& c) {
        const int val = i * j - 100;
        if (val < lo) lo = val;
        if (val > hi) hi = val;
        c += 1;
      },
      tessera::Min<int>(mn), tessera::Max<int>(mx), tessera::Sum<long>(cnt));
  EXPECT_EQ(mn, 1 * 2 - 100);
  EXPECT_EQ(mx, (n0 - 1) * (n1 - 1) - 100);
  EXPECT_EQ(cnt, long(n0 - 1) * (n1 - 2));
  // Functor with init/join/final.
  long m = 0;
  tessera::parallel_reduce(tessera::MDRangePolicy<Space, tessera::Rank<2>, tessera::IndexType<int>>({0, 0}, {n0, n1}),
                           MaxAbsDiff{}, m);
  EXPECT_EQ(m, 10L * (n0 - 1));
  // Array reduction of runtime length.
  std::vector<long> hist(5, -1);
  tessera::parallel_reduce(tessera::MDRangePolicy<Space, tessera::Rank<2>, tessera::IndexType<int>>({0, 0}, {n0, n1}, {7, 3}),
                           Histogram{5}, hist.data());
  std::vector<long> want(5, 0);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j) want[(i + j) % 5] += 1;
  EXPECT_EQ(hist, want);
}

TYPED_TEST(MDRange, WorkTagsSelectTheTaggedOperator) {
  using Space = TypeParam;
  tessera::View<int**, Space> v("v", 9, 13);
  tessera::parallel_for(tessera::MDRangePolicy<Space, tessera::Rank<2>, TagA>({0, 0}, {9, 13}, {2, 5}), TaggedFill<decltype(v)>{v});
  tessera::parallel_for(tessera::MDRangePolicy<TagB, tessera::Rank<2>, Space>({0, 0}, {9, 13}), TaggedFill<decltype(v)>{v});
  long s = 0;
  tessera::parallel_reduce(tessera::MDRangePolicy<Space, TagA, tessera::Rank<2>>({0, 0}, {9, 13}), TaggedFill<decltype(v)>{v}, s);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 13; ++j) ASSERT_EQ(h(i, j), 3 + i * 100 + j);
  EXPECT_EQ(s, (9L * 8 / 2) * (13L * 12 / 2));
}

TYPED_TEST(MDRange, FloatingReductionsAreDeterministicStaticAndDynamic) {
  using Space = TypeParam;
  const int n = 300;
  for (int dyn = 0; dyn < 2; ++dyn) {
    double first = 0;
    for (int rep = 0; rep < 4; ++rep) {
      double s = 0;
      auto body = TESSERA_LAMBDA(int i, int j, double& acc) { acc += 1.0 / (1.0 + i + 0.37 * j); };
      if (dyn) {
        tessera::parallel_reduce(
            tessera::MDRangePolicy<Space, tessera::Rank<2>, tessera::Schedule<tessera::Dynamic>>({0, 0}, {n, n}, {3, 17})
                .set_chunk_size(5),
            body, s);
      } else {
        tessera::parallel_reduce(tessera::MDRangePolicy<Space, tessera::Rank<2>>({0, 0}, {n, n}, {3, 17}), body, s);
      }
      if (rep == 0) first = s;
      EXPECT_EQ(s, first) << "dynamic=" << dyn << " repeat " << rep;
    }
    double ref = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) ref += 1.0 / (1.0 + i + 0.37 * j);
    EXPECT_NEAR(first, ref, 1e-9 * ref);
  }
}

// The visiting order inside a tile follows the inner direction, tiles follow
// the outer direction, and (host) every tile runs on a single thread.
TYPED_TEST(MDRange, IterateOrderIsRespectedInsideTilesAndAcrossTiles) {
  using Space = TypeParam;
  if constexpr (tessera::is_host_execution_space<Space>::value) {
    const int n0 = 10, n1 = 11, t0 = 4, t1 = 3;
    auto check = [&](auto policy, bool outer_right, bool inner_right) {
      tessera::View<int**, tessera::HostSpace> who("who", n0, n1), seq("seq", n0, n1);
      std::vector<int> counters(64 * 64, 0);
      int* cnt = counters.data();
      tessera::parallel_for(policy, [=](int i, int j) {
        const int tid = Space::impl_thread_pool_rank();
        who(i, j) = tid;
        seq(i, j) = cnt[tid * 64]++;
      });
      for (int ti = 0; ti * t0 < n0; ++ti)
        for (int tj = 0; tj * t1 < n1; ++tj) {
          // Points of the tile, sorted by visiting sequence, must come in
          // inner-direction order from one thread.
          std::vector<std::pair<int, int>> pts;
          for (int i = ti * t0; i < std::min(n0, (ti + 1) * t0); ++i)
            for (int j = tj * t1; j < std::min(n1, (tj + 1) * t1); ++j) pts.push_back({i, j});
          std::vector<std::pair<int, int>> expect = pts;
          if (!inner_right)
            std::sort(expect.begin(), expect.end(), [](auto a, auto b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
          std::sort(pts.begin(), pts.end(), [&](auto a, auto b) { return seq(a.first, a.second) < seq(b.first, b.second); });
          ASSERT_EQ(pts, expect) << "tile " << ti << "," << tj;
          for (auto p : pts) ASSERT_EQ(who(p.first, p.second), who(pts[0].first, pts[0].second));
        }
      // Per thread, tiles come in outer-direction order.
      for (int i = 0; i < n0; ++i)
        for (int j = 0; j < n1; ++j)
          for (int i2 = 0; i2 < n0; ++i2)
            for (int j2 = 0; j2 < n1; ++j2) {
              if (who(i, j) != who(i2, j2)) continue;
              const int a0 = i / t0, a1 = j / t1, b0 = i2 / t0, b1 = j2 / t1;
              const bool before = outer_right ? (a0 < b0 || (a0 == b0 && a1 < b1)) : (a1 < b1 || (a1 == b1 && a0 < b0));
              if (before) {
                ASSERT_LT(seq(i, j), seq(i2, j2));
              }
            }
    };
    using tessera::Iterate;
    check(tessera::MDRangePolicy<Space, tessera::Rank<2, Iterate::Right, Iterate::Right>>({0, 0}, {n0, n1}, {t0, t1}), true, true);
    check(tessera::MDRangePolicy<Space, tessera::Rank<2, Iterate::Right, Iterate::Left>>({0, 0}, {n0, n1}, {t0, t1}), true, false);
    check(tessera::MDRangePolicy<Space, tessera::Rank<2, Iterate::Left, Iterate::Right>>({0, 0}, {n0, n1}, {t0, t1}), false, true);
    check(tessera::MDRangePolicy<Space, tessera::Rank<2, Iterate::Left, Iterate::Left>>({0, 0}, {n0, n1}, {t0, t1}), false, false);
    // Default is Right on host.
    static_assert(tessera::MDRangePolicy<Space, tessera::Rank<2>>::inner_direction == Iterate::Right);
    static_assert(tessera::MDRangePolicy<Space, tessera::Rank<2>>::outer_direction == Iterate::Right);
  }
}

TYPED_TEST(MDRange, ReportsBadBoundsAndTiles) {
  using Space = TypeParam;
  using P = tessera::MDRangePolicy<Space, tessera::Rank<3>>;
  try {
    P({0, 5, 0}, {4, 2, 4});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("lower bound 5 is past upper bound 2 in dimension 1"), std::string::npos) << e.what();
  }
  try {
    P({0, 0, 0}, {4, 2, 4}, {1, 1, -3});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("negative tile size -3 in dimension 2"), std::string::npos) << e.what();
  }
  P p({1, 2, 3}, {11, 12, 13}, {4, 0, 3});
  EXPECT_EQ(p.num_tiles(0), 3);
  EXPECT_EQ(p.num_tiles(1), 10);  // default: 1 wide except the fastest dimension
  EXPECT_EQ(p.tile_size()[1], 1);
  EXPECT_EQ(p.num_tiles(2), 4);
  EXPECT_EQ(p.size(), 1000);
  // Mixed integer types go through point_type.
  const std::size_t n = 6;
  tessera::MDRangePolicy<Space, tessera::Rank<2>> q({0, 0}, {n, n});
  EXPECT_EQ(q.size(), 36);
}
