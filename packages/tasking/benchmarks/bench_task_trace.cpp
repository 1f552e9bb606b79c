// What task timelines cost (TESSERA_TRACE, profiling::start_trace): the same
// DAG on a scheduler that is not traced and on one made while a trace is
// recorded, contenders interleaved within each repetition:
//  * naive Fibonacci(n) (spawn two, when_all, respawn; n = 23: 92,735 tasks,
//    46,367 of them respawned);
//  * fan-out/fan-in: `fanout` empty tasks under one when_all.
// Rows: the untraced run (the reference), the traced run (recording only),
// and stop_trace (resolving dependences and writing the file), each in ns
// per task; then the file's size in bytes per task. Ratio: untraced time /
// own time (< 1: slower than untraced).
//   bench_task_trace [--n 23] [--fanout 100000] [--repeats 9] [--json] --tessera-num-threads=2
//   bench_task_trace --trace-demo demo.json   (writes a small traced DAG, for the manual's picture)
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core/trace_sink.hpp>
#include <tessera/tasking.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

using Space = tessera::Threads;
using Sched = tessera::TaskScheduler<Space>;
using Member = Sched::member_type;

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
    tessera::respawn(this, sched.when_all(f1, f2));
  }
};

struct Empty {
  void operator()(Member&) const {}
};
// Spawns `n` empty tasks, then waits on all of them in one when_all.
struct FanOut {
  Sched sched;
  int n;
  std::vector<tessera::BasicFuture<void, Sched>> kids;
  void operator()(Member&) {
    if (!kids.empty()) return;
    kids.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) kids.push_back(tessera::task_spawn(tessera::TaskSingle(sched), Empty{}));
    tessera::respawn(this, sched.when_all(kids));
  }
};

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

void check(long got, long expect) {
  if (got != expect) {
    std::fprintf(stderr, "bench_task_trace: fib computed %ld, expected %ld\n", got, expect);
    std::exit(2);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long file_bytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? long(st.st_size) : -1;
}

// One case: `run(sched)` on an untraced scheduler, and on a traced one
// (made after start_trace), then stop_trace; interleaved per repetition.
template <class Run>
void measure(const tessera::bench::Report& report, const std::string& name, double tasks, int repeats,
             const std::string& path, Run run) {
  using clock = std::chrono::steady_clock;
  Sched untraced(Sched::memory_space(), std::size_t(256) << 20);
  std::vector<tessera::bench::Result> results(3);
  std::vector<double> sizes;
  for (int r = -1; r < repeats; ++r) {  // r = -1: warm-up
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto t0 = clock::now();
    run(untraced);
    const double plain = seconds_since(t0);

    if (!tessera::profiling::start_trace(path)) std::exit(2);
    double recording = 0, writing = 0;
    {
      Sched traced(Sched::memory_space(), std::size_t(256) << 20);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      t0 = clock::now();
      run(traced);
      recording = seconds_since(t0);
    }
    t0 = clock::now();
    tessera::profiling::stop_trace();
    writing = seconds_since(t0);
    if (r < 0) continue;
    results[0].seconds.push_back(plain);
    results[1].seconds.push_back(recording);
    results[1].ratio.push_back(plain / recording);
    results[2].seconds.push_back(writing);
    sizes.push_back(double(file_bytes(path)));
  }
  std::remove(path.c_str());
  const int threads = Space().concurrency();
  std::vector<tessera::bench::Contender> cs(3);
  cs[0].name = "untraced";
  cs[1].name = "traced: recording";
  cs[1].reference = 0;
  cs[2].name = "traced: stop_trace (write)";
  for (auto& r : results) r.threads = threads;
  const tessera::bench::Measure per_task{"ns/task", tasks, 1e9, true, true};
  report.add(name, per_task, cs, results);
  // The file's size, per task (a row of its own unit).
  std::vector<tessera::bench::Contender> file(1);
  file[0].name = "trace file";
  std::vector<tessera::bench::Result> fr(1);
  fr[0].seconds = sizes;
  fr[0].threads = threads;
  report.add(name + " trace file", tessera::bench::Measure{"bytes/task", tasks, 1, true, true}, file, fr);
}

// A small DAG for the manual's picture, on the Threads back-end: a stage
// at High priority, two after it (one Low), a team task after both, then
// fib(6) whose leaves work a little; each task busy for `us` microseconds.
void busy(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}
struct Stage {
  using value_type = int;
  int v;
  void operator()(Member&, int& r) const {
    busy(120);
    r = v;
  }
};
struct TeamStep {
  void operator()(Member& m) const {
    busy(100);
    m.team_barrier();
  }
};
struct DemoFib {
  using value_type = long;
  Sched sched;
  int n;
  tessera::BasicFuture<long, Sched> f1, f2;
  DemoFib(const Sched& s, int n_) : sched(s), n(n_) {}
  void operator()(Member&, long& result) {
    busy(10);
    if (n < 2) {
      busy(20);
      result = n;
      return;
    }
    if (!f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    f1 = tessera::task_spawn(tessera::TaskSingle(sched), DemoFib(sched, n - 1));
    f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), DemoFib(sched, n - 2));
    tessera::respawn(this, sched.when_all(f1, f2));
  }
};

int trace_demo(const char* path) {
  if (!tessera::profiling::start_trace(path)) return 2;
  {
    Sched sched(Sched::memory_space(), std::size_t(16) << 20);
    auto a = tessera::host_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Stage{1});
    auto b = tessera::host_spawn(tessera::TaskSingle(a), Stage{2});
    auto c = tessera::host_spawn(tessera::TaskSingle(a, tessera::TaskPriority::Low), Stage{3});
    auto team = tessera::host_spawn(tessera::TaskTeam(sched.when_all(b, c)).set_team_size(2), TeamStep{});
    auto fib = tessera::host_spawn(tessera::TaskSingle(team), DemoFib(sched, 6));
    tessera::wait(sched);
    check(fib.get(), 8);
  }
  tessera::profiling::stop_trace();
  std::printf("wrote %s\n", path);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_task_trace",
                          "Cost of task timelines (TESSERA_TRACE): fib(n) and a fan-out traced against untraced.", 9);
  int n = 23, fanout = 100000;
  std::string demo;
  cli.app().add_option("--n", n, "fib(n)")->check(tools::integer(1, 40));
  cli.app().add_option("--fanout", fanout, "tasks of the fan-out case")->check(tools::integer(1, 1 << 30));
  cli.app().add_option("--trace-demo", demo, "only write a small traced DAG's timeline to this file");
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::ScopeGuard guard(cli.settings());
  if (!demo.empty()) return trace_demo(demo.c_str());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  if (tessera::profiling::trace_active()) {
    std::fprintf(stderr, "bench_task_trace: unset TESSERA_TRACE (the benchmark opens its own traces)\n");
    return 2;
  }
  const std::string path = "/tmp/bench_task_trace_" + std::to_string(getpid()) + ".json";
  const tessera::bench::Report report("task_trace", json);
  const long expect = fib_serial(n);
  const double calls = 2.0 * double(fib_serial(n + 1)) - 1.0;
  if (!json)
    std::printf("# fib(%d): %.0f tasks; fan-out %d; %d threads; %d repeats, interleaved\n", n, calls, fanout,
                Space().concurrency(), repeats);
  measure(report, "fib(" + std::to_string(n) + ")", calls, repeats, path, [&](Sched& s) {
    auto f = tessera::host_spawn(tessera::TaskSingle(s), Fib(s, n));
    tessera::wait(s);
    check(f.get(), expect);
  });
  measure(report, "fan-out " + std::to_string(fanout), double(fanout) + 1, repeats, path, [&](Sched& s) {
    tessera::host_spawn(tessera::TaskSingle(s), FanOut{s, fanout, {}});
    tessera::wait(s);
  });
  return 0;
}
