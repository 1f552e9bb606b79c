// Dispatch latency: an empty parallel_for and a scalar parallel_reduce over
// one index per thread, against an empty `#pragma omp parallel for` (and one
// with a reduction) in the same program. Reported in microseconds per
// launch, median of repeated batches, contenders interleaved within each repeat;
// ratio = raw-OpenMP time / Tessera time per repeat (higher is better for Tessera).
//
//   bench_dispatch [--launches L] [--repeats R] [--json] [--tessera-num-threads=N]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/openmp.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

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
      parallel_reduce(
          RangePolicy<Space>(0, n), [](int i, long& acc) { acc += i; }, s);
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
  bench::Cli cli("tessera_bench_dispatch",
                 "Dispatch latency of an empty parallel_for and a scalar parallel_reduce against raw OpenMP.", 15);
  int launches = 20000;
  cli.app().add_option("--launches", launches, "launches per timed batch")->check(tools::integer(1, 1 << 30));
  if (auto status = cli.parse(argc, argv)) return *status;
  ScopeGuard guard(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const int threads = DefaultHostExecutionSpace().concurrency();
  if (!json)
    std::printf(
        "# Dispatch latency over one index per thread, batches of %d launches, %d repeats, microseconds per\n"
        "# launch; ratio = raw-OpenMP time / Tessera time per repeat (goal: Tessera latency <= 1.2x raw,\n"
        "# i.e. ratio >= 0.83)\n",
        launches, repeats);
  const bench::Report report("dispatch", json);
  const bench::Measure per_launch{"us/launch", double(launches), 1e6, true, true};
  for (int pattern = 0; pattern < 2; ++pattern) {
    const bool empty = pattern == 0;
    std::vector<bench::Contender> cs;
    cs.push_back({"raw OpenMP", empty ? raw_for(launches, threads) : raw_reduce(launches, threads),
                  [threads] { return bench::omp_threads_ran(threads); }});
#if TESSERA_ENABLE_OPENMP
    cs.push_back({"tessera OpenMP", empty ? tessera_for<OpenMP>(launches) : tessera_reduce<OpenMP>(launches),
                  [] { return OpenMP().concurrency(); }, 0});
#endif
#if TESSERA_ENABLE_THREADS
    cs.push_back({"tessera Threads",
                  empty ? tessera_for<Threads>(launches) : tessera_reduce<Threads>(launches),
                  [] { return Threads().concurrency(); }, 0});
#endif
    const int raw1 = static_cast<int>(cs.size());
    cs.push_back({"raw OpenMP, 1 thread", empty ? raw_for(launches, 1) : raw_reduce(launches, 1),
                  [] { return bench::omp_threads_ran(1); }});
    cs.push_back({"tessera Serial", empty ? tessera_for<Serial>(launches) : tessera_reduce<Serial>(launches),
                  [] { return 1; }, raw1});
    bench::InterleaveOptions opt;
    opt.repeats = repeats;
    report.add(empty ? "empty-for" : "reduce", per_launch, cs, bench::run_interleaved(cs, opt));
  }
  if (g_sink == 42) std::printf("\n");
  return 0;
}
