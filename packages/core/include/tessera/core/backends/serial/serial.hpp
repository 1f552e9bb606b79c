#pragma once
// Serial: one thread, the reference semantics every other back-end must match.
#include <tessera/core/memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <iosfwd>
#include <string>

namespace tessera {

class Serial {
 public:
  using execution_space = Serial;
  using memory_space = HostSpace;
  using device_type = Device<Serial, HostSpace>;
  using size_type = std::size_t;
  using array_layout = LayoutRight;
  using scratch_memory_space = HostSpace;

  static constexpr const char* name() { return "Serial"; }
  int concurrency() const { return 1; }
  void fence(const std::string& = "") const {}
  static bool in_parallel() { return false; }
  static void print_configuration(std::ostream& out, bool verbose = false);

  // Host back-end protocol (impl_parallel_region and friends, used by
  // core/detail/host_region.hpp and the host_* patterns it serves).
  int impl_thread_pool_size() const { return 1; }
  // Patterns compile only their one-thread path (detail::single_thread_v).
  static constexpr bool impl_single_thread = true;
  static int impl_thread_pool_rank() { return 0; }
  template <class F>
  void impl_parallel_region(const F& f) const { f(0, 1); }
  static void impl_initialize(const class InitializationSettings&) {}
  static void impl_finalize() {}

  friend bool operator==(const Serial&, const Serial&) { return true; }
};

template <>
struct is_host_execution_space<Serial> : std::true_type {};

}  // namespace tessera
