// 3-D 7-point stencil out = c0 * in + c1 * (sum of the 6 neighbours) over
// the interior of an N^3 grid, with MDRangePolicy<Rank<3>> against the same
// loop nest in raw OpenMP (collapse(2) over the outer two indices).
// Rate in Gpoint/s, median of repeats.
//
//   bench_stencil [--n N] [--repeats R] [--tessera-num-threads=N]
#include "bench_stats.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>

using namespace tessera;

namespace {

constexpr double c0 = -6.0, c1 = 1.0;

template <class Space>
bench::Stats run_tessera(int n, int repeats, double* checksum) {
  View<double***, LayoutRight, Space> in(view_alloc("in", WithoutInitializing), n, n, n);
  View<double***, LayoutRight, Space> out("out", n, n, n);
  parallel_for(MDRangePolicy<Space, Rank<3>>({0, 0, 0}, {n, n, n}),
               [=](int i, int j, int k) { in(i, j, k) = double((i * 7 + j * 3 + k) % 11); });
  MDRangePolicy<Space, Rank<3>> interior({1, 1, 1}, {n - 1, n - 1, n - 1});
  auto times = bench::time_repeats(2, repeats, [&] {
    parallel_for("stencil", interior, [=](int i, int j, int k) {
      out(i, j, k) = c0 * in(i, j, k) + c1 * (in(i - 1, j, k) + in(i + 1, j, k) + in(i, j - 1, k) +
                                              in(i, j + 1, k) + in(i, j, k - 1) + in(i, j, k + 1));
    });
  });
  double s = 0;
  parallel_reduce(MDRangePolicy<Space, Rank<3>>({0, 0, 0}, {n, n, n}),
                  [=](int i, int j, int k, double& acc) { acc += out(i, j, k); }, s);
  *checksum = s;
  return bench::summarize(times);
}

bench::Stats run_raw(int n, int repeats, int threads, double* checksum) {
  const std::size_t total = std::size_t(n) * n * n;
  double* in = static_cast<double*>(std::aligned_alloc(64, (total * sizeof(double) + 63) / 64 * 64));
  double* out = static_cast<double*>(std::aligned_alloc(64, (total * sizeof(double) + 63) / 64 * 64));
  const long nn = long(n) * n;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        in[i * nn + long(j) * n + k] = double((i * 7 + j * 3 + k) % 11);
        out[i * nn + long(j) * n + k] = 0;
      }
  auto times = bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        const double* c = in + i * nn + long(j) * n;
        double* o = out + i * nn + long(j) * n;
        for (int k = 1; k < n - 1; ++k)
          o[k] = c0 * c[k] + c1 * (c[k - nn] + c[k + nn] + c[k - n] + c[k + n] + c[k - 1] + c[k + 1]);
      }
  });
  double s = 0;
  for (std::size_t p = 0; p < total; ++p) s += out[p];
  *checksum = s;
  std::free(in);
  std::free(out);
  return bench::summarize(times);
}

}  // namespace

int main(int argc, char* argv[]) {
  ScopeGuard guard(argc, argv);
  int n = 256, repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--n N] [--repeats R] [--tessera-num-threads=N]\n", argv[0]);
      return 2;
    }
  }
  const double gpoints = double(n - 2) * (n - 2) * (n - 2) * 1e-9;
  const int threads = DefaultHostExecutionSpace().concurrency();
  std::printf("3-D 7-point stencil on %d^3, Gpoint/s (median, min, max); "
              "ratio = Tessera MDRangePolicy / raw OpenMP at the same thread count (goal >= 0.95)\n",
              n);
  bench::print_header("stencil", "Gpt/s");
  double ref = 0, got = 0;
  bench::Stats raw = bench::to_rate(run_raw(n, repeats, threads, &ref), gpoints);
  bench::print_row("stencil", "raw-omp", threads, raw, 0);
  bench::Stats raw1 = bench::to_rate(run_raw(n, std::max(3, repeats / 4), 1, &ref), gpoints);
  bench::print_row("stencil", "raw-omp", 1, raw1, 0);
  auto report = [&](const char* name, int nt, const bench::Stats& s) {
    bench::print_row("stencil", name, nt, s, s.median / (nt == 1 ? raw1.median : raw.median));
    if (got != ref) std::printf("  WARNING: checksum %.17g differs from the raw loop's %.17g\n", got, ref);
  };
#if TESSERA_ENABLE_OPENMP
  bench::settle();
  report("OpenMP", OpenMP().concurrency(), bench::to_rate(run_tessera<OpenMP>(n, repeats, &got), gpoints));
#endif
#if TESSERA_ENABLE_THREADS
  bench::settle();
  report("Threads", Threads().concurrency(), bench::to_rate(run_tessera<Threads>(n, repeats, &got), gpoints));
#endif
  bench::settle();
  report("Serial", 1, bench::to_rate(run_tessera<Serial>(n, std::max(3, repeats / 4), &got), gpoints));
  return 0;
}
