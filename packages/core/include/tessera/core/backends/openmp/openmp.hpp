#pragma once
// OpenMP: the compiler's OpenMP runtime drives the host threads.
#include <tessera/core/detail/running_host_space.hpp>
#include <tessera/core/memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <omp.h>

#include <iosfwd>
#include <string>

namespace tessera {

class OpenMP {
 public:
  using execution_space = OpenMP;
  using memory_space = HostSpace;
  using device_type = Device<OpenMP, HostSpace>;
  using size_type = std::size_t;
  using array_layout = LayoutRight;
  using scratch_memory_space = HostSpace;

  static constexpr const char* name() { return "OpenMP"; }
  int concurrency() const { return s_pool_size; }
  void fence(const std::string& = "") const {}
  static bool in_parallel() { return omp_in_parallel() != 0; }
  static void print_configuration(std::ostream& out, bool verbose = false);

  // Host back-end protocol (impl_parallel_region and friends, used by
  // core/detail/host_region.hpp and the host_* patterns it serves). Inside an
  // enclosing parallel region the work runs on the calling thread alone.
  int impl_thread_pool_size() const { return in_parallel() ? 1 : s_pool_size; }
  static int impl_thread_pool_rank() { return omp_get_thread_num(); }
  template <class F>
  void impl_parallel_region(const F& f) const {
    if (in_parallel() || s_pool_size == 1) {
      f(0, 1);
      return;
    }
#pragma omp parallel num_threads(s_pool_size)
    {
      const detail::RunningHostSpace<OpenMP> running(omp_get_thread_num());
      f(omp_get_thread_num(), omp_get_num_threads());
    }
  }
  static void impl_initialize(const class InitializationSettings& settings);
  static void impl_finalize() {}

  friend bool operator==(const OpenMP&, const OpenMP&) { return true; }

 private:
  static inline int s_pool_size = 1;
};

template <>
struct is_host_execution_space<OpenMP> : std::true_type {};

}  // namespace tessera
