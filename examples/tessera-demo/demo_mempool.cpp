// Rows of the mempool package: tessera::MemoryPool under random-size traffic
// from every thread (each block checked against a pattern), and the
// reassignment of emptied superblocks from small to large blocks.
#include "demo.hpp"

#include <tessera/mempool.hpp>

#include <chrono>
#include <cstdint>

using tessera_demo::Check;
using tessera_demo::format;

namespace {

// Every iteration keeps up to 8 blocks of 64 B - 4 KiB alive, writes its own
// pattern into each and checks it before freeing; the pool must end empty.
template <class Space>
Check random_traffic(int items, int ops) {
  using Pool = tessera::MemoryPool<Space>;
  Pool pool(typename Pool::memory_space(), std::size_t(32) << 20, 64, 4096, std::size_t(1) << 16);
  tessera::View<unsigned long long*, Space> counters("counters", 3);  // allocations, nullptr, corrupted
  const auto t0 = std::chrono::steady_clock::now();
  tessera::parallel_for(
      "mempool traffic", tessera::RangePolicy<Space>(0, items), TESSERA_LAMBDA(int item) {
        void* live[8] = {};
        std::size_t size[8] = {};
        std::uint64_t rng = 0x9e3779b97f4a7c15ull * std::uint64_t(item + 1);
        unsigned long long allocs = 0, nulls = 0, bad = 0;
        for (int op = 0; op < ops; ++op) {
          rng ^= rng << 13;
          rng ^= rng >> 7;
          rng ^= rng << 17;
          const int k = int(rng % 8);
          if (live[k] == nullptr) {
            size[k] = 64 + (rng >> 8) % 4033;
            live[k] = pool.allocate(size[k]);
            if (live[k] == nullptr) {
              ++nulls;
              continue;
            }
            ++allocs;
            auto* w = static_cast<std::uint64_t*>(live[k]);
            for (std::size_t j = 0; j < size[k] / 8; ++j) w[j] = std::uint64_t(live[k]) ^ j;
          } else {
            const auto* w = static_cast<const std::uint64_t*>(live[k]);
            for (std::size_t j = 0; j < size[k] / 8; ++j) bad += w[j] != (std::uint64_t(live[k]) ^ j);
            pool.deallocate(live[k], size[k]);
            live[k] = nullptr;
          }
        }
        for (int k = 0; k < 8; ++k)
          if (live[k]) pool.deallocate(live[k], size[k]);
        tessera::atomic_add(&counters(0), allocs);
        tessera::atomic_add(&counters(1), nulls);
        tessera::atomic_add(&counters(2), bad);
      });
  Space().fence();
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), counters);
  const bool empty = pool.is_empty();
  return Check{h(2) == 0 && empty && h(0) > 0,
               format("%llu allocations, %llu nullptr, %llu corrupted words, empty at end: %s", h(0), h(1), h(2),
                      empty ? "yes" : "no"),
               t, format("%.1f Mops/s", 2.0 * double(h(0)) / t / 1e6)};
}

// Fill the pool with 64 B blocks, free them all, then fill it with 4 KiB
// blocks: every superblock must be reassigned to the large size.
template <class Space>
Check reassignment() {
  using Pool = tessera::MemoryPool<Space>;
  Pool pool(typename Pool::memory_space(), std::size_t(1) << 20, 64, 4096, std::size_t(1) << 16);
  const int small = int(pool.capacity() / 64), large = int(pool.capacity() / 4096);
  tessera::View<std::uintptr_t*, Space> ptr("ptr", small);
  tessera::View<int*, Space> got("got", 2);
  tessera::parallel_for(
      "fill small", tessera::RangePolicy<Space>(0, small), TESSERA_LAMBDA(int i) {
        void* p = pool.allocate(64, 100);
        ptr(i) = reinterpret_cast<std::uintptr_t>(p);
        if (p) tessera::atomic_add(&got(0), 1);
      });
  tessera::parallel_for(
      "free small", tessera::RangePolicy<Space>(0, small),
      TESSERA_LAMBDA(int i) { pool.deallocate(reinterpret_cast<void*>(ptr(i)), 64); });
  tessera::parallel_for(
      "fill large", tessera::RangePolicy<Space>(0, large), TESSERA_LAMBDA(int i) {
        void* p = pool.allocate(4096, 100);
        ptr(i) = reinterpret_cast<std::uintptr_t>(p);
        if (p) tessera::atomic_add(&got(1), 1);
      });
  Space().fence();
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), got);
  tessera::parallel_for(
      "free large", tessera::RangePolicy<Space>(0, large),
      TESSERA_LAMBDA(int i) { pool.deallocate(reinterpret_cast<void*>(ptr(i)), 4096); });
  Space().fence();
  return Check{h(0) == small && h(1) == large && pool.is_empty(),
               format("%d of %d small, then %d of %d large blocks", h(0), small, h(1), large)};
}

template <class Space>
void mempool_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  const int items = ctx.quick ? 64 : 1024, ops = ctx.quick ? 1000 : 20000;
  report.run<Space>("mempool", format("random 64 B-4 KiB traffic, %d x %d ops, pattern-checked", items, ops),
                    [&] { return random_traffic<Space>(items, ops); });
  report.run<Space>("mempool", "emptied superblocks reassigned 64 B -> 4 KiB", [&] { return reassignment<Space>(); });
}

}  // namespace

void run_mempool(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() { mempool_rows<Space>(report, ctx); });
}
