#pragma once
// TaskQueueBase: termination of a wait. m_active counts busy workers plus
// host threads' tasks not taken yet; the idle worker that sees 0 closes it,
// and every worker leaves once it is closed (see "termination" in
// task_queue.hpp for why that is safe).
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

inline bool TaskQueueBase::wait_over() noexcept {
  std::int64_t a = m_active.load(std::memory_order_acquire);
  if (a >= kClosed) return true;
  if (a != 0 || m_host_spawning.load(std::memory_order_acquire) != 0) return false;
  return m_active.compare_exchange_strong(a, kClosed, std::memory_order_acq_rel,
                                          std::memory_order_acquire) ||
         a >= kClosed;
}

inline bool TaskQueueBase::reactivate() noexcept {
  std::int64_t a = m_active.load(std::memory_order_relaxed);
  while (a < kClosed)
    if (m_active.compare_exchange_weak(a, a + 1, std::memory_order_acq_rel, std::memory_order_relaxed))
      return true;
  return false;
}

}  // namespace detail::tasking
}  // namespace tessera
