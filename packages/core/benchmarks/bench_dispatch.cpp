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

using namespace tessera;

namespace {

struct Latency {
  bench::Stats for_us, reduce_us;
};

template <class Space>
Latency run_tessera(int launches, int repeats) {
  const int n = Space().concurrency();
  Latency out;
  out.for_us = bench::summarize(bench::time_repeats(1, repeats, [&] {
    for (int l = 0; l < launches; ++l) parallel_for(RangePolicy<Space>(0, n), [](int) {});
  }));
  long sink = 0;
  out.reduce_us = bench::summarize(bench::time_repeats(1, repeats, [&] {
    for (int l = 0; l < launches; ++l) {
      long s = 0;
      parallel_reduce(RangePolicy<Space>(0, n), [](int i, long& acc) { acc += i; }, s);
      sink += s;
    }
  }));
  if (sink < 0) std::printf("impossible\n");
  const double scale = 1e6 / launches;
  out.for_us = {out.for_us.median * scale, out.for_us.min * scale, out.for_us.max * scale};
  out.reduce_us = {out.reduce_us.median * scale, out.reduce_us.min * scale, out.reduce_us.max * scale};
  return out;
}

Latency run_raw(int launches, int repeats, int threads) {
  Latency out;
  out.for_us = bench::summarize(bench::time_repeats(1, repeats, [&] {
    for (int l = 0; l < launches; ++l) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int i = 0; i < threads; ++i) {
        asm volatile("" ::: "memory");  // keep the empty body from being removed
      }
    }
  }));
  long sink = 0;
  out.reduce_us = bench::summarize(bench::time_repeats(1, repeats, [&] {
    for (int l = 0; l < launches; ++l) {
      long s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) num_threads(threads)
      for (int i = 0; i < threads; ++i) s += i;
      sink += s;
    }
  }));
  if (sink < 0) std::printf("impossible\n");
  const double scale = 1e6 / launches;
  out.for_us = {out.for_us.median * scale, out.for_us.min * scale, out.for_us.max * scale};
  out.reduce_us = {out.reduce_us.median * scale, out.reduce_us.min * scale, out.reduce_us.max * scale};
  return out;
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
  std::printf("Dispatch latency, %d launches per batch, %d batches, microseconds per launch (median, min, max); "
              "ratio = Tessera / raw OpenMP at the same thread count (goal <= 1.2)\n",
              launches, repeats);
  bench::print_header("dispatch", "us");
  Latency raw = run_raw(launches, repeats, threads);
  bench::print_row("empty-for", "raw-omp", threads, raw.for_us, 0);
  bench::print_row("reduce", "raw-omp", threads, raw.reduce_us, 0);
  auto report = [&](const char* name, int nt, const Latency& l) {
    bench::print_row("empty-for", name, nt, l.for_us, l.for_us.median / raw.for_us.median);
    bench::print_row("reduce", name, nt, l.reduce_us, l.reduce_us.median / raw.reduce_us.median);
  };
#if TESSERA_ENABLE_OPENMP
  bench::settle();
  report("OpenMP", OpenMP().concurrency(), run_tessera<OpenMP>(launches, repeats));
#endif
#if TESSERA_ENABLE_THREADS
  bench::settle();
  report("Threads", Threads().concurrency(), run_tessera<Threads>(launches, repeats));
#endif
  bench::settle();
  Latency serial = run_tessera<Serial>(launches, repeats);
  bench::print_row("empty-for", "Serial", 1, serial.for_us, 0);
  bench::print_row("reduce", "Serial", 1, serial.reduce_us, 0);
  return 0;
}
