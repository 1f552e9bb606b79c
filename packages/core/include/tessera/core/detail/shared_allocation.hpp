#pragma once
// Reference-counted allocation records behind managed Views. The count is
// touched only by host code: copies of a View made inside a kernel on a
// device never reach the host's counter.
//
// Every allocation starts with a header of `label_header_bytes` in the
// allocation's own memory space that holds a NUL-terminated copy of the
// label. Views keep a pointer to that text, so a bounds error raised inside a
// kernel (on any device) can name the View without touching host memory.
#include <tessera/core/macros.hpp>

#include <atomic>
#include <cstddef>
#include <string>

namespace tessera::detail {

// Bytes before the data of every managed allocation: the label text, padded
// so that the data keeps the memory space's alignment (a multiple of 64).
// Longer labels are truncated in the header only; label() returns them whole.
inline constexpr std::size_t label_header_bytes = 128;

struct SharedAllocationRecord {
  std::atomic<int> count{1};
  std::string label;
  void* base = nullptr;             // what the memory space returned (header first)
  void* data = nullptr;             // base + label_header_bytes
  std::size_t bytes = 0;            // bytes of data (without the header)
  const char* label_in_space = nullptr;  // the header's text, in the allocation's memory space
  // Destroys the elements and frees the memory and the record itself.
  void (*destroy)(SharedAllocationRecord*) = nullptr;
};

class SharedAllocationTracker {
 public:
  TESSERA_DEFAULTED_FUNCTION SharedAllocationTracker() = default;
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
    if (this != &o) {
      SharedAllocationTracker tmp(static_cast<SharedAllocationTracker&&>(o));
      swap(tmp);
    }
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
  // The label text inside the allocation (nullptr for untracked memory).
  const char* label_in_space() const { return m_record ? m_record->label_in_space : nullptr; }

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
