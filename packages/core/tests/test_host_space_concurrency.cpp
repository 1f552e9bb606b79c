// HostSpace's large blocks from several threads at once: on Linux they are
// mappings kept for reuse in a cache under a lock (host_space.cpp), so two
// threads must never be handed the same block, and a block freed by one
// thread serves another. Each thread marks the first, a middle and the last
// byte of every block it holds with its own number and checks them after
// giving the others time to run; a block handed out twice shows as another
// thread's mark. The ThreadSanitizer row runs this (label concurrency).
#include <tessera/core.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

TEST(HostSpaceConcurrency, LargeBlocksAreNeverHandedOutTwice) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 150;
  // Sizes that share mapped sizes (2 MiB + 1 and 3 MiB both map 4 MiB), so
  // blocks one thread frees are what the others ask for next.
  const std::size_t sizes[] = {2 * kMiB + 1, 3 * kMiB, 4 * kMiB, 6 * kMiB + 64};
  std::atomic<long long> wrong{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const auto mark = static_cast<unsigned char>(t + 1);
      for (int r = 0; r < kRounds; ++r) {
        // Two blocks held at once, so that the cache also sees frees while
        // other requests of the same size are live.
        const std::size_t a_bytes = sizes[(t + r) % 4], b_bytes = sizes[(t + 2 * r + 1) % 4];
        auto* a = static_cast<unsigned char*>(tessera::HostSpace().allocate("stress a", a_bytes));
        auto* b = static_cast<unsigned char*>(tessera::HostSpace().allocate("stress b", b_bytes));
        if (a == b) wrong.fetch_add(1, std::memory_order_relaxed);
        for (auto [p, n] : {std::pair{a, a_bytes}, std::pair{b, b_bytes}}) {
          p[0] = mark;
          p[n / 2] = mark;
          p[n - 1] = mark;
        }
        std::this_thread::yield();
        for (auto [p, n] : {std::pair{a, a_bytes}, std::pair{b, b_bytes}})
          if (p[0] != mark || p[n / 2] != mark || p[n - 1] != mark)
            wrong.fetch_add(1, std::memory_order_relaxed);
        tessera::HostSpace().deallocate("stress a", a, a_bytes);
        tessera::HostSpace().deallocate("stress b", b, b_bytes);
      }
    });
  }
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0) << "a large block was held by two threads at once";
}

}  // namespace
