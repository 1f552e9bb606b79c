// The Threads pool pins its workers but must leave the calling thread's CPU
// mask alone: threads created later (OpenMP's workers, a user's threads)
// inherit it, and pinning it once put every OpenMP thread on CPU 0.
#include <gtest/gtest.h>
#include <sched.h>
#include <tessera/core.hpp>
#include <unistd.h>

#include <thread>
#include <vector>

namespace {
int allowed_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return -1;
  return CPU_COUNT(&mask);
}
}  // namespace

TEST(ThreadsAffinity, CallingThreadAndLaterThreadsKeepTheirCpuSet) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 2) GTEST_SKIP() << "needs at least 2 online CPUs, this machine has " << online;
  int main_cpus = allowed_cpus();
  EXPECT_GE(main_cpus, 2) << "the calling thread was pinned to one CPU";
  int later = 0;
  std::thread t([&] { later = allowed_cpus(); });
  t.join();
  EXPECT_EQ(later, main_cpus);
#if TESSERA_ENABLE_OPENMP
  std::vector<int> per_thread(tessera::OpenMP().concurrency(), 0);
  tessera::parallel_for(tessera::RangePolicy<tessera::OpenMP>(0, per_thread.size()),
                        [&](int) { per_thread[omp_get_thread_num()] = allowed_cpus(); });
  for (std::size_t i = 0; i < per_thread.size(); ++i) {
    if (per_thread[i] != 0) {
      EXPECT_GE(per_thread[i], 2) << "OpenMP thread " << i << " is confined to one CPU";
    }
  }
#endif
}
