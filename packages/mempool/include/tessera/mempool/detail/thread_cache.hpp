#pragma once
// Per-thread caches of free blocks in front of a MemoryPool's bitsets (host
// back-ends only; never compiled into device code paths).
//
// Each host thread that uses a cache claims a process-wide slot index (0..255)
// at first use and gives it back when it exits. A pool keeps, per slot, a
// small stack of free blocks per block size. Cached blocks stay reserved in
// their superblock (their bits stay set), so the bitsets never hand them out
// twice; the pool's statistics subtract them from the blocks in use.
//
// The owner's fast path performs no atomic read-modify-write. Other threads
// ("thieves": a thread whose allocation the bitsets could not serve, or a
// deallocation that suspects a double free) reach into every cache with an
// asymmetric Dekker handshake:
//
//   owner:  busy = 1; light fence; if (steal) { busy = 0; bypass the cache }
//           ... pop or push ...; busy = 0 (release)
//   thief:  steal = 1 (every slot); heavy fence; wait until busy == 0 (every slot)
//           ... take or inspect blocks ...; steal = 0 (release)
//
// The heavy fence is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs
// a full barrier on every running thread of the process, so the owner's light
// fence only has to stop the compiler. Either the owner sees `steal` and stays
// out, or the thief sees `busy` and waits for the owner's short, non-blocking
// section to end. Where membarrier is unavailable (or under ThreadSanitizer,
// which does not model it) both sides use sequentially consistent exchanges
// and loads on the two words instead (one atomic exchange per owner call).
//
// The handshake only covers caches that exist when the thief sets `steal`.
// So a cache is never created during a freeze: thieves hold the pool's thief
// lock from the first `steal = 1` to the last `steal = 0`, and a thread
// creates its cache only if it can take that lock without waiting (otherwise
// that call uses the bitsets and a later call tries again). A cache created
// during the freeze would start with steal = 0, its owner would enter while
// the thief empties it, and a block popped in between would be both in the
// owner's hands and free in the bitsets: handed out twice.
//
// Owners never wait for thieves. Thieves wait for each other (the lock, a
// std::mutex: the kernel parks a waiter) and for owners to leave their
// sections; an owner may be preempted inside one, so that wait spins briefly,
// then yields, then sleeps in short steps (Backoff).
#include <tessera/mempool/detail/pool_atomics.hpp>
#include <tessera/mempool/detail/pool_geometry.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace tessera::detail::mempool {

inline constexpr std::uint32_t kMaxCacheSlots = 256;
inline constexpr std::uint32_t kMaxCachedPerClass = 64;
inline constexpr std::uint32_t kSlotUnclaimed = 0xffffffffu;
inline constexpr std::uint32_t kSlotNone = 0xfffffffeu;

// ---- process-wide slot registry ------------------------------------------------

inline std::atomic<std::uint8_t> g_slot_taken[kMaxCacheSlots] = {};
inline thread_local std::uint32_t t_cache_slot = kSlotUnclaimed;

// Gives the slot back when the thread exits (its cached blocks stay in the
// pools, free for the next owner of the slot or for thieves).
struct SlotReleaser {
  bool armed = false;
  ~SlotReleaser() {
    if (armed && t_cache_slot < kMaxCacheSlots) g_slot_taken[t_cache_slot].store(0, std::memory_order_release);
  }
};
inline thread_local SlotReleaser t_slot_releaser;

inline std::uint32_t claim_cache_slot() {
  for (std::uint32_t i = 0; i < kMaxCacheSlots; ++i) {
    if (g_slot_taken[i].load(std::memory_order_relaxed) == 0 &&
        g_slot_taken[i].exchange(1, std::memory_order_acq_rel) == 0) {
      t_slot_releaser.armed = true;
      return t_cache_slot = i;
    }
  }
  return t_cache_slot = kSlotNone;  // more than 256 threads: this one uses the bitsets directly
}

inline std::uint32_t my_cache_slot() {
  const std::uint32_t s = t_cache_slot;
  return s == kSlotUnclaimed ? claim_cache_slot() : s;
}

// ---- test hooks ------------------------------------------------------------------

// Compiled only into tests that define TESSERA_MEMPOOL_TEST_HOOKS: a callback
// at the points where a race between a thief and a cache owner can be widened
// deterministically (tests/test_memory_pool_concurrency.cpp). Elsewhere the
// macro expands to nothing.
#if defined(TESSERA_MEMPOOL_TEST_HOOKS)
enum class TestPoint {
  frozen,      // a thief froze the caches and is about to run its work (cls, count: 0)
  flush_slot,  // a flush read a cache's count of size class cls and has not yet taken its blocks
};
using TestHook = void (*)(TestPoint, std::uint32_t cls, std::uint32_t count);
inline std::atomic<TestHook> g_test_hook{nullptr};
#define TESSERA_MEMPOOL_TEST_POINT(point, cls, count)                                                   \
  do {                                                                                                  \
    if (auto tessera_hook_ = ::tessera::detail::mempool::g_test_hook.load(std::memory_order_acquire))  \
      tessera_hook_(::tessera::detail::mempool::TestPoint::point, (cls), (count));                       \
  } while (0)
#else
#define TESSERA_MEMPOOL_TEST_POINT(point, cls, count) ((void)0)
#endif

// ---- fences --------------------------------------------------------------------

// True when the heavy side can use membarrier (decided once per process).
bool asymmetric_fences();
// The thief's side of the handshake (only when asymmetric_fences()).
void heavy_fence();


// ---- waiting for another thread ------------------------------------------------

// A wait for a thread that may have been preempted (a cache owner inside its
// section): spin with `pause` while the wait is likely to be short, then give
// the core up, first by yielding, then by sleeping in steps that grow to 1 ms
// (with more runnable threads than cores, the owner needs this core to finish).
class Backoff {
 public:
  static constexpr std::uint32_t kSpins = 256;
  static constexpr std::uint32_t kYields = 32;
  void wait() {
    if (m_round < kSpins) {
      spin_pause();
    } else if (m_round < kSpins + kYields) {
      std::this_thread::yield();
    } else {
      const std::uint32_t step = std::min<std::uint32_t>(m_round - kSpins - kYields, 5);
      std::this_thread::sleep_for(std::chrono::microseconds(32u << step));  // 32 us .. 1 ms
    }
    ++m_round;
  }

 private:
  std::uint32_t m_round = 0;
};

// ---- one thread's cache in one pool ------------------------------------------------

// A batch of free blocks of one size in transit between threads: a cache
// that overflows parks its older half here, a cache that runs dry takes a
// batch from here before it goes to the bitsets. So blocks freed by one
// thread and allocated by another (producer/consumer) move in batches
// without touching the shared bitset words. state: 0 empty, 1 full, 2 being
// filled or emptied; a thread that finds a slot busy skips it (never waits).
// Up to kTransferSlots slots per block size, about kTransferBytes of blocks.
inline constexpr std::uint32_t kTransferSlots = 32;          // at most, per block size
inline constexpr std::size_t kTransferBytes = std::size_t(256) << 10;  // parked bytes per block size, about
inline constexpr std::uint32_t kMaxBatch = kMaxCachedPerClass / 2;

struct alignas(64) TransferSlot {
  std::atomic<std::uint32_t> state{0};
  std::atomic<std::uint32_t> count{0};
  void* items[kMaxBatch] = {};
};

struct alignas(64) CacheSlot {
  std::atomic<std::uint32_t> busy{0};
  std::atomic<std::uint32_t> steal{0};
  // Followed in the same allocation by: u32 counts[num_classes] (atomic:
  // the statistics read them), then void* entries[sum of capacities].
  std::atomic<std::uint32_t>* counts() { return reinterpret_cast<std::atomic<std::uint32_t>*>(this + 1); }
};

class ThreadCache {
 public:
  ThreadCache(const Geometry& g, std::size_t cache_bytes) : m_num_classes(g.num_classes) {
    std::uint32_t offset = 0;
    for (std::uint32_t c = 0; c < m_num_classes; ++c) {
      const std::size_t block = std::size_t(1) << (g.min_lg + c);
      std::size_t cap = block <= (std::size_t(64) << 10) ? cache_bytes / block : 0;
      // Tiny caches (1 block) only add a handshake without saving bitset work.
      if (cap < 2) cap = 0;
      m_cap[c] = static_cast<std::uint32_t>(std::min<std::size_t>(cap, kMaxCachedPerClass));
      m_offset[c] = offset;
      offset += m_cap[c];
    }
    const std::size_t counts_bytes = (m_num_classes * sizeof(std::uint32_t) + 63) / 64 * 64;
    m_entries_offset = sizeof(CacheSlot) + counts_bytes;
    m_slot_bytes = (m_entries_offset + offset * sizeof(void*) + 63) / 64 * 64;
    m_asymmetric = asymmetric_fences();
    for (std::uint32_t c = 0; c < m_num_classes; ++c) {
      const std::size_t batch_bytes = std::size_t(std::max(1u, m_cap[c] / 2)) << (g.min_lg + c);
      m_transfer_slots[c] = m_cap[c] ? static_cast<std::uint32_t>(std::clamp<std::size_t>(
                                           kTransferBytes / batch_bytes, 2, kTransferSlots))
                                     : 0;
    }
    m_transfer.reset(new TransferSlot[std::size_t(m_num_classes) * kTransferSlots]);
  }
  ~ThreadCache() {
    for (auto& s : m_slots) {
      if (CacheSlot* p = s.load(std::memory_order_acquire)) {
        p->~CacheSlot();
        ::operator delete(static_cast<void*>(p), std::align_val_t(64));
      }
    }
  }
  ThreadCache(const ThreadCache&) = delete;
  ThreadCache& operator=(const ThreadCache&) = delete;

  std::uint32_t capacity(std::uint32_t cls) const { return m_cap[cls]; }
  std::uint32_t num_classes() const { return m_num_classes; }
  void** entries(CacheSlot* s, std::uint32_t cls) const {
    return reinterpret_cast<void**>(reinterpret_cast<char*>(s) + m_entries_offset) + m_offset[cls];
  }

  // The calling thread's slot in this pool (created on first use), or nullptr
  // when the process has more than kMaxCacheSlots threads using caches, or
  // when the slot does not exist yet and a thief is at work (see create_slot).
  CacheSlot* my_slot() {
    const std::uint32_t i = my_cache_slot();
    if (i >= kMaxCacheSlots) return nullptr;
    CacheSlot* s = m_slots[i].load(std::memory_order_acquire);
    return s ? s : create_slot(i);
  }

  // Owner side of the handshake. false: a thief is at work, bypass the cache.
  bool enter(CacheSlot* s) const {
    if (m_asymmetric) {
      // Plain store; membarrier on the thief's side orders it before the load below.
      s->busy.store(1, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
      s->busy.exchange(1, std::memory_order_seq_cst);  // symmetric Dekker: SC store, SC load
    }
    if (s->steal.load(std::memory_order_seq_cst) != 0) {
      s->busy.store(0, std::memory_order_release);
      return false;
    }
    return true;
  }
  static void leave(CacheSlot* s) { s->busy.store(0, std::memory_order_release); }

  // Thief side: runs f() while no owner is inside its cache in this pool
  // (owners arriving meanwhile bypass their caches; they never wait).
  // Serialized by the thief lock, which also keeps new slots from appearing
  // meanwhile. f may visit the slots with for_each_slot.
  template <class F>
  void with_all_frozen(F&& f) {
    std::lock_guard<std::mutex> guard(m_thief_mutex);
    // No slot is created while the lock is held: the slots frozen here are
    // exactly the slots f visits.
    const std::uint32_t n = m_slot_limit.load(std::memory_order_acquire);
    for_each_slot(n, [](CacheSlot* s) { s->steal.exchange(1, std::memory_order_seq_cst); });
    if (m_asymmetric) heavy_fence();
    for_each_slot(n, [](CacheSlot* s) {
      Backoff backoff;  // the owner may have been preempted inside its section
      while (s->busy.load(std::memory_order_seq_cst) != 0) backoff.wait();
    });
    TESSERA_MEMPOOL_TEST_POINT(frozen, 0u, 0u);
    f(n);
    for_each_slot(n, [](CacheSlot* s) { s->steal.store(0, std::memory_order_release); });
  }

  template <class F>
  void for_each_slot(std::uint32_t n, F&& f) const {
    for (std::uint32_t i = 0; i < n; ++i)
      if (CacheSlot* s = m_slots[i].load(std::memory_order_acquire)) f(s);
  }

  // Parks n (<= kMaxBatch) blocks of size class cls in a free transfer
  // slot; false if every slot is full or busy.
  bool transfer_put(std::uint32_t cls, void* const* blocks, std::uint32_t n) {
    TransferSlot* t = m_transfer.get() + std::size_t(cls) * kTransferSlots;
    if (m_parked[cls].n.load(std::memory_order_relaxed) >= m_transfer_slots[cls]) return false;
    for (std::uint32_t i = 0; i < m_transfer_slots[cls]; ++i) {
      std::uint32_t expected = 0;
      if (t[i].state.load(std::memory_order_relaxed) != 0 ||
          !t[i].state.compare_exchange_strong(expected, 2, std::memory_order_acquire))
        continue;
      std::copy(blocks, blocks + n, t[i].items);
      t[i].count.store(n, std::memory_order_relaxed);
      t[i].state.store(1, std::memory_order_release);
      m_parked[cls].n.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    return false;
  }
  // Takes a parked batch of size class cls into out; returns its size (0: none).
  std::uint32_t transfer_get(std::uint32_t cls, void** out) {
    TransferSlot* t = m_transfer.get() + std::size_t(cls) * kTransferSlots;
    // The counter is a hint (it lags the slots by a moment): one load when
    // nothing is parked, which is the common case outside producer/consumer flows.
    if (m_parked[cls].n.load(std::memory_order_relaxed) == 0) return 0;
    for (std::uint32_t i = 0; i < m_transfer_slots[cls]; ++i) {
      std::uint32_t expected = 1;
      if (t[i].state.load(std::memory_order_relaxed) != 1 ||
          !t[i].state.compare_exchange_strong(expected, 2, std::memory_order_acquire))
        continue;
      const std::uint32_t n = t[i].count.load(std::memory_order_relaxed);
      std::copy(t[i].items, t[i].items + n, out);
      t[i].count.store(0, std::memory_order_relaxed);
      t[i].state.store(0, std::memory_order_release);
      m_parked[cls].n.fetch_sub(1, std::memory_order_relaxed);
      return n;
    }
    return 0;
  }
  // Full transfer slots of size class cls (for thieves, inside with_all_frozen).
  template <class F>
  void for_each_parked(std::uint32_t cls, F&& f) const {
    TransferSlot* t = m_transfer.get() + std::size_t(cls) * kTransferSlots;
    for (std::uint32_t i = 0; i < m_transfer_slots[cls]; ++i)
      if (t[i].state.load(std::memory_order_acquire) == 1) f(t[i]);
  }
  // A thief emptied one parked slot of size class cls.
  void unpark(std::uint32_t cls) { m_parked[cls].n.fetch_sub(1, std::memory_order_relaxed); }

  // Blocks cached per size class, summed over threads (exact when no thread
  // is allocating or freeing).
  void cached_blocks(std::size_t* per_class) const {
    for (std::uint32_t c = 0; c < m_num_classes; ++c) per_class[c] = 0;
    const std::uint32_t n = m_slot_limit.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n; ++i) {
      CacheSlot* s = m_slots[i].load(std::memory_order_acquire);
      if (!s) continue;
      for (std::uint32_t c = 0; c < m_num_classes; ++c) per_class[c] += s->counts()[c].load(std::memory_order_relaxed);
    }
    for (std::uint32_t c = 0; c < m_num_classes; ++c)
      for_each_parked(c, [&](TransferSlot& t) { per_class[c] += t.count.load(std::memory_order_relaxed); });
  }
  bool any_cached() const {
    std::size_t per_class[32];
    cached_blocks(per_class);
    for (std::uint32_t c = 0; c < m_num_classes; ++c)
      if (per_class[c]) return true;
    return false;
  }

 private:
  // Creates slot i unless a thief is at work (nullptr then: this call uses
  // the bitsets, a later one tries again). Under the thief lock, so that a
  // freeze never misses a slot (see the comment at the top of this file).
  [[gnu::noinline]] CacheSlot* create_slot(std::uint32_t i) {
    std::unique_lock<std::mutex> lock(m_thief_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return nullptr;
    void* raw = ::operator new(m_slot_bytes, std::align_val_t(64));
    std::fill_n(static_cast<char*>(raw), m_slot_bytes, char(0));
    auto* s = new (raw) CacheSlot();
    for (std::uint32_t c = 0; c < m_num_classes; ++c) new (s->counts() + c) std::atomic<std::uint32_t>(0);
    // Only the thread owning index i creates its slot, so this cannot race
    // with another creation; the release publishes the zeroed storage (thieves
    // also see it through the lock).
    m_slots[i].store(s, std::memory_order_release);
    std::uint32_t lim = m_slot_limit.load(std::memory_order_relaxed);
    while (lim < i + 1 && !m_slot_limit.compare_exchange_weak(lim, i + 1, std::memory_order_acq_rel)) {
    }
    return s;
  }

  std::uint32_t m_num_classes;
  std::uint32_t m_cap[32] = {};
  std::uint32_t m_offset[32] = {};
  std::size_t m_entries_offset = 0;
  std::size_t m_slot_bytes = 0;
  bool m_asymmetric = false;
  std::atomic<CacheSlot*> m_slots[kMaxCacheSlots] = {};
  std::unique_ptr<TransferSlot[]> m_transfer;
  std::uint32_t m_transfer_slots[32] = {};
  struct alignas(64) ParkedCount {
    std::atomic<std::uint32_t> n{0};
  };
  ParkedCount m_parked[32];
  std::atomic<std::uint32_t> m_slot_limit{0};
  std::mutex m_thief_mutex;
};

}  // namespace tessera::detail::mempool
