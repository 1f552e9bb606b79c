#pragma once
// TaskQueueBase: errors and dependence cycles. The first exception of a
// task is kept and cancels the rest of the DAG; a wait that ends with
// incomplete tasks and nothing to run has found a cycle, drained in cancel
// mode from the tasks workers parked (see "dependence cycles" in
// task_queue.hpp).
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

inline void TaskQueueBase::record_error(TaskBase* t, std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(m_error_mutex);
  t->failed = 1;  // under the lock: several members of a team may throw
  if (!m_error) {
    m_error = e;
    m_error_task = task_name(t);
  }
  m_cancel.store(true, std::memory_order_release);
}

inline void TaskQueueBase::end_wait() {
  std::exception_ptr error;
  std::string task;
  {
    std::lock_guard<std::mutex> lock(m_error_mutex);
    error = m_error;
    task = m_error_task;
    m_error = nullptr;
    m_error_task.clear();
  }
  m_cancel.store(false, std::memory_order_release);
  if (error) throw_task_failure(task, error, m_totals.failed);
  // Host threads may spawn while the wait ends: what they spawned late is
  // counted as created but runs in the next wait, so it is no cycle. Read
  // in this order, a counted host task is still "spawning" or, pushed,
  // counted in m_active (workers are gone: nobody takes it); either way
  // the check waits for the next wait.
  const std::uint64_t waiting = incomplete();
  const bool host_work_left = m_host_spawning.load(std::memory_order_acquire) != 0 ||
                              (m_active.load(std::memory_order_acquire) & ~kClosed) != 0;
  if (waiting > 0 && !host_work_left) {
    cancel_cycles();
    // Whatever the drain could not reach (nothing, by the argument above)
    // is not reported again at the next wait.
    m_outstanding_bias -= incomplete();
    throw_dependence_cycle(waiting);
  }
}

inline void TaskQueueBase::note_parked(WorkerState& w, TaskBase* t) {
  w.parked.push_back(t);
  t->parked = 1;
  retain(t);
  if (w.parked.size() >= w.prune_parked_at) prune_parked(w);
}

inline void TaskQueueBase::prune_parked(WorkerState& w) {
  std::size_t kept = 0;
  for (TaskBase* t : w.parked) {
    if (t->is_complete()) release(t);
    else w.parked[kept++] = t;
  }
  w.parked.resize(kept);
  w.prune_parked_at = std::max<std::size_t>(64, 2 * kept);
}

}  // namespace detail::tasking
}  // namespace tessera
