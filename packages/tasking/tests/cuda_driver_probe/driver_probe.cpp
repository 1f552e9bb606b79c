// Compiled only by the tasking_cuda_driver_resources check (see
// check_driver_resources.cmake beside it), never linked: a translation unit
// that instantiates the CUDA task driver kernel with one ordinary task type
// (a non-template Fibonacci by spawn + when_all + respawn), so that ptxas
// reports the kernel's registers, stack frame and spills, and an index set
// (host_spawn_for) of the widest body Cuda accepts, whose tree nodes have
// the deepest stack a task of the library's own makes.
#include <tessera/tasking.hpp>

#if defined(__NVCC__)
#pragma nv_diag_suppress 20014
#endif

namespace tessera_driver_probe {

using Sched = tessera::TaskScheduler<tessera::Cuda>;

struct Fib {
  using value_type = long long;
  Sched sched;
  int n;
  tessera::BasicFuture<long long, Sched> f1, f2;
  TESSERA_FUNCTION Fib(const Sched& s, int n_) : sched(s), n(n_) {}
  TESSERA_FUNCTION void operator()(Sched::member_type&, long long& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
    if (f2.is_null()) f2 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 2));
    if (f1.is_null() || f2.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    auto all = sched.when_all(f1, f2);
    if (all.is_null()) tessera::respawn(this, sched, tessera::TaskPriority::Low);
    else tessera::respawn(this, all);
  }
};

long long fib(int n) {
  Sched sched(Sched::memory_space(), std::size_t(16) << 20);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib(sched, n));
  tessera::wait(sched);
  return f.get();
}

// A spawn_for body of the largest size Cuda accepts: the nodes of its tree
// copy it into each child they spawn.
struct WideBody {
  long long* out;
  char pad[tessera::detail::tasking::kSpawnForCudaMaxBodyBytes - sizeof(long long*)];
  TESSERA_FUNCTION void operator()(int i) const { out[i] += pad[i % sizeof(pad)]; }
};
static_assert(sizeof(WideBody) == tessera::detail::tasking::kSpawnForCudaMaxBodyBytes);

void wide(long long* out, int n) {
  Sched sched(Sched::memory_space(), std::size_t(16) << 20);
  const WideBody body{out, {}};
  tessera::host_spawn_for(tessera::TaskSingle(sched), n, body, 0);
  tessera::host_spawn_for(tessera::TaskTeam(sched), n, body, 0);
  tessera::wait(sched);
}

}  // namespace tessera_driver_probe
