// A View on the default execution space, filled by parallel_for, summed by
// parallel_reduce, copied back to the host with deep_copy; every result is
// checked against its closed form and the program exits nonzero if one is wrong.
// In a CUDA build on a machine without a GPU it says so and runs on the host.
#include <tessera/core.hpp>
#include <tessera/core/host_fallback.hpp>

#include <cstdint>
#include <cstdio>

// Space: the default execution space, or the host's when it cannot run here.
template <class Space>
int run() {
  const std::int64_t n = 1 << 20;
  int failures = 0;

  // x(i) = i by a kernel on the default execution space, y = 2 by deep_copy's fill.
  tessera::View<double*, Space> x("x", n), y("y", n);
  tessera::parallel_for(
      "fill", tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::int64_t i) { x(i) = double(i); });
  tessera::deep_copy(y, 2.0);

  // dot(x, y) = 2 * sum i = n (n - 1): every partial sum is an integer below
  // 2^53, so the result is exact whatever order the threads add in.
  double dot = 0;
  tessera::parallel_reduce(
      "dot", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(std::int64_t i, double& s) { s += x(i) * y(i); }, dot);
  const double expected = double(n) * double(n - 1);
  if (dot != expected) {
    std::printf("FAIL dot: got %.17g, expected %.17g\n", dot, expected);
    ++failures;
  }

  // Back to the host and spot-check.
  auto hx = tessera::create_mirror_view(x);
  tessera::deep_copy(hx, x);
  for (std::int64_t i : {std::int64_t(0), std::int64_t(1), n / 2, n - 1}) {
    if (hx(i) != double(i)) {
      std::printf("FAIL x(%lld) = %g, expected %g\n", static_cast<long long>(i), hx(i), double(i));
      ++failures;
    }
  }

  std::printf("%s: dot(x, y) over %lld elements = %.6e (expected %.6e) -> %s\n", Space::name(),
              static_cast<long long>(n), dot, expected, failures == 0 ? "pass" : "FAIL");
  return failures == 0 ? 0 : 1;
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  return tessera::run_on_usable_default_space("core_view_reduce",
                                              [&]<class Space>() { return run<Space>(); });
}
