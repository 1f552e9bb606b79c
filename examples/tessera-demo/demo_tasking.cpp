// Rows of the tasking package: Fibonacci on the task DAG (spawn, when_all,
// respawn), a fan-out of many tasks under one when_all, and team tasks doing
// nested parallel_reduce, on every host back-end; each checked against a
// closed form.
#include "demo.hpp"

#include <tessera/tasking.hpp>

#include <atomic>
#include <cmath>
#include <vector>

using tessera_demo::Check;
using tessera_demo::format;

namespace {

template <class Sched>
struct DemoFib {
  using value_type = long;
  Sched sched;
  int n;
  tessera::BasicFuture<long, Sched> f1, f2;
  DemoFib(const Sched& s, int n_) : sched(s), n(n_) {}
  void operator()(typename Sched::member_type&, long& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), DemoFib(sched, n - 1));
    if (f2.is_null()) f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), DemoFib(sched, n - 2));
    if (f1.is_null() || f2.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);  // pool full: retry later
      return;
    }
    const tessera::BasicFuture<long, Sched> both[2] = {f1, f2};
    tessera::respawn(this, sched.when_all(both, 2));
  }
};

template <class Space>
Check fibonacci(int n) {
  using Sched = tessera::TaskScheduler<Space>;
  Sched sched(typename Sched::memory_space(), std::size_t(64) << 20);
  const auto t0 = std::chrono::steady_clock::now();
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), DemoFib<Sched>(sched, n));
  tessera::wait(sched);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long expect = std::lround(std::pow((1 + std::sqrt(5.0)) / 2, n) / std::sqrt(5.0));
  const auto st = sched.statistics();
  return Check{f.get() == expect, format("fib(%d) = %ld (expected %ld)", n, f.get(), expect), s,
               format("%.1f Mtasks/s", double(st.spawned) / s * 1e-6)};
}

template <class Sched>
struct FanOut {
  using value_type = long;
  using Member = typename Sched::member_type;
  Sched sched;
  int n;
  std::vector<tessera::BasicFuture<long, Sched>> kids{};
  void operator()(Member&, long& result) {
    if (kids.empty()) {
      for (int i = 0; i < n; ++i) kids.push_back(tessera::task_spawn(tessera::TaskSingle(sched), [i](Member&, long& r) { r = i; }));
      tessera::respawn(this, sched.when_all(kids));
      return;
    }
    for (auto& k : kids) result += k.get();
  }
};

template <class Space>
Check fan_out(int n) {
  using Sched = tessera::TaskScheduler<Space>;
  Sched sched(typename Sched::memory_space(), std::size_t(256) << 20);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), FanOut<Sched>{sched, n});
  tessera::wait(sched);
  const long expect = long(n) * (n - 1) / 2;
  return Check{f.get() == expect, format("sum = %ld (expected %ld)", f.get(), expect)};
}

template <class Sched>
struct TeamSum {
  using value_type = long;
  long n;
  void operator()(typename Sched::member_type& member, long& result) const {
    long s = 0;
    tessera::parallel_reduce(tessera::TeamThreadRange(member, n), [&](long i, long& acc) { acc += i; }, s);
    if (member.team_rank() == 0) result = s;
  }
};

template <class Space>
Check team_tasks(int tasks, long n) {
  using Sched = tessera::TaskScheduler<Space>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  std::vector<tessera::BasicFuture<long, Sched>> fs;
  for (int t = 0; t < tasks; ++t) fs.push_back(tessera::host_spawn(tessera::TaskTeam(sched), TeamSum<Sched>{n + t}));
  tessera::wait(sched);
  int wrong = 0;
  for (int t = 0; t < tasks; ++t) wrong += fs[std::size_t(t)].get() != (n + t) * (n + t - 1) / 2;
  return Check{wrong == 0, format("%d of %d sums wrong, team size %d", wrong, tasks, sched.team_size())};
}

template <class Space>
void tasking_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  const int n = ctx.quick ? 18 : 27;
  report.run<Space>("tasking", format("Fibonacci(%d): spawn + when_all + respawn", n), [&] { return fibonacci<Space>(n); });
  const int m = ctx.quick ? 10000 : 1000000;
  report.run<Space>("tasking", format("%d tasks under one when_all", m), [&] { return fan_out<Space>(m); });
  report.run<Space>("tasking", "TaskTeam tasks with nested parallel_reduce",
                    [&] { return team_tasks<Space>(ctx.quick ? 20 : 200, ctx.quick ? 10000 : 1000000); });
}

}  // namespace

void run_tasking(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() {
    if constexpr (tessera::is_host_execution_space<Space>::value) tasking_rows<Space>(report, ctx);
  });
}
