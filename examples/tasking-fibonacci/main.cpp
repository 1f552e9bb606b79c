// Fibonacci on the task DAG: each fib(n) task spawns fib(n-1) and fib(n-2),
// respawns itself on their when_all, and adds the two results when it runs
// again. Prints the result, checks it against the closed form, and prints
// the scheduler's statistics.
//   tasking_fibonacci [n] [--tessera-num-threads=N]
#include <tessera/tasking.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

using Space = tessera::DefaultHostExecutionSpace;
using Sched = tessera::TaskScheduler<Space>;

struct Fib {
  using value_type = long;
  Sched sched;
  int n;
  tessera::BasicFuture<long, Sched> f1, f2;

  Fib(const Sched& s, int n_) : sched(s), n(n_) {}

  void operator()(Sched::member_type&, long& result) {
    if (n < 2) {
      result = n;
    } else if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();  // second run: both are ready
    } else {
      if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
      if (f2.is_null()) f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Fib(sched, n - 2));
      if (f1.is_null() || f2.is_null()) {
        // The pool is full: run again once other tasks have freed memory.
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
      const tessera::BasicFuture<long, Sched> both[2] = {f1, f2};
      tessera::respawn(this, sched.when_all(both, 2));
    }
  }
};

int main(int argc, char* argv[]) {
  tessera::initialize(argc, argv);
  int status = 0;
  {
    const int n = argc > 1 ? std::atoi(argv[1]) : 22;
    Sched sched(Sched::memory_space(), std::size_t(16) << 20);
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib(sched, n));
    tessera::wait(sched);
    const double phi = (1 + std::sqrt(5.0)) / 2;
    const long expect = std::lround(std::pow(phi, n) / std::sqrt(5.0));
    std::printf("fib(%d) = %ld (closed form %ld) on %s with %d thread(s)\n", n, f.get(), expect, Space::name(),
                Space().concurrency());
    std::cout << sched.statistics();
    status = f.get() == expect ? 0 : 1;
  }
  tessera::finalize();
  return status;
}
