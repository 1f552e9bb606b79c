// Shared ownership of View allocations: reference counts stay exact and the
// memory is released exactly once when copies are made and dropped
// concurrently from many std::threads.
#include "tessera_test_spaces.hpp"

#include <atomic>
#include <barrier>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> g_deallocs{0};
std::atomic<int> g_destroyed{0};

void count_dealloc(const char*, const char* label, const void*, std::uint64_t) {
  if (std::string(label) == "shared") g_deallocs.fetch_add(1);
}

// Element type whose destructor counts: a View destroys each element once.
struct Counted {
  int value = 7;
  ~Counted() { g_destroyed.fetch_add(1); }
};

// Installs a deallocation callback for the life of the object.
struct DeallocCounter {
  tessera::profiling::Callbacks old;
  DeallocCounter() {
    g_deallocs = 0;
    tessera::profiling::Callbacks cb;
    cb.deallocate = &count_dealloc;
    old = tessera::profiling::set_callbacks(cb);
  }
  ~DeallocCounter() { tessera::profiling::set_callbacks(old); }
};

constexpr int kThreads = 8;

}  // namespace

TEST(ViewOwnership, ConcurrentCopiesKeepAnExactCount) {
  DeallocCounter counter;
  tessera::View<int*, tessera::HostSpace> v("shared", 16);
  std::barrier sync(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::vector<tessera::View<int*, tessera::HostSpace>> kept;
      for (int i = 0; i < 20000; ++i) {
        auto c = v;                     // copy: +1
        tessera::View<const int*, tessera::HostSpace> k = c;  // conversion: +1
        auto m = std::move(c);          // move: +0
        if (i % 200 == 0) kept.push_back(m);
        m = tessera::View<int*, tessera::HostSpace>();  // assignment: -1
        (void)k;
      }
      sync.arrive_and_wait();  // main thread checks the count with 100 copies per thread alive
      sync.arrive_and_wait();
    });
  }
  sync.arrive_and_wait();
  EXPECT_EQ(v.use_count(), 1 + kThreads * 100);
  sync.arrive_and_wait();
  for (auto& th : threads) th.join();
  EXPECT_EQ(v.use_count(), 1);
  EXPECT_EQ(g_deallocs.load(), 0);
  v = tessera::View<int*, tessera::HostSpace>();
  EXPECT_EQ(g_deallocs.load(), 1);
}

TEST(ViewOwnership, LastOwnerOnAnotherThreadFreesOnce) {
  DeallocCounter counter;
  g_destroyed = 0;
  {
    std::vector<tessera::View<Counted*, tessera::HostSpace>> copies;
    {
      tessera::View<Counted*, tessera::HostSpace> v("shared", 5);
      EXPECT_EQ(v(4).value, 7) << "elements are constructed";
      for (int t = 0; t < kThreads; ++t) copies.push_back(v);
    }  // the creator's reference is gone; the threads hold the rest
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&copies, t] {
        for (int i = 0; i < 1000; ++i) {
          auto c = copies[t];
          (void)c;
        }
        copies[t] = tessera::View<Counted*, tessera::HostSpace>();
      });
    for (auto& th : threads) th.join();
  }
  EXPECT_EQ(g_deallocs.load(), 1);
  EXPECT_EQ(g_destroyed.load(), 5) << "each element destroyed exactly once";
}

TEST(ViewOwnership, SubviewsAndMirrorsShareOwnership) {
  DeallocCounter counter;
  tessera::View<double**, tessera::HostSpace> v("shared", 4, 4);
  auto row = tessera::subview(v, 2, tessera::ALL);
  auto mirror = tessera::create_mirror_view(v);
  EXPECT_EQ(v.use_count(), 3);
  EXPECT_EQ(row.label(), "shared");
  v = decltype(v)();
  mirror = decltype(mirror)();
  EXPECT_EQ(g_deallocs.load(), 0) << "the subview keeps the allocation alive";
  row(3) = 1.5;
  EXPECT_EQ(row.use_count(), 1);
  row = decltype(row)();
  EXPECT_EQ(g_deallocs.load(), 1);
}
