#pragma once
// The ready queues of the CUDA driver: a bounded work-stealing deque per warp
// and priority (Chase and Lev, 2005, over a fixed ring), whose owner takes up
// to 32 tasks in one pop, and a global lock-free stack for what does not fit.
//
// Only lane 0 of the owning warp pushes and pops its deques; other warps'
// lane 0 steal one task at a time from the top. The batch pop is the
// classic single pop with the range [bottom - k, bottom) in place of one
// slot: the owner publishes bottom - k, then reads top. If top is below the
// new bottom, no thief can reach the range any more (a thief takes slot t
// only by moving top from t with a CAS after reading a bottom above t, and
// every read of bottom after the owner's fence sees the new bottom), so the
// k tasks are the owner's without an atomic read-modify-write. Otherwise the
// owner races the thieves for what is left, [top, old bottom), with a CAS
// of top to the old bottom (retried while thieves take slots, so at most k
// rounds), and leaves the deque empty. A steal never takes more than one
// slot: a multi-slot steal could overlap a CAS-free batch pop.
//
// The overflow stack is a Treiber stack of records linked through `next`
// (the driver pushes chains of up to 32 single tasks as one entry: see
// cuda_drain_inbox),
// its head a record address with an ABA tag in the upper bits (device
// addresses use the low 49 bits; records are 64-byte aligned at least).
// Popping reads `next` of a record that another warp may have popped and
// reused meanwhile: the read stays within pool memory, and the tag makes the
// CAS fail (`next` is written and read through atomic_ref for that reason:
// the stale read races a push of the reused record).
//
// Both are templates over the record type and host-device functions over
// libcu++'s atomic_ref, which works in host code too: a host test
// (tests/test_task_cuda_deque_concurrency.cpp, defining
// TESSERA_CUDA_QUEUES_ON_HOST) runs the same protocol on threads under
// ThreadSanitizer, as the host deques are. The driver uses them with
// CudaTaskRecord (CudaDeque, CudaOverflowStack).
#include <tessera/core/macros.hpp>
#include <tessera/tasking/detail/test_points.hpp>

#include <cstdint>

#if defined(__CUDACC__) || defined(TESSERA_CUDA_QUEUES_ON_HOST)
#include <cuda/atomic>

namespace tessera::detail::tasking {

template <class T>
using cuda_device_ref = ::cuda::atomic_ref<T, ::cuda::thread_scope_device>;

TESSERA_INLINE_FUNCTION void cuda_fence_seq_cst() { ::cuda::atomic_thread_fence(::cuda::std::memory_order_seq_cst, ::cuda::thread_scope_device); }

template <class Record>
struct CudaDequeOf {
  alignas(64) long long top;  // next slot to steal (advanced by CAS)
  alignas(64) long long bottom;  // next slot to push (owner only)
  Record** slots;  // capacity slots (a power of two)
  long long mask;

  TESSERA_INLINE_FUNCTION long long approx_size() const {
    const long long t = cuda_device_ref<long long>(const_cast<long long&>(top)).load(::cuda::std::memory_order_relaxed);
    const long long b = cuda_device_ref<long long>(const_cast<long long&>(bottom)).load(::cuda::std::memory_order_relaxed);
    return b - t;
  }

  // Owner. False when the ring is full (the caller takes the overflow stack).
  TESSERA_INLINE_FUNCTION bool push(Record* r) {
    const long long b = cuda_device_ref<long long>(bottom).load(::cuda::std::memory_order_relaxed);
    const long long t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_acquire);
    if (b - t > mask) return false;
    cuda_device_ref<Record*>(slots[b & mask]).store(r, ::cuda::std::memory_order_relaxed);
    cuda_device_ref<long long>(bottom).store(b + 1, ::cuda::std::memory_order_release);
    return true;
  }

  // Owner: up to `want` (1..32) of the newest tasks into out[]; returns how many.
  TESSERA_INLINE_FUNCTION int pop_batch(Record** out, int want) {
    const long long b0 = cuda_device_ref<long long>(bottom).load(::cuda::std::memory_order_relaxed);
    long long t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_relaxed);
    if (b0 - t <= 0) return 0;
    const long long k = b0 - t < want ? b0 - t : want;
    const long long b = b0 - k;
    // Release (not relaxed, as in Le et al.'s C11 deque): since C++20 a
    // release sequence no longer runs through this thread's later relaxed
    // stores, so a thief that reads this bottom must still see the pushes'
    // slot writes.
    cuda_device_ref<long long>(bottom).store(b, ::cuda::std::memory_order_release);
    cuda_fence_seq_cst();
    TESSERA_TASKING_TEST_POINT(BatchPopBeforeTopRead, -1);
    t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_relaxed);
    if (t < b) {
      for (long long i = 0; i < k; ++i)
        out[i] = cuda_device_ref<Record*>(slots[(b + i) & mask]).load(::cuda::std::memory_order_relaxed);
      return int(k);
    }
    // Racing the thieves for [t, b0): claim it all by moving top to b0.
    int n = 0;
    while (t < b0) {
      if (cuda_device_ref<long long>(top).compare_exchange_strong(t, b0, ::cuda::std::memory_order_seq_cst,
                                                                   ::cuda::std::memory_order_relaxed)) {
        for (long long i = t; i < b0; ++i)
          out[n++] = cuda_device_ref<Record*>(slots[i & mask]).load(::cuda::std::memory_order_relaxed);
        break;
      }
      // t now holds the top a thief left; retry with what remains.
    }
    cuda_device_ref<long long>(bottom).store(b0, ::cuda::std::memory_order_release);
    return n;
  }

  // Another warp: the oldest task, or null (empty, or lost a race).
  TESSERA_INLINE_FUNCTION Record* steal() {
    long long t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_acquire);
    cuda_fence_seq_cst();
    const long long b = cuda_device_ref<long long>(bottom).load(::cuda::std::memory_order_acquire);
    if (t >= b) return nullptr;
    Record* r = cuda_device_ref<Record*>(slots[t & mask]).load(::cuda::std::memory_order_relaxed);
    TESSERA_TASKING_TEST_POINT(StealBeforeCas, -1);
    if (!cuda_device_ref<long long>(top).compare_exchange_strong(t, t + 1, ::cuda::std::memory_order_seq_cst,
                                                                  ::cuda::std::memory_order_relaxed))
      return nullptr;
    return r;
  }
};

// The global overflow stack (see above).
template <class Record>
struct CudaOverflowStackOf {
  static constexpr unsigned long long kAddrBits = 49;
  static constexpr unsigned long long kAddrMask = (1ull << kAddrBits) - 1;
  unsigned long long head;

  TESSERA_INLINE_FUNCTION static Record* addr(unsigned long long h) { return reinterpret_cast<Record*>(h & kAddrMask); }
  TESSERA_INLINE_FUNCTION static unsigned long long tagged(Record* r, unsigned long long old) {
    return reinterpret_cast<unsigned long long>(r) | (((old >> kAddrBits) + 1) << kAddrBits);
  }
  TESSERA_INLINE_FUNCTION bool empty() const {
    return addr(cuda_device_ref<unsigned long long>(const_cast<unsigned long long&>(head))
                    .load(::cuda::std::memory_order_relaxed)) == nullptr;
  }
  TESSERA_INLINE_FUNCTION void push(Record* r) { push_list(r, r); }
  // Records already linked through `next`, from `first` to `last`, pushed
  // with one CAS (a warp sharing several team tasks at once). The links are
  // written before the release CAS publishes them.
  TESSERA_INLINE_FUNCTION void push_list(Record* first, Record* last) {
    cuda_device_ref<unsigned long long> h(head);
    unsigned long long old = h.load(::cuda::std::memory_order_relaxed);
    do {
      cuda_device_ref<Record*>(last->next).store(addr(old), ::cuda::std::memory_order_relaxed);
    } while (!h.compare_exchange_weak(old, tagged(first, old), ::cuda::std::memory_order_release,
                                      ::cuda::std::memory_order_relaxed));
  }
  // Null when empty or after `tries` lost races.
  TESSERA_INLINE_FUNCTION Record* pop(int tries) {
    cuda_device_ref<unsigned long long> h(head);
    unsigned long long old = h.load(::cuda::std::memory_order_acquire);
    for (int i = 0; i < tries; ++i) {
      Record* r = addr(old);
      if (r == nullptr) return nullptr;
      Record* next = cuda_device_ref<Record*>(r->next).load(::cuda::std::memory_order_relaxed);
      TESSERA_TASKING_TEST_POINT(OverflowPopBeforeCas, -1);
      if (h.compare_exchange_weak(old, tagged(next, old), ::cuda::std::memory_order_acquire,
                                  ::cuda::std::memory_order_acquire))
        return r;
    }
    return nullptr;
  }
};

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__ || TESSERA_CUDA_QUEUES_ON_HOST

#if defined(__CUDACC__)
#include <tessera/tasking/detail/cuda_task_record.hpp>

namespace tessera::detail::tasking {
using CudaDeque = CudaDequeOf<CudaTaskRecord>;
using CudaOverflowStack = CudaOverflowStackOf<CudaTaskRecord>;
}  // namespace tessera::detail::tasking
#endif  // __CUDACC__
