#pragma once
// TaskQueueBase: task records and their lifetime. Blocks come from the
// scheduler's MemoryPool through a per-worker cache of freed records; a
// record counts futures, waiters' dependences, when_all inputs and parked
// entries, and is freed by whichever comes last, its completion or its last
// release (see "lifetime" in task_queue.hpp).
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

[[gnu::always_inline]] inline void* TaskQueueBase::allocate_record(WorkerState* w, std::size_t bytes) {
  if (w != nullptr) {
    const int c = record_class(bytes);
    if (c < kRecordCacheClasses) [[likely]]
      if (void* p = w->cached[c]) {
        w->cached[c] = *static_cast<void**>(p);
        --w->cached_count[c];
        ++w->live_delta;
        return p;
      }
  }
  return allocate_record_slow(w, bytes);
}

[[gnu::noinline]] inline void* TaskQueueBase::allocate_record_slow(WorkerState* w, std::size_t bytes) {
  if (w != nullptr) {
    void* p = pool_allocate(bytes);
    if (!p && w->has_cached()) {  // blocks of other sizes may be parked here
      flush_record_cache(*w);
      p = pool_allocate(bytes);
    }
    if (p) ++w->live_delta;
    return p;
  }
  void* p = pool_allocate(bytes);
  if (p) m_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

inline void TaskQueueBase::flush_record_cache(WorkerState& w) {
  for (int c = 0; c < kRecordCacheClasses; ++c) {
    void* p = w.cached[c];
    const std::size_t bytes = std::size_t(1) << c;  // same block size as the requests cached here
    while (p != nullptr) {
      void* next = *static_cast<void**>(p);
      pool_deallocate(p, bytes);
      p = next;
    }
    w.cached[c] = nullptr;
    w.cached_count[c] = 0;
  }
}

[[gnu::always_inline]] inline void TaskQueueBase::free_record(TaskBase* t) {
  if (t->kind == TaskKind::Aggregate) {
    free_aggregate(static_cast<AggregateTask*>(t));
    return;
  }
  if (t->vt->destroy_value != nullptr) t->vt->destroy_value(t);
  const std::size_t bytes = t->alloc_bytes;
  t->~TaskBase();
  free_raw(t, bytes);  // may delete this queue: the last thing done here
}

[[gnu::noinline]] inline void TaskQueueBase::free_aggregate(AggregateTask* a) {
  for (std::uint32_t i = 0; i < a->count; ++i) release(a->deps()[i]);
  const std::size_t bytes = a->alloc_bytes;
  a->~AggregateTask();
  free_raw(a, bytes);  // may delete this queue: the last thing done here
}

[[gnu::always_inline]] inline void TaskQueueBase::free_raw(void* p, std::size_t bytes) {
  if (WorkerState* w = local()) {
    const int c = record_class(bytes);
    if (c < kRecordCacheClasses && w->cached_count[c] < kRecordCacheLimit[c]) [[likely]] {
      *static_cast<void**>(p) = w->cached[c];
      w->cached[c] = p;
      ++w->cached_count[c];
      --w->live_delta;
      return;
    }
  }
  free_raw_slow(p, bytes);
}

[[gnu::noinline]] inline void TaskQueueBase::free_raw_slow(void* p, std::size_t bytes) {
  if (WorkerState* w = local()) {
    --w->live_delta;
    pool_deallocate(p, bytes);
    return;
  }
  pool_deallocate(p, bytes);
  drop_live(1);
}

inline void TaskQueueBase::retain(TaskBase* t) noexcept {
  if (t) atomic_field(t->refs).fetch_add(1, std::memory_order_relaxed);
}

inline void TaskQueueBase::release(TaskBase* t) {
  if (t) release_n(t, 1);
}

[[gnu::always_inline]] inline void TaskQueueBase::release_n(TaskBase* t, std::int32_t n) {
  const auto refs = atomic_field(t->refs);
  if (refs.load(std::memory_order_acquire) == n || refs.fetch_sub(n, std::memory_order_acq_rel) == n)
    last_reference_gone(t);
}

[[gnu::always_inline]] inline void TaskQueueBase::last_reference_gone(TaskBase* t) {
  TaskBase* h = atomic_field(t->wait_head).load(std::memory_order_acquire);
  if (h == list_marker()) [[likely]] {
    t->queue->free_record(t);
    return;
  }
  orphan(t, h);
}

[[gnu::noinline]] inline void TaskQueueBase::orphan(TaskBase* t, TaskBase* h) {
  for (;;) {
    if (h == list_marker()) {
      t->queue->free_record(t);
      return;
    }
    if (atomic_field(t->wait_head).compare_exchange_weak(h, orphan_marker(), std::memory_order_acq_rel,
                                           std::memory_order_acquire))
      return;
  }
}

inline void TaskQueueBase::drop_live(std::int64_t n) {
  if (m_live.fetch_sub(n, std::memory_order_acq_rel) == n) delete this;
}

}  // namespace detail::tasking
}  // namespace tessera
