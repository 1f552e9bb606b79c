// Built-in reducers (Sum, Prod, Min, Max, LAnd, LOr, BAnd, BOr, MinLoc,
// MaxLoc, MinMax, MinMaxLoc) and a user reducer, over negative and mixed
// floating-point data and integer data, with the result in a scalar and in
// a rank-0 View, and the identity on empty ranges.
#include "tessera_test_spaces.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

constexpr int N = 10007;

// Host copies of the data, for the expected values.
std::vector<double> mixed_host() {
  std::vector<double> h(N);
  for (int i = 0; i < N; ++i) h[i] = std::sin(0.37 * i) * 100.0 - 20.0;
  return h;
}
std::vector<double> negative_host() {
  std::vector<double> h(N);
  for (int i = 0; i < N; ++i) h[i] = -0.25 * (1 + (i * 31) % 97);
  return h;
}
std::vector<long> int_host() {
  std::vector<long> h(N);
  for (int i = 0; i < N; ++i) h[i] = (long(i) * 7919) % 1001 - 500;  // repeats: ties for the Loc reducers
  return h;
}

template <class T, class Space>
tessera::View<T*, Space> to_device(const std::vector<T>& h) {
  tessera::View<T*, tessera::HostSpace, tessera::MemoryUnmanaged> hv(const_cast<T*>(h.data()), h.size());
  tessera::View<T*, Space> d("data", h.size());
  tessera::deep_copy(d, hv);
  return d;
}

// A user reducer: the element of largest absolute value (Kokkos' reducer concept).
template <class T, class Space = tessera::HostSpace>
struct AbsMax {
  using reducer = AbsMax;
  using value_type = T;
  T* ptr;
  bool on_host;
  explicit AbsMax(T& r) : ptr(&r), on_host(true) {}
  template <class V>
  explicit AbsMax(const V& v) : ptr(v.data()), on_host(true) {}
  TESSERA_INLINE_FUNCTION void join(T& dst, const T& src) const {
    if ((src < 0 ? -src : src) > (dst < 0 ? -dst : dst)) dst = src;
  }
  TESSERA_INLINE_FUNCTION void init(T& v) const { v = T(0); }
  TESSERA_INLINE_FUNCTION T& reference() const { return *ptr; }
  TESSERA_INLINE_FUNCTION T* data() const { return ptr; }
  TESSERA_INLINE_FUNCTION bool references_scalar() const { return on_host; }
};

template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}

}  // namespace

template <class Space>
class Reducers : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Reducers, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(Reducers, FloatingSumProdMinMax) {
  using Space = TypeParam;
  using Policy = tessera::RangePolicy<Space>;
  for (const auto& h : {mixed_host(), negative_host()}) {
    auto x = to_device<double, Space>(h);
    double sum_e = 0, min_e = h[0], max_e = h[0];
    for (double v : h) {
      sum_e += v;
      min_e = std::min(min_e, v);
      max_e = std::max(max_e, v);
    }
    double sum = 0, mn = 0, mx = 0;
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, double& s) { s += x(i); }, tessera::Sum<double>(sum));
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, double& m) { if (x(i) < m) m = x(i); },
                             tessera::Min<double>(mn));
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, double& m) { if (x(i) > m) m = x(i); },
                             tessera::Max<double>(mx));
    EXPECT_NEAR(sum, sum_e, 1e-9 * std::abs(sum_e) + 1e-9);
    EXPECT_EQ(mn, min_e);
    EXPECT_EQ(mx, max_e);
    // Max of all-negative data must not come out as 0 (the identity is -inf).
    if (max_e < 0) {
      EXPECT_LT(mx, 0.0);
    }
  }
  // Prod over values near 1 (negative ones flip the sign).
  double prod = 0, prod_e = 1;
  for (int i = 0; i < 200; ++i) prod_e *= (i % 7 == 0 ? -1.0 : 1.0) * (1.0 + 0.001 * (i % 13));
  tessera::parallel_reduce(Policy(0, 200), TESSERA_LAMBDA(int i, double& p) {
    p *= (i % 7 == 0 ? -1.0 : 1.0) * (1.0 + 0.001 * (i % 13));
  }, tessera::Prod<double>(prod));
  EXPECT_NEAR(prod, prod_e, 1e-12 * std::abs(prod_e));
  float fsum = 0;
  tessera::parallel_reduce(Policy(0, 1000), TESSERA_LAMBDA(int i, float& s) { s += (i % 2 ? -0.5f : 0.25f); },
                           tessera::Sum<float>(fsum));
  EXPECT_EQ(fsum, -125.0f);
}

TYPED_TEST(Reducers, IntegerAndLogicalAndBitwise) {
  using Space = TypeParam;
  using Policy = tessera::RangePolicy<Space>;
  const auto h = int_host();
  auto x = to_device<long, Space>(h);
  long sum_e = 0, min_e = h[0], max_e = h[0];
  for (long v : h) {
    sum_e += v;
    min_e = std::min(min_e, v);
    max_e = std::max(max_e, v);
  }
  long sum = 0, mn = 0, mx = 0, prod = 0;
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, long& s) { s += x(i); }, tessera::Sum<long>(sum));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, long& m) { m = x(i) < m ? x(i) : m; }, tessera::Min<long>(mn));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, long& m) { m = x(i) > m ? x(i) : m; }, tessera::Max<long>(mx));
  tessera::parallel_reduce(Policy(0, 20), TESSERA_LAMBDA(int i, long& p) { p *= (i % 3) - 2 == 0 ? 2 : -1; },
                           tessera::Prod<long>(prod));
  EXPECT_EQ(sum, sum_e);
  EXPECT_EQ(mn, min_e);
  EXPECT_EQ(mx, max_e);
  long prod_e = 1;
  for (int i = 0; i < 20; ++i) prod_e *= (i % 3) - 2 == 0 ? 2 : -1;
  EXPECT_EQ(prod, prod_e);

  int all_in_range = 0, any_zero = 0, any_big = 1, all_positive = 1;
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, int& a) { a = a && (x(i) >= -500 && x(i) <= 500); },
                           tessera::LAnd<int>(all_in_range));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, int& a) { a = a || x(i) == 0; }, tessera::LOr<int>(any_zero));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, int& a) { a = a || x(i) > 500; }, tessera::LOr<int>(any_big));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, int& a) { a = a && x(i) > 0; },
                           tessera::LAnd<int>(all_positive));
  EXPECT_TRUE(all_in_range);
  EXPECT_EQ(any_zero, int(std::count(h.begin(), h.end(), 0L) > 0));
  EXPECT_FALSE(any_big);
  EXPECT_FALSE(all_positive);

  std::uint32_t band = 0, bor = 0;
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, std::uint32_t& b) { b &= ~(1u << (i % 31)) | 0x80000000u; },
                           tessera::BAnd<std::uint32_t>(band));
  tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, std::uint32_t& b) { b |= 1u << (i % 17); },
                           tessera::BOr<std::uint32_t>(bor));
  EXPECT_EQ(band, 0x80000000u);
  EXPECT_EQ(bor, (1u << 17) - 1);
}

TYPED_TEST(Reducers, LocationReducersBreakTiesByLowestIndex) {
  using Space = TypeParam;
  using Policy = tessera::RangePolicy<Space>;
  for (bool floating : {true, false}) {
    std::vector<double> h;
    if (floating) {
      h = mixed_host();
    } else {
      for (long v : int_host()) h.push_back(double(v));
    }
    auto x = to_device<double, Space>(h);
    int min_at = 0, max_at = 0;
    for (int i = 1; i < N; ++i) {
      if (h[i] < h[min_at]) min_at = i;
      if (h[i] > h[max_at]) max_at = i;
    }
    using VL = tessera::ValLocScalar<double, int>;
    VL mnl{}, mxl{};
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, VL& v) {
      if (x(i) < v.val || (x(i) == v.val && i < v.loc)) { v.val = x(i); v.loc = i; }
    }, tessera::MinLoc<double, int>(mnl));
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, VL& v) {
      if (x(i) > v.val || (x(i) == v.val && i < v.loc)) { v.val = x(i); v.loc = i; }
    }, tessera::MaxLoc<double, int>(mxl));
    EXPECT_EQ(mnl.val, h[min_at]);
    EXPECT_EQ(mnl.loc, min_at) << "ties go to the lowest index";
    EXPECT_EQ(mxl.val, h[max_at]);
    EXPECT_EQ(mxl.loc, max_at);

    tessera::MinMaxScalar<double> mm{};
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, tessera::MinMaxScalar<double>& v) {
      if (x(i) < v.min_val) v.min_val = x(i);
      if (x(i) > v.max_val) v.max_val = x(i);
    }, tessera::MinMax<double>(mm));
    EXPECT_EQ(mm.min_val, h[min_at]);
    EXPECT_EQ(mm.max_val, h[max_at]);

    using MML = tessera::MinMaxLocScalar<double, int>;
    MML mml{};
    tessera::parallel_reduce(Policy(0, N), TESSERA_LAMBDA(int i, MML& v) {
      if (x(i) < v.min_val || (x(i) == v.min_val && i < v.min_loc)) { v.min_val = x(i); v.min_loc = i; }
      if (x(i) > v.max_val || (x(i) == v.max_val && i < v.max_loc)) { v.max_val = x(i); v.max_loc = i; }
    }, tessera::MinMaxLoc<double, int>(mml));
    EXPECT_EQ(mml.min_val, h[min_at]);
    EXPECT_EQ(mml.min_loc, min_at);
    EXPECT_EQ(mml.max_val, h[max_at]);
    EXPECT_EQ(mml.max_loc, max_at);
  }
}

TYPED_TEST(Reducers, UserReducer) {
  using Space = TypeParam;
  const auto h = mixed_host();
  auto x = to_device<double, Space>(h);
  double expected = 0;
  for (double v : h)
    if (std::abs(v) > std::abs(expected)) expected = v;
  double got = 1;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i, double& m) {
    if ((x(i) < 0 ? -x(i) : x(i)) > (m < 0 ? -m : m)) m = x(i);
  }, AbsMax<double>(got));
  EXPECT_EQ(got, expected);
  EXPECT_LT(got, 0.0) << "the data's largest magnitude is negative";
}

TYPED_TEST(Reducers, ResultIntoRankZeroView) {
  using Space = TypeParam;
  using Mem = typename Space::memory_space;
  const auto h = int_host();
  auto x = to_device<long, Space>(h);
  tessera::View<long, Space> sum("sum"), mn("min");
  tessera::View<tessera::ValLocScalar<long, int>, Space> ml("maxloc");
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i, long& s) { s += x(i); },
                           tessera::Sum<long, Mem>(sum));
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i, long& m) { if (x(i) < m) m = x(i); },
                           tessera::Min<long, Mem>(mn));
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i, tessera::ValLocScalar<long, int>& v) {
    if (x(i) > v.val || (x(i) == v.val && i < v.loc)) { v.val = x(i); v.loc = i; }
  }, tessera::MaxLoc<long, int, Mem>(ml));
  // Plain View result (summation) too.
  tessera::View<long, Space> plain("plain");
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i, long& s) { s += x(i); }, plain);
  long s = 0, m = 0, p = 0;
  tessera::ValLocScalar<long, int> vl{};
  tessera::deep_copy(s, sum);
  tessera::deep_copy(m, mn);
  tessera::deep_copy(vl, ml);
  tessera::deep_copy(p, plain);
  long se = 0, me = h[0];
  int at = 0;
  for (int i = 0; i < N; ++i) {
    se += h[i];
    me = std::min(me, h[i]);
    if (h[i] > h[at]) at = i;
  }
  EXPECT_EQ(s, se);
  EXPECT_EQ(p, se);
  EXPECT_EQ(m, me);
  EXPECT_EQ(vl.val, h[at]);
  EXPECT_EQ(vl.loc, at);
}

TYPED_TEST(Reducers, EmptyRangesGiveTheIdentity) {
  using Space = TypeParam;
  using Policy = tessera::RangePolicy<Space>;
  auto nothing_d = TESSERA_LAMBDA(int, double&) {};
  auto nothing_i = TESSERA_LAMBDA(int, int&) {};
  double s = 5, p = 5, mn = 5, mx = 5;
  tessera::parallel_reduce(Policy(3, 3), nothing_d, tessera::Sum<double>(s));
  tessera::parallel_reduce(Policy(3, 3), nothing_d, tessera::Prod<double>(p));
  tessera::parallel_reduce(Policy(3, 3), nothing_d, tessera::Min<double>(mn));
  tessera::parallel_reduce(Policy(3, 3), nothing_d, tessera::Max<double>(mx));
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(p, 1.0);
  EXPECT_EQ(mn, std::numeric_limits<double>::infinity());
  EXPECT_EQ(mx, -std::numeric_limits<double>::infinity());
  int imn = 0, imx = 0, land = 0, lor = 1, band = 0, bor = 1;
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::Min<int>(imn));
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::Max<int>(imx));
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::LAnd<int>(land));
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::LOr<int>(lor));
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::BAnd<int>(band));
  tessera::parallel_reduce(Policy(0, 0), nothing_i, tessera::BOr<int>(bor));
  EXPECT_EQ(imn, std::numeric_limits<int>::max());
  EXPECT_EQ(imx, std::numeric_limits<int>::lowest());
  EXPECT_EQ(land, 1);
  EXPECT_EQ(lor, 0);
  EXPECT_EQ(band, ~0);
  EXPECT_EQ(bor, 0);
  tessera::ValLocScalar<double, int> vl{1, 1};
  tessera::parallel_reduce(Policy(0, 0), TESSERA_LAMBDA(int, tessera::ValLocScalar<double, int>&) {},
                           tessera::MinLoc<double, int>(vl));
  EXPECT_EQ(vl.val, std::numeric_limits<double>::infinity());
  EXPECT_EQ(vl.loc, std::numeric_limits<int>::max());
}
