// Dispatch latency: an empty parallel_for and a scalar parallel_reduce over
// one index per thread, against an empty `#pragma omp parallel for` (and one
// with a reduction) in the same program. Reported in microseconds per
// launch, median of repeated batches; ratio = Tessera / raw OpenMP (lower is better).
//
//   bench_dispatch [--launches L] [--repeats R] [--tessera-num-threads=N]
#include "bench_stats.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

using namespace tessera;

namespace {

long g_sink = 0;  // keeps reductions from being optimized away

template <class Space>
std::function<void()> tessera_for(int launches) {
  return [launches] {
    const int n = Space().concurrency();
    for (int l = 0; l < launches; ++l) parallel_for(RangePolicy<Space>(0, n), [](int) {});
  };
}
template <class Space>
std::function<void()> tessera_reduce(int launches) {
  return [launches] {
    const int n = Space().concurrency();
    for (int l = 0; l < launches; ++l) {
      long s = 0;
      parallel_reduce(RangePolicy<Space>(0, n), [](int i, long& acc) { acc += i; }, s);
      g_sink += s;
    }
  };
}
std::function<void()> raw_for(int launches, int threads) {
  return [launches, threads] {
    for (int l = 0; l < launches; ++l) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int i = 0; i < threads; ++i) {
        asm volatile("" ::: "memory");  // keep the empty body from being removed
      }
    }
  };
}
std::function<void()> raw_reduce(int launches, int threads) {
  return [launches, threads] {
    for (int l = 0; l < launches; ++l) {
      long s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) num_threads(threads)
      for (int i = 0; i < threads; ++i) s += i;
      g_sink += s;
    }
  };
}

}  // namespace

int main(int argc, char* argv[]) {
  ScopeGuard guard(argc, argv);
  int launches = 20000, repeats = 15;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc) launches = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--launches L] [--repeats R] [--tessera-num-threads=N]\n", argv[0]);
      return 2;
    }
  }
  const int threads = DefaultHostExecutionSpace().concurrency();
  std::printf("Dispatch latency over one index per thread, batches of %d launches, %d repeats; printed as launches\n"
              "per microsecond (median, min, max) so that larger is better; ratio = raw-OpenMP time / Tessera time\n"
              "per repeat (goal: Tessera latency <= 1.2x raw, i.e. ratio >= 0.83)\n",
              launches, repeats);
  for (int pattern = 0; pattern < 2; ++pattern) {
    const char* name = pattern == 0 ? "empty-for" : "reduce";
    std::vector<bench::Contender> cs;
    cs.push_back({name, "raw-omp", threads, pattern == 0 ? raw_for(launches, threads) : raw_reduce(launches, threads), -1});
#if TESSERA_ENABLE_OPENMP
    cs.push_back({name, "OpenMP", OpenMP().concurrency(),
                  pattern == 0 ? tessera_for<OpenMP>(launches) : tessera_reduce<OpenMP>(launches), 0});
#endif
#if TESSERA_ENABLE_THREADS
    cs.push_back({name, "Threads", Threads().concurrency(),
                  pattern == 0 ? tessera_for<Threads>(launches) : tessera_reduce<Threads>(launches), 0});
#endif
    const int raw1 = static_cast<int>(cs.size());
    cs.push_back({name, "raw-omp", 1, pattern == 0 ? raw_for(launches, 1) : raw_reduce(launches, 1), -1});
    cs.push_back({name, "Serial", 1, pattern == 0 ? tessera_for<Serial>(launches) : tessera_reduce<Serial>(launches),
                  raw1});
    auto res = bench::run_paired(cs, 1, repeats, 20);
    bench::print_paired(cs, res, launches * 1e-6, "launch/us");
    for (std::size_t i = 0; i < cs.size(); ++i)
      std::printf("    %-8s %d threads: %.3f us per launch (median)\n", cs[i].backend.c_str(), cs[i].threads,
                  res[i].seconds.median / launches * 1e6);
  }
  if (g_sink == 42) std::printf("\n");
  return 0;
}
