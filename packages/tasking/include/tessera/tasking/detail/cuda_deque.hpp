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
// CAS fail.
#include <tessera/tasking/detail/cuda_task_record.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#include <cuda/atomic>

namespace tessera::detail::tasking {

template <class T>
using cuda_device_ref = ::cuda::atomic_ref<T, ::cuda::thread_scope_device>;

__device__ inline void cuda_fence_seq_cst() { ::cuda::atomic_thread_fence(::cuda::std::memory_order_seq_cst, ::cuda::thread_scope_device); }

struct CudaDeque {
  alignas(64) long long top;  // next slot to steal (advanced by CAS)
  alignas(64) long long bottom;  // next slot to push (owner only)
  CudaTaskRecord** slots;  // capacity slots (a power of two)
  long long mask;

  __device__ long long approx_size() const {
    const long long t = cuda_device_ref<long long>(const_cast<long long&>(top)).load(::cuda::std::memory_order_relaxed);
    const long long b = cuda_device_ref<long long>(const_cast<long long&>(bottom)).load(::cuda::std::memory_order_relaxed);
    return b - t;
  }

  // Owner. False when the ring is full (the caller takes the overflow stack).
  __device__ bool push(CudaTaskRecord* r) {
    const long long b = cuda_device_ref<long long>(bottom).load(::cuda::std::memory_order_relaxed);
    const long long t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_acquire);
    if (b - t > mask) return false;
    cuda_device_ref<CudaTaskRecord*>(slots[b & mask]).store(r, ::cuda::std::memory_order_relaxed);
    cuda_device_ref<long long>(bottom).store(b + 1, ::cuda::std::memory_order_release);
    return true;
  }

  // Owner: up to `want` (1..32) of the newest tasks into out[]; returns how many.
  __device__ int pop_batch(CudaTaskRecord** out, int want) {
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
    t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_relaxed);
    if (t < b) {
      for (long long i = 0; i < k; ++i)
        out[i] = cuda_device_ref<CudaTaskRecord*>(slots[(b + i) & mask]).load(::cuda::std::memory_order_relaxed);
      return int(k);
    }
    // Racing the thieves for [t, b0): claim it all by moving top to b0.
    int n = 0;
    while (t < b0) {
      if (cuda_device_ref<long long>(top).compare_exchange_strong(t, b0, ::cuda::std::memory_order_seq_cst,
                                                                   ::cuda::std::memory_order_relaxed)) {
        for (long long i = t; i < b0; ++i)
          out[n++] = cuda_device_ref<CudaTaskRecord*>(slots[i & mask]).load(::cuda::std::memory_order_relaxed);
        break;
      }
      // t now holds the top a thief left; retry with what remains.
    }
    cuda_device_ref<long long>(bottom).store(b0, ::cuda::std::memory_order_release);
    return n;
  }

  // Another warp: the oldest task, or null (empty, or lost a race).
  __device__ CudaTaskRecord* steal() {
    long long t = cuda_device_ref<long long>(top).load(::cuda::std::memory_order_acquire);
    cuda_fence_seq_cst();
    const long long b = cuda_device_ref<long long>(bottom).load(::cuda::std::memory_order_acquire);
    if (t >= b) return nullptr;
    CudaTaskRecord* r = cuda_device_ref<CudaTaskRecord*>(slots[t & mask]).load(::cuda::std::memory_order_relaxed);
    if (!cuda_device_ref<long long>(top).compare_exchange_strong(t, t + 1, ::cuda::std::memory_order_seq_cst,
                                                                  ::cuda::std::memory_order_relaxed))
      return nullptr;
    return r;
  }
};

// The global overflow stack (see above).
struct CudaOverflowStack {
  static constexpr unsigned long long kAddrBits = 49;
  static constexpr unsigned long long kAddrMask = (1ull << kAddrBits) - 1;
  unsigned long long head;

  __device__ static CudaTaskRecord* addr(unsigned long long h) { return reinterpret_cast<CudaTaskRecord*>(h & kAddrMask); }
  __device__ static unsigned long long tagged(CudaTaskRecord* r, unsigned long long old) {
    return reinterpret_cast<unsigned long long>(r) | (((old >> kAddrBits) + 1) << kAddrBits);
  }
  __device__ bool empty() const {
    return addr(cuda_device_ref<unsigned long long>(const_cast<unsigned long long&>(head))
                    .load(::cuda::std::memory_order_relaxed)) == nullptr;
  }
  __device__ void push(CudaTaskRecord* r) {
    cuda_device_ref<unsigned long long> h(head);
    unsigned long long old = h.load(::cuda::std::memory_order_relaxed);
    do {
      r->next = addr(old);
    } while (!h.compare_exchange_weak(old, tagged(r, old), ::cuda::std::memory_order_release,
                                      ::cuda::std::memory_order_relaxed));
  }
  // Null when empty or after `tries` lost races.
  __device__ CudaTaskRecord* pop(int tries) {
    cuda_device_ref<unsigned long long> h(head);
    unsigned long long old = h.load(::cuda::std::memory_order_acquire);
    for (int i = 0; i < tries; ++i) {
      CudaTaskRecord* r = addr(old);
      if (r == nullptr) return nullptr;
      CudaTaskRecord* next = cuda_device_ref<CudaTaskRecord*>(r->next).load(::cuda::std::memory_order_relaxed);
      if (h.compare_exchange_weak(old, tagged(next, old), ::cuda::std::memory_order_acquire,
                                  ::cuda::std::memory_order_acquire))
        return r;
    }
    return nullptr;
  }
};

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__
