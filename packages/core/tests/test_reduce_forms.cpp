// The forms of parallel_reduce: a functor with value_type/init/join/final,
// array reductions of runtime length (value_type T[] with value_count),
// several reducers at once, and bit-identical results across repeated runs.
#include "tessera_test_spaces.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

struct MeanAndCount {
  double sum;
  long count;
};

// A Kokkos-style reduction functor: a non-zero init, a custom join and a
// final step that turns the sum into a mean.
template <class Space>
struct Mean {
  using value_type = MeanAndCount;
  using execution_space = Space;
  tessera::View<const double*, Space> x;
  TESSERA_INLINE_FUNCTION void operator()(int i, value_type& v) const {
    v.sum += x(i);
    v.count += 1;
  }
  TESSERA_INLINE_FUNCTION void init(value_type& v) const {
    v.sum = 0;
    v.count = 0;
  }
  TESSERA_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    dst.sum += src.sum;
    dst.count += src.count;
  }
  TESSERA_INLINE_FUNCTION void final(value_type& v) const {
    if (v.count > 0) v.sum /= double(v.count);
  }
};

// Histogram of i % value_count: an array reduction of runtime length.
template <class Space>
struct Histogram {
  using value_type = long[];
  using size_type = std::size_t;
  unsigned value_count;
  TESSERA_INLINE_FUNCTION void operator()(int i, long* bins) const { bins[i % int(value_count)] += i; }
};

// Array reduction with its own init/join: per-bin maximum.
template <class Space>
struct BinMax {
  using value_type = int[];
  unsigned value_count;
  TESSERA_INLINE_FUNCTION void operator()(int i, int* m) const {
    const int b = i % int(value_count);
    const int v = (i * 37) % 1000 - 500;
    if (v > m[b]) m[b] = v;
  }
  TESSERA_INLINE_FUNCTION void init(int* m) const {
    for (unsigned b = 0; b < value_count; ++b) m[b] = -1000000;
  }
  TESSERA_INLINE_FUNCTION void join(int* dst, const int* src) const {
    for (unsigned b = 0; b < value_count; ++b)
      if (src[b] > dst[b]) dst[b] = src[b];
  }
};

}  // namespace

template <class Space>
class ReduceForms : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ReduceForms, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(ReduceForms, FunctorWithInitJoinFinal) {
  using Space = TypeParam;
  const int n = 5001;
  tessera::View<double*, Space> x("x", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { x(i) = i % 2 ? -3.0 : 5.0; });
  MeanAndCount result{-1, -1};
  tessera::parallel_reduce("mean", tessera::RangePolicy<Space>(0, n), Mean<Space>{x}, result);
  EXPECT_EQ(result.count, n);
  EXPECT_DOUBLE_EQ(result.sum, (2501 * 5.0 - 2500 * 3.0) / n);
  // Into a rank-0 View; and an empty range runs init and final only.
  tessera::View<MeanAndCount, Space> rv("rv");
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 0), Mean<Space>{x}, rv);
  MeanAndCount empty{};
  tessera::deep_copy(empty, rv);
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.sum, 0.0);
}

TYPED_TEST(ReduceForms, ArrayReductionsOfRuntimeLength) {
  using Space = TypeParam;
  const int n = 10000;
  for (unsigned bins : {1u, 3u, 17u, 64u}) {
    std::vector<long> out(bins, -1);
    tessera::parallel_reduce(tessera::RangePolicy<Space>(0, n), Histogram<Space>{bins}, out.data());
    for (unsigned b = 0; b < bins; ++b) {
      long expected = 0;
      for (int i = int(b); i < n; i += int(bins)) expected += i;
      EXPECT_EQ(out[b], expected) << bins << " bins, bin " << b;
    }
    tessera::View<int*, tessera::HostSpace> mx("mx", bins);
    tessera::parallel_reduce(tessera::RangePolicy<Space>(0, n), BinMax<Space>{bins}, mx);
    for (unsigned b = 0; b < bins; ++b) {
      int expected = -1000000;
      for (int i = int(b); i < n; i += int(bins)) expected = std::max(expected, (i * 37) % 1000 - 500);
      EXPECT_EQ(mx(b), expected) << bins << " bins, bin " << b;
    }
  }
}

TYPED_TEST(ReduceForms, SeveralReducersAtOnce) {
  using Space = TypeParam;
  const int n = 4099;
  double sum = 0, mn = 0;
  tessera::ValLocScalar<double, int> mxl{};
  long count = 0;
  tessera::parallel_reduce(
      "several", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(int i, double& s, double& m, tessera::ValLocScalar<double, int>& ml, long& c) {
        const double v = std::cos(0.1 * i) * i;
        s += v;
        if (v < m) m = v;
        if (v > ml.val || (v == ml.val && i < ml.loc)) {
          ml.val = v;
          ml.loc = i;
        }
        c += (v < 0);
      },
      tessera::Sum<double>(sum), tessera::Min<double>(mn), tessera::MaxLoc<double, int>(mxl), tessera::Sum<long>(count));
  double se = 0, me = 1e300, xe = -1e300;
  int at = -1;
  long ce = 0;
  for (int i = 0; i < n; ++i) {
    const double v = std::cos(0.1 * i) * i;
    se += v;
    me = std::min(me, v);
    if (v > xe) {
      xe = v;
      at = i;
    }
    ce += (v < 0);
  }
  EXPECT_NEAR(sum, se, 1e-9 * std::abs(se) + 1e-6);
  EXPECT_EQ(mn, me);
  EXPECT_EQ(mxl.val, xe);
  EXPECT_EQ(mxl.loc, at);
  EXPECT_EQ(count, ce);
}

// sum of x(i) over the policy (a named function: nvcc allows no extended
// lambda inside a generic lambda).
template <class Policy, class X>
double reduce_forms_sum(const Policy& policy, const X& x) {
  double s = 0;
  tessera::parallel_reduce(policy, TESSERA_LAMBDA(int i, double& a) { a += x(i); }, s);
  return s;
}

// Partial results are joined in a fixed order, so a floating-point sum is
// bit-identical across runs for a given back-end and thread count.
TYPED_TEST(ReduceForms, DeterministicAcrossRuns) {
  using Space = TypeParam;
  const int n = 1 << 18;
  tessera::View<double*, Space> x("x", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    x(i) = std::sin(1e-3 * i) * 1e6 + 1e-6 * i;  // magnitudes vary: order matters
  });
  auto run = [&](const auto& policy) { return reduce_forms_sum(policy, x); };
  using Dyn = tessera::RangePolicy<Space, tessera::Schedule<tessera::Dynamic>>;
  const double first_static = run(tessera::RangePolicy<Space>(0, n));
  const double first_dynamic = run(Dyn(0, n, 1000));
  for (int rep = 0; rep < 10; ++rep) {
    const double s = run(tessera::RangePolicy<Space>(0, n));
    const double d = run(Dyn(0, n, 1000));
    EXPECT_EQ(std::memcmp(&s, &first_static, sizeof s), 0) << "static run " << rep;
    EXPECT_EQ(std::memcmp(&d, &first_dynamic, sizeof d), 0) << "dynamic run " << rep;
  }
}

// Kokkos also accepts plain scalars and rank-0 Views among several results:
// each is summed into.
TYPED_TEST(ReduceForms, SeveralResultsMixScalarsViewsAndReducers) {
  using Space = TypeParam;
  const int n = 1000;
  long count = -1;
  tessera::View<double, tessera::HostSpace> total("total");
  int biggest = 0;
  tessera::parallel_reduce(
      "mixed", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(int i, long& c, double& t, int& m) {
        c += 1;
        t += 0.5 * i;
        if (i > m) m = i;
      },
      count, total, tessera::Max<int>(biggest));
  EXPECT_EQ(count, n);
  EXPECT_EQ(total(), 0.5 * n * (n - 1) / 2);
  EXPECT_EQ(biggest, n - 1);
}

template <class V>
auto read_on_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v)();
}

// Several results in rank-0 Views of the space's own memory (device memory
// on a GPU, which the host cannot write), alone and beside a host scalar,
// under the three policies. On a GPU the kernel writes those Views itself
// and the host copies back only the scalar.
TYPED_TEST(ReduceForms, SeveralResultsInViewsOfTheSpacesMemory) {
  using Space = TypeParam;
  using Mem = typename Space::memory_space;
  tessera::View<long, Mem> count("count");
  tessera::View<double, Mem> total("total");
  tessera::View<int, Mem> biggest("biggest");

  const int n = 5000;
  tessera::parallel_reduce(
      "views", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(int i, long& c, double& t, int& m) {
        c += 1;
        t += 0.5 * i;
        if (i > m) m = i;
      },
      count, total, tessera::Max<int, Mem>(biggest));
  EXPECT_EQ(read_on_host(count), n);
  EXPECT_EQ(read_on_host(total), 0.5 * n * (n - 1) / 2);
  EXPECT_EQ(read_on_host(biggest), n - 1);

  long host_count = -1;
  tessera::parallel_reduce(
      "beside a host scalar", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(int i, long& c, double& t) {
        c += 1;
        t += i;
      },
      host_count, total);
  EXPECT_EQ(host_count, n);
  EXPECT_EQ(read_on_host(total), double(n) * (n - 1) / 2);

  const int n0 = 37, n1 = 53;
  tessera::parallel_reduce(
      "mdrange", tessera::MDRangePolicy<Space, tessera::Rank<2>>({0, 0}, {n0, n1}),
      TESSERA_LAMBDA(int i, int j, long& c, int& m) {
        c += 1;
        if (i * n1 + j > m) m = i * n1 + j;
      },
      count, tessera::Max<int, Mem>(biggest));
  EXPECT_EQ(read_on_host(count), long(n0) * n1);
  EXPECT_EQ(read_on_host(biggest), n0 * n1 - 1);

  const int league = 19;
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  tessera::parallel_reduce(
      "team", tessera::TeamPolicy<Space>(league, tessera::AUTO),
      TESSERA_LAMBDA(const Member& m, long& c, int& mx) {
        if (m.team_rank() == 0) {
          c += m.league_rank();
          if (m.league_rank() > mx) mx = m.league_rank();
        }
      },
      count, tessera::Max<int, Mem>(biggest));
  EXPECT_EQ(read_on_host(count), long(league) * (league - 1) / 2);
  EXPECT_EQ(read_on_host(biggest), league - 1);
}
