#pragma once
// The frontier queue's append buffer of a BFS work item.
#include <tessera/core.hpp>

#include <cstdint>

namespace tessera::graph::detail {

// Discoveries of one work item, appended to a shared queue in batches: one
// atomic add per batch instead of one per vertex (a shared counter bounced
// between cores on every discovery costs more than the discovery).
template <class V, class QV, class CV, int Capacity>
struct bfs_queue_buffer {
  static constexpr int capacity = Capacity;
  V buf[capacity];
  int size = 0;
  const QV& queue;
  const CV& tail;
  TESSERA_INLINE_FUNCTION bfs_queue_buffer(const QV& q, const CV& t) : queue(q), tail(t) {}
  TESSERA_INLINE_FUNCTION void push(V v) {
    if (size == capacity) flush();
    buf[size++] = v;
  }
  TESSERA_INLINE_FUNCTION void flush() {
    if (size == 0) return;
    const std::int64_t at = tessera::atomic_fetch_add(&tail(0), std::int64_t(size));
    for (int i = 0; i < size; ++i) queue(at + i) = buf[i];
    size = 0;
  }
};

}  // namespace tessera::graph::detail
