#pragma once
// Device side of tessera's atomics (atomics.hpp dispatches here inside
// kernels compiled by nvcc). What each type gets, fastest first:
//
//   - 4- and 8-byte integers: the native instructions (atomicAdd, Sub, Min,
//     Max, And, Or, Xor, Exch, CAS); float and double add and exchange too;
//   - loads and stores of 4- and 8-byte types: cuda::atomic_ref at device
//     scope, acquire loads and release stores (ld.acquire / st.release), so
//     that a value published with atomic_store is seen with what was written
//     before it;
//   - other operations on 4- and 8-byte types: a compare-and-swap loop;
//   - types of 1 to 7 bytes that lie inside one aligned 8-byte word (every
//     1-, 2- and 4-byte type, and most small structs): a compare-and-swap
//     loop on that word, changing only the type's bytes. Neighbours sharing
//     the word are never written: the swap succeeds only if their bytes are
//     still what was read;
//   - on sm_90 and later, types of up to 16 bytes inside one aligned 16-byte
//     word (a 16-byte struct at a 16-byte boundary; a small struct that
//     straddles two 8-byte words): the same, with the 128-bit
//     compare-and-swap;
//   - anything else: a striped array of spin locks. A lock serializes every
//     attempt, so a compare-and-swap loop of T threads over one such value
//     takes O(T^2) lock rounds: tens of seconds for 20,000 GPU threads, which
//     is what a test once read as a hang.
//
// The spin lock's loop has the shape that keeps a warp live under
// independent thread scheduling: a thread that fails to take the lock leaves
// the branch and sleeps briefly, so a lane of the same warp holding the lock
// gets to run its critical section and release it (a tight
// `while (atomicCAS(...)) {}` can starve the holder). Inside the section the
// value is read and written with volatile accesses, which go to the L2 cache
// where the previous holder's writes are, never to a stale L1 line.
//
// Memory order: read-modify-write operations are relaxed (as in Kokkos and
// as the hardware instructions are); memory_fence() orders around them.
#if defined(__CUDACC__)
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera::detail::cuda_atomic {

// Device lock array, one per translation unit: without relocatable device
// code a __device__ variable cannot be shared across translation units (an
// inline one is rejected by nvcc), and a kernel and every atomic it performs
// live in one translation unit. Kernels of different translation units that
// run at the same time do not exclude each other on types that need a lock.
static __device__ int g_locks[4096];

template <class T>
inline constexpr bool is_word = sizeof(T) == 4 || sizeof(T) == 8;
template <class T>
using word_t = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

template <class U>
__device__ inline U load_acquire_bits(const U* p) {
  return ::cuda::atomic_ref<U, ::cuda::thread_scope_device>(*const_cast<U*>(p)).load(::cuda::memory_order_acquire);
}
template <class U>
__device__ inline void store_release_bits(U* p, U v) {
  ::cuda::atomic_ref<U, ::cuda::thread_scope_device>(*p).store(v, ::cuda::memory_order_release);
}

template <class To, class From>
__device__ inline To bits_as(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  memcpy(&t, &f, sizeof(To));
  return t;
}

// ---- a type inside one aligned 8- or 16-byte word ----

// The 16-byte word of sm_90's 128-bit compare-and-swap (CUDA 12.4 and later).
struct alignas(16) Word16 {
  unsigned long long lo, hi;
};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
inline constexpr bool kHasCas16 = true;
#else
inline constexpr bool kHasCas16 = false;
#endif

__device__ inline bool same_bits(const Word16& a, const Word16& b) { return a.lo == b.lo && a.hi == b.hi; }
__device__ inline bool same_bits(unsigned long long a, unsigned long long b) { return a == b; }

__device__ inline unsigned long long word_cas(unsigned long long* p, unsigned long long expected,
                                              unsigned long long desired) {
  return atomicCAS(p, expected, desired);
}
__device__ inline Word16 word_cas(Word16* p, Word16 expected, Word16 desired) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return atomicCAS(p, expected, desired);
#else
  (void)p;
  (void)desired;
  __trap();  // unreachable: kHasCas16 keeps callers away
  return expected;
#endif
}
__device__ inline unsigned long long word_load_acquire(const unsigned long long* p) { return load_acquire_bits(p); }
// No 16-byte atomic load: a compare-and-swap that writes back what it finds.
__device__ inline Word16 word_load_acquire(const Word16* p) {
  Word16 zero{0, 0};
  const Word16 v = word_cas(const_cast<Word16*>(p), zero, zero);
  __threadfence();
  return v;
}

// The aligned word (W: unsigned long long or Word16) that holds all of *p,
// or nullptr when *p straddles two such words.
template <class W, class T>
__device__ inline W* word_holding(const T* p) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if ((a & (sizeof(W) - 1)) + sizeof(T) > sizeof(W)) return nullptr;
  return reinterpret_cast<W*>(a & ~std::uintptr_t(sizeof(W) - 1));
}

// *p = op(*p) by compare-and-swap of `word`, the aligned word that holds *p,
// changing only *p's bytes; returns the old value. Writes nothing when op
// leaves the value unchanged (the word's value at the load is then a valid
// instant for the operation).
template <class W, class T, class Op>
__device__ T word_fetch_oper(W* word, T* p, const Op& op) {
  const unsigned off = unsigned(reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(word));
  W cur = word_load_acquire(word);
  for (;;) {
    unsigned char bytes[sizeof(W)];
    memcpy(bytes, &cur, sizeof(W));
    T old_val;
    memcpy(&old_val, bytes + off, sizeof(T));
    const T new_val = op(old_val);
    unsigned char new_bytes[sizeof(T)];
    memcpy(new_bytes, &new_val, sizeof(T));
    bool same = true;
    for (unsigned k = 0; k < sizeof(T); ++k) {
      same = same && bytes[off + k] == new_bytes[k];
      bytes[off + k] = new_bytes[k];
    }
    if (same) return old_val;
    W next;
    memcpy(&next, bytes, sizeof(W));
    const W seen = word_cas(word, cur, next);
    if (same_bits(seen, cur)) return old_val;
    cur = seen;
  }
}

template <class W, class T>
__device__ T word_load(const W* word, const T* p) {
  const W w = word_load_acquire(word);
  unsigned char bytes[sizeof(W)];
  memcpy(bytes, &w, sizeof(W));
  T v;
  memcpy(&v, bytes + (reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(word)), sizeof(T));
  return v;
}

// ---- the lock path ----

template <class T>
__device__ inline T volatile_read(const T* p) {
  T v;
  auto* dst = reinterpret_cast<unsigned char*>(&v);
  const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p);
  for (std::size_t k = 0; k < sizeof(T); ++k) dst[k] = src[k];
  return v;
}
template <class T>
__device__ inline void volatile_write(T* p, const T& v) {
  const auto* src = reinterpret_cast<const unsigned char*>(&v);
  volatile unsigned char* dst = reinterpret_cast<volatile unsigned char*>(p);
  for (std::size_t k = 0; k < sizeof(T); ++k) dst[k] = src[k];
}

template <class T, class Op>
__device__ T locked_fetch_oper(T* p, const Op& op) {
  int* lock = &g_locks[(reinterpret_cast<std::uintptr_t>(p) >> 4) % 4096];
  T old_val;
  unsigned sleep_ns = 8;
  for (bool done = false; !done;) {
    if (atomicCAS(lock, 0, 1) == 0) {
      __threadfence();
      old_val = volatile_read(p);
      volatile_write(p, op(old_val));
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    } else {
      __nanosleep(sleep_ns);
      if (sleep_ns < 256) sleep_ns *= 2;
    }
  }
  return old_val;
}

// ---- any type, any operation ----

template <class T, class Op>
__device__ T fetch_oper(T* p, const Op& op) {
  if constexpr (is_word<T>) {
    using U = word_t<T>;
    U* up = reinterpret_cast<U*>(p);
    U cur = load_acquire_bits(up);
    for (;;) {
      const T old_val = bits_as<T>(cur);
      const U next = bits_as<U>(op(old_val));
      if (next == cur) return old_val;
      const U seen = atomicCAS(up, cur, next);
      if (seen == cur) return old_val;
      cur = seen;
    }
  } else {
    if constexpr (sizeof(T) < 8)
      if (auto* w = word_holding<unsigned long long>(p)) return word_fetch_oper(w, p, op);
    if constexpr (kHasCas16 && sizeof(T) <= 16)
      if (auto* w = word_holding<Word16>(p)) return word_fetch_oper(w, p, op);
    return locked_fetch_oper(p, op);
  }
}

template <class T>
__device__ T load(const T* p) {
  if constexpr (is_word<T>) {
    return bits_as<T>(load_acquire_bits(reinterpret_cast<const word_t<T>*>(p)));
  } else {
    if constexpr (sizeof(T) < 8)
      if (const auto* w = word_holding<unsigned long long>(p)) return word_load(w, p);
    if constexpr (kHasCas16 && sizeof(T) <= 16)
      if (const auto* w = word_holding<Word16>(p)) return word_load(w, p);
    return locked_fetch_oper(const_cast<T*>(p), [](const T& v) { return v; });
  }
}

template <class T>
__device__ void store(T* p, const T& v) {
  if constexpr (is_word<T>) {
    store_release_bits(reinterpret_cast<word_t<T>*>(p), bits_as<word_t<T>>(v));
  } else {
    __threadfence();  // release: earlier writes before the new value
    (void)fetch_oper(p, [v](const T&) { return v; });
  }
}

template <class T>
__device__ T exchange(T* p, const T& v) {
  if constexpr (is_word<T>) {
    using U = word_t<T>;
    return bits_as<T>(atomicExch(reinterpret_cast<U*>(p), bits_as<U>(v)));
  } else {
    return fetch_oper(p, [v](const T&) { return v; });
  }
}

// Bitwise compare: stores `desired` if *p holds `expected`; returns the old value.
template <class T>
__device__ T compare_exchange(T* p, const T& expected, const T& desired) {
  if constexpr (is_word<T>) {
    using U = word_t<T>;
    return bits_as<T>(atomicCAS(reinterpret_cast<U*>(p), bits_as<U>(expected), bits_as<U>(desired)));
  } else {
    return fetch_oper(p, [&](const T& old) {
      const auto* a = reinterpret_cast<const unsigned char*>(&old);
      const auto* b = reinterpret_cast<const unsigned char*>(&expected);
      bool equal = true;
      for (std::size_t k = 0; k < sizeof(T); ++k) equal = equal && a[k] == b[k];
      return equal ? desired : old;
    });
  }
}

// ---- native integer operations (callers check native_int<T> first) ----

// The hardware's own operand type for an integer T of 4 or 8 bytes.
template <class T>
using native_int_t =
    std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int, unsigned int>,
                       std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>>;

template <class T>
inline constexpr bool native_int = std::is_integral_v<T> && !std::is_same_v<T, bool> && is_word<T>;

template <class T>
__device__ T fetch_add(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return atomicAdd(p, v);
  } else {
    // Two's complement: one unsigned add serves signed and unsigned alike.
    using U = word_t<T>;
    return T(atomicAdd(reinterpret_cast<U*>(p), U(v)));
  }
}
template <class T>
__device__ T fetch_sub(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return atomicAdd(p, -v);  // a - v == a + (-v) exactly in IEEE arithmetic
  } else {
    using U = word_t<T>;
    return T(atomicAdd(reinterpret_cast<U*>(p), U(0) - U(v)));
  }
}
template <class T>
__device__ T fetch_min(T* p, T v) {
  using N = native_int_t<T>;
  return T(atomicMin(reinterpret_cast<N*>(p), N(v)));
}
template <class T>
__device__ T fetch_max(T* p, T v) {
  using N = native_int_t<T>;
  return T(atomicMax(reinterpret_cast<N*>(p), N(v)));
}
template <class T>
__device__ T fetch_and(T* p, T v) {
  using U = word_t<T>;
  return T(atomicAnd(reinterpret_cast<U*>(p), U(v)));
}
template <class T>
__device__ T fetch_or(T* p, T v) {
  using U = word_t<T>;
  return T(atomicOr(reinterpret_cast<U*>(p), U(v)));
}
template <class T>
__device__ T fetch_xor(T* p, T v) {
  using U = word_t<T>;
  return T(atomicXor(reinterpret_cast<U*>(p), U(v)));
}

}  // namespace tessera::detail::cuda_atomic
#endif
