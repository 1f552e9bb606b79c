// STREAM copy/scale/add/triad on 1-D Views against the same loops in raw
// OpenMP, in one program. Bandwidth counts the bytes STREAM counts (two
// arrays for copy/scale, three for add/triad), median of repeats.
//
//   bench_stream [--n ELEMENTS] [--repeats R] [--tessera-num-threads=N]
#include "bench_stats.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

using namespace tessera;

namespace {

struct Kernel {
  std::string name;
  double bytes_per_element;
};

template <class Space>
std::map<std::string, bench::Stats> run_tessera(std::size_t n, int repeats) {
  View<double*, Space> a(view_alloc("a", WithoutInitializing), n), b(view_alloc("b", WithoutInitializing), n),
      c(view_alloc("c", WithoutInitializing), n);
  const double scalar = 3.0;
  parallel_for(RangePolicy<Space>(0, n), [=](std::size_t i) {
    a(i) = 1.0;
    b(i) = 2.0;
    c(i) = 0.0;
  });
  std::map<std::string, bench::Stats> out;
  out["copy"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
    parallel_for("copy", RangePolicy<Space>(0, n), [=](std::size_t i) { c(i) = a(i); });
  }));
  out["scale"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
    parallel_for("scale", RangePolicy<Space>(0, n), [=](std::size_t i) { b(i) = scalar * c(i); });
  }));
  out["add"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
    parallel_for("add", RangePolicy<Space>(0, n), [=](std::size_t i) { c(i) = a(i) + b(i); });
  }));
  out["triad"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
    parallel_for("triad", RangePolicy<Space>(0, n), [=](std::size_t i) { a(i) = b(i) + scalar * c(i); });
  }));
  return out;
}

std::map<std::string, bench::Stats> run_raw_openmp(std::size_t n, int repeats, int threads) {
  auto alloc = [n] { return static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64)); };
  double *a = alloc(), *b = alloc(), *c = alloc();
  const double scalar = 3.0;
  const long ln = static_cast<long>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < ln; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  std::map<std::string, bench::Stats> out;
  out["copy"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) c[i] = a[i];
  }));
  out["scale"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) b[i] = scalar * c[i];
  }));
  out["add"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) c[i] = a[i] + b[i];
  }));
  out["triad"] = bench::summarize(bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) a[i] = b[i] + scalar * c[i];
  }));
  std::free(a);
  std::free(b);
  std::free(c);
  return out;
}

}  // namespace

int main(int argc, char* argv[]) {
  ScopeGuard guard(argc, argv);
  std::size_t n = std::size_t(1) << 25;  // 3 x 256 MiB: far beyond any cache
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--n ELEMENTS] [--repeats R] [--tessera-num-threads=N]\n", argv[0]);
      return 2;
    }
  }
  const Kernel kernels[] = {{"copy", 16}, {"scale", 16}, {"add", 24}, {"triad", 24}};
  const int threads = DefaultHostExecutionSpace().concurrency();
  std::printf("STREAM, %zu doubles per array, %d repeats, bandwidth in GB/s (median, min, max), ratio = Tessera / raw OpenMP\n",
              n, repeats);
  bench::print_header("stream", "GB/s");

  auto raw = run_raw_openmp(n, repeats, threads);
  bench::settle();
  auto raw1 = run_raw_openmp(n, std::max(3, repeats / 4), 1);
  // Each Tessera back-end is compared with raw OpenMP at the same thread count.
  auto report = [&](const char* backend, int nt, const std::map<std::string, bench::Stats>& res, bool is_raw) {
    const auto& peer = nt == 1 ? raw1 : raw;
    for (const auto& k : kernels) {
      const double bytes = k.bytes_per_element * double(n) * 1e-9;
      bench::Stats bw = bench::to_rate(res.at(k.name), bytes);
      bench::Stats raw_bw = bench::to_rate(peer.at(k.name), bytes);
      bench::print_row(k.name, backend, nt, bw, is_raw ? 0.0 : bw.median / raw_bw.median);
    }
  };
  report("raw-omp", threads, raw, true);
  if (threads != 1) report("raw-omp", 1, raw1, true);
  bench::settle();
  report("Serial", 1, run_tessera<Serial>(n, std::max(3, repeats / 4)), false);
#if TESSERA_ENABLE_OPENMP
  bench::settle();
  report("OpenMP", OpenMP().concurrency(), run_tessera<OpenMP>(n, repeats), false);
#endif
#if TESSERA_ENABLE_THREADS
  bench::settle();
  report("Threads", Threads().concurrency(), run_tessera<Threads>(n, repeats), false);
#endif
  return 0;
}
