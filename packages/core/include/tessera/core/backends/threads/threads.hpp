#pragma once
// Threads: Tessera's own pool of std::threads.
//
// Dispatch is fork/join: the calling thread publishes the work and bumps a
// generation counter; workers spin on that counter for a short while before
// sleeping on it, so back-to-back kernels wake workers without a syscall.
// Placement: the default thread count is the number of CPUs in the
// process's allowed set (its affinity mask), and when the pool has no more
// threads than that set has CPUs, worker i is pinned to the i-th allowed CPU
// in hwloc's logical order (consecutive thread ids then share a core or
// cache domain, and host teams -- runs of consecutive ids -- share caches).
// With more threads than allowed CPUs nothing is pinned. The calling thread
// is never pinned. See the core manual, "Thread placement".
#include <tessera/core/memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <iosfwd>
#include <string>

namespace tessera {

namespace detail {
using ThreadsJob = void (*)(const void* context, int thread_id, int thread_count);
// Runs job(context, tid, n) on every pool thread, the caller as thread 0, and
// returns when all have finished. Rethrows the first exception a thread threw.
void threads_run(ThreadsJob job, const void* context);
int threads_pool_size();
int threads_pool_rank();
bool threads_in_parallel();
// Workers the pool pinned to a CPU (0 when it does not pin).
int threads_pinned_workers();
// The CPU no worker is pinned to: the one the calling thread ran on when the
// pool was made (-1 when workers are not pinned).
int threads_callers_cpu();
}  // namespace detail

class Threads {
 public:
  using execution_space = Threads;
  using memory_space = HostSpace;
  using device_type = Device<Threads, HostSpace>;
  using size_type = std::size_t;
  using array_layout = LayoutRight;
  using scratch_memory_space = HostSpace;

  static constexpr const char* name() { return "Threads"; }
  int concurrency() const { return detail::threads_pool_size(); }
  void fence(const std::string& = "") const {}
  static bool in_parallel() { return detail::threads_in_parallel(); }
  static void print_configuration(std::ostream& out, bool verbose = false);

  // Host back-end protocol (impl_parallel_region and friends, used by
  // core/detail/host_region.hpp and the host_* patterns it serves).
  int impl_thread_pool_size() const { return in_parallel() ? 1 : detail::threads_pool_size(); }
  static int impl_thread_pool_rank() { return detail::threads_pool_rank(); }
  template <class F>
  void impl_parallel_region(const F& f) const {
    if (in_parallel() || detail::threads_pool_size() == 1) {
      f(0, 1);
      return;
    }
    detail::threads_run(
        [](const void* ctx, int tid, int n) { (*static_cast<const F*>(ctx))(tid, n); }, &f);
  }
  static void impl_initialize(const class InitializationSettings& settings);
  static void impl_finalize();

  friend bool operator==(const Threads&, const Threads&) { return true; }
};

template <>
struct is_host_execution_space<Threads> : std::true_type {};

}  // namespace tessera
