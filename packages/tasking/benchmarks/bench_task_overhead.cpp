// Task overhead, side by side in one program:
//  * naive Fibonacci(30) (2 fib(31) - 1 = 2.69 million calls, each a task):
//    Tessera TaskScheduler (spawn, when_all(f1, f2), respawn; also the
//    Kokkos-style form that first copies the two futures into an array),
//    oneTBB task_group, OpenMP tasks (libgomp) and a serial recursion;
//  * fan-out/fan-in: 10^6 empty tasks under one when_all (TBB: task_group of
//    10^6 run() + wait(); OpenMP: 10^6 tasks + taskwait).
// Each figure is the median of repeats with (min - max); ns per task =
// seconds / tasks. Threads: Tessera's Threads pool size (--tessera-num-threads=N);
// the TBB arena and the OpenMP region use the same N.
//   bench_task_overhead [--n 30] [--repeats 7] [--fanout 1000000] --tessera-num-threads=2
#include "bench_util.hpp"

#include <tessera/tasking.hpp>

#include <omp.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace {

using Space = tessera::Threads;
using Sched = tessera::TaskScheduler<Space>;
using Member = Sched::member_type;

// Array = true: the Kokkos example's form, `const Future both[2] = {f1, f2};
// when_all(both, 2)` (two more future copies per call, 4 atomic operations).
template <bool Array>
struct Fib {
  using value_type = long;
  Sched sched;
  int n;
  tessera::BasicFuture<long, Sched> f1, f2;
  Fib(const Sched& s, int n_) : sched(s), n(n_) {}
  void operator()(Member&, long& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
    f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Fib(sched, n - 2));
    if constexpr (Array) {
      const tessera::BasicFuture<long, Sched> both[2] = {f1, f2};
      tessera::respawn(this, sched.when_all(both, 2));
    } else {
      tessera::respawn(this, sched.when_all(f1, f2));
    }
  }
};

__attribute__((noinline)) long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

long fib_tbb(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1); });
  b = fib_tbb(n - 2);
  g.wait();
  return a + b;
}

long fib_omp(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(n)
  a = fib_omp(n - 1);
  b = fib_omp(n - 2);
#pragma omp taskwait
  return a + b;
}

struct FanOut {
  Sched sched;
  int n;
  std::vector<tessera::BasicFuture<void, Sched>> kids{};
  void operator()(Member&) {
    if (!kids.empty()) return;
    kids.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) kids.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [](Member&) {}));
    tessera::respawn(this, sched.when_all(kids));
  }
};

}  // namespace

int main(int argc, char* argv[]) {
  tessera::initialize(argc, argv);
  int n = 30, repeats = 7, fanout = 1000000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--fanout")) fanout = std::atoi(argv[++i]);
  }
  const int threads = Space().concurrency();
  using tessera::bench::row;
  using tessera::bench::time_repeats;
  const long expect = fib_serial(n);
  const double calls = 2.0 * double(fib_serial(n + 1)) - 1.0;
  std::printf("# fib(%d): %.0f calls; fan-out %d; %d threads; median of %d (min - max)\n", n, calls, fanout, threads,
              repeats);

  long r = 0;
  auto serial = time_repeats(1, repeats, [&] { r = fib_serial(n); });
  if (r != expect) return 1;
  auto ns = [&](tessera::bench::Stats s, double tasks) {
    return tessera::bench::Stats{s.median / tasks * 1e9, s.min / tasks * 1e9, s.max / tasks * 1e9};
  };
  const auto serial_ns = ns(serial, calls);

  Sched sched(Sched::memory_space(), std::size_t(256) << 20);
  auto tess = time_repeats(1, repeats, [&] {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<false>(sched, n));
    tessera::wait(sched);
    r = f.get();
  });
  if (r != expect) return 2;
  auto tess_array = time_repeats(1, repeats, [&] {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<true>(sched, n));
    tessera::wait(sched);
    r = f.get();
  });
  if (r != expect) return 2;
  tessera::bench::settle();

  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
  tbb::task_arena arena(threads);
  auto tbb_t = time_repeats(1, repeats, [&] { arena.execute([&] { r = fib_tbb(n); }); });
  if (r != expect) return 3;
  tessera::bench::settle();

  auto omp_t = time_repeats(1, repeats, [&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
    r = fib_omp(n);
  });
  if (r != expect) return 4;
  tessera::bench::settle();

  const auto tess_ns = ns(tess, calls);
  row("fib ns/task", "serial recursion", 1, serial_ns, "ns", 0);
  row("fib ns/task", "tessera TaskScheduler", threads, tess_ns, "ns", 0);
  row("fib ns/task", "tessera, array when_all", threads, ns(tess_array, calls), "ns", tess_ns.median);
  row("fib ns/task", "oneTBB task_group", threads, ns(tbb_t, calls), "ns", tess_ns.median);
  row("fib ns/task", "OpenMP tasks (libgomp)", threads, ns(omp_t, calls), "ns", tess_ns.median);

  // Fan-out / fan-in.
  Sched big(Sched::memory_space(), std::size_t(512) << 20);
  auto tess_f = time_repeats(1, repeats, [&] {
    tessera::host_spawn(tessera::TaskSingle(big), FanOut{big, fanout});
    tessera::wait(big);
  });
  tessera::bench::settle();
  auto tbb_f = time_repeats(1, repeats, [&] {
    arena.execute([&] {
      tbb::task_group g;
      for (int i = 0; i < fanout; ++i) g.run([] {});
      g.wait();
    });
  });
  tessera::bench::settle();
  auto omp_f = time_repeats(1, repeats, [&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
      for (int i = 0; i < fanout; ++i) {
#pragma omp task
        {
        }
      }
#pragma omp taskwait
    }
  });
  const auto tess_fns = ns(tess_f, fanout);
  row("fan-out ns/task", "tessera TaskScheduler", threads, tess_fns, "ns", 0);
  row("fan-out ns/task", "oneTBB task_group", threads, ns(tbb_f, fanout), "ns", tess_fns.median);
  row("fan-out ns/task", "OpenMP tasks (libgomp)", threads, ns(omp_f, fanout), "ns", tess_fns.median);
  std::cout << sched.statistics();
  tessera::finalize();
  return 0;
}
