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

inline std::uint32_t TaskQueueBase::record_batch(int c) const noexcept {
  const std::size_t fit = m_record_batch_bytes >> c;
  return fit >= kRecordBatch ? kRecordBatch : fit == 0 ? 1u : std::uint32_t(fit);
}

[[gnu::noinline]] inline void* TaskQueueBase::allocate_record_slow(WorkerState* w, std::size_t bytes) {
  if (w != nullptr) {
    const int c = record_class(bytes);
    if (c < kRecordCacheClasses) {
      // The cache of this class is empty: one batch from the pool, the
      // first block for this record and the rest cached in address order
      // (so that they go back to the pool sorted, see free_batch).
      void* batch[kRecordBatch];
      const std::uint32_t want = record_batch(c);
      const std::uint32_t k = want > 1 ? pool_allocate_batch(std::size_t(1) << c, batch, want) : 0;
      if (k != 0) {
        for (std::uint32_t i = k - 1; i >= 1; --i) {
          *static_cast<void**>(batch[i]) = w->cached[c];
          w->cached[c] = batch[i];
        }
        w->cached_count[c] += k - 1;
        ++w->live_delta;
        return batch[0];
      }
    }
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
  void* batch[kRecordBatch];
  for (int c = 0; c < kRecordCacheClasses; ++c) {
    const std::size_t bytes = std::size_t(1) << c;  // same block size as the requests cached here
    std::uint32_t k = 0;
    for (void* p = w.cached[c]; p != nullptr;) {
      // The link is read before the block goes back: once in the pool,
      // another worker may take it and overwrite its first word.
      void* next = *static_cast<void**>(p);
      batch[k++] = p;
      if (k == kRecordBatch) {
        pool_deallocate_batch(batch, k, bytes);
        k = 0;
        TESSERA_TASKING_TEST_POINT(RecordBatchReturned, -1);
      }
      p = next;
    }
    if (k != 0) pool_deallocate_batch(batch, k, bytes);
    w.cached[c] = nullptr;
    w.cached_count[c] = 0;
  }
}

[[gnu::noinline]] inline void TaskQueueBase::trim_record_cache(WorkerState& w, int c) {
  void* batch[kRecordBatch];
  const std::uint32_t n = std::min(kRecordBatch, kRecordCacheLimit[std::size_t(c)] / 2);
  void* p = w.cached[c];
  for (std::uint32_t i = 0; i < n; ++i) {
    batch[i] = p;
    p = *static_cast<void**>(p);
  }
  w.cached[c] = p;
  w.cached_count[c] -= n;
  pool_deallocate_batch(batch, n, std::size_t(1) << c);
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
    if (c < kRecordCacheClasses) [[likely]] {
      *static_cast<void**>(p) = w->cached[c];
      w->cached[c] = p;
      --w->live_delta;
      if (++w->cached_count[c] > kRecordCacheLimit[std::size_t(c)]) [[unlikely]]
        trim_record_cache(*w, c);
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
