// Timer, Array<T, N> and tessera::printf, on every back-end.
#include "tessera_test_spaces.hpp"

#include <tessera/core/array.hpp>
#include <tessera/core/detail/fast_divisor.hpp>
#include <tessera/core/printf.hpp>
#include <tessera/core/timer.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

template <class Space>
class Utilities : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Utilities, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// The CUDA MDRange kernels map threads to points with FastDivisor; checked
// here against plain division on the divisors and numerators where such
// methods break (powers of two and their neighbours, the largest values)
// and on random ones.
TEST(FastDivisor, AgreesWithDivisionOnEdgeAndRandomValues) {
  std::vector<std::uint32_t> divisors, numerators = {0u, 1u, 2u, 3u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  for (std::uint32_t d = 1; d <= 1000; ++d) divisors.push_back(d);
  for (int b = 1; b <= 31; ++b) {
    const std::uint32_t p = std::uint32_t(1) << b;
    divisors.insert(divisors.end(), {p - 1, p, p + 1});
    numerators.insert(numerators.end(), {p - 1, p, p + 1, p * 2 - 1});
  }
  std::mt19937 rng(20261127);
  for (int k = 0; k < 2000; ++k) divisors.push_back(1u + rng() % 0x80000000u);
  for (int k = 0; k < 200; ++k) numerators.push_back(std::uint32_t(rng()));
  for (std::uint32_t d : divisors) {
    if (d == 0 || d > 0x80000000u) continue;
    const tessera::detail::FastDivisor fd(d);
    for (std::uint32_t n : numerators) ASSERT_EQ(fd.divide(n), n / d) << n << " / " << d;
  }
}

TEST(Timer, MeasuresElapsedTimeAndResets) {
  tessera::Timer t;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double a = t.seconds();
  EXPECT_GE(a, 0.029);
  EXPECT_LT(a, 5.0);
  const double b = t.seconds();
  EXPECT_GE(b, a) << "seconds() must be monotonic";
  t.reset();
  const double c = t.seconds();
  EXPECT_LT(c, a) << "reset() must restart the interval";
  EXPECT_GE(c, 0.0);
  tessera::Timer copy = t;  // copies keep the start point
  EXPECT_GE(copy.seconds(), c);
}

TEST(Array, AggregateAndContainerInterface) {
  tessera::Array<int, 4> a{3, 1, 4, 1};
  static_assert(std::is_trivially_copyable_v<tessera::Array<int, 4>>);
  static_assert(tessera::Array<int, 4>::size() == 4);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a[2], 4);
  EXPECT_EQ(a.data(), &a[0]);
  EXPECT_EQ(a.front(), 3);
  EXPECT_EQ(a.back(), 1);
  int sum = 0;
  for (int x : a) sum += x;
  EXPECT_EQ(sum, 9);
  EXPECT_EQ(a.end() - a.begin(), 4);
  a[3] = 5;
  EXPECT_EQ(a[3], 5);
  tessera::Array<int, 4> b = a;
  EXPECT_TRUE(a == b);
  b.fill(7);
  EXPECT_TRUE(a != b);
  EXPECT_EQ(b[0] + b[3], 14);
  auto [x, y, z, w] = a;
  EXPECT_EQ(x + y + z + w, 13);
  tessera::Array deduced{1.5, 2.5};
  static_assert(std::is_same_v<decltype(deduced), tessera::Array<double, 2>>);
  EXPECT_EQ(tessera::get<1>(deduced), 2.5);
  const tessera::Array<int, 0> empty{};
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.begin(), empty.end());
}

TYPED_TEST(Utilities, ArrayInsideKernels) {
  using Space = TypeParam;
  const int n = 1000;
  tessera::Array<double, 3> weights{0.25, 0.5, 0.25};
  tessera::View<double*, Space> out("out", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    // A local Array built in the kernel, and one captured by value.
    tessera::Array<int, 3> idx{i - 1, i, i + 1};
    double s = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) s += weights[k] * idx[k];
    out(i) = s;
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(h(i), double(i)) << "i=" << i;
}

TYPED_TEST(Utilities, PrintfFromKernels) {
  using Space = TypeParam;
  testing::internal::CaptureStdout();
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i) {
    tessera::printf("tessera-line %d of %s\n", i, "four");
  });
  Space().fence();
  tessera::printf("100%% done\n");
  const std::string out = testing::internal::GetCapturedStdout();
  for (int i = 0; i < 4; ++i)
    EXPECT_NE(out.find("tessera-line " + std::to_string(i) + " of four\n"), std::string::npos) << out;
  EXPECT_NE(out.find("100% done\n"), std::string::npos) << out;
  // Whole lines only: each call's output is contiguous.
  std::size_t lines = 0;
  for (char c : out) lines += c == '\n';
  EXPECT_EQ(lines, 5u) << out;
}
