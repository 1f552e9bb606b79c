#pragma once
// Pieces shared by every host back-end's parallel patterns: running a region
// on the pool with exception capture, splitting ranges into blocks, and
// cache-line padded per-thread reduction storage.
#include <tessera/core/macros.hpp>

#include <algorithm>
#include <climits>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>

namespace tessera::detail {

// True for a back-end whose patterns always run on the calling thread alone
// (Serial declares `static constexpr bool impl_single_thread = true`). The
// host patterns then compile only their one-thread path: the parallel path
// would be dead code, and instantiating it for every functor of a program
// typed over all back-ends gave Serial as much code as Threads (graph's
// algorithm test at -O0 under ASan: 26.3 MB of text before, 21.7 after).
template <class Exec>
inline constexpr bool single_thread_v = requires { requires Exec::impl_single_thread; };

// Runs f(thread_id, thread_count) on every thread of the execution space's
// pool (the back-end marks each as thread tid of Exec's region:
// running_host_space.hpp). An exception thrown on any thread is rethrown on
// the caller once all threads have finished (the first one thrown wins).
template <class Exec, class F>
void host_region(const Exec& exec, const F& f) {
  if constexpr (single_thread_v<Exec>) {
    f(0, 1);  // the one thread's exception reaches the caller as it is
  } else {
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    exec.impl_parallel_region([&](int tid, int nt) {
      try {
        f(tid, nt);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failed.exchange(true)) error = std::current_exception();
      }
    });
    if (error) std::rethrow_exception(error);
  }
}

// The part [first, last) of [begin, end) that thread `tid` of `nt` owns when
// the range is cut into nt nearly equal contiguous blocks.
template <class I>
struct Block {
  I first, last;
};
template <class I>
inline Block<I> block_of(I begin, I end, int tid, int nt) {
  using U = std::make_unsigned_t<std::conditional_t<std::is_signed_v<I>, std::int64_t, std::uint64_t>>;
  const U n = static_cast<U>(end - begin);
  const U q = n / U(nt), r = n % U(nt);
  const U t = static_cast<U>(tid);
  const U lo = t * q + std::min(t, r);
  const U hi = lo + q + (t < r ? 1 : 0);
  return {static_cast<I>(begin + static_cast<I>(lo)), static_cast<I>(begin + static_cast<I>(hi))};
}

// for (I i = b; i < e; ++i) body(i), the loop every host pattern runs.
// When the bounds fit in an int the loop runs on an int counter: a functor
// taking `int` indices (the common case) then receives a value the compiler
// can prove never wraps, so address arithmetic stays affine and the loop
// vectorizes. The functor still receives an I, so its semantics do not change.
// (Host and device annotated only because MDTileLoop, which is, calls it;
// it runs on the host alone.)
#if defined(__NVCC__)
#pragma nv_exec_check_disable
#endif
template <class I, class Body>
TESSERA_FORCEINLINE_FUNCTION void host_index_loop(const I b, const I e, const Body& body) {
  if constexpr (sizeof(I) > sizeof(int)) {
    if (b >= I(INT_MIN) && e <= I(INT_MAX)) {
      const int b32 = int(b), e32 = int(e);
      for (int i = b32; i < e32; ++i) body(I(i));
      return;
    }
  }
  for (I i = b; i < e; ++i) body(i);
}

// Contiguous storage of `slots` reduction values of `count` elements each,
// every slot on its own cache lines so that threads never share a line.
template <class V>
class PaddedSlots {
 public:
  PaddedSlots(std::size_t slots, std::size_t count) : m_count(count) {
    std::size_t bytes = std::max<std::size_t>(count * sizeof(V), 1);
    m_stride = (bytes + 63) / 64 * 64;
    std::size_t total = m_stride * std::max<std::size_t>(slots, 1);
    // Small reductions (the common case: one scalar per thread) stay in the
    // object itself, so a reduction costs no heap allocation.
    if (total <= sizeof(m_inline)) {
      m_base = m_inline;
      // Every slot is initialized by the reduction's init() before use; the
      // clear only lets the compiler see that (no -Wmaybe-uninitialized).
      std::memset(m_inline, 0, total);
    } else {
      m_heap.reset(static_cast<unsigned char*>(::operator new[](total, std::align_val_t(64))));
      m_base = m_heap.get();
    }
  }
  PaddedSlots(const PaddedSlots&) = delete;
  PaddedSlots& operator=(const PaddedSlots&) = delete;
  V* operator[](std::size_t slot) const { return reinterpret_cast<V*>(m_base + slot * m_stride); }
  std::size_t count() const { return m_count; }

 private:
  struct Deleter {
    void operator()(unsigned char* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  alignas(64) unsigned char m_inline[2048];
  std::unique_ptr<unsigned char[], Deleter> m_heap;
  unsigned char* m_base = nullptr;
  std::size_t m_stride = 0;
  std::size_t m_count = 0;
};

}  // namespace tessera::detail
