#pragma once
// Atomic operations on plain memory, callable on host and device.
//
// Host: integers of 4 and 8 bytes use the hardware's fetch-add/and/or; any
// other trivially copyable type of 1, 2, 4 or 8 bytes a compare-and-swap
// loop; wider types a striped array of spin locks. Loads and stores are
// sequentially consistent.
// Device (nvcc): native instructions wherever the GPU has them, acquire
// loads and release stores, small types a CAS on their aligned word, the
// lock array only for what is left (backends/cuda/cuda_atomics.hpp).
#include <tessera/core/macros.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#include <tessera/core/backends/cuda/cuda_atomics.hpp>
#endif

namespace tessera {

namespace detail {

template <std::size_t N>
struct uint_of_size {};
template <>
struct uint_of_size<1> { using type = std::uint8_t; };
template <>
struct uint_of_size<2> { using type = std::uint16_t; };
template <>
struct uint_of_size<4> { using type = std::uint32_t; };
template <>
struct uint_of_size<8> { using type = std::uint64_t; };

// The value parameter of every atomic is not deduced (as in Kokkos), so
// atomic_add(&double_value, 1) works.
template <class T>
using arg_t = std::type_identity_t<const T>;

template <class T>
inline constexpr bool cas_able = std::is_trivially_copyable_v<T> &&
                                 (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

// Host lock array for types too large for a single compare-and-swap.
struct HostLockArray {
  static constexpr std::size_t size = 4096;
  static std::atomic_flag* locks() {
    static std::atomic_flag array[size] = {};
    return array;
  }
  static std::atomic_flag& lock_for(const void* p) {
    auto h = reinterpret_cast<std::uintptr_t>(p);
    return locks()[(h >> 4) % size];
  }
};

// Takes a host lock: spins a little, then yields, so that a holder that was
// descheduled gets the core back.
inline void host_lock(std::atomic_flag& lock) {
  for (int spins = 0; lock.test_and_set(std::memory_order_acquire); ++spins)
    if (spins >= 64) std::this_thread::yield();
}

// Applies `op` atomically: *p = op(*p); returns the old value.
template <class T, class Op>
TESSERA_INLINE_FUNCTION T atomic_fetch_oper(T* p, Op op) {
  static_assert(std::is_trivially_copyable_v<T>, "atomics need trivially copyable types");
#if TESSERA_IMPL_ON_DEVICE
  return cuda_atomic::fetch_oper(p, op);
#else
  if constexpr (cas_able<T>) {
    using U = typename uint_of_size<sizeof(T)>::type;
    U* up = reinterpret_cast<U*>(p);
    U old_bits = __atomic_load_n(up, __ATOMIC_RELAXED);
    for (;;) {
      T old_val;
      std::memcpy(&old_val, &old_bits, sizeof(T));
      T new_val = op(old_val);
      U new_bits;
      std::memcpy(&new_bits, &new_val, sizeof(T));
      if (__atomic_compare_exchange_n(up, &old_bits, new_bits, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        return old_val;
    }
  } else {
    auto& lock = HostLockArray::lock_for(p);
    host_lock(lock);
    T old_val = *p;
    *p = op(old_val);
    lock.clear(std::memory_order_release);
    return old_val;
  }
#endif
}

// Byte-wise equality, usable on host and device (memcmp is host-only).
template <class T>
TESSERA_INLINE_FUNCTION bool bitwise_equal(const T& a, const T& b) {
  const unsigned char* x = reinterpret_cast<const unsigned char*>(&a);
  const unsigned char* y = reinterpret_cast<const unsigned char*>(&b);
  for (std::size_t i = 0; i < sizeof(T); ++i)
    if (x[i] != y[i]) return false;
  return true;
}

template <class T>
inline constexpr bool native_add = (std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));

}  // namespace detail

template <class T>
TESSERA_INLINE_FUNCTION T atomic_load(const T* p) {
#if TESSERA_IMPL_ON_DEVICE
  return detail::cuda_atomic::load(p);
#else
  if constexpr (detail::cas_able<T>) {
    using U = typename detail::uint_of_size<sizeof(T)>::type;
    U bits = __atomic_load_n(reinterpret_cast<const U*>(p), __ATOMIC_SEQ_CST);
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
  } else {
    return detail::atomic_fetch_oper(const_cast<T*>(p), [](T v) { return v; });
  }
#endif
}

template <class T>
TESSERA_INLINE_FUNCTION void atomic_store(T* p, detail::arg_t<T> val) {
#if TESSERA_IMPL_ON_DEVICE
  detail::cuda_atomic::store(p, val);
  return;
#else
  if constexpr (detail::cas_able<T>) {
    using U = typename detail::uint_of_size<sizeof(T)>::type;
    U bits;
    std::memcpy(&bits, &val, sizeof(T));
    __atomic_store_n(reinterpret_cast<U*>(p), bits, __ATOMIC_SEQ_CST);
    return;
  }
  detail::atomic_fetch_oper(p, [val](T) { return val; });
#endif
}

template <class T>
TESSERA_INLINE_FUNCTION T atomic_exchange(T* p, detail::arg_t<T> val) {
#if TESSERA_IMPL_ON_DEVICE
  return detail::cuda_atomic::exchange(p, val);
#else
  return detail::atomic_fetch_oper(p, [val](T) { return val; });
#endif
}

// Kokkos semantics: stores `desired` if *p == expected; returns the old value.
template <class T>
TESSERA_INLINE_FUNCTION T atomic_compare_exchange(T* p, detail::arg_t<T> expected, detail::arg_t<T> desired) {
#if TESSERA_IMPL_ON_DEVICE
  return detail::cuda_atomic::compare_exchange(p, expected, desired);
#else
  if constexpr (detail::cas_able<T>) {
    // One hardware compare-and-swap: never writes when the comparison fails.
    using U = typename detail::uint_of_size<sizeof(T)>::type;
    U exp_bits, des_bits;
    std::memcpy(&exp_bits, &expected, sizeof(T));
    std::memcpy(&des_bits, &desired, sizeof(T));
    __atomic_compare_exchange_n(reinterpret_cast<U*>(p), &exp_bits, des_bits, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    T old;
    std::memcpy(&old, &exp_bits, sizeof(T));
    return old;
  }
  return detail::atomic_fetch_oper(p, [expected, desired](T old) {
    return detail::bitwise_equal(old, expected) ? desired : old;
  });
#endif
}
template <class T>
TESSERA_INLINE_FUNCTION bool atomic_compare_exchange_strong(T* p, detail::arg_t<T> expected, detail::arg_t<T> desired) {
  T old = atomic_compare_exchange(p, expected, desired);
  return detail::bitwise_equal(old, expected);
}

template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_add(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T> || std::is_same_v<T, float> || std::is_same_v<T, double>)
    return detail::cuda_atomic::fetch_add(p, T(v));
#else
  if constexpr (detail::native_add<T>) return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a + v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_sub(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T> || std::is_same_v<T, float> || std::is_same_v<T, double>)
    return detail::cuda_atomic::fetch_sub(p, T(v));
#else
  if constexpr (detail::native_add<T>) return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a - v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_mul(T* p, detail::arg_t<T> v) {
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a * v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_div(T* p, detail::arg_t<T> v) {
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a / v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_min(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T>) return detail::cuda_atomic::fetch_min(p, T(v));
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return v < a ? v : a; });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_max(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T>) return detail::cuda_atomic::fetch_max(p, T(v));
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return v > a ? v : a; });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_and(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T>) return detail::cuda_atomic::fetch_and(p, T(v));
#else
  if constexpr (detail::native_add<T>) return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a & v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_or(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T>) return detail::cuda_atomic::fetch_or(p, T(v));
#else
  if constexpr (detail::native_add<T>) return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a | v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_xor(T* p, detail::arg_t<T> v) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (detail::cuda_atomic::native_int<T>) return detail::cuda_atomic::fetch_xor(p, T(v));
#endif
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a ^ v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_inc(T* p) { return atomic_fetch_add(p, T(1)); }
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_dec(T* p) { return atomic_fetch_sub(p, T(1)); }

template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_mod(T* p, detail::arg_t<T> v) {
  return detail::atomic_fetch_oper(p, [v](T a) { return T(a % v); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_lshift(T* p, const unsigned int shift) {
  return detail::atomic_fetch_oper(p, [shift](T a) { return T(a << shift); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_rshift(T* p, const unsigned int shift) {
  return detail::atomic_fetch_oper(p, [shift](T a) { return T(a >> shift); });
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_fetch_nand(T* p, detail::arg_t<T> v) {
  return detail::atomic_fetch_oper(p, [v](T a) { return T(~(a & v)); });
}

#define TESSERA_IMPL_OP_FETCH(NAME, EXPR)                                         \
  template <class T>                                                              \
  TESSERA_INLINE_FUNCTION T atomic_##NAME##_fetch(T* p, detail::arg_t<T> v) {              \
    const T a = atomic_fetch_##NAME(p, v);                                        \
    return EXPR;                                                                  \
  }                                                                               \
  template <class T>                                                              \
  TESSERA_INLINE_FUNCTION void atomic_##NAME(T* p, detail::arg_t<T> v) { (void)atomic_fetch_##NAME(p, v); }
TESSERA_IMPL_OP_FETCH(add, T(a + v))
TESSERA_IMPL_OP_FETCH(sub, T(a - v))
TESSERA_IMPL_OP_FETCH(mul, T(a * v))
TESSERA_IMPL_OP_FETCH(div, T(a / v))
TESSERA_IMPL_OP_FETCH(min, (v < a ? v : a))
TESSERA_IMPL_OP_FETCH(max, (v > a ? v : a))
TESSERA_IMPL_OP_FETCH(and, T(a & v))
TESSERA_IMPL_OP_FETCH(or, T(a | v))
TESSERA_IMPL_OP_FETCH(xor, T(a ^ v))
TESSERA_IMPL_OP_FETCH(mod, T(a % v))
TESSERA_IMPL_OP_FETCH(nand, T(~(a & v)))
#undef TESSERA_IMPL_OP_FETCH

template <class T>
TESSERA_INLINE_FUNCTION T atomic_lshift_fetch(T* p, const unsigned int shift) {
  return T(atomic_fetch_lshift(p, shift) << shift);
}
template <class T>
TESSERA_INLINE_FUNCTION T atomic_rshift_fetch(T* p, const unsigned int shift) {
  return T(atomic_fetch_rshift(p, shift) >> shift);
}
template <class T>
TESSERA_INLINE_FUNCTION void atomic_lshift(T* p, const unsigned int shift) {
  (void)atomic_fetch_lshift(p, shift);
}
template <class T>
TESSERA_INLINE_FUNCTION void atomic_rshift(T* p, const unsigned int shift) {
  (void)atomic_fetch_rshift(p, shift);
}
// Kokkos' older name of atomic_store.
template <class T>
TESSERA_INLINE_FUNCTION void atomic_assign(T* p, detail::arg_t<T> val) {
  atomic_store(p, val);
}

template <class T>
TESSERA_INLINE_FUNCTION void atomic_inc(T* p) { (void)atomic_fetch_add(p, T(1)); }
template <class T>
TESSERA_INLINE_FUNCTION void atomic_dec(T* p) { (void)atomic_fetch_sub(p, T(1)); }
template <class T>
TESSERA_INLINE_FUNCTION T atomic_inc_fetch(T* p) { return T(atomic_fetch_add(p, T(1)) + T(1)); }
template <class T>
TESSERA_INLINE_FUNCTION T atomic_dec_fetch(T* p) { return T(atomic_fetch_sub(p, T(1)) - T(1)); }
template <class T>
TESSERA_INLINE_FUNCTION void atomic_increment(T* p) { atomic_inc(p); }
template <class T>
TESSERA_INLINE_FUNCTION void atomic_decrement(T* p) { atomic_dec(p); }

// A full memory fence (sequentially consistent on host; device-wide on GPU).
TESSERA_INLINE_FUNCTION void memory_fence() {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Orders earlier loads before later loads and stores (acquire), and earlier
// stores before later stores (release); memory_fence() orders everything.
// On a GPU each is a device-wide fence.
TESSERA_INLINE_FUNCTION void load_fence() {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}
TESSERA_INLINE_FUNCTION void store_fence() {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// Reference whose every read and write is atomic: what a View with the
// Atomic memory trait hands out.
template <class T>
class AtomicRef {
 public:
  TESSERA_INLINE_FUNCTION explicit AtomicRef(T* p) : m_ptr(p) {}
  TESSERA_DEFAULTED_FUNCTION AtomicRef(const AtomicRef&) = default;
  // Assigning one element to another copies the value (atomically read, then
  // atomically written); it never rebinds the reference.
  TESSERA_INLINE_FUNCTION T operator=(const AtomicRef& o) const {
    const T v = o;
    atomic_store(m_ptr, v);
    return v;
  }
  TESSERA_INLINE_FUNCTION operator T() const { return atomic_load(m_ptr); }
  TESSERA_INLINE_FUNCTION T operator=(const T v) const { atomic_store(m_ptr, v); return v; }
  TESSERA_INLINE_FUNCTION T operator+=(const T v) const { return atomic_add_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator-=(const T v) const { return atomic_sub_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator*=(const T v) const { return atomic_mul_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator/=(const T v) const { return atomic_div_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator&=(const T v) const { return atomic_and_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator|=(const T v) const { return atomic_or_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator^=(const T v) const { return atomic_xor_fetch(m_ptr, v); }
  TESSERA_INLINE_FUNCTION T operator++() const { return atomic_add_fetch(m_ptr, T(1)); }
  TESSERA_INLINE_FUNCTION T operator--() const { return atomic_sub_fetch(m_ptr, T(1)); }
  TESSERA_INLINE_FUNCTION T operator++(int) const { return atomic_fetch_add(m_ptr, T(1)); }
  TESSERA_INLINE_FUNCTION T operator--(int) const { return atomic_fetch_sub(m_ptr, T(1)); }
  TESSERA_INLINE_FUNCTION T* address() const { return m_ptr; }

 private:
  T* m_ptr;
};

}  // namespace tessera
