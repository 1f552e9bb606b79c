#pragma once
// Atomic operations on a task record's shared fields (TaskBase::wait_head and
// TaskBase::refs). The fields are plain members, so that the same record
// layout can live in host or device memory; every access another thread may
// race with goes through atomic_field(), an atomic reference at the right
// scope: std::atomic_ref on the host, cuda::atomic_ref at device scope in
// device code. The memory orders are std::memory_order on both sides.
#include <tessera/core/macros.hpp>

#include <atomic>

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

namespace tessera::detail::tasking {

template <class T>
class FieldAtomic {
 public:
  TESSERA_INLINE_FUNCTION explicit FieldAtomic(T& field) noexcept : m_field(&field) {}

  TESSERA_INLINE_FUNCTION T load(std::memory_order o) const noexcept { return ref().load(order(o)); }
  TESSERA_INLINE_FUNCTION void store(T v, std::memory_order o) const noexcept { ref().store(v, order(o)); }
  TESSERA_INLINE_FUNCTION T exchange(T v, std::memory_order o) const noexcept { return ref().exchange(v, order(o)); }
  TESSERA_INLINE_FUNCTION bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                                                     std::memory_order failure) const noexcept {
    return ref().compare_exchange_weak(expected, desired, order(success), order(failure));
  }
  TESSERA_INLINE_FUNCTION T fetch_add(T v, std::memory_order o) const noexcept { return ref().fetch_add(v, order(o)); }
  TESSERA_INLINE_FUNCTION T fetch_sub(T v, std::memory_order o) const noexcept { return ref().fetch_sub(v, order(o)); }

 private:
#if defined(__CUDA_ARCH__)
  TESSERA_INLINE_FUNCTION ::cuda::atomic_ref<T, ::cuda::thread_scope_device> ref() const noexcept {
    return ::cuda::atomic_ref<T, ::cuda::thread_scope_device>(*m_field);
  }
  TESSERA_INLINE_FUNCTION static ::cuda::std::memory_order order(std::memory_order o) noexcept {
    switch (o) {
      case std::memory_order_relaxed: return ::cuda::std::memory_order_relaxed;
      case std::memory_order_consume:
      case std::memory_order_acquire: return ::cuda::std::memory_order_acquire;
      case std::memory_order_release: return ::cuda::std::memory_order_release;
      case std::memory_order_acq_rel: return ::cuda::std::memory_order_acq_rel;
      default: return ::cuda::std::memory_order_seq_cst;
    }
  }
#else
  std::atomic_ref<T> ref() const noexcept { return std::atomic_ref<T>(*m_field); }
  static constexpr std::memory_order order(std::memory_order o) noexcept { return o; }
#endif
  T* m_field;
};

// The atomic view of a record field (const fields are read through it too:
// a load does not write).
template <class T>
TESSERA_INLINE_FUNCTION FieldAtomic<T> atomic_field(T& field) noexcept {
  return FieldAtomic<T>(field);
}
template <class T>
TESSERA_INLINE_FUNCTION FieldAtomic<T> atomic_field(const T& field) noexcept {
  return FieldAtomic<T>(const_cast<T&>(field));
}

}  // namespace tessera::detail::tasking
