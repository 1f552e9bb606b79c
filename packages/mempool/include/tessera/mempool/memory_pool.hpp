#pragma once
// tessera::MemoryPool: a lock-free, thread-scalable pool of power-of-two
// blocks, callable from host code and inside kernels on every back-end.
//
// The pool takes one contiguous chunk from a memory space at construction:
// metadata first, then `number_of_superblocks()` superblocks of
// `superblock_size()` bytes. A superblock serves blocks of one size at a time
// (its "size class"); its blocks are tracked by a bitset whose 32-bit words
// are the "pages". See packages/mempool/docs/README.md for the design, the
// state diagram of a superblock and the two guarantees beyond the published
// design (emptied superblocks return to the empty set; no allocation ever
// completes on a superblock that was emptied and reassigned meanwhile).
//
// Protocol summary (why it is correct is in the docs):
//  * state word of a superblock = size code | reserved-block count. An
//    allocation first *reserves* a block with one atomic add on that word and
//    keeps the reservation only if the word showed its own size code and a
//    count below capacity; only then does it search the bitset.
//  * a superblock changes size only by a compare-and-swap from
//    (any size, count 0) — impossible while any reservation is held;
//  * a deallocation clears the bit first, then gives the reservation back.
#include <tessera/core.hpp>
#include <tessera/mempool/detail/pool_atomics.hpp>
#include <tessera/mempool/detail/pool_geometry.hpp>
#include <tessera/mempool/detail/thread_cache.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera {

namespace detail::mempool {

// Execution and memory space of MemoryPool<DeviceType>: DeviceType may be a
// Device<Exec, Mem>, an execution space or a memory space (as in Kokkos).
template <class T, class = void>
struct pool_spaces;
template <class E, class M>
struct pool_spaces<Device<E, M>> {
  using execution_space = E;
  using memory_space = M;
};
template <class T>
struct pool_spaces<T, std::enable_if_t<is_execution_space_v<T>>> {
  using execution_space = T;
  using memory_space = typename T::memory_space;
};
template <class T>
struct pool_spaces<T, std::enable_if_t<!is_execution_space_v<T> && is_memory_space_v<T> && !is_device<T>::value>> {
  using execution_space = typename default_execution_space_for<T>::type;
  using memory_space = T;
};

// Zeroes `words` 64-bit words of pool metadata with a kernel on `Exec`, so
// that it works for device memory and first-touches host memory in parallel.
// (A free function: nvcc does not allow device lambdas in constructors.)
template <class Exec>
void zero_words(std::uint64_t* p, std::size_t words) {
  parallel_for("tessera::MemoryPool::initialize", RangePolicy<Exec>(0, words),
               TESSERA_LAMBDA(std::size_t i) { p[i] = 0; });
  Exec().fence("tessera::MemoryPool::initialize");
}

// Host-side owner of a pool's memory and cache; shared by every host copy of
// the handle (copies made inside device kernels never touch the count).
struct PoolRecordBase {
  std::atomic<int> count{1};
  Geometry geometry;
  std::unique_ptr<ThreadCache> cache;
  virtual ~PoolRecordBase() = default;
};

template <class MemSpace>
struct PoolRecord final : PoolRecordBase {
  MemSpace space;
  void* chunk = nullptr;
  ~PoolRecord() override {
    if (chunk) space.deallocate("tessera::MemoryPool", chunk, geometry.chunk_bytes);
  }
};

class PoolTracker {
 public:
  TESSERA_DEFAULTED_FUNCTION PoolTracker() = default;
  explicit PoolTracker(PoolRecordBase* r) : m_record(r) {}  // adopts one count
  TESSERA_INLINE_FUNCTION PoolTracker(const PoolTracker& o) : m_record(o.m_record) { increment(); }
  TESSERA_INLINE_FUNCTION PoolTracker& operator=(const PoolTracker& o) {
    if (m_record != o.m_record) {
      decrement();
      m_record = o.m_record;
      increment();
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION ~PoolTracker() { decrement(); }
  PoolRecordBase* record() const { return m_record; }
  int use_count() const { return m_record ? m_record->count.load(std::memory_order_relaxed) : 0; }

 private:
  TESSERA_INLINE_FUNCTION void increment() const {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_record) m_record->count.fetch_add(1, std::memory_order_relaxed);
#endif
  }
  TESSERA_INLINE_FUNCTION void decrement() {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_record && m_record->count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete m_record;
#endif
    m_record = nullptr;
  }
  PoolRecordBase* m_record = nullptr;
};

// Why a deallocation was ignored.
enum BadDealloc : int { kDeallocOk = 0, kOutsidePool, kUnassignedSuperblock, kWrongSize, kNotBlockStart, kAlreadyFree };

TESSERA_INLINE_FUNCTION const char* bad_dealloc_reason(int why) {
  switch (why) {
    case kOutsidePool: return "the pointer is not inside the pool";
    case kUnassignedSuperblock: return "the pointer lies in a superblock that holds no blocks";
    case kWrongSize: return "the size does not match the block size of its superblock";
    case kNotBlockStart: return "the pointer is not the start of a block";
    case kAlreadyFree: return "the block is already free (double deallocation)";
    default: return "unknown";
  }
}

}  // namespace detail::mempool

template <class DeviceType>
class MemoryPool {
  using spaces = detail::mempool::pool_spaces<DeviceType>;

 public:
  using execution_space = typename spaces::execution_space;
  using memory_space = typename spaces::memory_space;
  using device_type = Device<execution_space, memory_space>;
  using size_type = std::size_t;

  // What get_usage_statistics reports (Kokkos' fields plus the high-water
  // mark, failures, bad deallocations and cache figures). All counts are exact
  // whenever no thread is inside allocate/deallocate.
  struct usage_statistics {
    std::size_t capacity_bytes = 0;          // bytes in superblocks (what the pool can hand out)
    std::size_t superblock_bytes = 0;        // size of one superblock
    std::size_t max_block_bytes = 0;
    std::size_t min_block_bytes = 0;
    std::size_t capacity_superblocks = 0;
    std::size_t consumed_superblocks = 0;    // assigned to a block size now
    std::size_t consumed_blocks = 0;         // handed out and not yet deallocated
    std::size_t consumed_bytes = 0;          // their block sizes summed
    std::size_t reserved_blocks = 0;         // free blocks in consumed superblocks (thread caches included)
    std::size_t reserved_bytes = 0;
    std::size_t cached_blocks = 0;           // free blocks parked in per-thread caches
    std::size_t cached_bytes = 0;
    std::size_t high_water_superblocks = 0;  // most superblocks ever consumed at once
    std::size_t high_water_bytes = 0;        // high_water_superblocks * superblock_bytes: the pool's peak footprint
    std::size_t failed_allocations = 0;      // allocate() calls that returned nullptr
    std::size_t bad_deallocations = 0;       // deallocate() calls that were ignored (foreign pointer, double free, ...)
    std::size_t metadata_bytes = 0;          // bitsets, headers and alignment padding
  };

  TESSERA_DEFAULTED_FUNCTION MemoryPool() = default;
  TESSERA_DEFAULTED_FUNCTION MemoryPool(const MemoryPool&) = default;
  TESSERA_DEFAULTED_FUNCTION MemoryPool& operator=(const MemoryPool&) = default;
  TESSERA_DEFAULTED_FUNCTION ~MemoryPool() = default;

  // Kokkos' constructor. Sizes are bytes; 0 picks the default (min block 64,
  // max block 4096, superblock 2^20 or the whole pool if smaller). Throws
  // std::invalid_argument naming the parameter and its allowed range, or
  // tessera::allocation_error when the memory space cannot provide the chunk.
  MemoryPool(const memory_space& space, std::size_t min_total_alloc_size, std::size_t min_block_alloc_size = 0,
             std::size_t max_block_alloc_size = 0, std::size_t min_superblock_size = 0,
             const MemoryPoolOptions& options = MemoryPoolOptions()) {
    namespace mp = detail::mempool;
    const mp::Geometry g =
        mp::resolve_geometry(min_total_alloc_size, min_block_alloc_size, max_block_alloc_size, min_superblock_size, options);
    auto* rec = new mp::PoolRecord<memory_space>();
    mp::PoolTracker tracker(rec);  // frees everything if a later step throws
    rec->geometry = g;
    rec->space = space;
    rec->chunk = space.allocate("tessera::MemoryPool", g.chunk_bytes);
    char* meta = static_cast<char*>(rec->chunk);
    mp::zero_words<execution_space>(reinterpret_cast<std::uint64_t*>(meta), g.meta_bytes / 8);
    const std::uintptr_t after_meta = reinterpret_cast<std::uintptr_t>(meta) + g.meta_bytes;
    const std::uintptr_t data = (after_meta + g.data_alignment - 1) / g.data_alignment * g.data_alignment;
    if (options.thread_cache && is_host_execution_space<execution_space>::value &&
        detail::host_accessible<memory_space>::value) {
      rec->cache = std::make_unique<mp::ThreadCache>(g, options.thread_cache_bytes);
    }
    m_meta = meta;
    m_data = reinterpret_cast<char*>(data);
    m_min_lg = g.min_lg;
    m_max_lg = g.max_lg;
    m_sb_lg = g.sb_lg;
    m_sb_count = g.sb_count;
    m_page_full_num = g.page_full_num;
    m_sb_full_num = g.sb_full_num;
    m_sb_offset = g.sb_offset;
    m_sb_record_bytes = g.sb_record_bytes;
    m_cache = rec->cache.get();
    // A per-pool value written into the second word of every block parked in
    // a thread cache: a deallocation that finds it suspects a double free and
    // checks exactly (the bitsets alone cannot tell cached blocks from live ones).
    m_cache_key = mp::mix64(reinterpret_cast<std::uintptr_t>(rec) ^ mp::host_cycle_counter()) | 1u;
    m_tracker = tracker;
  }

  // ---- sizes -------------------------------------------------------------------

  // The block size that serves a request of `bytes` (0 if larger than max_block_size()).
  TESSERA_INLINE_FUNCTION std::size_t allocate_block_size(std::size_t bytes) const {
    return bytes <= max_block_size() ? std::size_t(1) << block_lg(bytes) : 0;
  }
  TESSERA_INLINE_FUNCTION std::size_t capacity() const { return std::size_t(m_sb_count) << m_sb_lg; }
  TESSERA_INLINE_FUNCTION std::size_t min_block_size() const { return m_meta ? std::size_t(1) << m_min_lg : 0; }
  TESSERA_INLINE_FUNCTION std::size_t max_block_size() const { return m_meta ? std::size_t(1) << m_max_lg : 0; }
  TESSERA_INLINE_FUNCTION std::size_t superblock_size() const { return m_meta ? std::size_t(1) << m_sb_lg : 0; }
  TESSERA_INLINE_FUNCTION std::size_t number_of_superblocks() const { return m_sb_count; }
  // Whether free blocks are cached per thread in front of the bitsets.
  bool uses_thread_cache() const { return m_cache != nullptr; }
  // Host copies of this handle sharing the pool (0 for an empty handle).
  int use_count() const { return m_tracker.use_count(); }

  // ---- allocate / deallocate ---------------------------------------------------------

  // A block of allocate_block_size(bytes) bytes, aligned to its size, or
  // nullptr when the pool cannot serve the request now: bytes larger than
  // max_block_size(), no free block of that size and no empty superblock, or
  // (rarely) `attempt_limit` rounds lost to other threads swapping
  // superblocks. Never aborts. Waits for other threads only when thread
  // caches are on and the bitsets cannot serve: reclaiming the cached blocks
  // takes the pool's thief lock and waits for busy cache owners (see
  // detail/thread_cache.hpp). Callable from
  // host code when the pool's memory is host-accessible, and inside kernels
  // of the pool's execution space.
  TESSERA_INLINE_FUNCTION void* allocate(std::size_t bytes, int attempt_limit = 1) const {
    namespace mp = detail::mempool;
#if !TESSERA_IMPL_ON_DEVICE
    if constexpr (!detail::host_accessible<memory_space>::value) {
      (void)bytes;
      (void)attempt_limit;
      return nullptr;  // the metadata lives in device memory: only kernels may allocate
    } else
#endif
    {
      if (m_meta == nullptr) return nullptr;
      if (bytes > max_block_size()) {
        count_failure();
        return nullptr;
      }
      const std::uint32_t lg = block_lg(bytes);
      void* p = nullptr;
#if TESSERA_IMPL_ON_DEVICE
      p = allocate_warp_aggregated(lg, attempt_limit);
      if (!p) count_failure();
      return p;
#else
      if (m_cache) {
        p = allocate_cached(lg, attempt_limit);
        if (!p) count_failure();
        return p;
      }
      if (allocate_blocks(lg, 1, &p, attempt_limit, mp::scatter_value()) == 0) {
        count_failure();
        return nullptr;
      }
      return p;
#endif
    }
  }

  // Returns a block. `bytes` is the size given to allocate (any size with the
  // same block size is accepted). A pointer outside the pool, not at a block
  // start, with a mismatching size, or to a block that is already free
  // changes nothing: it is counted in bad_deallocations (and reported on
  // stderr in builds without NDEBUG). nullptr is ignored and not counted.
  TESSERA_INLINE_FUNCTION void deallocate(void* p, std::size_t bytes) const {
#if !TESSERA_IMPL_ON_DEVICE
    if constexpr (!detail::host_accessible<memory_space>::value) {
      (void)p;
      (void)bytes;
      return;
    } else
#endif
    {
      if (p == nullptr || m_meta == nullptr) return;
#if !TESSERA_IMPL_ON_DEVICE
      if (m_cache) {
        deallocate_cached(p, bytes);
        return;
      }
#endif
      std::uint32_t sb = 0, lg = 0, idx = 0;
      int why = locate(p, bytes, sb, lg, idx);
      bool freed = false;
      if (why == detail::mempool::kDeallocOk) {
        freed = free_bits(sb, class_info(lg), idx >> 5, 1u << (idx & 31u)) != 0;
        if (!freed) why = detail::mempool::kAlreadyFree;
      }
      if (!freed) count_bad_deallocation(p, bytes, why);
#if TESSERA_IMPL_ON_DEVICE
      release_warp_aggregated(freed ? sb : kNone);
#else
      if (freed) release(sb, 1);
#endif
    }
  }

  // ---- batches (host only) ----------------------------------------------------------

  // Up to n blocks of allocate_block_size(bytes) bytes, written to out[0..);
  // returns how many (fewer than n, possibly 0, when the pool runs short or
  // bytes > max_block_size(); a short batch is not counted as a failed
  // allocation). One reservation and one bitset word serve up to 32 blocks,
  // so a batch costs a few instructions per block where allocate() costs a
  // thread-cache round trip each: for callers that keep their own free
  // lists (the task scheduler refills its per-worker record cache this
  // way). The blocks bypass the thread caches. Host code only, on a pool
  // whose memory is host-accessible (elsewhere it returns 0).
  std::size_t allocate_batch(std::size_t bytes, void** out, std::size_t n) const {
    if constexpr (!detail::host_accessible<memory_space>::value) {
      (void)bytes, (void)out, (void)n;
      return 0;
    } else {
      namespace mp = detail::mempool;
      if (m_meta == nullptr || n == 0 || bytes > max_block_size()) return 0;
      const std::uint32_t lg = block_lg(bytes);
      std::size_t got = 0;
      bool flushed = false;
      while (got < n) {
        const std::size_t want = std::min<std::size_t>(n - got, 1u << 20);
        const std::uint32_t k = allocate_blocks(lg, static_cast<std::uint32_t>(want), out + got, 1, mp::scatter_value());
        if (k == 0) {
          // Free blocks may sit in threads' caches: return them once, retry.
          if (flushed || !m_cache || !m_cache->any_cached()) break;
          flush_all_caches();
          flushed = true;
          continue;
        }
        got += k;
      }
      if (m_cache)
        for (std::size_t i = 0; i < got; ++i) hand_out(out[i]);
      return got;
    }
  }

  // Returns n blocks of one block size (bytes as given to allocate), with
  // the checks of deallocate(): a foreign pointer, a wrong size, a block
  // already free or parked in a cache changes nothing and is counted in
  // bad_deallocations. One atomic per bitset word touched rather than per
  // block when the blocks lie close together (blocks in address order need
  // no sorting). nullptr entries are skipped. Host code only.
  void deallocate_batch(void* const* blocks, std::size_t n, std::size_t bytes) const {
    if constexpr (!detail::host_accessible<memory_space>::value) {
      (void)blocks, (void)n, (void)bytes;
    } else {
      namespace mp = detail::mempool;
      if (m_meta == nullptr) return;
      constexpr std::uint32_t kChunk = 64;
      const std::size_t report_bytes = bytes != 0 ? bytes : 1;  // nonzero: free_batch checks
      void* chunk[kChunk];
      std::uint32_t k = 0, chunk_lg = 0;
      // A superblock found valid for this size stays so while the batch
      // holds blocks of it (their reservations pin its size): blocks after
      // the first in it need only the range and alignment checks.
      std::uint32_t known_sb = kNone;
      const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(m_data);
      for (std::size_t i = 0; i < n; ++i) {
        void* p = blocks[i];
        if (p == nullptr) continue;
        const std::uintptr_t off = reinterpret_cast<std::uintptr_t>(p) - base;
        if (known_sb == kNone || (off >> m_sb_lg) != known_sb || (off & ((std::uintptr_t(1) << chunk_lg) - 1)) != 0) {
          std::uint32_t sb = 0, lg = 0, idx = 0;
          const int why = locate(p, bytes, sb, lg, idx);
          if (TESSERA_IMPL_UNLIKELY(why != mp::kDeallocOk)) {
            count_bad_deallocation(p, bytes, why);
            continue;
          }
          known_sb = sb;
          chunk_lg = lg;
        }
        // A block carrying the cache key may be parked in a cache: the exact
        // (slow) check of deallocate() decides.
        if (m_cache && TESSERA_IMPL_UNLIKELY(static_cast<std::uint64_t*>(p)[1] == m_cache_key)) {
          deallocate(p, bytes);
          continue;
        }
        chunk[k++] = p;
        if (k == kChunk) {
          free_batch(class_info(chunk_lg), chunk, k, report_bytes);
          k = 0;
        }
      }
      if (k != 0) free_batch(class_info(chunk_lg), chunk, k, report_bytes);
    }
  }

  // ---- state ---------------------------------------------------------------------

  // True when no block is handed out. Approximate by design while other
  // threads allocate or free (it reads every superblock one after another,
  // not in one instant); exact when they are quiet.
  bool is_empty() const {
    usage_statistics s;
    get_usage_statistics(s);
    return s.consumed_blocks == 0;
  }

  void get_usage_statistics(usage_statistics& s) const {
    s = usage_statistics();
    if (!m_meta) return;
    const Snapshot snap = snapshot();
    const auto& g = m_tracker.record()->geometry;
    s.capacity_bytes = capacity();
    s.superblock_bytes = superblock_size();
    s.max_block_bytes = max_block_size();
    s.min_block_bytes = min_block_size();
    s.capacity_superblocks = m_sb_count;
    s.metadata_bytes = g.chunk_bytes - g.capacity_bytes;
    std::size_t reserved_blocks = 0, reserved_bytes = 0, cap_blocks = 0, cap_bytes = 0;
    for (std::uint32_t sb = 0; sb < m_sb_count; ++sb) {
      const std::uint32_t st = snap.state(sb);
      const std::uint32_t code = st >> detail::mempool::kCountBits;
      if (code == 0) continue;
      const std::uint32_t lg = code + 5;
      const std::size_t count = st & detail::mempool::kCountMask;
      reserved_blocks += count;
      reserved_bytes += count << lg;
      cap_blocks += std::size_t(1) << (m_sb_lg - lg);
      cap_bytes += superblock_size();
    }
    s.consumed_superblocks = snap.counter(detail::mempool::kConsumedOffset);
    s.high_water_superblocks = snap.counter(detail::mempool::kHighWaterOffset);
    s.high_water_bytes = s.high_water_superblocks * s.superblock_bytes;
    s.failed_allocations = snap.counter(detail::mempool::kFailedOffset);
    s.bad_deallocations = snap.counter(detail::mempool::kBadDeallocOffset);
    if (m_cache) {
      std::size_t per_class[32];
      m_cache->cached_blocks(per_class);
      for (std::uint32_t c = 0; c < m_cache->num_classes(); ++c) {
        s.cached_blocks += per_class[c];
        s.cached_bytes += per_class[c] << (m_min_lg + c);
      }
    }
    // Reserved in the state words = handed out + cached (+ in flight).
    s.consumed_blocks = reserved_blocks - std::min(reserved_blocks, s.cached_blocks);
    s.consumed_bytes = reserved_bytes - std::min(reserved_bytes, s.cached_bytes);
    s.reserved_blocks = cap_blocks - s.consumed_blocks;
    s.reserved_bytes = cap_bytes - s.consumed_bytes;
  }

  // Writes the configuration, the statistics, each block size's active
  // superblock and every superblock in use.
  void print_state(std::ostream& out) const {
    if (!m_meta) {
      out << "tessera::MemoryPool: empty handle\n";
      return;
    }
    usage_statistics s;
    get_usage_statistics(s);
    const Snapshot snap = snapshot();
    out << "tessera::MemoryPool<" << execution_space::name() << ", " << memory_space::name() << ">\n"
        << "  capacity " << s.capacity_bytes << " bytes in " << s.capacity_superblocks << " superblocks of "
        << s.superblock_bytes << " bytes; blocks " << s.min_block_bytes << " to " << s.max_block_bytes
        << " bytes; metadata " << s.metadata_bytes << " bytes; thread cache " << (m_cache ? "on" : "off") << "\n"
        << "  in use: " << s.consumed_blocks << " blocks, " << s.consumed_bytes << " bytes; consumed superblocks "
        << s.consumed_superblocks << " (high water " << s.high_water_superblocks << "); cached blocks "
        << s.cached_blocks << "; failed allocations " << s.failed_allocations << "; bad deallocations "
        << s.bad_deallocations << "\n";
    for (std::uint32_t lg = m_min_lg; lg <= m_max_lg; ++lg) {
      const std::uint32_t a = snap.active(lg - m_min_lg);
      out << "  block size " << (std::size_t(1) << lg) << ": active superblock ";
      if (a) out << (a - 1) << "\n";
      else out << "none\n";
    }
    std::size_t empty = 0;
    for (std::uint32_t sb = 0; sb < m_sb_count; ++sb) {
      const std::uint32_t st = snap.state(sb);
      const std::uint32_t code = st >> detail::mempool::kCountBits;
      const std::uint32_t count = st & detail::mempool::kCountMask;
      if (code == 0) {
        ++empty;
        continue;
      }
      const ClassInfo ci = class_info(code + 5);
      out << "  superblock " << sb << ": block size " << (std::size_t(1) << ci.lg) << ", reserved " << count << "/"
          << ci.nblocks << " blocks, full pages " << static_cast<std::int32_t>(snap.full_pages(sb)) << "/" << ci.pages
          << "\n";
    }
    out << "  empty superblocks: " << empty << "\n";
  }

  // ---- implementation (public only because device lambdas need it) -------------

  struct ClassInfo {
    std::uint32_t lg = 0, code = 0, cls = 0;
    std::uint32_t nblocks = 0;    // blocks per superblock
    std::uint32_t pages = 0;      // bitset words used (power of two)
    std::uint32_t page_mask = 0;  // valid bits of a page
    std::uint32_t page_thr = 0;   // set bits at which a page counts as full
    std::uint32_t sb_thr = 0;     // full pages at which the superblock counts as full
  };

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr int kSwapRounds = 8;
  static constexpr int kSwapSpin = 1 << 12;
  static constexpr std::uint32_t kScanBatch = 16;

  TESSERA_INLINE_FUNCTION std::uint32_t block_lg(std::size_t bytes) const {
    const std::uint32_t lg = detail::mempool::ceil_log2(bytes);
    return lg < m_min_lg ? m_min_lg : lg;
  }

  TESSERA_INLINE_FUNCTION ClassInfo class_info(std::uint32_t lg) const {
    ClassInfo ci;
    ci.lg = lg;
    ci.code = lg - 5;
    ci.cls = lg - m_min_lg;
    ci.nblocks = 1u << (m_sb_lg - lg);
    const std::uint32_t page_bits = ci.nblocks >= 32 ? 32u : ci.nblocks;
    ci.pages = ci.nblocks >= 32 ? ci.nblocks >> 5 : 1u;
    ci.page_mask = page_bits == 32 ? 0xffffffffu : (1u << page_bits) - 1u;
    ci.page_thr = (page_bits * m_page_full_num + 1023u) >> 10;
    ci.sb_thr = static_cast<std::uint32_t>((std::uint64_t(ci.pages) * m_sb_full_num + 1023u) >> 10);
    if (ci.page_thr == 0) ci.page_thr = 1;
    if (ci.sb_thr == 0) ci.sb_thr = 1;
    return ci;
  }

  // ---- metadata addresses ----
  TESSERA_INLINE_FUNCTION std::uint64_t* counter(std::size_t offset) const {
    return reinterpret_cast<std::uint64_t*>(m_meta + offset);
  }
  TESSERA_INLINE_FUNCTION std::uint32_t* active_word(std::uint32_t cls) const {
    return reinterpret_cast<std::uint32_t*>(m_meta + detail::mempool::kClassOffset + std::size_t(cls) * 64);
  }
  TESSERA_INLINE_FUNCTION std::uint32_t* lock_word(std::uint32_t cls) const { return active_word(cls) + 1; }
  TESSERA_INLINE_FUNCTION std::uint32_t* state_word(std::uint32_t sb) const {
    return reinterpret_cast<std::uint32_t*>(m_meta + m_sb_offset + std::size_t(sb) * m_sb_record_bytes);
  }
  TESSERA_INLINE_FUNCTION std::uint32_t* full_pages_word(std::uint32_t sb) const { return state_word(sb) + 1; }
  TESSERA_INLINE_FUNCTION std::uint32_t* bitset(std::uint32_t sb) const {
    return reinterpret_cast<std::uint32_t*>(m_meta + m_sb_offset + std::size_t(sb) * m_sb_record_bytes + 64);
  }

  TESSERA_INLINE_FUNCTION void count_failure() const { detail::mempool::fetch_add(counter(detail::mempool::kFailedOffset), std::uint64_t(1)); }

  TESSERA_INLINE_FUNCTION void count_bad_deallocation(void* p, std::size_t bytes, int why) const {
    detail::mempool::fetch_add(counter(detail::mempool::kBadDeallocOffset), std::uint64_t(1));
#if !defined(NDEBUG)
#if TESSERA_IMPL_ON_DEVICE
    ::printf("tessera::MemoryPool::deallocate(%p, %llu bytes) ignored: %s\n", p, (unsigned long long)bytes,
             detail::mempool::bad_dealloc_reason(why));
#else
    std::fprintf(stderr, "tessera::MemoryPool::deallocate(%p, %zu bytes) ignored: %s\n", p, bytes,
                 detail::mempool::bad_dealloc_reason(why));
#endif
#else
    (void)p;
    (void)bytes;
    (void)why;
#endif
  }

  // ---- reservations on the state word ----

  // Reserves one block of superblock sb for size ci: one atomic add, kept
  // only if the word showed ci's size code and a count below capacity. Once
  // kept, the superblock cannot change size until the reservation is given back.
  TESSERA_INLINE_FUNCTION bool reserve_one(std::uint32_t sb, const ClassInfo& ci) const {
    namespace mp = detail::mempool;
    const std::uint32_t old = mp::fetch_add(state_word(sb), 1u);
    if ((old >> mp::kCountBits) == ci.code && (old & mp::kCountMask) < ci.nblocks) return true;
    release(sb, 1);  // undo (may be the decrement that leaves it empty)
    return false;
  }

  // Reserves between 1 and `want` blocks (0 if none): the host caches' batch
  // refills and, on a GPU, the warp-aggregated allocations. On a GPU one
  // atomic add of `want` (kept up to the capacity, the rest given back at
  // once: thousands of warps retrying a compare-and-swap on one word would
  // mostly fail); on the host a compare-and-swap loop, which never
  // overshoots.
  TESSERA_INLINE_FUNCTION std::uint32_t reserve_up_to(std::uint32_t sb, const ClassInfo& ci, std::uint32_t want) const {
    namespace mp = detail::mempool;
#if TESSERA_IMPL_ON_DEVICE
    if (want == 1) return reserve_one(sb, ci) ? 1u : 0u;
    const std::uint32_t old = mp::fetch_add(state_word(sb), want);
    const std::uint32_t count = old & mp::kCountMask;
    if ((old >> mp::kCountBits) != ci.code || count >= ci.nblocks) {
      release(sb, want);  // undo (may be the decrement that leaves it empty)
      return 0;
    }
    const std::uint32_t kept = want < ci.nblocks - count ? want : ci.nblocks - count;
    // Keeps at least one reservation, so this cannot be the decrement to zero.
    if (kept < want) mp::fetch_sub(state_word(sb), want - kept);
    return kept;
#else
    std::uint32_t* st = state_word(sb);
    for (;;) {
      const std::uint32_t cur = mp::load(st);
      const std::uint32_t count = cur & mp::kCountMask;
      if ((cur >> mp::kCountBits) != ci.code || count >= ci.nblocks) return 0;
      const std::uint32_t k = want < ci.nblocks - count ? want : ci.nblocks - count;
      if (mp::cas(st, cur, cur + k)) return k;
    }
#endif
  }

  // Gives back n reservations; the one that brings the count to 0 offers the
  // superblock back to the empty set.
  TESSERA_INLINE_FUNCTION void release(std::uint32_t sb, std::uint32_t n) const {
    namespace mp = detail::mempool;
    const std::uint32_t old = mp::fetch_sub(state_word(sb), n);
    if ((old & mp::kCountMask) == n) release_if_empty(sb);
  }

  // An empty superblock goes back to the empty set (size code 0) unless it is
  // the active superblock of its size (kept to avoid churn on alloc/free
  // pairs; a swap that retires it re-checks). Dekker handshake with the swap:
  // here count -> 0 then read active; there write active then read the count.
  TESSERA_INLINE_FUNCTION void release_if_empty(std::uint32_t sb) const {
    namespace mp = detail::mempool;
    std::uint32_t* st = state_word(sb);
    const std::uint32_t cur = mp::load(st);
    const std::uint32_t code = cur >> mp::kCountBits;
    if (code == 0 || (cur & mp::kCountMask) != 0) return;
    const std::uint32_t lg = code + 5;
    if (lg < m_min_lg || lg > m_max_lg) return;
    if (mp::load(active_word(lg - m_min_lg)) == sb + 1) return;
    if (mp::cas(st, cur, 0u)) mp::fetch_add(counter(mp::kConsumedOffset), ~std::uint64_t(0));
  }

  // Claims an empty superblock (state `expected`, count 0) for size ci with
  // one block reserved.
  TESSERA_INLINE_FUNCTION bool claim(std::uint32_t sb, std::uint32_t expected, const ClassInfo& ci) const {
    namespace mp = detail::mempool;
    if (!mp::cas(state_word(sb), expected, (ci.code << mp::kCountBits) | 1u)) return false;
    if (expected == 0) {  // it was in the empty set: one more consumed superblock
      const std::uint64_t now = mp::fetch_add(counter(mp::kConsumedOffset), std::uint64_t(1)) + 1;
      mp::fetch_max(counter(mp::kHighWaterOffset), now);
    }
    return true;
  }

  // ---- bitsets ----

  // Acquires the k blocks reserved in superblock sb; writes their addresses
  // to out and returns how many (k unless the safety bound on the search
  // trips, in which case the rest of the reservation is given back).
  TESSERA_INLINE_FUNCTION std::uint32_t take_bits(std::uint32_t sb, const ClassInfo& ci, std::uint32_t k, void** out,
                                                 std::uint64_t hash) const {
    namespace mp = detail::mempool;
    std::uint32_t* bits = bitset(sb);
    char* base = m_data + (std::size_t(sb) << m_sb_lg);
    std::uint32_t w = static_cast<std::uint32_t>(hash) & (ci.pages - 1);
    const unsigned rot = ci.page_mask == 0xffffffffu ? static_cast<unsigned>(hash >> 59) : 0u;
    const std::uint32_t scan_limit = 4 * ci.pages + 64;
    std::uint32_t got_total = 0, scanned = 0;
    bool passed_threshold = false;
    while (got_total < k) {
      const std::uint32_t word = mp::load_relaxed(bits + w);
      const std::uint32_t free = ~word & ci.page_mask;
      if (free == 0) {
        if (++scanned > scan_limit) break;
        w = (w + 1) & (ci.pages - 1);
        continue;
      }
      std::uint32_t need = k - got_total, pick = 0;
      if (need == 1) {
        // Rotate so that threads landing on the same page try different bits.
        const std::uint32_t r = mp::rotr32(free, rot);
        pick = 1u << ((static_cast<unsigned>(mp::ctz32(r)) + rot) & 31u);
      } else {
        for (std::uint32_t f = free; f != 0 && need != 0; --need) {
          const std::uint32_t low = f & (0u - f);
          pick |= low;
          f ^= low;
        }
      }
      const std::uint32_t old = mp::fetch_or(bits + w, pick);
      std::uint32_t got = pick & ~old;
      if (got == 0) {
        if (++scanned > scan_limit) break;
        continue;  // others took them: look at the same page again
      }
      // popcount of the word before and after tells whether this page just
      // became full; exactly one thread sees each crossing.
      const std::uint32_t before = static_cast<std::uint32_t>(mp::popcount32(old));
      const std::uint32_t after = static_cast<std::uint32_t>(mp::popcount32(old | got));
      if (before < ci.page_thr && after >= ci.page_thr) {
        if (mp::fetch_add(full_pages_word(sb), 1u) + 1u == ci.sb_thr) passed_threshold = true;
      }
      while (got != 0) {
        const std::uint32_t b = static_cast<std::uint32_t>(mp::ctz32(got));
        got &= got - 1;
        out[got_total++] = base + ((std::size_t(w) * 32 + b) << ci.lg);
      }
    }
    if (got_total < k) release(sb, k - got_total);
    if (passed_threshold) retire_active(ci, sb, hash);
    return got_total;
  }

  // Clears `mask` in page w of superblock sb; returns the bits that were set.
  TESSERA_INLINE_FUNCTION std::uint32_t free_bits(std::uint32_t sb, const ClassInfo& ci, std::uint32_t w,
                                                  std::uint32_t mask) const {
    namespace mp = detail::mempool;
    const std::uint32_t old = mp::fetch_and(bitset(sb) + w, ~mask);
    const std::uint32_t freed = old & mask;
    if (freed != 0) {
      const std::uint32_t before = static_cast<std::uint32_t>(mp::popcount32(old));
      const std::uint32_t after = static_cast<std::uint32_t>(mp::popcount32(old & ~freed));
      if (before >= ci.page_thr && after < ci.page_thr) mp::fetch_sub(full_pages_word(sb), 1u);
    }
    return freed;
  }

  // ---- choosing superblocks ----

  // Finds a superblock for size ci, with one block reserved; usually called
  // with the swap lock of ci's size held (the last resort of a contended
  // allocation calls it without: every claim is a compare-and-swap of the
  // state word, so the lock only decides who installs the active
  // superblock). States are peeked with relaxed loads: they only pick
  // candidates, and the read-modify-write that follows decides. Order: partially full superblocks of this
  // size (below the full threshold), then empty ones never or no longer
  // assigned, then empty ones labeled with another size that is not their
  // size's active one; when `retiring` (a proactive swap) stop there; else
  // this size's fuller superblocks that still have room, and last the empty
  // active superblocks of other sizes.
  TESSERA_INLINE_FUNCTION std::uint32_t find_and_claim(const ClassInfo& ci, std::uint32_t exclude, std::uint64_t hash,
                                                      bool retiring) const {
    namespace mp = detail::mempool;
    const std::uint32_t start = static_cast<std::uint32_t>(((hash >> 32) * m_sb_count) >> 32);
    // Empty superblocks are taken from a random start on a GPU, where many
    // warps claim at once and the memory is resident anyway. On the host
    // they are taken lowest first: memory there is paged in on first touch,
    // and a random start spread a 10^6-task fan-out over the whole pool
    // (a 512 MiB pool was paged in whole after four runs, each run paying
    // page faults, 2-5x its steady time); lowest first keeps the pool's
    // footprint at what was ever live at once. Host threads are few, so
    // their claims rarely meet.
#if TESSERA_IMPL_ON_DEVICE
    const std::uint32_t empty_start = start;
#else
    const std::uint32_t empty_start = 0;
#endif
    auto code_of = [](std::uint32_t st) { return st >> mp::kCountBits; };
    auto count_of = [](std::uint32_t st) { return st & mp::kCountMask; };
    std::uint32_t sb = scan_superblocks(start, exclude, [&](std::uint32_t s, std::uint32_t st) {
      return code_of(st) == ci.code && count_of(st) < ci.nblocks && mp::load_relaxed(full_pages_word(s)) < ci.sb_thr &&
             reserve_one(s, ci);
    });
    if (sb != kNone) return sb;
    sb = scan_superblocks(empty_start, exclude, [&](std::uint32_t s, std::uint32_t st) { return st == 0 && claim(s, 0, ci); });
    if (sb != kNone) return sb;
    sb = scan_superblocks(empty_start, exclude, [&](std::uint32_t s, std::uint32_t st) {
      const std::uint32_t code = code_of(st);
      return code != 0 && code != ci.code && count_of(st) == 0 && mp::load(active_word(code + 5 - m_min_lg)) != s + 1 &&
             claim(s, st, ci);
    });
    if (sb != kNone || retiring) return sb;
    sb = scan_superblocks(start, exclude, [&](std::uint32_t s, std::uint32_t st) {
      return code_of(st) == ci.code && count_of(st) < ci.nblocks && reserve_one(s, ci);
    });
    if (sb != kNone) return sb;
    return scan_superblocks(empty_start, exclude, [&](std::uint32_t s, std::uint32_t st) {
      const std::uint32_t code = code_of(st);
      return code != 0 && code != ci.code && count_of(st) == 0 && claim(s, st, ci);
    });
  }

  // Offers every superblock but `exclude`, from `start` round the ring, to
  // take(s, state) until one accepts; returns it, or kNone. The state words
  // are loaded kScanBatch at a time: independent loads that are in flight
  // together (on a GPU, one round trip to L2 per batch instead of per
  // superblock).
  template <class Take>
  TESSERA_INLINE_FUNCTION std::uint32_t scan_superblocks(std::uint32_t start, std::uint32_t exclude, const Take& take) const {
    namespace mp = detail::mempool;
    const std::uint32_t n = m_sb_count;
    for (std::uint32_t i = 0; i < n; i += kScanBatch) {
      std::uint32_t st[kScanBatch];
#if TESSERA_IMPL_ON_DEVICE
#pragma unroll
#endif
      for (std::uint32_t b = 0; b < kScanBatch; ++b) {
        const std::uint32_t k = i + b < n ? start + i + b : 0;
        st[b] = i + b < n ? mp::load_relaxed(state_word(k < n ? k : k - n)) : 0u;
      }
      for (std::uint32_t b = 0; b < kScanBatch && i + b < n; ++b) {
        const std::uint32_t k = start + i + b;
        const std::uint32_t s = k < n ? k : k - n;
        if (s != exclude && take(s, st[b])) return s;
      }
    }
    return kNone;
  }


  // The active superblock `sb` of size ci just passed its full threshold:
  // if nobody else is swapping, install a fresher one for the next allocations.
  TESSERA_INLINE_FUNCTION void retire_active(const ClassInfo& ci, std::uint32_t sb, std::uint64_t hash) const {
    namespace mp = detail::mempool;
    std::uint32_t* active = active_word(ci.cls);
    std::uint32_t* lock = lock_word(ci.cls);
    if (mp::load(active) != sb + 1 || !mp::cas(lock, 0u, 1u)) return;
    std::uint32_t fresh = kNone;
    if (mp::load(active) == sb + 1) {
      fresh = find_and_claim(ci, sb, hash, true);
      if (fresh != kNone) mp::exchange(active, fresh + 1);
    }
    mp::exchange(lock, 0u);
    if (fresh != kNone) {
      release(fresh, 1);  // the claim's reservation; fresh is active, so it stays assigned
      release_if_empty(sb);
    }
  }

#if defined(__CUDACC__)
  __device__ static unsigned lane_id() {
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
  }

  // GPU allocation: the lanes of a warp that ask for the same block size at
  // the same time are served together. The lowest of them reserves and
  // takes blocks for all (one atomic on a superblock's state word, and one
  // per bitset word, for up to 32 blocks), then hands them out by shuffles.
  // A round may get fewer blocks than asked (its superblock ran out): the
  // next round asks for the rest; a round that gets none means a full scan
  // found nothing, and the lanes not yet served get nullptr.
  __device__ void* allocate_warp_aggregated(std::uint32_t lg, int attempt_limit) const {
    const unsigned peers = __match_any_sync(__activemask(), lg);
    const unsigned lane = lane_id();
    const unsigned leader = unsigned(__ffs(int(peers))) - 1u;
    const unsigned rank = unsigned(__popc(peers & ((1u << lane) - 1u)));
    const unsigned want = unsigned(__popc(peers));
    void* mine = nullptr;
    void* taken[32];
    for (unsigned served = 0; served < want;) {
      unsigned got = 0;
      if (lane == leader)
        got = allocate_blocks(lg, want - served, taken, attempt_limit, detail::mempool::scatter_value());
      got = __shfl_sync(peers, got, int(leader));
      if (got == 0) break;
      for (unsigned k = 0; k < got; ++k) {
        const unsigned long long a =
            __shfl_sync(peers, lane == leader ? reinterpret_cast<unsigned long long>(taken[k]) : 0ull, int(leader));
        if (rank == served + k) mine = reinterpret_cast<void*>(a);
      }
      served += got;
    }
    return mine;
  }

  // GPU deallocation, after each lane cleared its block's bit: the lanes of
  // a warp that freed blocks of the same superblock give their reservations
  // back with one atomic (sb == kNone: this lane freed nothing).
  __device__ void release_warp_aggregated(std::uint32_t sb) const {
    const unsigned group = __match_any_sync(__activemask(), sb);
    __syncwarp(group);  // every lane's bit is cleared before the count drops
    if (sb != kNone && lane_id() == unsigned(__ffs(int(group))) - 1u) release(sb, unsigned(__popc(group)));
  }
#endif

  // The bitset path: `want` blocks of size 2^lg (all from one superblock),
  // addresses to out; returns how many, 0 only when a full scan of the
  // superblocks found nothing to take or claim (the pool is full for this
  // size), `attempt_limit` times over. Each attempt: a few rounds of
  // reserving on the active superblock or swapping it under the size's lock
  // (waiting a bounded time for another thread's swap), then, if those
  // rounds were lost to contention, a lock-free scan that claims any
  // superblock it can.
  TESSERA_INLINE_FUNCTION std::uint32_t allocate_blocks(std::uint32_t lg, std::uint32_t want, void** out,
                                                       int attempt_limit, std::uint64_t hash) const {
    namespace mp = detail::mempool;
    const ClassInfo ci = class_info(lg);
    std::uint32_t* active = active_word(ci.cls);
    std::uint32_t* lock = lock_word(ci.cls);
    const int attempts = attempt_limit < 1 ? 1 : attempt_limit;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      bool exhausted = false;
      for (int round = 0; round < kSwapRounds && !exhausted; ++round) {
        const std::uint32_t a = mp::load(active);
        if (a != 0) {
          const std::uint32_t k = want == 1 ? (reserve_one(a - 1, ci) ? 1u : 0u) : reserve_up_to(a - 1, ci, want);
          if (k != 0) {
            if (const std::uint32_t got = take_bits(a - 1, ci, k, out, hash); got != 0) return got;
            continue;  // the bitset search gave up (a safety bound): try again
          }
        }
        // The active superblock is missing, full, or was given to another size.
        if (mp::cas(lock, 0u, 1u)) {
          if (mp::load(active) != a) {  // another thread swapped meanwhile: use its choice
            mp::exchange(lock, 0u);
            continue;
          }
          const std::uint32_t sb = find_and_claim(ci, a ? a - 1 : kNone, hash, false);
          if (sb != kNone) mp::exchange(active, sb + 1);
          mp::exchange(lock, 0u);
          if (sb == kNone) {
            exhausted = true;  // a full scan, under the lock, found nothing
            break;
          }
          if (a != 0 && a - 1 != sb) release_if_empty(a - 1);
          std::uint32_t k = 1;
          if (want > 1) k += reserve_up_to(sb, ci, want - 1);
          if (const std::uint32_t got = take_bits(sb, ci, k, out, hash); got != 0) return got;
          continue;
        }
        // Another thread is swapping: wait (bounded) until it publishes.
        for (int spin = 0; spin < kSwapSpin && mp::load(lock) != 0 && mp::load(active) == a; ++spin) mp::spin_pause();
      }
      if (!exhausted) {
        // Every round was lost to other threads: scan all superblocks without
        // the lock, claiming whatever can serve this size.
        const std::uint32_t sb = find_and_claim(ci, kNone, hash, false);
        if (sb != kNone) {
          std::uint32_t k = 1;
          if (want > 1) k += reserve_up_to(sb, ci, want - 1);
          if (const std::uint32_t got = take_bits(sb, ci, k, out, hash); got != 0) return got;
        }
      }
      hash = mp::mix64(hash);
    }
    return 0;
  }

  // Where p lies: superblock, size class and block index, or why it is not a
  // block of this pool.
  TESSERA_INLINE_FUNCTION int locate(const void* p, std::size_t bytes, std::uint32_t& sb, std::uint32_t& lg_out,
                                     std::uint32_t& idx) const {
    namespace mp = detail::mempool;
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(m_data);
    if (addr < base || addr - base >= capacity()) return mp::kOutsidePool;
    const std::size_t off = addr - base;
    sb = static_cast<std::uint32_t>(off >> m_sb_lg);
    const std::uint32_t code = mp::load(state_word(sb)) >> mp::kCountBits;
    if (code == 0) return mp::kUnassignedSuperblock;
    const std::uint32_t lg = code + 5;
    if (bytes > max_block_size() || block_lg(bytes) != lg) return mp::kWrongSize;
    const std::size_t in_sb = off & ((std::size_t(1) << m_sb_lg) - 1);
    if (in_sb & ((std::size_t(1) << lg) - 1)) return mp::kNotBlockStart;
    lg_out = lg;
    idx = static_cast<std::uint32_t>(in_sb >> lg);
    return mp::kDeallocOk;
  }

  // ---- host thread caches (never reached from device code) ----

  void* hand_out(void* p) const {
    static_cast<std::uint64_t*>(p)[1] = 0;  // not a cached block any more (see m_cache_key)
    return p;
  }

  // Fast path: pop from this thread's cache. No atomic read-modify-write.
  void* allocate_cached(std::uint32_t lg, int attempt_limit) const {
    namespace mp = detail::mempool;
    const std::uint32_t cls = lg - m_min_lg;
    if (m_cache->capacity(cls) != 0) {
      if (mp::CacheSlot* s = m_cache->my_slot(); s && m_cache->enter(s)) {
        std::atomic<std::uint32_t>& count = s->counts()[cls];
        const std::uint32_t n = count.load(std::memory_order_relaxed);
        if (TESSERA_IMPL_LIKELY(n != 0)) {
          void* p = m_cache->entries(s, cls)[n - 1];
          count.store(n - 1, std::memory_order_relaxed);
          mp::ThreadCache::leave(s);
          return hand_out(p);
        }
        return refill_and_allocate(s, lg, attempt_limit);
      }
    }
    return allocate_without_cache(lg, attempt_limit);
  }

  // The cache of this size is empty: refill half of it with one batch from
  // the bitsets (called inside the owner's section; leaves it).
  [[gnu::noinline]] void* refill_and_allocate(detail::mempool::CacheSlot* s, std::uint32_t lg, int attempt_limit) const {
    namespace mp = detail::mempool;
    const std::uint32_t cls = lg - m_min_lg;
    void** entries = m_cache->entries(s, cls);
    // A batch another thread parked (already keyed), else the bitsets.
    if (const std::uint32_t t = m_cache->transfer_get(cls, entries); t != 0) {
      s->counts()[cls].store(t - 1, std::memory_order_relaxed);
      mp::ThreadCache::leave(s);
      return hand_out(entries[t - 1]);
    }
    void* batch[mp::kMaxCachedPerClass];
    const std::uint32_t k = allocate_blocks(lg, m_cache->capacity(cls) / 2, batch, attempt_limit, mp::scatter_value());
    for (std::uint32_t i = 1; i < k; ++i) {
      entries[i - 1] = batch[i];
      static_cast<std::uint64_t*>(batch[i])[1] = m_cache_key;  // every cached block carries the key
    }
    if (k > 1) s->counts()[cls].store(k - 1, std::memory_order_relaxed);
    mp::ThreadCache::leave(s);
    if (k != 0) return hand_out(batch[0]);
    return allocate_from_other_caches(lg, attempt_limit);
  }

  // Cache not usable (size not cached, no slot, a thief at work): bitsets.
  [[gnu::noinline]] void* allocate_without_cache(std::uint32_t lg, int attempt_limit) const {
    void* p = nullptr;
    if (allocate_blocks(lg, 1, &p, attempt_limit, detail::mempool::scatter_value()) != 0) return hand_out(p);
    return allocate_from_other_caches(lg, attempt_limit);
  }

  // The bitsets cannot serve: free blocks may be parked in threads' caches
  // (possibly of threads that are idle or gone). Return them all to the
  // bitsets, which can also empty superblocks for reassignment, and retry.
  void* allocate_from_other_caches(std::uint32_t lg, int attempt_limit) const {
    void* p = nullptr;
    if (m_cache->any_cached()) {
      flush_all_caches();
      if (allocate_blocks(lg, 1, &p, attempt_limit, detail::mempool::scatter_value()) != 0) return hand_out(p);
    }
    return nullptr;
  }

  // Fast path: push onto this thread's cache.
  void deallocate_cached(void* p, std::size_t bytes) const {
    namespace mp = detail::mempool;
    std::uint32_t sb = 0, lg = 0, idx = 0;
    const int why = locate(p, bytes, sb, lg, idx);
    if (TESSERA_IMPL_UNLIKELY(why != mp::kDeallocOk)) {
      count_bad_deallocation(p, bytes, why);
      return;
    }
    std::uint64_t* word = static_cast<std::uint64_t*>(p);
    const std::uint32_t cls = lg - m_min_lg;
    if (TESSERA_IMPL_UNLIKELY(word[1] == m_cache_key) && is_free_or_cached(sb, idx, p, cls)) {
      count_bad_deallocation(p, bytes, mp::kAlreadyFree);
      return;
    }
    const std::uint32_t cap = m_cache->capacity(cls);
    if (cap != 0) {
      if (mp::CacheSlot* s = m_cache->my_slot(); s && m_cache->enter(s)) {
        std::atomic<std::uint32_t>& count = s->counts()[cls];
        const std::uint32_t n = count.load(std::memory_order_relaxed);
        word[1] = m_cache_key;
        if (TESSERA_IMPL_LIKELY(n < cap)) {
          m_cache->entries(s, cls)[n] = p;
          count.store(n + 1, std::memory_order_relaxed);
          mp::ThreadCache::leave(s);
          return;
        }
        flush_half_and_push(s, lg, p);
        return;
      }
    }
    if (free_bits(sb, class_info(lg), idx >> 5, 1u << (idx & 31u))) release(sb, 1);
    else count_bad_deallocation(p, bytes, mp::kAlreadyFree);
  }

  // The cache of this size is full: send the older half back to the
  // bitsets, keep the recent (cache-hot) half, push p (called inside the
  // owner's section; leaves it).
  [[gnu::noinline]] void flush_half_and_push(detail::mempool::CacheSlot* s, std::uint32_t lg, void* p) const {
    namespace mp = detail::mempool;
    const std::uint32_t cls = lg - m_min_lg;
    void** entries = m_cache->entries(s, cls);
    const std::uint32_t n = m_cache->capacity(cls), h = n / 2;
    void* batch[mp::kMaxCachedPerClass];
    std::copy(entries, entries + h, batch);
    std::copy(entries + h, entries + n, entries);
    entries[n - h] = p;
    s->counts()[cls].store(n - h + 1, std::memory_order_relaxed);
    // Park the batch for other threads (inside the owner's section, so that a
    // frozen thief always finds every cached block in a cache or a slot).
    const bool parked = m_cache->transfer_put(cls, batch, h);
    mp::ThreadCache::leave(s);
    if (!parked) free_batch(class_info(lg), batch, h);
  }

  // Exact double-free check for a block carrying the cache key: free in its
  // bitset, or parked in some thread's cache. Both are looked at with every
  // cache frozen, so a concurrent flush cannot move the block in between.
  bool is_free_or_cached(std::uint32_t sb, std::uint32_t idx, void* p, std::uint32_t cls) const {
    namespace mp = detail::mempool;
    bool found = false;
    m_cache->with_all_frozen([&](std::uint32_t n) {
      if ((mp::load(bitset(sb) + (idx >> 5)) & (1u << (idx & 31u))) == 0) {
        found = true;
        return;
      }
      m_cache->for_each_slot(n, [&](mp::CacheSlot* s) {
        void** e = m_cache->entries(s, cls);
        const std::uint32_t count = s->counts()[cls].load(std::memory_order_relaxed);
        for (std::uint32_t i = 0; i < count && !found; ++i) found = e[i] == p;
      });
      m_cache->for_each_parked(cls, [&](mp::TransferSlot& t) {
        const std::uint32_t count = t.count.load(std::memory_order_relaxed);
        for (std::uint32_t i = 0; i < count && !found; ++i) found = t.items[i] == p;
      });
    });
    return found;
  }

  // Returns blocks of one size to the bitsets, one atomic per page touched
  // and one per superblock run rather than two per block. With
  // checked_bytes != 0 the blocks come from a caller (deallocate_batch), not
  // from a cache: a block listed twice or already free is counted as a bad
  // deallocation of that many bytes and gives back no reservation.
  void free_batch(const ClassInfo& ci, void** blocks, std::uint32_t n, std::size_t checked_bytes = 0) const {
    namespace mp = detail::mempool;
    // Batches usually come in address order or its reverse (a LIFO list of
    // blocks freed in order): neither needs a sort.
    if (!std::is_sorted(blocks, blocks + n)) {
      if (std::is_sorted(blocks, blocks + n, std::greater<>())) std::reverse(blocks, blocks + n);
      else std::sort(blocks, blocks + n);
    }
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(m_data);
    std::uint32_t cur_sb = kNone, cur_w = 0, mask = 0, run = 0;
    const auto free_word = [&] {
      if (mask == 0) return;
      const std::uint32_t freed = free_bits(cur_sb, ci, cur_w, mask);
      for (std::uint32_t bad = mask & ~freed; bad != 0; bad &= bad - 1) {
        const std::size_t idx = std::size_t(cur_w) * 32 + static_cast<std::uint32_t>(mp::ctz32(bad));
        count_bad_deallocation(m_data + (std::size_t(cur_sb) << m_sb_lg) + (idx << ci.lg), checked_bytes,
                               mp::kAlreadyFree);
      }
      run += static_cast<std::uint32_t>(mp::popcount32(freed));
      mask = 0;
    };
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i != 0 && blocks[i] == blocks[i - 1]) {  // only a caller's batch can list a block twice
        count_bad_deallocation(blocks[i], checked_bytes, mp::kAlreadyFree);
        continue;
      }
      const std::size_t off = reinterpret_cast<std::uintptr_t>(blocks[i]) - base;
      const std::uint32_t sb = static_cast<std::uint32_t>(off >> m_sb_lg);
      const std::uint32_t idx = static_cast<std::uint32_t>((off & ((std::size_t(1) << m_sb_lg) - 1)) >> ci.lg);
      if (sb != cur_sb || (idx >> 5) != cur_w) {
        free_word();
        if (sb != cur_sb && run) {
          release(cur_sb, run);
          run = 0;
        }
        cur_sb = sb;
        cur_w = idx >> 5;
      }
      mask |= 1u << (idx & 31u);
    }
    free_word();
    if (run) release(cur_sb, run);
  }

  // Moves every cached or parked block back to the bitsets (inside the
  // freeze, so that no block is ever in neither place).
  void flush_all_caches() const {
    namespace mp = detail::mempool;
    const std::uint32_t nc = m_cache->num_classes();
    m_cache->with_all_frozen([&](std::uint32_t n) {
      std::vector<void*> taken;
      for (std::uint32_t c = 0; c < nc; ++c) {
        taken.clear();
        m_cache->for_each_slot(n, [&](mp::CacheSlot* s) {
          const std::uint32_t count = s->counts()[c].load(std::memory_order_relaxed);
          TESSERA_MEMPOOL_TEST_POINT(flush_slot, c, count);
          void** e = m_cache->entries(s, c);
          taken.insert(taken.end(), e, e + count);
          s->counts()[c].store(0, std::memory_order_relaxed);
        });
        m_cache->for_each_parked(c, [&](mp::TransferSlot& t) {
          // Frozen: no owner is inside its section, so no slot is busy.
          const std::uint32_t count = t.count.load(std::memory_order_relaxed);
          taken.insert(taken.end(), t.items, t.items + count);
          t.count.store(0, std::memory_order_relaxed);
          t.state.store(0, std::memory_order_release);
          m_cache->unpark(c);
        });
        if (!taken.empty()) free_batch(class_info(m_min_lg + c), taken.data(), static_cast<std::uint32_t>(taken.size()));
      }
    });
  }

  // ---- host view of the metadata (copied from device memory if needed) ----

  struct Snapshot {
    const char* meta = nullptr;
    std::vector<std::uint64_t> copy;
    std::size_t sb_offset = 0, sb_record_bytes = 0;
    std::uint32_t read32(std::size_t off) const {
      return __atomic_load_n(reinterpret_cast<const std::uint32_t*>(meta + off), __ATOMIC_RELAXED);
    }
    std::uint64_t counter(std::size_t off) const {
      return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(meta + off), __ATOMIC_RELAXED);
    }
    std::uint32_t state(std::uint32_t sb) const { return read32(sb_offset + std::size_t(sb) * sb_record_bytes); }
    std::uint32_t full_pages(std::uint32_t sb) const {
      return read32(sb_offset + std::size_t(sb) * sb_record_bytes + 4);
    }
    std::uint32_t active(std::uint32_t cls) const { return read32(detail::mempool::kClassOffset + std::size_t(cls) * 64); }
  };

  Snapshot snapshot() const {
    Snapshot s;
    s.sb_offset = m_sb_offset;
    s.sb_record_bytes = m_sb_record_bytes;
    if constexpr (detail::host_accessible<memory_space>::value) {
      s.meta = m_meta;
    } else {
      const std::size_t words = m_tracker.record()->geometry.meta_bytes / 8;
      s.copy.resize(words);
      View<std::uint64_t*, HostSpace, MemoryTraits<Unmanaged>> dst(s.copy.data(), words);
      View<std::uint64_t*, memory_space, MemoryTraits<Unmanaged>> src(reinterpret_cast<std::uint64_t*>(m_meta), words);
      deep_copy(dst, src);
      s.meta = reinterpret_cast<const char*>(s.copy.data());
    }
    return s;
  }

  char* m_meta = nullptr;
  char* m_data = nullptr;
  std::uint32_t m_min_lg = 0, m_max_lg = 0, m_sb_lg = 0, m_sb_count = 0;
  std::uint32_t m_page_full_num = 0, m_sb_full_num = 0;
  std::size_t m_sb_offset = 0, m_sb_record_bytes = 0;
  detail::mempool::ThreadCache* m_cache = nullptr;
  std::uint64_t m_cache_key = 0;
  detail::mempool::PoolTracker m_tracker;
};

}  // namespace tessera
