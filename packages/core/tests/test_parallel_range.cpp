// parallel_for / parallel_reduce / parallel_scan over RangePolicy, on every back-end.
#include "tessera_test_spaces.hpp"

#include <cmath>
#include <functional>
#include <numeric>
#include <thread>
#include <vector>

template <class Space>
class ParallelRange : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ParallelRange, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(ParallelRange, ForWritesEveryIndexOnce) {
  using Space = TypeParam;
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    tessera::View<int*, Space> v("v", n);
    tessera::parallel_for("mark", tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::int64_t i) { v(i) += 1 + int(i % 3); });
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(h(i), 1 + int(i % 3)) << "n=" << n << " i=" << i;
  }
}

TYPED_TEST(ParallelRange, ForRespectsBeginOffsetAndSchedules) {
  using Space = TypeParam;
  const int n = 5000;
  tessera::View<int*, Space> a("a", n), b("b", n), c("c", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(100, n), TESSERA_LAMBDA(int i) { a(i) = i; });
  tessera::parallel_for(tessera::RangePolicy<Space, tessera::Schedule<tessera::Dynamic>>(0, n, 7),
                        TESSERA_LAMBDA(int i) { b(i) = 2 * i; });
  tessera::parallel_for(tessera::RangePolicy<Space, tessera::Schedule<tessera::Static>>(0, n, 13),
                        TESSERA_LAMBDA(int i) { c(i) = 3 * i; });
  auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), a);
  auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), b);
  auto hc = tessera::create_mirror_view_and_copy(tessera::HostSpace(), c);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(ha(i), i < 100 ? 0 : i);
    ASSERT_EQ(hb(i), 2 * i);
    ASSERT_EQ(hc(i), 3 * i);
  }
}

TYPED_TEST(ParallelRange, ReduceSumScalar) {
  using Space = TypeParam;
  for (std::int64_t n : {0, 1, 2, 999, 1 << 20}) {
    std::int64_t sum = -1;
    tessera::parallel_reduce("sum", tessera::RangePolicy<Space>(0, n),
                             TESSERA_LAMBDA(std::int64_t i, std::int64_t & s) { s += i; }, sum);
    EXPECT_EQ(sum, n * (n - 1) / 2) << "n=" << n;
  }
}

TYPED_TEST(ParallelRange, ReduceIsDeterministicForFloatingPoint) {
  using Space = TypeParam;
  const int n = 1 << 18;
  double first = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double s = 0;
    tessera::parallel_reduce(tessera::RangePolicy<Space, tessera::Schedule<tessera::Dynamic>>(0, n),
                             TESSERA_LAMBDA(int i, double& acc) { acc += 1.0 / (1.0 + i); }, s);
    if (rep == 0) first = s;
    EXPECT_EQ(s, first) << "repeat " << rep;
  }
  EXPECT_NEAR(first, std::log(double(n)) + 0.5772156649, 1e-4);
}

TYPED_TEST(ParallelRange, ScanInclusiveExclusiveAndTotal) {
  using Space = TypeParam;
  for (int n : {0, 1, 2, 17, 100000}) {
    tessera::View<long*, Space> ex("ex", n), in("in", n);
    long total = -1;
    tessera::parallel_scan(
        "scan", tessera::RangePolicy<Space>(0, n),
        TESSERA_LAMBDA(int i, long& update, bool final) {
          if (final) ex(i) = update;
          update += i + 1;
          if (final) in(i) = update;
        },
        total);
    EXPECT_EQ(total, long(n) * (n + 1) / 2);
    auto hex = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ex);
    auto hin = tessera::create_mirror_view_and_copy(tessera::HostSpace(), in);
    long acc = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(hex(i), acc);
      acc += i + 1;
      ASSERT_EQ(hin(i), acc);
    }
  }
}

// parallel_for / parallel_reduce given a count run on the functor's own
// execution_space when it names one (Kokkos's rule), not on the default
// space: a host functor in a build whose default space is Cuda must not be
// launched on the GPU, where its host Views are out of reach.
struct RecordsItsThread {
  using execution_space = tessera::Serial;
  tessera::View<std::size_t*, tessera::HostSpace> ids;  // hashes of std::thread::id
  static std::size_t me() { return std::hash<std::thread::id>{}(std::this_thread::get_id()); }
  void operator()(int i) const { ids(i) = me(); }
  void operator()(int i, long& sum) const {
    ids(i) = me();
    sum += i;
  }
};

TEST(ParallelCount, RunsOnTheFunctorsExecutionSpace) {
  constexpr int n = 4096;
  RecordsItsThread f{tessera::View<std::size_t*, tessera::HostSpace>("ids", n)};
  tessera::parallel_for(n, f);
  for (int i = 0; i < n; ++i) ASSERT_EQ(f.ids(i), RecordsItsThread::me()) << "index " << i << " ran off Serial";
  long sum = 0;
  tessera::parallel_reduce(n, f, sum);
  EXPECT_EQ(sum, long(n) * (n - 1) / 2);
  for (int i = 0; i < n; ++i) ASSERT_EQ(f.ids(i), RecordsItsThread::me()) << "index " << i << " ran off Serial";
}
