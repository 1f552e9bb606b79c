// Random_XorShift64_Pool / Random_XorShift1024_Pool and fill_random, on every back-end.
#include "tessera_test_spaces.hpp"

#include <tessera/core/random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

template <class Space>
class Random : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Random, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

struct Moments {
  double mean, var, min, max;
};

template <class H>
Moments moments(const H& h) {
  const std::size_t n = h.extent(0);
  double s = 0, mn = 1e300, mx = -1e300;
  for (std::size_t i = 0; i < n; ++i) {
    s += double(h(i));
    mn = std::min(mn, double(h(i)));
    mx = std::max(mx, double(h(i)));
  }
  const double mean = s / double(n);
  double v = 0;
  for (std::size_t i = 0; i < n; ++i) v += (double(h(i)) - mean) * (double(h(i)) - mean);
  return {mean, v / double(n - 1), mn, mx};
}

// Draws one value per kind and index in a kernel, each work item taking and
// returning a generator. (Views passed in: nvcc forbids device lambdas in
// functions with a deduced return type.)
template <class Space, class Pool>
void draw_all(const Pool& pool, const tessera::View<double*, Space>& u, const tessera::View<double*, Space>& d,
              const tessera::View<double*, Space>& g, const tessera::View<double*, Space>& f,
              const tessera::View<std::int64_t*, Space>& r) {
  tessera::parallel_for(tessera::RangePolicy<Space>(0, u.extent(0)), TESSERA_LAMBDA(std::size_t i) {
    auto gen = pool.get_state();
    u(i) = double(gen.urand()) / 4294967296.0;
    d(i) = gen.drand();
    g(i) = gen.normal();
    f(i) = double(gen.frand(-2.0f, 2.0f));
    r(i) = gen.rand64(-5, 6);
    pool.free_state(gen);
  });
}

}  // namespace

template <class Pool, class Space>
void check_statistics() {
  const int n = 1000000;
  Pool pool(20240611);
  tessera::View<double*, Space> du("u", n), dd("d", n), dg("g", n), df("f", n);
  tessera::View<std::int64_t*, Space> dr("r", n);
  draw_all(pool, du, dd, dg, df, dr);
  auto u = tessera::create_mirror_view_and_copy(tessera::HostSpace(), du);
  auto d = tessera::create_mirror_view_and_copy(tessera::HostSpace(), dd);
  auto g = tessera::create_mirror_view_and_copy(tessera::HostSpace(), dg);
  auto f = tessera::create_mirror_view_and_copy(tessera::HostSpace(), df);
  auto r = tessera::create_mirror_view_and_copy(tessera::HostSpace(), dr);
  // Uniform [0,1): mean 1/2, variance 1/12; standard error of the mean ~3e-4.
  auto mu = moments(u);
  EXPECT_NEAR(mu.mean, 0.5, 2e-3);
  EXPECT_NEAR(mu.var, 1.0 / 12, 2e-3);
  auto md = moments(d);
  EXPECT_NEAR(md.mean, 0.5, 2e-3);
  EXPECT_NEAR(md.var, 1.0 / 12, 2e-3);
  EXPECT_GE(md.min, 0.0);
  EXPECT_LT(md.max, 1.0);
  auto mg = moments(g);
  EXPECT_NEAR(mg.mean, 0.0, 5e-3);
  EXPECT_NEAR(mg.var, 1.0, 1e-2);
  auto mf = moments(f);
  EXPECT_NEAR(mf.mean, 0.0, 1e-2);
  EXPECT_NEAR(mf.var, 16.0 / 12, 1e-2);
  EXPECT_GE(mf.min, -2.0);
  EXPECT_LT(mf.max, 2.0);
  // Integers in [-5, 6): every one of the 11 values about equally often.
  std::vector<int> count(11, 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(r(i), -5);
    ASSERT_LT(r(i), 6);
    ++count[r(i) + 5];
  }
  for (int c : count) EXPECT_NEAR(double(c) / n, 1.0 / 11, 3e-3);
}

TYPED_TEST(Random, XorShift64Statistics) {
  check_statistics<tessera::Random_XorShift64_Pool<TypeParam>, TypeParam>();
}
TYPED_TEST(Random, XorShift1024Statistics) {
  check_statistics<tessera::Random_XorShift1024_Pool<TypeParam>, TypeParam>();
}

// states x draws values: work item s uses state s explicitly, which is
// deterministic on every back-end.
template <class Space>
typename tessera::View<std::uint64_t**, Space>::HostMirror draw_streams(std::uint64_t seed, int states, int draws) {
  tessera::Random_XorShift64_Pool<Space> pool(seed, states);
  tessera::View<std::uint64_t**, Space> out("out", states, draws);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, states), TESSERA_LAMBDA(int s) {
    auto gen = pool.get_state(s);
    for (int k = 0; k < draws; ++k) out(s, k) = gen.urand64();
    pool.free_state(gen);
  });
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
}

TYPED_TEST(Random, SameSeedSameStreamsDifferentSeedsDiffer) {
  using Space = TypeParam;
  using Pool = tessera::Random_XorShift64_Pool<Space>;
  const int states = 8, draws = 1000;
  auto a = draw_streams<Space>(42, states, draws), b = draw_streams<Space>(42, states, draws);
  auto c = draw_streams<Space>(43, states, draws), z = draw_streams<Space>(0, states, draws);
  std::set<std::uint64_t> seen;
  for (int s = 0; s < states; ++s)
    for (int k = 0; k < draws; ++k) {
      ASSERT_EQ(a(s, k), b(s, k)) << "state " << s << " draw " << k;
      seen.insert(a(s, k));
    }
  // Distinct states give distinct streams (no two equal draws anywhere).
  EXPECT_EQ(seen.size(), std::size_t(states * draws));
  int same = 0;
  for (int s = 0; s < states; ++s)
    for (int k = 0; k < draws; ++k) same += a(s, k) == c(s, k);
  EXPECT_EQ(same, 0) << "seeds 42 and 43 must give different streams";
  EXPECT_NE(z(0, 0), 0u) << "seed 0 is a valid seed";
  // Independence of neighbouring streams: correlation of state 0 and 1 near 0.
  Pool pool(7, 2);
  const int n = 100000;
  tessera::View<double**, Space> xy("xy", 2, n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 2), TESSERA_LAMBDA(int s) {
    auto gen = pool.get_state(s);
    for (int k = 0; k < n; ++k) xy(s, k) = gen.drand();
    pool.free_state(gen);
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), xy);
  double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
  for (int k = 0; k < n; ++k) {
    sx += h(0, k), sy += h(1, k), sxy += h(0, k) * h(1, k), sxx += h(0, k) * h(0, k), syy += h(1, k) * h(1, k);
  }
  const double cov = sxy / n - sx / n * sy / n;
  const double corr = cov / std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
  EXPECT_LT(std::abs(corr), 0.02);
}

TYPED_TEST(Random, GeneratorStateAdvancesAcrossGetFree) {
  using Space = TypeParam;
  tessera::Random_XorShift64_Pool<Space> pool(5, 1);
  tessera::View<std::uint64_t*, Space> v("v", 2);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    auto g = pool.get_state();
    v(0) = g.urand64();
    pool.free_state(g);
    auto g2 = pool.get_state();  // the one state, now advanced
    v(1) = g2.urand64();
    pool.free_state(g2);
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  tessera::Random_XorShift64_Pool<Space> fresh(5, 1);
  tessera::View<std::uint64_t*, Space> w("w", 2);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    auto g = fresh.get_state();
    w(0) = g.urand64();
    w(1) = g.urand64();
    fresh.free_state(g);
  });
  auto hw = tessera::create_mirror_view_and_copy(tessera::HostSpace(), w);
  EXPECT_EQ(h(0), hw(0));
  EXPECT_EQ(h(1), hw(1)) << "free_state must store the advanced state";
}

TYPED_TEST(Random, GeneratorsAreExclusiveUnderContention) {
  using Space = TypeParam;
  // Fewer states than threads: every work item must still get a state nobody
  // else holds; two holders of one state would draw the same value.
  tessera::Random_XorShift64_Pool<Space> pool(99, 1);
  const int n = 20000;
  tessera::View<std::uint64_t*, Space> v("v", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    auto g = pool.get_state();
    v(i) = g.urand64();
    pool.free_state(g);
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  std::set<std::uint64_t> s(h.data(), h.data() + n);
  EXPECT_EQ(s.size(), std::size_t(n)) << "a state was handed to two holders at once";
}

TYPED_TEST(Random, OneStateSharedByEveryWorkItemGivesItsStreamInSomeOrder) {
  using Space = TypeParam;
  // Every work item takes state 0 by index (get_state(i) waits while another
  // holds it), draws once and frees it: the draws are state 0's stream, each
  // value once, in whatever order the holders came.
  const int n = 20000;
  tessera::Random_XorShift64_Pool<Space> pool(4242, 4);
  tessera::View<std::uint64_t*, Space> drawn("drawn", n);
  tessera::View<int, Space> count("count");
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int) {
    auto g = pool.get_state(0);
    const std::uint64_t x = g.urand64();
    pool.free_state(g);
    drawn(tessera::atomic_fetch_add(&count(), 1)) = x;
  });
  // The reference: state 0 of a pool with the same seed, drawn n times by one holder.
  tessera::Random_XorShift64_Pool<Space> fresh(4242, 4);
  tessera::View<std::uint64_t*, Space> stream("stream", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    auto g = fresh.get_state(0);
    for (int k = 0; k < n; ++k) stream(k) = g.urand64();
    fresh.free_state(g);
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), drawn);
  auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), stream);
  std::vector<std::uint64_t> got(h.data(), h.data() + n), want(hs.data(), hs.data() + n);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << "two holders drew from state 0 at once, or a holder's advance was lost";
}

TYPED_TEST(Random, IntegerRangeBounds) {
  using Space = TypeParam;
  tessera::Random_XorShift64_Pool<Space> pool(3);
  const int n = 200000;
  tessera::View<int*, Space> full("full", n), one("one", n), neg("neg", n), zero("zero", n);
  tessera::View<std::uint32_t*, Space> u("u", n);
  tessera::View<std::int64_t*, Space> big("big", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    auto g = pool.get_state();
    full(i) = g.rand(-2147483647 - 1, 2147483647);  // whole int range but the top value
    one(i) = g.rand(7, 8);                          // a single value
    neg(i) = g.rand(-3, -1);
    zero(i) = g.rand(0);                            // empty range gives 0
    u(i) = g.urand(10u, 13u);
    big(i) = g.rand64(std::int64_t(1) << 40, (std::int64_t(1) << 40) + 3);
    pool.free_state(g);
  });
  auto hf = tessera::create_mirror_view_and_copy(tessera::HostSpace(), full);
  auto ho = tessera::create_mirror_view_and_copy(tessera::HostSpace(), one);
  auto hn = tessera::create_mirror_view_and_copy(tessera::HostSpace(), neg);
  auto hz = tessera::create_mirror_view_and_copy(tessera::HostSpace(), zero);
  auto hu = tessera::create_mirror_view_and_copy(tessera::HostSpace(), u);
  auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), big);
  bool saw_negative = false, saw_positive = false;
  std::set<int> negs;
  std::set<std::uint32_t> us;
  std::set<std::int64_t> bigs;
  for (int i = 0; i < n; ++i) {
    ASSERT_LT(hf(i), 2147483647);
    saw_negative |= hf(i) < -1000000000;
    saw_positive |= hf(i) > 1000000000;
    ASSERT_EQ(ho(i), 7);
    negs.insert(hn(i));
    ASSERT_EQ(hz(i), 0);
    us.insert(hu(i));
    bigs.insert(hb(i));
  }
  EXPECT_TRUE(saw_negative && saw_positive) << "the full range must be covered";
  EXPECT_EQ(negs, (std::set<int>{-3, -2}));
  EXPECT_EQ(us, (std::set<std::uint32_t>{10, 11, 12}));
  const std::int64_t b0 = std::int64_t(1) << 40;
  EXPECT_EQ(bigs, (std::set<std::int64_t>{b0, b0 + 1, b0 + 2}));
}

TYPED_TEST(Random, FillRandomRangesAndDeterminism) {
  using Space = TypeParam;
  const int n = 300001;
  tessera::View<double*, Space> d("d", n);
  tessera::View<float*, Space> f("f", n);
  tessera::View<int*, Space> i32("i32", n);
  tessera::View<std::uint64_t*, Space> u64("u64", n);
  tessera::View<short**, tessera::LayoutLeft, Space> s2("s2", 301, 7);
  tessera::Random_XorShift64_Pool<Space> pool(12345, 4);
  tessera::fill_random(d, pool, -1.0, 3.0);
  tessera::fill_random(f, pool, 2.0f);
  tessera::fill_random(i32, pool, -10, 10);
  tessera::fill_random(u64, pool, std::uint64_t(1) << 63, ~std::uint64_t(0));
  tessera::fill_random(s2, pool, short(5));
  auto hd = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d);
  auto hf = tessera::create_mirror_view_and_copy(tessera::HostSpace(), f);
  auto hi = tessera::create_mirror_view_and_copy(tessera::HostSpace(), i32);
  auto hu = tessera::create_mirror_view_and_copy(tessera::HostSpace(), u64);
  auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), s2);
  auto md = moments(hd);
  EXPECT_GE(md.min, -1.0);
  EXPECT_LT(md.max, 3.0);
  EXPECT_NEAR(md.mean, 1.0, 2e-2);
  EXPECT_NEAR(md.var, 16.0 / 12, 2e-2);
  auto mf = moments(hf);
  EXPECT_GE(mf.min, 0.0);
  EXPECT_LT(mf.max, 2.0);
  EXPECT_NEAR(mf.mean, 1.0, 1e-2);
  std::set<int> ints;
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(hi(i), -10);
    ASSERT_LT(hi(i), 10);
    ints.insert(hi(i));
    ASSERT_GE(hu(i), std::uint64_t(1) << 63);
    ASSERT_LT(hu(i), ~std::uint64_t(0));
  }
  EXPECT_EQ(ints.size(), 20u) << "all 20 values of [-10, 10) must appear";
  std::set<short> shorts;
  for (int i = 0; i < 301; ++i)
    for (int j = 0; j < 7; ++j) {
      ASSERT_GE(hs(i, j), 0);
      ASSERT_LT(hs(i, j), 5);
      shorts.insert(hs(i, j));
    }
  EXPECT_EQ(shorts.size(), 5u);

  // The same seed and state count reproduce the same fill; a second fill
  // with the same pool continues the streams.
  tessera::Random_XorShift64_Pool<Space> again(12345, 4);
  tessera::View<double*, Space> d2("d2", n);
  tessera::fill_random(d2, again, -1.0, 3.0);
  auto hd2 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d2);
  for (int i = 0; i < n; ++i) ASSERT_EQ(hd(i), hd2(i)) << "i=" << i;
  tessera::fill_random(d2, again, -1.0, 3.0);
  tessera::deep_copy(hd2, d2);
  int equal = 0;
  for (int i = 0; i < n; ++i) equal += hd(i) == hd2(i);
  EXPECT_LT(equal, 10) << "a second fill must continue the streams, not repeat them";

  // Subviews (strided) are filled through their index map.
  tessera::View<double**, Space> m("m", 50, 40);
  auto col = tessera::subview(m, tessera::ALL, 3);
  tessera::fill_random(col, pool, 1.0, 2.0);
  auto hm = tessera::create_mirror_view_and_copy(tessera::HostSpace(), m);
  for (int i = 0; i < 50; ++i)
    for (int j = 0; j < 40; ++j) {
      if (j == 3) {
        ASSERT_GE(hm(i, j), 1.0);
        ASSERT_LT(hm(i, j), 2.0);
      } else {
        ASSERT_EQ(hm(i, j), 0.0) << "fill_random wrote outside the subview at " << i << "," << j;
      }
    }
}

TYPED_TEST(Random, FillRandomBadInput) {
  using Space = TypeParam;
  tessera::View<int*, Space> v("my_values", 10);
  tessera::Random_XorShift64_Pool<Space> pool(1);
  try {
    tessera::fill_random(v, pool, 5, 5);
    FAIL() << "an empty range must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("my_values"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[5, 5)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tessera::fill_random(v, pool, -3), std::runtime_error);
  tessera::Random_XorShift64_Pool<Space> never;
  EXPECT_THROW(tessera::fill_random(v, never, 3), std::runtime_error);
  EXPECT_THROW((tessera::Random_XorShift64_Pool<Space>(1, 0)), std::runtime_error);
  tessera::View<int*, Space> empty("empty", 0);
  EXPECT_NO_THROW(tessera::fill_random(empty, pool, 3));
}

TEST(RandomGenerator, StandaloneGeneratorIsReproducible) {
  tessera::Random_XorShift64<tessera::Serial> a(77), b(77);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.urand64(), b.urand64());
  tessera::Random_XorShift1024<tessera::Serial> c(77), d(78);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += c.urand64() == d.urand64();
  EXPECT_EQ(same, 0);
  for (int i = 0; i < 100000; ++i) {
    const double x = a.drand(2.0, 2.5);
    ASSERT_GE(x, 2.0);
    ASSERT_LT(x, 2.5);
    ASSERT_LT(a.urand(3u), 3u);
    ASSERT_LT(a.urand64(std::uint64_t(5)), 5u);
    ASSERT_LE(a.rand(), int(0x7fffffff));
  }
}
