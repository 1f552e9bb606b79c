#pragma once
// Building blocks of MemoryPool that differ between host and device passes:
// bit tricks, the atomic operations on pool metadata (with the memory orders
// the protocol needs), and the per-call scatter value (cycle counter mixed
// with a thread id) that picks the page an allocation starts searching at.
//
// Host code uses the GCC/Clang __atomic builtins (ThreadSanitizer understands
// them); device code uses the CUDA intrinsics, which are relaxed, with
// __threadfence() where the protocol needs ordering.
#include <tessera/core/detail/cpu_hints.hpp>
#include <tessera/core/macros.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tessera::detail::mempool {

// ---- bit tricks -----------------------------------------------------------

TESSERA_FORCEINLINE_FUNCTION int popcount32(std::uint32_t x) {
#if TESSERA_IMPL_ON_DEVICE
  return __popc(x);
#elif defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
  return __builtin_popcount(x);
#else
  // Without -mpopcnt GCC calls libgcc's __popcountdi2; this is faster.
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
#endif
}

// Index of the lowest set bit; x must not be 0.
TESSERA_FORCEINLINE_FUNCTION int ctz32(std::uint32_t x) {
#if TESSERA_IMPL_ON_DEVICE
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint32_t rotr32(std::uint32_t x, unsigned r) {
  r &= 31u;
  return r == 0 ? x : (x >> r) | (x << (32u - r));
}

// ceil(log2(n)) for n >= 1; 0 for n <= 1.
TESSERA_FORCEINLINE_FUNCTION std::uint32_t ceil_log2(std::size_t n) {
  if (n <= 1) return 0;
#if TESSERA_IMPL_ON_DEVICE
  return 64u - static_cast<std::uint32_t>(__clzll(static_cast<long long>(n - 1)));
#else
  return 64u - static_cast<std::uint32_t>(__builtin_clzll(static_cast<unsigned long long>(n - 1)));
#endif
}

// splitmix64 finalizer: spreads nearby inputs (consecutive thread ids,
// close cycle counts) over the whole 64-bit range.
TESSERA_FORCEINLINE_FUNCTION std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// ---- atomics on 32- and 64-bit metadata words --------------------------------

#if TESSERA_IMPL_ON_DEVICE
#define TESSERA_MEMPOOL_FENCE() __threadfence()
#else
#define TESSERA_MEMPOOL_FENCE()
#endif

TESSERA_FORCEINLINE_FUNCTION std::uint32_t load(const std::uint32_t* p) {
#if TESSERA_IMPL_ON_DEVICE
  const std::uint32_t v = *reinterpret_cast<const volatile std::uint32_t*>(p);
  __threadfence();
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint64_t load(const std::uint64_t* p) {
#if TESSERA_IMPL_ON_DEVICE
  const std::uint64_t v = *reinterpret_cast<const volatile std::uint64_t*>(p);
  __threadfence();
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
#endif
}

// Bitset words. The read-modify-writes below are acquire/release, so that a
// block's contents written before it was freed are visible to the thread that
// next acquires its bit. This plain load is relaxed: it only picks a word
// worth trying; the fetch_or that then claims a bit is what synchronizes.
TESSERA_FORCEINLINE_FUNCTION std::uint32_t load_relaxed(const std::uint32_t* p) {
#if TESSERA_IMPL_ON_DEVICE
  return *reinterpret_cast<const volatile std::uint32_t*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint32_t fetch_or(std::uint32_t* p, std::uint32_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicOr(reinterpret_cast<unsigned int*>(p), v);
  __threadfence();
  return old;
#else
  return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint32_t fetch_and(std::uint32_t* p, std::uint32_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicAnd(reinterpret_cast<unsigned int*>(p), v);
  __threadfence();
  return old;
#else
  return __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL);
#endif
}

// State words and counters: sequentially consistent, because the release of
// an emptied superblock is a Dekker-style handshake (see memory_pool.hpp).
TESSERA_FORCEINLINE_FUNCTION std::uint32_t fetch_add(std::uint32_t* p, std::uint32_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicAdd(reinterpret_cast<unsigned int*>(p), v);
  __threadfence();
  return old;
#else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint32_t fetch_sub(std::uint32_t* p, std::uint32_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicSub(reinterpret_cast<unsigned int*>(p), v);
  __threadfence();
  return old;
#else
  return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint64_t fetch_add(std::uint64_t* p, std::uint64_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const unsigned long long old = atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  __threadfence();
  return old;
#else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}

// Compare-and-swap; returns true when *p held `expected` and now holds `desired`.
TESSERA_FORCEINLINE_FUNCTION bool cas(std::uint32_t* p, std::uint32_t expected, std::uint32_t desired) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicCAS(reinterpret_cast<unsigned int*>(p), expected, desired);
  __threadfence();
  return old == expected;
#else
  return __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#endif
}

TESSERA_FORCEINLINE_FUNCTION bool cas(std::uint64_t* p, std::uint64_t expected, std::uint64_t desired) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const unsigned long long old = atomicCAS(reinterpret_cast<unsigned long long*>(p), expected, desired);
  __threadfence();
  return old == expected;
#else
  return __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#endif
}

TESSERA_FORCEINLINE_FUNCTION std::uint32_t exchange(std::uint32_t* p, std::uint32_t v) {
#if TESSERA_IMPL_ON_DEVICE
  __threadfence();
  const std::uint32_t old = atomicExch(reinterpret_cast<unsigned int*>(p), v);
  __threadfence();
  return old;
#else
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
#endif
}

// Raises *p to at least v.
TESSERA_FORCEINLINE_FUNCTION void fetch_max(std::uint64_t* p, std::uint64_t v) {
  std::uint64_t cur = load(p);
  while (cur < v && !cas(p, cur, v)) cur = load(p);
}

// Short pause inside bounded spin loops.
TESSERA_FORCEINLINE_FUNCTION void spin_pause() {
#if TESSERA_IMPL_ON_DEVICE
  __nanosleep(64);
#else
  tessera::detail::host_cpu_relax();
#endif
}

// ---- where an allocation starts looking -----------------------------------------

// A process-wide small integer per host thread (0, 1, 2, ... in order of
// first use). Used to scatter start pages; never reused.
inline std::atomic<std::uint32_t> g_host_thread_counter{0};
inline thread_local std::uint32_t t_host_thread_id = 0xffffffffu;
inline thread_local std::uint64_t t_host_scatter_state = 0;

inline std::uint32_t host_thread_id() {
  std::uint32_t id = t_host_thread_id;
  if (id == 0xffffffffu) t_host_thread_id = id = g_host_thread_counter.fetch_add(1, std::memory_order_relaxed);
  return id;
}

inline std::uint64_t host_cycle_counter() {
  if constexpr (tessera::detail::host_has_cycle_counter) return tessera::detail::host_cycle_counter();
  // No counter on this target: any value that changes between calls scatters.
  static std::atomic<std::uint64_t> ticks{0};
  return ticks.fetch_add(1, std::memory_order_relaxed);
}

// The scatter value of one allocation. On a GPU: the SM cycle counter mixed
// with the global thread id, so the lanes of a warp (which read almost the
// same clock) still start on different pages. On a host: a per-thread
// sequence seeded once from the cycle counter and the thread id (reading the
// time stamp counter costs ~20 ns under virtualization, as much as the
// whole allocation, so it is read only once per thread).
TESSERA_FORCEINLINE_FUNCTION std::uint64_t scatter_value() {
#if TESSERA_IMPL_ON_DEVICE
  const std::uint64_t tid =
      (static_cast<std::uint64_t>(blockIdx.x) + static_cast<std::uint64_t>(gridDim.x) *
                                                    (blockIdx.y + static_cast<std::uint64_t>(gridDim.y) * blockIdx.z)) *
          (blockDim.x * blockDim.y * blockDim.z) +
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return mix64(static_cast<std::uint64_t>(clock64()) ^ (tid << 20) ^ tid);
#else
  std::uint64_t s = t_host_scatter_state;
  if (s == 0) s = mix64(host_cycle_counter() ^ (std::uint64_t(host_thread_id()) << 40)) | 1u;
  s += 0x9e3779b97f4a7c15ull;
  t_host_scatter_state = s;
  return mix64(s);
#endif
}

}  // namespace tessera::detail::mempool
