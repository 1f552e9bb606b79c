#pragma once
// memory_meter: the bytes a miniTri method holds, and their peak, counted
// from the sizes of the arrays it allocates (so the figure is exact and the
// same on every run, unlike a sampled resident size). Thread-safe: task
// bodies add and release their blocks' triangles concurrently.
#include <atomic>
#include <cstdint>

namespace tessera::analytics::detail {

class memory_meter {
 public:
  void add(std::int64_t bytes) {
    const std::int64_t now = m_now.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    std::int64_t peak = m_peak.load(std::memory_order_relaxed);
    while (now > peak && !m_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void release(std::int64_t bytes) { m_now.fetch_sub(bytes, std::memory_order_relaxed); }
  std::int64_t now() const { return m_now.load(std::memory_order_relaxed); }
  std::int64_t peak() const { return m_peak.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> m_now{0};
  std::atomic<std::int64_t> m_peak{0};
};

}  // namespace tessera::analytics::detail
