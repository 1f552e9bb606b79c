#pragma once
// TaskQueueBase: dependences and completion. A task whose dependence is
// incomplete joins the dependence's wait queue; a completing task closes its
// wait queue and makes the waiters ready; a when_all node waits on one input
// at a time; a task that asked to respawn is scheduled again instead of
// completing.
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

[[gnu::always_inline]] inline void TaskQueueBase::schedule(WorkerState* w, TaskBase* t) {
  if (TaskBase* d = t->dep) {
    if (wait_queue_push(d, t)) return;  // t may already be running elsewhere: do not touch it
    t->dep = nullptr;
    release(d);
  }
  push_ready(w, t);
}

inline void TaskQueueBase::continue_aggregate(AggregateTask* a) {
  while (a->next_dep < a->count) {
    TaskBase* d = a->deps()[a->next_dep];
    if (d && wait_queue_push(d, a)) return;
    ++a->next_dep;
  }
  complete(a);
}

[[gnu::always_inline]] inline void TaskQueueBase::complete(TaskBase* t, WorkerState* ws) {
  if (t->kind != TaskKind::Aggregate && t->vt->destroy_closure != nullptr) t->vt->destroy_closure(t);
  if (ws != nullptr) {
    ++ws->completed;
    if (t->failed) ++ws->failed;
  } else {
    m_host_completed.fetch_add(1, std::memory_order_relaxed);
    if (t->failed) m_host_failed.fetch_add(1, std::memory_order_relaxed);
  }
  TaskBase* w = atomic_field(t->wait_head).exchange(list_marker(), std::memory_order_acq_rel);
  if (w == nullptr) return;  // nobody waits
  wake_waiters(t, w);
}

[[gnu::noinline]] inline void TaskQueueBase::wake_waiters(TaskBase* t, TaskBase* w) {
  if (w == orphan_marker()) {  // no future, no waiter: nobody will look at it again
    free_record(t);
    return;
  }
  // One reference per woken task (its dependence was t), dropped together
  // at the end in one operation.
  std::int32_t held = 0;
  while (w != nullptr) {
    TaskBase* next = w->next;
    if (w->kind == TaskKind::Aggregate) {
      continue_aggregate(static_cast<AggregateTask*>(w));
    } else {
      w->dep = nullptr;
      ++held;
      push_ready(w);
    }
    w = next;
  }
  if (held != 0) release_n(t, held);
}

[[gnu::always_inline]] inline void TaskQueueBase::finish(TaskBase* t, WorkerState* ws) {
  if (t->respawn_requested) [[unlikely]] {
    finish_respawn(t);
    return;
  }
  complete(t, ws);
}

[[gnu::noinline]] inline void TaskQueueBase::finish_respawn(TaskBase* t) {
  if (!t->failed && !m_cancel.load(std::memory_order_relaxed)) {
    t->respawn_requested = 0;
    WorkerState* w = local();
    if (w) ++w->respawned;
    if (w && !t->parked && t->dep != nullptr && !t->dep->is_complete()) note_parked(*w, t);
    schedule(t);
    return;
  }
  if (t->respawn_requested) {
    t->respawn_requested = 0;
    TaskBase* d = t->dep;
    t->dep = nullptr;
    release(d);
  }
  complete(t);
}

inline bool TaskQueueBase::depends_on(TaskBase* d, const TaskBase* t) {
  if (d == t) return true;
  if (d == nullptr || d->kind != TaskKind::Aggregate || d->is_complete()) return false;
  auto* a = static_cast<AggregateTask*>(d);
  for (std::uint32_t i = 0; i < a->count; ++i)
    if (depends_on(a->deps()[i], t)) return true;
  return false;
}

inline void TaskQueueBase::wake_waiters_of(TaskBase* d) {
  TaskBase* w = atomic_field(d->wait_head).exchange(nullptr, std::memory_order_acq_rel);
  std::int32_t held = 0;
  while (w != nullptr) {
    TaskBase* next = w->next;
    if (w->kind == TaskKind::Aggregate) {
      wait_queue_push(d, w);
    } else {
      w->dep = nullptr;
      ++held;
      push_ready(w);
    }
    w = next;
  }
  if (held != 0) release_n(d, held);
}

}  // namespace detail::tasking
}  // namespace tessera
