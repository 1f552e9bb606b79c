#pragma once
// Helpers shared by the MemoryPool tests.
#include "tessera_test_spaces.hpp"

#include <tessera/mempool.hpp>

#include <vector>

namespace tessera::test {

// Runs f(0) once as a kernel on Space and waits for it.
template <class Space, class F>
void run_once(const F& f) {
  tessera::parallel_for("mempool test", tessera::RangePolicy<Space>(0, 1), f);
  Space().fence();
}

// Host back-ends test both the per-thread cache and the bitset path alone;
// device back-ends only have the bitset path.
template <class Space>
std::vector<bool> mempool_modes() {
  if constexpr (tessera::is_host_execution_space<Space>::value) return {true, false};
  else return {false};
}

inline tessera::MemoryPoolOptions pool_options(bool thread_cache) {
  tessera::MemoryPoolOptions o;
  o.thread_cache = thread_cache;
  return o;
}

}  // namespace tessera::test
