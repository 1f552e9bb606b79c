// Thread placement of the Threads back-end: the default thread count is the
// size of the process's allowed CPU set, and workers are pinned one per
// allowed CPU only when the set has a CPU for every thread.
//
// Own main() without initialize: every case sets the process's CPU mask
// (sched_setaffinity, as taskset or a launcher would) and then runs a full
// initialize/finalize cycle in a child process (gtest death tests in
// "threadsafe" style re-execute this binary), because Tessera cannot be
// initialized twice. The ctest core_cpu_placement_taskset runs the
// default-count case under `taskset -c 0` as well.
#include <gtest/gtest.h>
#include <sched.h>
#include <tessera/core.hpp>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#if TESSERA_ENABLE_THREADS

namespace {

#define CHILD_CHECK(cond)                                                            \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "child check failed: %s (line %d)\n", #cond, __LINE__);  \
      std::fflush(stderr);                                                           \
      std::_Exit(1);                                                                 \
    }                                                                                \
  } while (0)

std::vector<int> mask_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void restrict_to(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  CHILD_CHECK(sched_setaffinity(0, sizeof(set), &set) == 0);
}

// The CPU mask of every pool thread, by pool rank.
std::vector<std::vector<int>> pool_masks() {
  std::vector<std::vector<int>> masks(std::size_t(tessera::Threads().concurrency()));
  tessera::Threads().impl_parallel_region([&](int tid, int) { masks[std::size_t(tid)] = mask_of_this_thread(); });
  return masks;
}

// Restricted to `cpus`, the default is one thread per allowed CPU; workers
// are pinned to distinct allowed CPUs, none to the one left to the calling
// thread, which is in the set; the calling thread keeps the whole set.
void child_default_count_and_pinning(std::vector<int> cpus) {
  restrict_to(cpus);
  tessera::initialize();
  const int n = int(cpus.size());
  CHILD_CHECK(tessera::Threads().concurrency() == n);
  CHILD_CHECK(tessera::detail::threads_pinned_workers() == n - 1);
  const int callers = tessera::detail::threads_callers_cpu();
  CHILD_CHECK(std::find(cpus.begin(), cpus.end(), callers) != cpus.end());
  const auto masks = pool_masks();
  CHILD_CHECK(masks[0] == cpus);
  std::set<int> used;
  for (int t = 1; t < n; ++t) {
    CHILD_CHECK(masks[std::size_t(t)].size() == 1);
    const int c = masks[std::size_t(t)][0];
    CHILD_CHECK(std::find(cpus.begin(), cpus.end(), c) != cpus.end());
    CHILD_CHECK(c != callers);
    used.insert(c);
  }
  CHILD_CHECK(int(used.size()) == n - 1);
  tessera::finalize();
  std::exit(0);
}

// More threads than allowed CPUs: nobody is pinned; every thread keeps the
// allowed set (the OS balances them over it).
void child_oversubscribed(std::vector<int> cpus, int threads) {
  restrict_to(cpus);
  tessera::initialize(tessera::InitializationSettings().set_num_threads(threads));
  CHILD_CHECK(tessera::Threads().concurrency() == threads);
  CHILD_CHECK(tessera::detail::threads_pinned_workers() == 0);
  for (const auto& m : pool_masks()) CHILD_CHECK(m == cpus);
  long sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<tessera::Threads>(0, 1000), [](int i, long& s) { s += i; }, sum);
  CHILD_CHECK(sum == 999 * 1000 / 2);
  tessera::finalize();
  std::exit(0);
}

// Fewer threads than allowed CPUs: pinned; --tessera-disable-binding: not.
void child_fewer_threads_and_disable_binding(std::vector<int> cpus, bool bind) {
  restrict_to(cpus);
  tessera::initialize(tessera::InitializationSettings().set_num_threads(2).set_bind_threads(bind));
  CHILD_CHECK(tessera::detail::threads_pinned_workers() == (bind ? 1 : 0));
  const auto masks = pool_masks();
  if (bind) {
    CHILD_CHECK(masks[1].size() == 1);
    CHILD_CHECK(masks[1][0] != tessera::detail::threads_callers_cpu());
  } else {
    CHILD_CHECK(masks[1] == cpus);
  }
  tessera::finalize();
  std::exit(0);
}

class ThreadsPlacement : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

}  // namespace

TEST_F(ThreadsPlacement, DefaultIsOneThreadPerAllowedCpu) {
  const auto all = mask_of_this_thread();
  ASSERT_FALSE(all.empty());
  EXPECT_EXIT(child_default_count_and_pinning({all[0]}), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_default_count_and_pinning(all), ::testing::ExitedWithCode(0), "");
  if (all.size() >= 3) {
    // A set that does not start at the first CPU: workers take its CPUs.
    EXPECT_EXIT(child_default_count_and_pinning({all[1], all[2]}), ::testing::ExitedWithCode(0), "");
  }
}

TEST_F(ThreadsPlacement, NoPinningWhenOversubscribed) {
  const auto all = mask_of_this_thread();
  ASSERT_FALSE(all.empty());
  EXPECT_EXIT(child_oversubscribed({all[0]}, 2), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_oversubscribed(all, int(all.size()) + 1), ::testing::ExitedWithCode(0), "");
}

TEST_F(ThreadsPlacement, PinnedWhenTheyFitUnlessBindingIsDisabled) {
  const auto all = mask_of_this_thread();
  if (all.size() < 2) GTEST_SKIP() << "needs 2 allowed CPUs";
  EXPECT_EXIT(child_fewer_threads_and_disable_binding(all, true), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_fewer_threads_and_disable_binding(all, false), ::testing::ExitedWithCode(0), "");
}

// Run by ctest plainly and under `taskset -c 0` (with
// TESSERA_TEST_EXPECT_THREADS=1): the default count is the size of the mask
// the process started with.
TEST(ThreadsPlacementStartup, DefaultCountIsTheStartupCpuSet) {
  const int cpus = int(mask_of_this_thread().size());
  tessera::initialize();
  EXPECT_EQ(tessera::Threads().concurrency(), cpus);
  if (const char* e = std::getenv("TESSERA_TEST_EXPECT_THREADS")) {
    EXPECT_EQ(tessera::Threads().concurrency(), std::atoi(e));
  }
  tessera::finalize();
}

#else
TEST(ThreadsPlacement, NotEnabled) { GTEST_SKIP() << "the Threads back-end is not enabled"; }
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
