// Rows of the core package: bandwidth, reductions, scans and layout-changing
// copies on every enabled back-end, each checked against a closed form.
#include "demo.hpp"

#include <cstdint>

using tessera_demo::Check;
using tessera_demo::format;

namespace {

// STREAM triad a = b + s c; best of several repetitions, like STREAM.
template <class Space>
Check stream_triad(std::int64_t n) {
  tessera::View<double*, Space> a("a", n), b("b", n), c("c", n);
  const double s = 3.0;
  tessera::parallel_for(
      "triad_init", tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::int64_t i) {
        b(i) = double(i % 1000);
        c(i) = 0.5;
      });
  Space().fence();
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    tessera::parallel_for(
        "triad", tessera::RangePolicy<Space>(0, n),
        TESSERA_LAMBDA(std::int64_t i) { a(i) = b(i) + s * c(i); });
    Space().fence();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // Every a(i) must be (i % 1000) + 1.5 exactly: count the ones that are not.
  std::int64_t wrong = 0;
  tessera::parallel_reduce(
      "triad_check", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(std::int64_t i, std::int64_t & w) { w += a(i) != double(i % 1000) + 1.5; }, wrong);
  return Check{wrong == 0, format("%lld of %lld wrong", (long long)wrong, (long long)n), best,
               tessera_demo::gbps(3.0 * sizeof(double) * double(n), best)};
}

// parallel_reduce of i over [0, n) against n (n - 1) / 2.
template <class Space>
Check reduce_sum(std::int64_t n) {
  std::int64_t sum = 0;
  tessera::parallel_reduce(
      "sum", tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::int64_t i, std::int64_t & s) { s += i; },
      sum);
  const std::int64_t expect = n * (n - 1) / 2;
  return Check{sum == expect, format("sum = %lld (expected %lld)", (long long)sum, (long long)expect)};
}

// Exclusive parallel_scan of i: out(i) = i (i - 1) / 2 and total n (n - 1) / 2.
template <class Space>
Check scan_prefix(std::int64_t n) {
  tessera::View<std::int64_t*, Space> out("out", n);
  std::int64_t total = 0;
  tessera::parallel_scan(
      "prefix", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(std::int64_t i, std::int64_t & update, bool final) {
        if (final) out(i) = update;
        update += i;
      },
      total);
  std::int64_t wrong = 0;
  tessera::parallel_reduce(
      "prefix_check", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(std::int64_t i, std::int64_t & w) { w += out(i) != i * (i - 1) / 2; }, wrong);
  const std::int64_t expect = n * (n - 1) / 2;
  return Check{wrong == 0 && total == expect, format("total = %lld (expected %lld), %lld wrong",
                                                     (long long)total, (long long)expect, (long long)wrong)};
}

// deep_copy from LayoutRight to LayoutLeft (a transpose in memory) and back
// to the host; every element checked.
template <class Space>
Check copy_layouts(std::int64_t rows, std::int64_t cols) {
  tessera::View<double**, tessera::LayoutRight, Space> r("right", rows, cols);
  tessera::View<double**, tessera::LayoutLeft, Space> l("left", rows, cols);
  tessera::parallel_for(
      "fill_right", tessera::RangePolicy<Space>(0, rows * cols),
      TESSERA_LAMBDA(std::int64_t k) { r(k / cols, k % cols) = double(k); });
  Space().fence();
  const auto t0 = std::chrono::steady_clock::now();
  tessera::deep_copy(l, r);
  Space().fence();
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), l);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) wrong += h(i, j) != double(i * cols + j);
  return Check{wrong == 0,
               format("%lld x %lld, %lld wrong, stride(1) = %lld", (long long)rows, (long long)cols,
                      (long long)wrong, (long long)l.stride(1)),
               t, tessera_demo::gbps(2.0 * sizeof(double) * double(rows * cols), t)};
}

template <class Space>
void core_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  const std::int64_t n = ctx.quick ? (1 << 16) : (1 << 22);
  report.run<Space>("core", format("STREAM triad, 3 x %lld doubles", (long long)n),
                    [&] { return stream_triad<Space>(n); });
  const std::int64_t m = ctx.quick ? (1 << 18) : (1 << 25);
  report.run<Space>("core", format("parallel_reduce sum of i < %lld", (long long)m),
                    [&] { return reduce_sum<Space>(m); });
  const std::int64_t k = ctx.quick ? 100003 : 10000019;
  report.run<Space>("core", format("parallel_scan prefix sums, n = %lld", (long long)k),
                    [&] { return scan_prefix<Space>(k); });
  const std::int64_t rows = ctx.quick ? 300 : 3000, cols = ctx.quick ? 257 : 2047;
  report.run<Space>("core", "deep_copy LayoutRight -> LayoutLeft",
                    [&] { return copy_layouts<Space>(rows, cols); });
}

}  // namespace

void run_core(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() { core_rows<Space>(report, ctx); });
}
