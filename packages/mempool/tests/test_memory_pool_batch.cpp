// MemoryPool::allocate_batch / deallocate_batch on the host back-ends (the
// batch calls are host code; a pool in device memory answers 0 blocks):
// distinct aligned blocks and exact statistics, a short batch when the pool
// runs short, every bad entry of a batch counted and nothing else changed,
// batches mixed with single calls and with the thread caches, and every
// order a batch may come in. Each test runs with the thread cache on and off.
#include "mempool_test_util.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

template <class Space>
class MemoryPoolBatch : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MemoryPoolBatch, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

using tessera::test::mempool_modes;

namespace {

template <class Pool>
typename Pool::usage_statistics stats_of(const Pool& pool) {
  typename Pool::usage_statistics st;
  pool.get_usage_statistics(st);
  return st;
}

// Every block in [0, n) distinct, inside the pool's range [lo, lo + bytes),
// aligned to `block`.
void expect_distinct_aligned(const std::vector<void*>& p, std::size_t n, std::size_t block) {
  std::set<void*> seen;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NE(p[i], nullptr) << "block " << i;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p[i]) % block, 0u) << "block " << i << " is not aligned to " << block;
    EXPECT_TRUE(seen.insert(p[i]).second) << "block " << i << " was handed out twice";
  }
}

}  // namespace

TYPED_TEST(MemoryPoolBatch, BlocksAreDistinctAlignedAndCountedExactly) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    // 16 superblocks of 16 KiB, blocks 64 B .. 4 KiB.
    Pool pool(Mem(), 16 * 16384, 64, 4096, 16384, tessera::test::pool_options(cache));
    std::vector<void*> p(1000, nullptr);
    // 48 bytes take 64-byte blocks: 1000 of them span four superblocks.
    ASSERT_EQ(pool.allocate_batch(48, p.data(), 1000), 1000u);
    expect_distinct_aligned(p, 1000, 64);
    auto st = stats_of(pool);
    EXPECT_EQ(st.consumed_blocks, 1000u);
    EXPECT_EQ(st.consumed_bytes, 64000u);
    EXPECT_EQ(st.failed_allocations, 0u);
    // Writing every byte of every block: no two overlap.
    for (std::size_t i = 0; i < p.size(); ++i) std::fill_n(static_cast<unsigned char*>(p[i]), 64, static_cast<unsigned char>(i));
    for (std::size_t i = 0; i < p.size(); ++i)
      ASSERT_EQ(static_cast<unsigned char*>(p[i])[63], static_cast<unsigned char>(i)) << "block " << i << " overlaps another";
    // Edge requests: nothing asked, and a size larger than any block.
    void* none[4] = {};
    EXPECT_EQ(pool.allocate_batch(64, none, 0), 0u);
    EXPECT_EQ(pool.allocate_batch(8192, none, 4), 0u);
    EXPECT_EQ(none[0], nullptr);
    pool.deallocate_batch(p.data(), p.size(), 48);
    st = stats_of(pool);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.bad_deallocations, 0u);
    EXPECT_TRUE(pool.is_empty());
    // The largest blocks: four to a superblock.
    ASSERT_EQ(pool.allocate_batch(4096, p.data(), 10), 10u);
    expect_distinct_aligned(p, 10, 4096);
    pool.deallocate_batch(p.data(), 10, 4096);
    EXPECT_TRUE(pool.is_empty());
  }
}

TYPED_TEST(MemoryPoolBatch, ShortBatchWhenThePoolRunsShort) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    // Two superblocks of 4 KiB: 128 blocks of 64 bytes in all.
    Pool pool(Mem(), 2 * 4096, 64, 4096, 4096, tessera::test::pool_options(cache));
    // A few blocks freed one by one first, so that with the cache on some
    // free blocks sit in this thread's cache when the batch asks.
    std::vector<void*> single(8, nullptr);
    for (auto& q : single) ASSERT_NE(q = pool.allocate(64), nullptr);
    for (void* q : single) pool.deallocate(q, 64);
    std::vector<void*> p(200, nullptr);
    const std::size_t got = pool.allocate_batch(64, p.data(), 200);
    EXPECT_EQ(got, 128u) << "a batch larger than the pool gets every block, once";
    expect_distinct_aligned(p, got, 64);
    EXPECT_EQ(p[got], nullptr) << "nothing is written past the blocks returned";
    EXPECT_EQ(stats_of(pool).failed_allocations, 0u) << "a short batch is not a failed allocation";
    EXPECT_EQ(pool.allocate(64), nullptr);
    EXPECT_EQ(pool.allocate_batch(64, p.data() + got, 5), 0u);
    pool.deallocate_batch(p.data(), got, 64);
    EXPECT_TRUE(pool.is_empty());
    EXPECT_EQ(stats_of(pool).bad_deallocations, 0u);
    // The freed superblocks serve another size afterwards.
    void* big = pool.allocate(4096);
    EXPECT_NE(big, nullptr);
    pool.deallocate(big, 4096);
  }
}

TYPED_TEST(MemoryPoolBatch, EveryBadEntryIsCountedAndNothingElseChanges) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), 4 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    std::vector<void*> p(6, nullptr);
    ASSERT_EQ(pool.allocate_batch(256, p.data(), 6), 6u);
    void* other = pool.allocate(1024);  // another block size
    ASSERT_NE(other, nullptr);
    double foreign[64];
    // p[0], p[1] and p[2] are freed; p[1] is listed twice; the rest is bad.
    void* const batch[] = {p[0],
                           nullptr,                               // skipped, not counted
                           static_cast<char*>(p[3]) + 64,         // inside a block
                           p[1],
                           foreign + 8,                           // outside the pool
                           p[1],                                  // listed twice
                           other,                                 // a block of another size
                           static_cast<char*>(p[0]) + 16384 * 3,  // an unused superblock (or past the pool)
                           p[2]};
    pool.deallocate_batch(batch, sizeof batch / sizeof batch[0], 256);
    auto st = stats_of(pool);
    EXPECT_EQ(st.bad_deallocations, 5u);
    EXPECT_EQ(st.consumed_blocks, 4u) << "p[3], p[4], p[5] and the 1 KiB block stay handed out";
    // A block already free, alone and next to good ones.
    void* const again[] = {p[3], p[0]};
    pool.deallocate_batch(again, 2, 256);
    st = stats_of(pool);
    EXPECT_EQ(st.bad_deallocations, 6u);
    EXPECT_EQ(st.consumed_blocks, 3u);
    // The pool is intact: allocating everything again hands each block once.
    std::vector<void*> all(4 * 64, nullptr);
    const std::size_t got = pool.allocate_batch(256, all.data(), all.size());
    std::set<void*> seen(all.begin(), all.begin() + std::ptrdiff_t(got));
    EXPECT_EQ(seen.size(), got);
    EXPECT_FALSE(seen.count(p[4]) || seen.count(p[5])) << "a live block was handed out again";
    pool.deallocate_batch(all.data(), got, 256);
    void* const rest[] = {p[4], p[5]};
    pool.deallocate_batch(rest, 2, 256);
    pool.deallocate(other, 1024);
    st = stats_of(pool);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.bad_deallocations, 6u);
  }
}

TYPED_TEST(MemoryPoolBatch, BatchesMixWithSingleCallsAndTheThreadCache) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), 8 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    // Single allocations freed as a batch, batch allocations freed one by one.
    std::vector<void*> a(300, nullptr), b(300, nullptr);
    for (auto& q : a) ASSERT_NE(q = pool.allocate(128), nullptr);
    ASSERT_EQ(pool.allocate_batch(128, b.data(), b.size()), b.size());
    std::vector<void*> both(a);
    both.insert(both.end(), b.begin(), b.end());
    expect_distinct_aligned(both, both.size(), 128);
    pool.deallocate_batch(a.data(), a.size(), 128);
    for (void* q : b) pool.deallocate(q, 128);
    auto st = stats_of(pool);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.bad_deallocations, 0u);
    // A block freed into the thread cache, then listed in a batch: a double
    // free the exact check finds (the block is not free in the bitsets).
    void* q = pool.allocate(128);
    ASSERT_NE(q, nullptr);
    pool.deallocate(q, 128);
    pool.deallocate_batch(&q, 1, 128);
    st = stats_of(pool);
    EXPECT_EQ(st.bad_deallocations, 1u);
    EXPECT_EQ(st.consumed_blocks, 0u);
    std::vector<void*> all(8 * 128, nullptr);
    const std::size_t got = pool.allocate_batch(128, all.data(), all.size());
    EXPECT_EQ(got, all.size()) << "every block once, the cached ones included";
    expect_distinct_aligned(all, got, 128);
    pool.deallocate_batch(all.data(), got, 128);
    EXPECT_TRUE(pool.is_empty());
  }
}

TYPED_TEST(MemoryPoolBatch, AnyOrderOfABatchIsFreedExactly) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  std::mt19937 rng(20261128);
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), 8 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    for (const char* order : {"ascending", "descending", "shuffled", "interleaved superblocks"}) {
      SCOPED_TRACE(order);
      std::vector<void*> p(1500, nullptr);  // 64-byte blocks over six superblocks
      ASSERT_EQ(pool.allocate_batch(64, p.data(), p.size()), p.size());
      const std::string o = order;
      if (o == "ascending") std::sort(p.begin(), p.end());
      else if (o == "descending") std::sort(p.begin(), p.end(), std::greater<>());
      else if (o == "shuffled") std::shuffle(p.begin(), p.end(), rng);
      else {
        std::sort(p.begin(), p.end());
        std::vector<void*> zip;
        for (std::size_t i = 0; i < 750; ++i) {
          zip.push_back(p[i]);
          zip.push_back(p[1499 - i]);
        }
        p = zip;
      }
      // Freed in uneven pieces, so that batches start and end mid-page.
      std::size_t at = 0;
      for (std::size_t piece : {1u, 31u, 33u, 64u, 65u, 300u, 1006u}) {
        pool.deallocate_batch(p.data() + at, piece, 64);
        at += piece;
      }
      ASSERT_EQ(at, p.size());
      const auto st = stats_of(pool);
      EXPECT_EQ(st.consumed_blocks, 0u);
      EXPECT_EQ(st.bad_deallocations, 0u);
    }
  }
}
