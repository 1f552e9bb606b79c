#pragma once
// TaskQueueBase: the host driver's ready queues. A worker pushes onto its
// own deques (or, alone, its own lists), host threads onto the workers'
// injection stacks; a worker pops its own queues highest priority first and
// steals the oldest tasks of the others' (see task_queue.hpp's design notes).
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

[[gnu::always_inline]] inline void TaskQueueBase::push_ready(WorkerState* w, TaskBase* t) {
  const int p = t->priority;
  if (w == nullptr) {
    // A host thread: the task counts in m_active until a worker takes it.
    // Host spawns are spread over the workers' queues so that a large
    // fan-out starts on every worker without stealing.
    t->counted = 1;
    const std::int64_t before = m_active.fetch_add(1, std::memory_order_acq_rel) & ~kClosed;
    const unsigned q = m_host_next.fetch_add(1, std::memory_order_relaxed) % unsigned(m_nqueues);
    update_host_peak(std::uint64_t(before + 1));
    queue_push(m_queues[q].head[p], t);
    return;
  }
  if (t_worker.nthreads == 1) {
    t->next = w->own[p];
    w->own[p] = t;
    ++w->own_active;
    w->peak_ready = std::max<std::uint64_t>(
        w->peak_ready, w->own_active + std::uint64_t(m_active.load(std::memory_order_relaxed)));
    return;
  }
  push_own(*w, t);
}

[[gnu::always_inline]] inline void TaskQueueBase::push_own(WorkerState& w, TaskBase* t) {
  const std::int64_t queued = w.deque[t->priority].push(t);
  w.peak_ready = std::max<std::uint64_t>(w.peak_ready, std::uint64_t(queued) + 1);
}

inline void TaskQueueBase::take(TaskBase* t) noexcept {
  if (t->counted) {
    t->counted = 0;
    m_active.fetch_sub(1, std::memory_order_acq_rel);
  }
  if (t_worker.nthreads == 1) ++t_worker.state->own_active;
}

[[gnu::always_inline]] inline TaskBase* TaskQueueBase::pop_local() noexcept {
  WorkerState& w = *t_worker.state;
  if (t_worker.nthreads == 1) {
    // With one thread m_active counts only host threads' tasks not taken
    // yet: at 0 the injection stacks are empty (a host thread counts its
    // task before pushing it; one pushed meanwhile is found next time).
    if (m_active.load(std::memory_order_relaxed) != 0) [[unlikely]]
      return pop_alone_with_host_tasks(w);
    for (int p = 0; p < kPriorities; ++p)
      if (TaskBase* t = w.own[p]) {  // counted in own_active since its push
        w.own[p] = t->next;
        return t;
      }
    return nullptr;
  }
  for (int p = 0; p < kPriorities; ++p) {
    if (TaskBase* t = w.deque[p].pop()) return t;  // never counted: host tasks are not in deques
    if (w.inject->head[p].load(std::memory_order_relaxed) != nullptr)
      if (TaskBase* t = pop_injected(w.inject->head[p])) return t;
  }
  return nullptr;
}

[[gnu::noinline]] inline TaskBase* TaskQueueBase::pop_alone_with_host_tasks(WorkerState& w) noexcept {
  for (int p = 0; p < kPriorities; ++p) {
    if (TaskBase* t = w.own[p]) {
      w.own[p] = t->next;
      return t;
    }
    if (w.inject->head[p].load(std::memory_order_relaxed) != nullptr)
      if (TaskBase* t = pop_injected(w.inject->head[p])) return t;
  }
  return nullptr;
}

[[gnu::noinline]] inline TaskBase* TaskQueueBase::pop_injected(std::atomic<TaskBase*>& head) noexcept {
  TaskBase* t = queue_pop(head);
  if (t) take(t);
  return t;
}

inline TaskBase* TaskQueueBase::steal(int worker) noexcept {
  const int me = worker % m_nqueues;
  const int nt = t_worker.nthreads;
  for (int p = 0; p < kPriorities; ++p) {
    for (int k = 1; k < nt; ++k) {
      WorkDeque& d = m_workers[std::size_t((worker + k) % nt)]->deque[p];
      if (d.seems_empty()) continue;
      if (TaskBase* t = d.steal()) {
        ++m_workers[std::size_t(worker)]->steals;
        return t;
      }
    }
    for (int k = 1; k < m_nqueues; ++k) {
      const int v = (me + k) % m_nqueues;
      if (m_queues[v].head[p].load(std::memory_order_relaxed) == nullptr) continue;
      if (TaskBase* t = queue_pop(m_queues[v].head[p])) {
        ++m_workers[std::size_t(worker)]->steals;
        take(t);
        return t;
      }
    }
  }
  return nullptr;
}

inline bool TaskQueueBase::work_visible() const noexcept {
  for (int v = 0; v < m_nqueues; ++v)
    for (int p = 0; p < kPriorities; ++p)
      if (m_queues[v].head[p].load(std::memory_order_relaxed) != nullptr) return true;
  const int nt = t_worker.nthreads;
  for (int v = 0; v < nt; ++v)
    for (int p = 0; p < kPriorities; ++p)
      if (!m_workers[std::size_t(v)]->deque[p].seems_empty()) return true;
  return false;
}

}  // namespace detail::tasking
}  // namespace tessera
