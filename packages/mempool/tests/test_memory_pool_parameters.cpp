// MemoryPool construction: invalid parameter combinations throw
// std::invalid_argument naming the parameter and its allowed range; valid
// edge values are accepted. Also the thread-cache interplay on host pools.
#include "mempool_test_util.hpp"

#include <stdexcept>
#include <string>
#include <thread>

template <class Space>
class MemoryPoolParameters : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MemoryPoolParameters, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

// Expects construction to throw std::invalid_argument whose message contains every piece.
template <class Pool, class... Args>
void expect_rejected(std::initializer_list<const char*> pieces, Args... args) {
  using Mem = typename Pool::memory_space;
  try {
    Pool p(Mem(), args...);
    ADD_FAILURE() << "no exception for a bad parameter set (expected a message with '" << *pieces.begin() << "')";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const char* piece : pieces) EXPECT_NE(what.find(piece), std::string::npos) << "message: " << what;
  }
}

}  // namespace

TYPED_TEST(MemoryPoolParameters, BadParametersNameTheParameterAndTheRange) {
  using Pool = tessera::MemoryPool<TypeParam>;
  const std::size_t two31 = std::size_t(1) << 31;
  expect_rejected<Pool>({"min_total_alloc_size", ">= 1"}, std::size_t(0));
  expect_rejected<Pool>({"min_superblock_size", "[2^11, 2^31]"}, std::size_t(1) << 20, 0, 0, two31 + 1);
  expect_rejected<Pool>({"max_block_alloc_size", "[64, 2^31]"}, std::size_t(1) << 20, 0, two31 + 1);
  expect_rejected<Pool>({"min_block_alloc_size", "[64, 2^31]"}, std::size_t(1) << 20, two31 + 1);
  // min block larger than max block.
  expect_rejected<Pool>({"min_block_alloc_size", "exceeds max_block_alloc_size", "[64, max_block_alloc_size]"},
                        std::size_t(1) << 20, 8192, 4096);
  // Largest block larger than an explicitly given superblock.
  expect_rejected<Pool>({"max_block_alloc_size", "exceeds the superblock size", "[min_block_alloc_size, superblock size]"},
                        std::size_t(1) << 20, 0, std::size_t(1) << 16, std::size_t(1) << 12);
  expect_rejected<Pool>({"min_block_alloc_size", "exceeds the superblock size"}, std::size_t(1) << 20,
                        std::size_t(1) << 14, 0, std::size_t(1) << 12);
  // Too many superblocks.
  expect_rejected<Pool>({"min_total_alloc_size", "at most 2^30"}, std::size_t(1) << 42, 0, 0, 2048);
  // Options out of range.
  tessera::MemoryPoolOptions o;
  o.page_full_fraction = 0.0;
  expect_rejected<Pool>({"page_full_fraction", "(0, 1]"}, std::size_t(1) << 20, 0, 0, 0, o);
  o = tessera::MemoryPoolOptions();
  o.superblock_full_fraction = 1.5;
  expect_rejected<Pool>({"superblock_full_fraction", "(0, 1]"}, std::size_t(1) << 20, 0, 0, 0, o);
}

TYPED_TEST(MemoryPoolParameters, EdgeValuesAreAccepted) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  // One block: a pool of 1 byte is one smallest superblock.
  Pool one(Mem(), 1, 0, 64);
  EXPECT_EQ(one.superblock_size(), 2048u);
  EXPECT_EQ(one.capacity(), 2048u);
  // Blocks as large as the superblock.
  Pool whole(Mem(), std::size_t(1) << 16, 64, std::size_t(1) << 14, std::size_t(1) << 14);
  EXPECT_EQ(whole.max_block_size(), whole.superblock_size());
  // Requests below the minimum round up to it.
  Pool up(Mem(), std::size_t(1) << 16, 1, 1, 1);
  EXPECT_EQ(up.min_block_size(), 64u);
  EXPECT_EQ(up.max_block_size(), 64u);
  EXPECT_EQ(up.superblock_size(), 2048u);
  // The default largest block follows a large smallest block.
  Pool big_min(Mem(), std::size_t(1) << 20, 8192);
  EXPECT_EQ(big_min.min_block_size(), 8192u);
  EXPECT_EQ(big_min.max_block_size(), 8192u);
  // Thresholds at their upper bound.
  tessera::MemoryPoolOptions o;
  o.page_full_fraction = 1.0;
  o.superblock_full_fraction = 1.0;
  Pool full(Mem(), std::size_t(1) << 16, 0, 0, 0, o);
  EXPECT_EQ(full.capacity(), std::size_t(1) << 16);
}

// Host pools only: the per-thread cache must never hide blocks from other
// threads, keep exact statistics, and can be turned off.
TEST(MemoryPoolThreadCache, CachedBlocksReachEveryThreadAndStatisticsStayExact) {
  using Pool = tessera::MemoryPool<tessera::HostSpace>;
  Pool pool(tessera::HostSpace(), 4 * 16384, 64, 16384, 16384);
  ASSERT_TRUE(pool.uses_thread_cache());
  Pool plain(tessera::HostSpace(), 4 * 16384, 64, 16384, 16384, tessera::test::pool_options(false));
  EXPECT_FALSE(plain.uses_thread_cache());

  const int total = int(pool.capacity() / 256);
  // Thread A allocates everything and frees it: its cache now holds blocks,
  // and it exits (its slot's blocks stay in the pool).
  std::thread a([&] {
    std::vector<void*> v;
    while (void* p = pool.allocate(256)) v.push_back(p);
    EXPECT_EQ(int(v.size()), total);
    for (void* p : v) pool.deallocate(p, 256);
    Pool::usage_statistics st;
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_GT(st.cached_blocks, 0u) << "the cache should be in use";
    EXPECT_EQ(st.cached_bytes, st.cached_blocks * 256);
  });
  a.join();
  // Thread B gets every block, and then the whole pool as 16 KiB blocks.
  std::thread b([&] {
    std::vector<void*> v;
    while (void* p = pool.allocate(200)) v.push_back(p);
    EXPECT_EQ(int(v.size()), total) << "blocks cached by another thread must be reachable";
    for (void* p : v) pool.deallocate(p, 200);
    std::vector<void*> big;
    while (void* p = pool.allocate(16384)) big.push_back(p);
    EXPECT_EQ(big.size(), 4u) << "cached small blocks must not pin superblocks";
    for (void* p : big) pool.deallocate(p, 16384);
  });
  b.join();
  Pool::usage_statistics st;
  pool.get_usage_statistics(st);
  EXPECT_EQ(st.consumed_blocks, 0u);
  EXPECT_EQ(st.bad_deallocations, 0u);
  EXPECT_EQ(st.failed_allocations, 3u) << "one nullptr ends each of the three loops";
  EXPECT_TRUE(pool.is_empty());
}

TEST(MemoryPoolThreadCache, DoubleFreeOfACachedBlockIsDetectedFromAnyThread) {
  using Pool = tessera::MemoryPool<tessera::HostSpace>;
  Pool pool(tessera::HostSpace(), std::size_t(1) << 20);
  void* p = pool.allocate(64);
  void* q = pool.allocate(64);
  pool.deallocate(p, 64);  // parked in this thread's cache
  std::thread other([&] { pool.deallocate(p, 64); });
  other.join();
  pool.deallocate(p, 64);
  Pool::usage_statistics st;
  pool.get_usage_statistics(st);
  EXPECT_EQ(st.bad_deallocations, 2u);
  EXPECT_EQ(st.consumed_blocks, 1u);
  // p comes back exactly once.
  void* a = pool.allocate(64);
  void* b = pool.allocate(64);
  EXPECT_NE(a, b);
  EXPECT_TRUE(a == p || b == p);
  EXPECT_NE(a, q);
  EXPECT_NE(b, q);
  // A block whose user data happens to equal nothing special is freed normally.
  static_cast<std::uint64_t*>(a)[1] = 0x0123456789abcdefull;
  pool.deallocate(a, 64);
  pool.deallocate(b, 64);
  pool.deallocate(q, 64);
  pool.get_usage_statistics(st);
  EXPECT_EQ(st.bad_deallocations, 2u);
  EXPECT_TRUE(pool.is_empty());
}
