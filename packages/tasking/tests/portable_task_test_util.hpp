#pragma once
// Shared by the portable task suites (test_task_portable*.cpp): the suites
// written once for every back-end with a task driver, Cuda included.
// Functors are TESSERA_FUNCTION, counts go through Views and atomics,
// results are trivially copyable and failures go through tessera::task_fail;
// expected values come from closed forms or brute-force counts. Without a
// GPU the Cuda cases skip with the driver's reason.
#include "tasking_test_util.hpp"

// The functors are __host__ __device__ and call the host back-ends' API in
// their host instantiations, which nvcc reports (warning 20014) although
// those instantiations never run on the device: tests/CMakeLists.txt
// silences it for these suites (a pragma here does not).

#include <cstddef>
#include <vector>

namespace tessera::test::portable {

// Every enabled back-end, Cuda included.
using PortableTaskSpaces = tessera::test::ExecutionSpaces;

template <class Space>
using CountView = tessera::View<long long*, typename Space::memory_space>;

template <class Space>
std::vector<long long> to_host(const CountView<Space>& v) {
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  std::vector<long long> out(std::size_t(v.extent(0)));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = h(i);
  return out;
}

// Blocks the scheduler's pool has handed out and not taken back (task
// records and when_all nodes; on Cuda host spawns live in a staging arena
// instead, so every back-end reads 0 once nothing is referenced).
template <class Sched>
std::size_t pool_blocks_in_use(const Sched& sched) {
  typename Sched::memory_pool::usage_statistics u;
  sched.memory().get_usage_statistics(u);
  return u.consumed_blocks;
}

template <class Space>
inline constexpr bool is_host_space = tessera::is_host_execution_space<Space>::value;

// Adds `value` to count(slot).
template <class Sched, class View>
struct AddTo {
  View count;
  int slot;
  long long value;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_add(&count(slot), value); }
};

// order(i) := the ticket task i drew from the counter order(counter): the
// order in which tasks ran.
template <class Sched, class View>
struct Ticket {
  View order;
  int i, counter;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    order(i) = tessera::atomic_fetch_add(&order(counter), 1ll);
  }
};

template <class Sched>
struct Noop {
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {}
};

}  // namespace tessera::test::portable
