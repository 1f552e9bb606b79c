#pragma once
// Reference-counted allocation records behind managed Views. The count is
// touched only by host code: copies of a View made inside a kernel on a
// device never reach the host's counter.
#include <tessera/core/macros.hpp>

#include <atomic>
#include <cstddef>
#include <string>

namespace tessera::detail {

struct SharedAllocationRecord {
  std::atomic<int> count{1};
  std::string label;
  void* data = nullptr;
  std::size_t bytes = 0;
  // Destroys the elements and frees the memory and the record itself.
  void (*destroy)(SharedAllocationRecord*) = nullptr;
};

class SharedAllocationTracker {
 public:
  TESSERA_INLINE_FUNCTION SharedAllocationTracker() = default;
  explicit SharedAllocationTracker(SharedAllocationRecord* r) : m_record(r) {}  // adopts one count
  TESSERA_INLINE_FUNCTION SharedAllocationTracker(const SharedAllocationTracker& o) : m_record(o.m_record) {
    increment();
  }
  TESSERA_INLINE_FUNCTION SharedAllocationTracker(SharedAllocationTracker&& o) noexcept : m_record(o.m_record) {
#if TESSERA_IMPL_ON_DEVICE
    // Device copies never own a count, so moving must not steal one either.
#else
    o.m_record = nullptr;
#endif
  }
  TESSERA_INLINE_FUNCTION SharedAllocationTracker& operator=(const SharedAllocationTracker& o) {
    if (m_record != o.m_record) {
      SharedAllocationTracker tmp(o);
      swap(tmp);
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION SharedAllocationTracker& operator=(SharedAllocationTracker&& o) noexcept {
    SharedAllocationTracker tmp(static_cast<SharedAllocationTracker&&>(o));
    swap(tmp);
    return *this;
  }
  TESSERA_INLINE_FUNCTION ~SharedAllocationTracker() { decrement(); }

  TESSERA_INLINE_FUNCTION void swap(SharedAllocationTracker& o) noexcept {
    SharedAllocationRecord* t = m_record;
    m_record = o.m_record;
    o.m_record = t;
  }
  TESSERA_INLINE_FUNCTION SharedAllocationRecord* record() const { return m_record; }
  int use_count() const { return m_record ? m_record->count.load(std::memory_order_relaxed) : 0; }
  const std::string& label() const {
    static const std::string empty;
    return m_record ? m_record->label : empty;
  }

 private:
  TESSERA_INLINE_FUNCTION void increment() const {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_record) m_record->count.fetch_add(1, std::memory_order_relaxed);
#endif
  }
  TESSERA_INLINE_FUNCTION void decrement() {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_record && m_record->count.fetch_sub(1, std::memory_order_acq_rel) == 1) m_record->destroy(m_record);
#endif
    m_record = nullptr;
  }

  SharedAllocationRecord* m_record = nullptr;
};

}  // namespace tessera::detail
