#pragma once
// Keeps the large update-matrix buffers of a factorization for the next
// one. A fresh large allocation arrives from the system as untouched pages,
// and touching them costs a page fault per 4 KiB: on a 3-D problem that is
// seconds of system time per factorization. Buffers of 64 KiB and more are
// kept by size class (powers of two) and handed out again; smaller ones go
// straight to new/delete. Thread-safe (one mutex: acquisitions are per
// front, not per entry).
#include <bit>
#include <cstddef>
#include <mutex>
#include <vector>

namespace tessera::sparse::detail {

class BufferPool {
 public:
  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() { clear(); }

  // At least `count` doubles, uninitialized.
  double* acquire(std::size_t count) {
    if (count < kPooled) return new double[count];
    const unsigned c = size_class(count);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (c < m_free.size() && !m_free[c].empty()) {
        double* p = m_free[c].back();
        m_free[c].pop_back();
        return p;
      }
    }
    return new double[std::size_t(1) << c];
  }
  // Gives back a buffer acquired with the same count.
  void release(double* p, std::size_t count) {
    if (p == nullptr) return;
    if (count < kPooled) {
      delete[] p;
      return;
    }
    const unsigned c = size_class(count);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_free.size() <= c) m_free.resize(c + 1);
    m_free[c].push_back(p);
  }
  // Frees every kept buffer.
  void clear() {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& list : m_free)
      for (double* p : list) delete[] p;
    m_free.clear();
  }

 private:
  static constexpr std::size_t kPooled = (std::size_t(64) << 10) / sizeof(double);
  static unsigned size_class(std::size_t count) { return unsigned(std::bit_width(count - 1)); }

  std::mutex m_mutex;
  std::vector<std::vector<double*>> m_free;
};

}  // namespace tessera::sparse::detail
