// 3-D 7-point stencil out = c0 * in + c1 * (sum of the 6 neighbours) over
// the interior of an N^3 grid, with MDRangePolicy<Rank<3>> against the same
// loop nest in raw OpenMP (collapse(2) over the outer two indices).
// Rate in Gpoint/s, median of repeats.
//
//   bench_stencil [--n N] [--repeats R] [--json] [--tessera-num-threads=N]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/openmp.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

using namespace tessera;

namespace {

constexpr double c0 = -6.0, c1 = 1.0;

template <class Space>
std::function<void()> tessera_stencil(int n, std::function<double()>* checksum) {
  View<double***, LayoutRight, Space> in(view_alloc("in", WithoutInitializing), n, n, n);
  View<double***, LayoutRight, Space> out("out", n, n, n);
  parallel_for(MDRangePolicy<Space, Rank<3>>({0, 0, 0}, {n, n, n}),
               [=](int i, int j, int k) { in(i, j, k) = double((i * 7 + j * 3 + k) % 11); });
  *checksum = [=] {
    double s = 0;
    parallel_reduce(
        MDRangePolicy<Space, Rank<3>>({0, 0, 0}, {n, n, n}),
        [=](int i, int j, int k, double& acc) { acc += out(i, j, k); }, s);
    return s;
  };
  MDRangePolicy<Space, Rank<3>> interior({1, 1, 1}, {n - 1, n - 1, n - 1});
  return [=] {
    parallel_for("stencil", interior, [=](int i, int j, int k) {
      out(i, j, k) = c0 * in(i, j, k) + c1 * (in(i - 1, j, k) + in(i + 1, j, k) + in(i, j - 1, k) +
                                              in(i, j + 1, k) + in(i, j, k - 1) + in(i, j, k + 1));
    });
  };
}

std::function<void()> raw_stencil(int n, int threads, std::function<double()>* checksum) {
  const std::size_t total = std::size_t(n) * n * n;
  std::shared_ptr<double> in_owner(
      static_cast<double*>(std::aligned_alloc(64, (total * sizeof(double) + 63) / 64 * 64)), std::free);
  std::shared_ptr<double> out_owner(
      static_cast<double*>(std::aligned_alloc(64, (total * sizeof(double) + 63) / 64 * 64)), std::free);
  double* in = in_owner.get();
  double* out = out_owner.get();
  const long nn = long(n) * n;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        in[i * nn + long(j) * n + k] = double((i * 7 + j * 3 + k) % 11);
        out[i * nn + long(j) * n + k] = 0;
      }
  *checksum = [out_owner, total] {
    double s = 0;
    for (std::size_t p = 0; p < total; ++p) s += out_owner.get()[p];
    return s;
  };
  return [in_owner, out_owner, n, nn, threads] {
    const double* in = in_owner.get();
    double* out = out_owner.get();
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        const double* c = in + i * nn + long(j) * n;
        double* o = out + i * nn + long(j) * n;
        for (int k = 1; k < n - 1; ++k)
          o[k] = c0 * c[k] + c1 * (c[k - nn] + c[k + nn] + c[k - n] + c[k + n] + c[k - 1] + c[k + 1]);
      }
  };
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::Cli cli("tessera_bench_stencil",
                 "3-D 7-point stencil: Tessera MDRangePolicy against a raw OpenMP loop nest.", 20);
  int n = 256;
  cli.app().add_option("--n", n, "grid points per side (n^3)")->check(tools::integer(3, 4096));
  if (auto status = cli.parse(argc, argv)) return *status;
  ScopeGuard guard(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const double gpoints = double(n - 2) * (n - 2) * (n - 2) * 1e-9;
  const int threads = DefaultHostExecutionSpace().concurrency();
  if (!json)
    std::printf(
        "# 3-D 7-point stencil on %d^3, %d repeats, Gpoint/s (median, min, max); contenders run in turn "
        "within\n"
        "# each repeat; ratio = raw-OpenMP time / Tessera MDRangePolicy time per repeat (goal >= 0.95)\n",
        n, repeats);
  const bench::Report report("stencil", json);
  std::vector<std::function<double()>> sums(5);
  std::vector<bench::Contender> cs;
  cs.push_back({"raw OpenMP", raw_stencil(n, threads, &sums[0]),
                [threads] { return bench::omp_threads_ran(threads); }});
#if TESSERA_ENABLE_OPENMP
  cs.push_back({"tessera OpenMP", tessera_stencil<OpenMP>(n, &sums[cs.size()]),
                [] { return OpenMP().concurrency(); }, 0});
#endif
#if TESSERA_ENABLE_THREADS
  cs.push_back({"tessera Threads", tessera_stencil<Threads>(n, &sums[cs.size()]),
                [] { return Threads().concurrency(); }, 0});
#endif
  const int raw1 = static_cast<int>(cs.size());
  cs.push_back({"raw OpenMP, 1 thread", raw_stencil(n, 1, &sums[cs.size()]),
                [] { return bench::omp_threads_ran(1); }});
  cs.push_back({"tessera Serial", tessera_stencil<Serial>(n, &sums[cs.size()]), [] { return 1; }, raw1});
  bench::InterleaveOptions opt;
  opt.warmup = 2;
  opt.repeats = repeats;
  const bench::Measure rate{"Gpt/s", gpoints, 1, false, false};
  report.add("stencil", rate, cs, bench::run_interleaved(cs, opt));
  for (std::size_t i = 1; i < cs.size(); ++i)
    if (sums[i]() != sums[0]())
      std::fprintf(stderr, "WARNING: %s checksum %.17g differs from the raw loop's %.17g\n",
                   cs[i].name.c_str(), sums[i](), sums[0]());
  return 0;
}
