#pragma once
// Threads: Tessera's own pool of std::threads, pinned with hwloc.
//
// Dispatch is fork/join: the calling thread publishes the work and bumps a
// generation counter; workers spin on that counter for a short while before
// sleeping on it, so back-to-back kernels wake workers without a syscall.
// Worker i is bound to the i-th processing unit in hwloc's logical order, so
// consecutive thread ids share a core or cache domain and host teams (which
// are runs of consecutive ids) share caches.
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

  // Host back-end protocol (see core/detail/host_parallel.hpp).
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
