// Task overhead, side by side in one program, contenders interleaved within
// each repetition (tessera::bench::run_interleaved):
//  * naive Fibonacci(n) (2 fib(n+1) - 1 calls, each a task; n = 27 gives
//    0.63 million): Tessera TaskScheduler (spawn, when_all(f1, f2), respawn;
//    also the Kokkos-example form that first copies the two futures into an
//    array), oneTBB task_group, Taskflow TaskGroup (silent_async + corun; when
//    built with TASKFLOW_DIR), OpenMP tasks (libgomp) and a serial recursion;
//  * fan-out/fan-in: 10^6 empty tasks under one when_all (TBB: task_group of
//    10^6 run() + wait(); Taskflow: 10^6 silent_async + corun; OpenMP: 10^6
//    tasks + taskwait);
//  * the same 10^6 marks by one call, each runtime's index launch at its
//    default chunking: Tessera host_spawn_for (a tree of tasks in the DAG),
//    oneTBB parallel_for, Taskflow for_each_index, OpenMP taskloop.
// Every runtime is built once, outside the timing, with the same thread count
// (Tessera's --tessera-num-threads=N); the reported thread count is the one each
// runtime says it ran. Ratio column: Tessera's time / the row's time per
// repetition (<= 1: Tessera took at most that peer's time).
//   bench_task_overhead [--n 27] [--repeats 9] [--fanout 1000000] [--json] --tessera-num-threads=2
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/tasking.hpp>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#if TESSERA_BENCH_HAVE_TASKFLOW
#include <taskflow/algorithm/for_each.hpp>
#include <taskflow/taskflow.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace {

using Space = tessera::Threads;
using Sched = tessera::TaskScheduler<Space>;
using Member = Sched::member_type;

// Array = true: the Kokkos example's form, `const Future both[2] = {f1, f2};
// when_all(both, 2)` (two more future copies per call).
// HighFirst: f(n-2) is spawned first, at high priority, then f(n-1), the
// order of the seed's example (issue 28's "as a user writes it").
template <bool Array, bool HighFirst = false>
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
    if constexpr (HighFirst) {
      f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Fib(sched, n - 2));
      f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
    } else {
      f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
      f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Fib(sched, n - 2));
    }
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

#if TESSERA_BENCH_HAVE_TASKFLOW
long fib_taskflow(tf::Executor& ex, int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  tf::TaskGroup tg = ex.task_group();
  tg.silent_async([&ex, &a, n] { a = fib_taskflow(ex, n - 1); });
  b = fib_taskflow(ex, n - 2);
  tg.corun();
  return a + b;
}
#endif

long fib_omp(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(n)
  a = fib_omp(n - 1);
  b = fib_omp(n - 2);
#pragma omp taskwait
  return a + b;
}

// Every fan-out task marks its own byte (ran[i] = 1), in every contender:
// an empty task body lets a compiler drop the task altogether (GCC did so
// for `#pragma omp task {}`, which then "ran" 10^6 tasks in 13 us), and the
// marks let each run be checked.
struct FanOut {
  Sched sched;
  int n;
  unsigned char* ran;
  std::vector<tessera::BasicFuture<void, Sched>> kids{};
  void operator()(Member&) {
    if (!kids.empty()) return;
    kids.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i)
      kids.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [mark = ran + i](Member&) { *mark = 1; }));
    tessera::respawn(this, sched.when_all(kids));
  }
};

// A contender's answer is checked after every run, outside nothing: a wrong
// answer stops the benchmark rather than printing a time for it.
void check(long got, long expect, const char* who) {
  if (got != expect) {
    std::fprintf(stderr, "bench_task_overhead: %s computed %ld, expected %ld\n", who, got, expect);
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_task_overhead",
                          "Task overhead: Fibonacci and a fan-out on Tessera's task DAG against oneTBB, Taskflow,\n"
                          "OpenMP tasks and serial recursion.",
                          9);
  int n = 27, fanout = 1000000;
  cli.app().add_option("--n", n, "fib(n)")->check(tools::integer(1, 40));
  cli.app().add_option("--fanout", fanout, "tasks of the fan-out case")->check(tools::integer(1, 1 << 30));
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const int threads = Space().concurrency();
  const long expect = fib_serial(n);
  const double calls = 2.0 * double(fib_serial(n + 1)) - 1.0;
  if (!json)
    std::printf("# fib(%d): %.0f calls; fan-out %d; %d threads requested; %d repeats, contenders interleaved\n", n,
                calls, fanout, threads, repeats);

  // Every runtime is created once, before any timing.
  Sched sched(Sched::memory_space(), std::size_t(256) << 20);
  Sched big(Sched::memory_space(), std::size_t(512) << 20);
  // As issue 28's user configured it: a 1 GiB pool of 32-512-byte blocks in
  // 4 MiB superblocks.
  Sched user(Sched::memory_space(), std::size_t(1) << 30, 32, 512, std::size_t(4) << 20);
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
  tbb::task_arena arena(threads);
  arena.initialize();
#if TESSERA_BENCH_HAVE_TASKFLOW
  tf::Executor executor(static_cast<std::size_t>(threads));
#endif
  int omp_threads = 0;

  using tessera::bench::Contender;
  const auto tessera_threads = [&] { return Space().concurrency(); };
  const auto tbb_threads = [&] { return arena.max_concurrency(); };
  const auto omp_ran = [&] { return omp_threads; };

  std::vector<Contender> fib;
  fib.push_back({"tessera TaskScheduler", [&] {
                   auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<false>(sched, n));
                   tessera::wait(sched);
                   check(f.get(), expect, "tessera");
                 },
                 tessera_threads});
  fib.push_back({"tessera, array when_all", [&] {
                   auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<true>(sched, n));
                   tessera::wait(sched);
                   check(f.get(), expect, "tessera (array)");
                 },
                 tessera_threads, 0});
  fib.push_back({"tessera, n-2 spawned first", [&] {
                   auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib<false, true>(sched, n));
                   tessera::wait(sched);
                   check(f.get(), expect, "tessera (n-2 first)");
                 },
                 tessera_threads, 0});
  fib.push_back({"tessera, user's pool (1 GiB, 4 MiB sb)", [&] {
                   auto f = tessera::host_spawn(tessera::TaskSingle(user), Fib<false, true>(user, n));
                   tessera::wait(user);
                   check(f.get(), expect, "tessera (user's pool)");
                 },
                 tessera_threads, 0});
  fib.push_back({"oneTBB task_group", [&] { arena.execute([&] { check(fib_tbb(n), expect, "oneTBB"); }); },
                 tbb_threads, 0});
#if TESSERA_BENCH_HAVE_TASKFLOW
  fib.push_back({"Taskflow TaskGroup",
                 [&] { check(executor.async([&] { return fib_taskflow(executor, n); }).get(), expect, "Taskflow"); },
                 [&] { return int(executor.num_workers()); }, 0});
#endif
  fib.push_back({"OpenMP tasks (libgomp)", [&] {
                   long r = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
                   {
                     omp_threads = omp_get_num_threads();
                     r = fib_omp(n);
                   }
                   check(r, expect, "OpenMP");
                 },
                 omp_ran, 0});
  // The serial recursion is a baseline (what a call costs without tasks), not a peer: no ratio.
  fib.push_back({"serial recursion", [&] { check(fib_serial(n), expect, "serial"); }, [] { return 1; }});

  std::vector<unsigned char> ran_storage(std::size_t(fanout), 0);
  unsigned char* const ran = ran_storage.data();
  // Inside the timed region, the same for every contender (a 1 MB pass
  // against runs of tens of milliseconds).
  const auto check_marks = [&](const char* who) {
    long marked = 0;
    for (unsigned char m : ran_storage) marked += m;
    check(marked, fanout, who);
    std::fill(ran_storage.begin(), ran_storage.end(), 0);
  };
  std::vector<Contender> fan;
  fan.push_back({"tessera TaskScheduler", [&] {
                   tessera::host_spawn(tessera::TaskSingle(big), FanOut{big, fanout, ran});
                   tessera::wait(big);
                   check_marks("tessera fan-out");
                 },
                 tessera_threads});
  fan.push_back({"oneTBB task_group", [&] {
                   arena.execute([&] {
                     tbb::task_group g;
                     for (int i = 0; i < fanout; ++i) g.run([mark = ran + i] { *mark = 1; });
                     g.wait();
                   });
                   check_marks("oneTBB fan-out");
                 },
                 tbb_threads, 0});
#if TESSERA_BENCH_HAVE_TASKFLOW
  fan.push_back({"Taskflow TaskGroup", [&] {
                   executor
                       .async([&] {
                         tf::TaskGroup tg = executor.task_group();
                         for (int i = 0; i < fanout; ++i) tg.silent_async([mark = ran + i] { *mark = 1; });
                         tg.corun();
                       })
                       .get();
                   check_marks("Taskflow fan-out");
                 },
                 [&] { return int(executor.num_workers()); }, 0});
#endif
  fan.push_back({"OpenMP tasks (libgomp)", [&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
                   {
                     omp_threads = omp_get_num_threads();
                     for (int i = 0; i < fanout; ++i) {
#pragma omp task firstprivate(i)
                       ran[i] = 1;
                     }
#pragma omp taskwait
                   }
                   check_marks("OpenMP fan-out");
                 },
                 omp_ran, 0});

  // One call for all marks: the index launch of each runtime.
  std::vector<Contender> bulk;
  bulk.push_back({"tessera host_spawn_for", [&] {
                    tessera::host_spawn_for(tessera::TaskSingle(sched), fanout, [ran](int i) { ran[i] = 1; });
                    tessera::wait(sched);
                    check_marks("tessera host_spawn_for");
                  },
                  tessera_threads});
  bulk.push_back({"oneTBB parallel_for", [&] {
                    arena.execute([&] {
                      tbb::parallel_for(tbb::blocked_range<int>(0, fanout), [ran](const tbb::blocked_range<int>& r) {
                        for (int i = r.begin(); i < r.end(); ++i) ran[i] = 1;
                      });
                    });
                    check_marks("oneTBB parallel_for");
                  },
                  tbb_threads, 0});
#if TESSERA_BENCH_HAVE_TASKFLOW
  bulk.push_back({"Taskflow for_each_index", [&] {
                    tf::Taskflow flow;
                    flow.for_each_index(0, fanout, 1, [ran](int i) { ran[i] = 1; });
                    executor.run(flow).wait();
                    check_marks("Taskflow for_each_index");
                  },
                  [&] { return int(executor.num_workers()); }, 0});
#endif
  bulk.push_back({"OpenMP taskloop (libgomp)", [&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
                    {
                      omp_threads = omp_get_num_threads();
#pragma omp taskloop
                      for (int i = 0; i < fanout; ++i) ran[i] = 1;
                    }
                    check_marks("OpenMP taskloop");
                  },
                  omp_ran, 0});

  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  const tessera::bench::Report report("task_overhead", json);
  const tessera::bench::Measure per_call{"ns/task", calls, 1e9, true, true};
  const tessera::bench::Measure per_kid{"ns/task", double(fanout), 1e9, true, true};
  report.add("fib(" + std::to_string(n) + ")", per_call, fib, tessera::bench::run_interleaved(fib, opt));
  report.add("fan-out " + std::to_string(fanout), per_kid, fan, tessera::bench::run_interleaved(fan, opt));
  report.add("index launch " + std::to_string(fanout), per_kid, bulk, tessera::bench::run_interleaved(bulk, opt));
#if !TESSERA_BENCH_HAVE_TASKFLOW
  if (!json) std::printf("# Taskflow: not built in (configure with -DTASKFLOW_DIR=<taskflow source>)\n");
#endif
  if (!json) std::cout << sched.statistics();
  tessera::finalize();
  return 0;
}
