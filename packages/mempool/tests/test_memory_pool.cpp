// MemoryPool single-thread semantics on every back-end: sizes, alignment,
// exhaustion, reuse, reassignment of emptied superblocks, statistics and bad
// deallocations. Allocation happens inside one-iteration kernels, so the same
// tests run where the pool lives in device memory. Host back-ends run each
// test with the per-thread cache on (the default) and off (bitset path).
#include "mempool_test_util.hpp"

#include <algorithm>
#include <set>
#include <sstream>

template <class Space>
class MemoryPoolTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MemoryPoolTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

using tessera::test::mempool_modes;
using tessera::test::run_once;

TYPED_TEST(MemoryPoolTest, SizesRoundUpToPowersOfTwo) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  Pool p(Mem(), std::size_t(1) << 20);
  EXPECT_EQ(p.min_block_size(), 64u);
  EXPECT_EQ(p.max_block_size(), 4096u);
  EXPECT_EQ(p.superblock_size(), std::size_t(1) << 20);
  EXPECT_EQ(p.number_of_superblocks(), 1u);
  EXPECT_EQ(p.capacity(), std::size_t(1) << 20);
  EXPECT_EQ(p.allocate_block_size(0), 64u);
  EXPECT_EQ(p.allocate_block_size(1), 64u);
  EXPECT_EQ(p.allocate_block_size(64), 64u);
  EXPECT_EQ(p.allocate_block_size(65), 128u);
  EXPECT_EQ(p.allocate_block_size(3000), 4096u);
  EXPECT_EQ(p.allocate_block_size(4096), 4096u);
  EXPECT_EQ(p.allocate_block_size(4097), 0u) << "larger than the largest block";

  // Every parameter rounds up: 100 -> 128, 3000 -> 4096, 5000 -> 8192.
  Pool q(Mem(), 1000000, 100, 3000, 5000);
  EXPECT_EQ(q.min_block_size(), 128u);
  EXPECT_EQ(q.max_block_size(), 4096u);
  EXPECT_EQ(q.superblock_size(), 8192u);
  EXPECT_EQ(q.number_of_superblocks(), (1000000u + 8191u) / 8192u);
  EXPECT_EQ(q.capacity(), q.number_of_superblocks() * 8192u);

  // A small pool gets a superblock no larger than itself (but >= 2^11 and >= the largest block).
  Pool small(Mem(), 10000);
  EXPECT_EQ(small.superblock_size(), 16384u);
  EXPECT_EQ(small.number_of_superblocks(), 1u);
  Pool tiny(Mem(), 100, 0, 64);
  EXPECT_EQ(tiny.superblock_size(), 2048u);
  // The largest block raises the default superblock.
  Pool big(Mem(), 1, 0, std::size_t(1) << 22);
  EXPECT_EQ(big.superblock_size(), std::size_t(1) << 22);
  EXPECT_EQ(big.max_block_size(), std::size_t(1) << 22);

  // Metadata with the default 1 MiB superblocks: about 0.2% of the pool.
  Pool large(Mem(), std::size_t(64) << 20);
  typename Pool::usage_statistics st;
  large.get_usage_statistics(st);
  EXPECT_GT(double(st.metadata_bytes), 0.00195 * double(large.capacity()));
  EXPECT_LT(double(st.metadata_bytes), 0.0021 * double(large.capacity()));

  Pool empty;
  EXPECT_EQ(empty.capacity(), 0u);
  EXPECT_EQ(empty.max_block_size(), 0u);
}

TYPED_TEST(MemoryPoolTest, BlocksAreAlignedToTheirSizeAndDisjoint) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), std::size_t(1) << 20, 64, std::size_t(1) << 16, std::size_t(1) << 16,
              tessera::test::pool_options(cache));
    constexpr int kSizes = 11, kPer = 3;  // 64 B .. 64 KiB, three of each
    tessera::View<std::uintptr_t*, TypeParam> ptr("ptr", kSizes * kPer);
    tessera::View<std::size_t*, TypeParam> len("len", kSizes * kPer);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      for (int s = 0; s < kSizes; ++s)
        for (int k = 0; k < kPer; ++k) {
          // Odd request sizes: just above the previous power of two.
          const std::size_t bytes = (std::size_t(32) << s) + 1 + k;
          ptr(s * kPer + k) = reinterpret_cast<std::uintptr_t>(pool.allocate(bytes));
          len(s * kPer + k) = pool.allocate_block_size(bytes);
        }
    });
    auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ptr);
    auto hl = tessera::create_mirror_view_and_copy(tessera::HostSpace(), len);
    std::vector<std::pair<std::uintptr_t, std::size_t>> blocks;
    for (int i = 0; i < kSizes * kPer; ++i) {
      ASSERT_NE(hp(i), 0u) << "allocation " << i << " of " << hl(i) << " bytes failed";
      EXPECT_EQ(hl(i), std::size_t(64) << (i / kPer));
      EXPECT_EQ(hp(i) % hl(i), 0u) << "block of " << hl(i) << " bytes at " << std::hex << hp(i);
      blocks.emplace_back(hp(i), hl(i));
    }
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t i = 1; i < blocks.size(); ++i)
      EXPECT_LE(blocks[i - 1].first + blocks[i - 1].second, blocks[i].first) << "blocks overlap";

    typename Pool::usage_statistics st;
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, std::size_t(kSizes * kPer));
    std::size_t bytes = 0;
    for (auto& b : blocks) bytes += b.second;
    EXPECT_EQ(st.consumed_bytes, bytes);

    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      for (int i = 0; i < kSizes * kPer; ++i) pool.deallocate(reinterpret_cast<void*>(ptr(i)), len(i));
    });
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.consumed_bytes, 0u);
    EXPECT_EQ(st.bad_deallocations, 0u);
    EXPECT_TRUE(pool.is_empty());
  }
}

TYPED_TEST(MemoryPoolTest, ExhaustionReturnsNullptrAndReuseAfterFree) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    // 4 superblocks of 16 KiB: 64 blocks of 1 KiB, or 256 of 256 B.
    Pool pool(Mem(), 4 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    for (std::size_t bytes : {std::size_t(1024), std::size_t(200)}) {
      const std::size_t bs = pool.allocate_block_size(bytes);
      const int expected = int(pool.capacity() / bs);
      tessera::View<std::uintptr_t*, TypeParam> ptr("ptr", expected + 1);
      tessera::View<int*, TypeParam> count("count", 2);
      for (int round = 0; round < 2; ++round) {
        run_once<TypeParam>(TESSERA_LAMBDA(int) {
          int n = 0;
          while (n <= expected) {
            void* p = pool.allocate(bytes);
            if (!p) break;
            ptr(n++) = reinterpret_cast<std::uintptr_t>(p);
          }
          count(0) = n;
          count(1) = pool.allocate(bytes) == nullptr;  // still exhausted
        });
        auto hc = tessera::create_mirror_view_and_copy(tessera::HostSpace(), count);
        ASSERT_EQ(hc(0), expected) << "round " << round << ", " << bs << "-byte blocks: every block exactly once";
        EXPECT_EQ(hc(1), 1);
        typename Pool::usage_statistics st;
        pool.get_usage_statistics(st);
        EXPECT_EQ(st.consumed_bytes, pool.capacity());
        EXPECT_EQ(st.consumed_superblocks, 4u);
        EXPECT_EQ(st.high_water_superblocks, 4u);
        EXPECT_GE(st.failed_allocations, 2u);
        auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ptr);
        std::set<std::uintptr_t> distinct(hp.data(), hp.data() + expected);
        EXPECT_EQ(distinct.size(), std::size_t(expected));
        run_once<TypeParam>(TESSERA_LAMBDA(int) {
          for (int i = 0; i < expected; ++i) pool.deallocate(reinterpret_cast<void*>(ptr(i)), bytes);
        });
        pool.get_usage_statistics(st);
        EXPECT_EQ(st.consumed_blocks, 0u);
        EXPECT_EQ(st.high_water_superblocks, 4u) << "reuse must not grow the footprint";
        EXPECT_TRUE(pool.is_empty());
      }
    }
  }
}

TYPED_TEST(MemoryPoolTest, EmptiedSuperblocksAreReassignedToAnotherSize) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), 4 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    const int small = int(pool.capacity() / 64);
    tessera::View<std::uintptr_t*, TypeParam> ptr("ptr", small);
    tessera::View<std::uintptr_t*, TypeParam> big("big", 8);
    tessera::View<int*, TypeParam> res("res", 4);
    // Fill the whole pool with 64-byte blocks: no room for a 16 KiB block.
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      int n = 0;
      for (; n < small; ++n) {
        void* p = pool.allocate(64);
        if (!p) break;
        ptr(n) = reinterpret_cast<std::uintptr_t>(p);
      }
      res(0) = n;
      res(1) = pool.allocate(16384) == nullptr;
    });
    auto hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), res);
    ASSERT_EQ(hr(0), small);
    EXPECT_EQ(hr(1), 1);

    // Free the 256 blocks of the lowest superblock only: exactly one 16 KiB
    // block fits, and it is that superblock.
    auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ptr);
    std::vector<std::uintptr_t> sorted(hp.data(), hp.data() + small);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < small; ++i) hp(i) = sorted[i];
    tessera::deep_copy(ptr, hp);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      for (int i = 0; i < 256; ++i) pool.deallocate(reinterpret_cast<void*>(ptr(i)), 64);
      big(0) = reinterpret_cast<std::uintptr_t>(pool.allocate(16384));
      big(1) = reinterpret_cast<std::uintptr_t>(pool.allocate(16384));
    });
    auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), big);
    EXPECT_EQ(hb(0), sorted[0]) << "the emptied superblock serves the large block";
    EXPECT_EQ(hb(1), 0u);

    // Free everything; every superblock can now serve 16 KiB blocks.
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      pool.deallocate(reinterpret_cast<void*>(big(0)), 16384);
      for (int i = 256; i < small; ++i) pool.deallocate(reinterpret_cast<void*>(ptr(i)), 64);
      int n = 0;
      for (; n < 8; ++n) {
        void* p = pool.allocate(10000);
        if (!p) break;
        big(n) = reinterpret_cast<std::uintptr_t>(p);
      }
      res(2) = n;
    });
    hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), res);
    EXPECT_EQ(hr(2), 4) << "all four superblocks reassigned to 16 KiB blocks";
    typename Pool::usage_statistics st;
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_bytes, pool.capacity());
    EXPECT_EQ(st.consumed_blocks, 4u);

    // And back to a third size.
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      for (int i = 0; i < 4; ++i) pool.deallocate(reinterpret_cast<void*>(big(i)), 16384);
      int n = 0;
      while (n < 100 && pool.allocate(1024) != nullptr) ++n;
      res(3) = n;
    });
    hr = tessera::create_mirror_view_and_copy(tessera::HostSpace(), res);
    EXPECT_EQ(hr(3), 64);
    EXPECT_EQ(pool.number_of_superblocks(), 4u);
  }
}

TYPED_TEST(MemoryPoolTest, EdgeRequestsAndExactStatistics) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), std::size_t(1) << 20, 0, 0, std::size_t(1) << 16, tessera::test::pool_options(cache));
    tessera::View<std::uintptr_t*, TypeParam> ptr("ptr", 6);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      ptr(0) = reinterpret_cast<std::uintptr_t>(pool.allocate(0));     // 64
      ptr(1) = reinterpret_cast<std::uintptr_t>(pool.allocate(100));   // 128
      ptr(2) = reinterpret_cast<std::uintptr_t>(pool.allocate(200));   // 256
      ptr(3) = reinterpret_cast<std::uintptr_t>(pool.allocate(4000));  // 4096
      ptr(4) = reinterpret_cast<std::uintptr_t>(pool.allocate(4097));  // too large
      pool.deallocate(nullptr, 64);                                    // ignored, not counted
    });
    auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ptr);
    for (int i = 0; i < 4; ++i) EXPECT_NE(hp(i), 0u) << i;
    EXPECT_EQ(hp(4), 0u);
    typename Pool::usage_statistics st;
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, 4u);
    EXPECT_EQ(st.consumed_bytes, 64u + 128u + 256u + 4096u);
    EXPECT_EQ(st.failed_allocations, 1u);
    EXPECT_EQ(st.bad_deallocations, 0u);
    EXPECT_EQ(st.consumed_superblocks, 4u) << "one superblock per block size";
    EXPECT_EQ(st.capacity_bytes, pool.capacity());
    EXPECT_EQ(st.superblock_bytes, std::size_t(1) << 16);
    EXPECT_EQ(st.min_block_bytes, 64u);
    EXPECT_EQ(st.max_block_bytes, 4096u);
    EXPECT_EQ(st.reserved_bytes, 4 * st.superblock_bytes - st.consumed_bytes);
    // Metadata: bitsets (one bit per 64-byte block = 0.195%), one header line
    // per superblock and per block size, alignment padding of the data.
    EXPECT_EQ(st.metadata_bytes, 192 + 7 * 64 + 16 * (64 + 128) + (4096 - 64));
    EXPECT_FALSE(pool.is_empty());

    std::ostringstream os;
    pool.print_state(os);
    EXPECT_NE(os.str().find("in use: 4 blocks"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("block size 4096, reserved"), std::string::npos) << os.str();

    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      pool.deallocate(reinterpret_cast<void*>(ptr(0)), 1);
      pool.deallocate(reinterpret_cast<void*>(ptr(1)), 65);
      pool.deallocate(reinterpret_cast<void*>(ptr(2)), 256);
      pool.deallocate(reinterpret_cast<void*>(ptr(3)), 2049);
    });
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.bad_deallocations, 0u) << "any size with the same block size is accepted";
    EXPECT_TRUE(pool.is_empty());
  }
}

TYPED_TEST(MemoryPoolTest, BadDeallocationsChangeNothingAndAreCounted) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    // Two superblocks; block sizes 64 B .. 16 KiB.
    Pool pool(Mem(), 2 * 16384, 64, 16384, 16384, tessera::test::pool_options(cache));
    tessera::View<std::uintptr_t*, TypeParam> ptr("ptr", 4);
    tessera::View<double*, TypeParam> foreign("foreign", 64);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      ptr(0) = reinterpret_cast<std::uintptr_t>(pool.allocate(256));
      ptr(1) = reinterpret_cast<std::uintptr_t>(pool.allocate(256));
    });
    auto step = [&](const char* what, auto&& bad_call, std::size_t expected_bad) {
      run_once<TypeParam>(bad_call);
      typename Pool::usage_statistics st;
      pool.get_usage_statistics(st);
      EXPECT_EQ(st.bad_deallocations, expected_bad) << what;
      EXPECT_EQ(st.consumed_blocks, 2u) << what << " must change nothing";
      EXPECT_EQ(st.consumed_bytes, 512u) << what;
    };
    step("a pointer outside the pool", TESSERA_LAMBDA(int) { pool.deallocate(foreign.data() + 8, 256); }, 1);
    step("a pointer inside a block", TESSERA_LAMBDA(int) { pool.deallocate(reinterpret_cast<char*>(ptr(0)) + 64, 256); }, 2);
    step("a pointer 8 bytes into a block", TESSERA_LAMBDA(int) { pool.deallocate(reinterpret_cast<char*>(ptr(1)) + 8, 64); }, 3);
    step("a size of another block size", TESSERA_LAMBDA(int) { pool.deallocate(reinterpret_cast<void*>(ptr(0)), 64); }, 4);
    step("a size larger than any block", TESSERA_LAMBDA(int) { pool.deallocate(reinterpret_cast<void*>(ptr(0)), 1 << 20); }, 5);
    // p +- one superblock: the other (empty) superblock, or outside the pool.
    step("pointers into the empty superblock or past the pool", TESSERA_LAMBDA(int) {
      pool.deallocate(reinterpret_cast<char*>(ptr(0)) + 16384, 256);
      pool.deallocate(reinterpret_cast<char*>(ptr(0)) - 16384, 256);
    }, 7);
    // A double free, right away and after other traffic.
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      pool.deallocate(reinterpret_cast<void*>(ptr(1)), 256);
      pool.deallocate(reinterpret_cast<void*>(ptr(1)), 256);
      for (int i = 0; i < 10; ++i) pool.deallocate(pool.allocate(4096), 4096);
      pool.deallocate(reinterpret_cast<void*>(ptr(1)), 200);
    });
    typename Pool::usage_statistics st;
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.bad_deallocations, 9u) << "two double frees";
    EXPECT_EQ(st.consumed_blocks, 1u);
    // The pool is intact: the freed block comes back exactly once.
    tessera::View<int*, TypeParam> ok("ok", 1);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      void* a = pool.allocate(256);
      void* b = pool.allocate(256);
      ok(0) = a != nullptr && b != nullptr && a != b && a != reinterpret_cast<void*>(ptr(0)) &&
              b != reinterpret_cast<void*>(ptr(0));
      pool.deallocate(a, 256);
      pool.deallocate(b, 256);
      pool.deallocate(reinterpret_cast<void*>(ptr(0)), 256);
    });
    auto hok = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ok);
    EXPECT_EQ(hok(0), 1);
    pool.get_usage_statistics(st);
    EXPECT_EQ(st.consumed_blocks, 0u);
    EXPECT_EQ(st.bad_deallocations, 9u);
    EXPECT_TRUE(pool.is_empty());
  }
}

TYPED_TEST(MemoryPoolTest, HandlesAreCheapReferenceCountedCopies) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  Pool a(Mem(), 65536);
  EXPECT_EQ(a.use_count(), 1);
  {
    Pool b = a;
    EXPECT_EQ(a.use_count(), 2);
    Pool c;
    c = b;
    EXPECT_EQ(a.use_count(), 3);
    tessera::View<int*, TypeParam> ok("ok", 1);
    run_once<TypeParam>(TESSERA_LAMBDA(int) {
      void* p = c.allocate(64);
      ok(0) = p != nullptr;
      b.deallocate(p, 64);  // any copy frees what any copy allocated
    });
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ok);
    EXPECT_EQ(h(0), 1);
  }
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_TRUE(a.is_empty());
}

// On the host, memory is paged in on first touch: a pool that took empty
// superblocks from a random start spread repeated rounds of the same live
// set over the whole pool (a 512 MiB task pool was paged in whole after four
// 10^6-task fan-outs). Empty superblocks are taken lowest first there, so
// rounds of the same live set stay in the superblocks the first round used.
// (On a GPU the start is random on purpose: device memory is resident, and
// thousands of warps claiming at once must not all meet at superblock 0.)
template <class Space>
class MemoryPoolHostFootprint : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MemoryPoolHostFootprint, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(MemoryPoolHostFootprint, RepeatedRoundsStayInTheLowestSuperblocks) {
  using Pool = tessera::MemoryPool<TypeParam>;
  using Mem = typename Pool::memory_space;
  constexpr std::size_t sb = std::size_t(1) << 16;  // 64 superblocks of 64 KiB
  for (bool cache : mempool_modes<TypeParam>()) {
    SCOPED_TRACE(cache ? "thread cache on" : "thread cache off");
    Pool pool(Mem(), 64 * sb, 64, sb, sb, tessera::test::pool_options(cache));
    ASSERT_EQ(pool.number_of_superblocks(), 64u);
    // A whole-superblock block is a superblock's first byte: where the
    // superblocks begin, to number the others from.
    void* whole = pool.allocate(sb);
    ASSERT_NE(whole, nullptr);
    const auto base = reinterpret_cast<std::uintptr_t>(whole);
    pool.deallocate(whole, sb);
    const int live = int(4 * sb / 64);  // four superblocks' worth of 64-byte blocks
    std::vector<void*> p(std::size_t(live), nullptr);
    std::set<std::uintptr_t> first;
    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      std::set<std::uintptr_t> used;
      for (int i = 0; i < live; ++i) {
        p[std::size_t(i)] = pool.allocate(round % 2 ? 64 : 48);
        ASSERT_NE(p[std::size_t(i)], nullptr) << "allocation " << i;
        const auto a = reinterpret_cast<std::uintptr_t>(p[std::size_t(i)]);
        ASSERT_GE(a, base);
        used.insert((a - base) / sb);
      }
      // Four superblocks hold the live set; the active one is swapped
      // before it is full, so a few more may serve it, far from all 64.
      EXPECT_LE(used.size(), 6u);
      EXPECT_LT(*used.rbegin(), 8u) << "the live set went past the lowest superblocks";
      if (round == 0) first = used;
      for (std::uintptr_t s : used) EXPECT_TRUE(first.count(s)) << "superblock " << s << " was not used by round 0";
      for (void* q : p) pool.deallocate(q, 64);
    }
  }
}
