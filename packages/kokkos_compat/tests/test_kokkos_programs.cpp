// Kokkos programs, written against Kokkos's documented API only (no tessera::
// name appears below), built with Tessera::kokkos_compat as their only
// change, and run on every enabled host back-end. Expected values are closed
// forms or brute-force loops on the host.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>
#include <Kokkos_Random.hpp>
#include <Kokkos_ScatterView.hpp>
#include <Kokkos_Sort.hpp>
#include <Kokkos_Timer.hpp>
#include <gtest/gtest.h>

// Test plumbing, not part of the programs: under nvcc, KOKKOS_LAMBDA in a
// test body needs the public TestBody() this header declares.
#include "tessera_test_nvcc_gtest.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

using Spaces = ::testing::Types<Kokkos::Serial
#ifdef KOKKOS_ENABLE_THREADS
                                ,
                                Kokkos::Threads
#endif
#ifdef KOKKOS_ENABLE_OPENMP
                                ,
                                Kokkos::OpenMP
#endif
                                >;

template <class Space>
class KokkosProgram : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosProgram, Spaces);

TYPED_TEST(KokkosProgram, ViewsLayoutsAndRangeReduce) {
  using Exec = TypeParam;
  const int n = 1000;
  Kokkos::View<double*, Kokkos::LayoutRight, typename Exec::memory_space> x("x", n);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) { x(i) = i + 1; });
  double sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i, double& s) { s += x(i); }, sum);
  Kokkos::fence();
  EXPECT_DOUBLE_EQ(sum, n * (n + 1) / 2.0);

  // LayoutLeft vs LayoutRight: the same logical matrix, different strides.
  Kokkos::View<int**, Kokkos::LayoutLeft, typename Exec::memory_space> a("a", 3, 4);
  Kokkos::View<int**, Kokkos::LayoutRight, typename Exec::memory_space> b("b", 3, 4);
  EXPECT_EQ(a.stride(0), 1u);
  EXPECT_EQ(b.stride(1), 1u);
  Kokkos::parallel_for(
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {3, 4}), KOKKOS_LAMBDA(const int i, const int j) {
        a(i, j) = 10 * i + j;
        b(i, j) = 10 * i + j;
      });
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(ha(i, j), 10 * i + j);
      EXPECT_EQ(hb(i, j), 10 * i + j);
    }
}

TYPED_TEST(KokkosProgram, SubviewsMirrorsAndDeepCopy) {
  using Exec = TypeParam;
  Kokkos::View<double**, typename Exec::memory_space> m("m", 5, 6);
  auto h = Kokkos::create_mirror_view(m);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) h(i, j) = i * 6 + j;
  Kokkos::deep_copy(m, h);
  auto row2 = Kokkos::subview(m, 2, Kokkos::ALL);
  auto block = Kokkos::subview(m, Kokkos::make_pair(1, 3), std::make_pair(2, 5));
  EXPECT_EQ(row2.extent(0), 6u);
  EXPECT_EQ(block.extent(0), 2u);
  EXPECT_EQ(block.extent(1), 3u);
  double rsum = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(0, 6), KOKKOS_LAMBDA(const int j, double& s) { s += row2(j); }, rsum);
  EXPECT_DOUBLE_EQ(rsum, 6 * 12 + 15);  // sum of 12..17
  Kokkos::deep_copy(block, -1.0);
  Kokkos::deep_copy(h, m);
  int negatives = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) negatives += h(i, j) < 0;
  EXPECT_EQ(negatives, 6);
  EXPECT_EQ(h(1, 2), -1.0);
  EXPECT_EQ(h(3, 2), 20.0);
}

TYPED_TEST(KokkosProgram, TeamPolicyWithScratchAndNestedReduce) {
  using Exec = TypeParam;
  using policy = Kokkos::TeamPolicy<Exec>;
  using member = typename policy::member_type;
  using scratch_view = Kokkos::View<double*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int leagues = 7, width = 33;
  Kokkos::View<double*, typename Exec::memory_space> out("out", leagues);
  const std::size_t bytes = scratch_view::shmem_size(width);
  Kokkos::parallel_for(
      policy(leagues, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)), KOKKOS_LAMBDA(const member& t) {
        scratch_view s(t.team_scratch(0), width);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, width),
                             [&](const int k) { s(k) = t.league_rank() * 100 + k; });
        t.team_barrier();
        double total = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(t, width), [&](const int k, double& acc) { acc += s(k); }, total);
        Kokkos::single(Kokkos::PerTeam(t), [&]() { out(t.league_rank()) = total; });
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int l = 0; l < leagues; ++l) EXPECT_DOUBLE_EQ(h(l), l * 100.0 * width + width * (width - 1) / 2.0) << l;
}

TYPED_TEST(KokkosProgram, ReducersAndAtomics) {
  using Exec = TypeParam;
  const int n = 4097;
  Kokkos::View<int*, typename Exec::memory_space> v("v", n);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) { v(i) = (i * 37) % 1001 - 500; });
  int mn = 0, mx = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i, int& m) { m = v(i) < m ? v(i) : m; },
      Kokkos::Min<int>(mn));
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i, int& m) { m = v(i) > m ? v(i) : m; },
      Kokkos::Max<int>(mx));
  Kokkos::MinLoc<int, int>::value_type loc;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const int i, Kokkos::MinLoc<int, int>::value_type& m) {
        if (v(i) < m.val) {
          m.val = v(i);
          m.loc = i;
        }
      },
      Kokkos::MinLoc<int, int>(loc));
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = (i * 37) % 1001 - 500;
  EXPECT_EQ(mn, *std::min_element(host.begin(), host.end()));
  EXPECT_EQ(mx, *std::max_element(host.begin(), host.end()));
  EXPECT_EQ(loc.val, mn);
  EXPECT_EQ(host[loc.loc], mn);

  Kokkos::View<long, typename Exec::memory_space> counter("counter");
  Kokkos::View<int[8], typename Exec::memory_space> bins("bins");
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) {
        Kokkos::atomic_add(&counter(), long(i));
        Kokkos::atomic_increment(&bins(i % 8));
      });
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counter);
  auto hbins = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bins);
  EXPECT_EQ(hc(), long(n) * (n - 1) / 2);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(hbins(b), (n - b + 7) / 8) << b;
}

TYPED_TEST(KokkosProgram, ScanAndDualView) {
  using Exec = TypeParam;
  const int n = 100;
  Kokkos::View<long*, typename Exec::memory_space> pre("pre", n);
  long total = 0;
  Kokkos::parallel_scan(
      Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const int i, long& update, const bool final) {
        if (final) pre(i) = update;
        update += i;
      },
      total);
  EXPECT_EQ(total, long(n) * (n - 1) / 2);
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pre);
  EXPECT_EQ(hp(10), 45);

  using dual = Kokkos::DualView<double*, typename Exec::memory_space>;
  dual d("d", n);
  static_assert(std::is_same_v<typename dual::t_host::value_type, double>);
  static_assert(std::is_same_v<typename dual::t_dev::value_type, double>);
  auto hv = d.h_view;
  for (int i = 0; i < n; ++i) hv(i) = i;
  d.modify_host();
  d.sync_device();
  auto dv = d.d_view;
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) { dv(i) *= 2; });
  d.modify_device();
  d.sync_host();
  EXPECT_EQ(d.h_view(n - 1), 2.0 * (n - 1));
}

TYPED_TEST(KokkosProgram, ScatterViewHistogram) {
  using Exec = TypeParam;
  const int n = 10000, nbins = 16;
  Kokkos::View<int*, typename Exec::memory_space> hist("hist", nbins);
  auto scatter = Kokkos::Experimental::create_scatter_view(hist);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) {
        auto access = scatter.access();
        access((i * 7) % nbins) += 1;
      });
  Kokkos::Experimental::contribute(hist, scatter);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
  std::vector<int> expect(nbins, 0);
  for (int i = 0; i < n; ++i) ++expect[(i * 7) % nbins];
  for (int b = 0; b < nbins; ++b) EXPECT_EQ(h(b), expect[b]) << b;
}

TYPED_TEST(KokkosProgram, RandomFillAndSort) {
  using Exec = TypeParam;
  const int n = 5000;
  Kokkos::View<double*, typename Exec::memory_space> r("r", n);
  Kokkos::Random_XorShift64_Pool<Exec> pool(12345);
  Kokkos::fill_random(r, pool, 1.0);
  Kokkos::sort(r);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  double mean = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(h(i), 0.0);
    EXPECT_LT(h(i), 1.0);
    if (i > 0) {
      EXPECT_LE(h(i - 1), h(i)) << i;
    }
    mean += h(i) / n;
  }
  // Uniform on [0, 1): mean 1/2, standard error sqrt(1/12/n) = 0.004; 6 sigma.
  EXPECT_NEAR(mean, 0.5, 0.025);

  // Random draws inside a kernel, from a generator taken from the pool.
  Kokkos::View<int*, typename Exec::memory_space> dice("dice", n);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) {
        auto g = pool.get_state();
        dice(i) = int(g.urand(6)) + 1;
        pool.free_state(g);
      });
  auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dice);
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(hd(i), 1);
    EXPECT_LE(hd(i), 6);
  }
}

}  // namespace

// Plain TESTs outside the anonymous namespace: there nvcc warns (#177-D) that
// GoogleTest's registration member is never referenced.
TEST(KokkosProgramHost, RenamedHelpers) {
  double* p = static_cast<double*>(Kokkos::kokkos_malloc<Kokkos::HostSpace>("p", 4 * sizeof(double)));
  for (int i = 0; i < 4; ++i) p[i] = i;
  p = static_cast<double*>(Kokkos::kokkos_realloc<Kokkos::HostSpace>(p, 8 * sizeof(double)));
  EXPECT_EQ(p[3], 3.0);  // realloc keeps the first bytes
  Kokkos::kokkos_free<Kokkos::HostSpace>(p);
  int a = 1, b = 2;
  Kokkos::kokkos_swap(a, b);
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 1);
  KOKKOS_ASSERT(a == 2);
}

TEST(KokkosProgramHost, TimerAndSpaces) {
  Kokkos::Timer timer;
  double s = 0;
  for (int i = 0; i < 1000; ++i) s += i;
  EXPECT_GE(timer.seconds(), 0.0);
  EXPECT_EQ(s, 499500.0);
  timer.reset();
  EXPECT_LT(timer.seconds(), 10.0);
  static_assert(std::is_same_v<Kokkos::DefaultHostExecutionSpace::memory_space, Kokkos::HostSpace>);
  EXPECT_TRUE(Kokkos::is_initialized());
  // The host space: in a CUDA build without a GPU the default space (Cuda)
  // reports concurrency 0.
  EXPECT_GE(Kokkos::DefaultHostExecutionSpace().concurrency(), 1);
}

// A functor that names its execution space, given a count rather than a
// policy, runs there (the shape of Kokkos's DualView tutorial, which died on
// a GPU with an illegal address: its host functor ran on the default space).
// The DualView is synced to each functor's side before it runs. The suite's
// name holds "Gpu" so that the GPU check (.gpu/run.sh, pattern Cuda|Gpu)
// runs it: in a CUDA build the default space is the GPU.
template <class ExecutionSpace>
struct ScaleOnItsSide {
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using dual = Kokkos::DualView<double*>;
  Kokkos::View<double*, Kokkos::LayoutLeft, memory_space> x;
  double factor;
  ScaleOnItsSide(dual d, double f) : factor(f) {
    d.template sync<memory_space>();
    d.template modify<memory_space>();
    x = d.template view<memory_space>();
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { x(i) *= factor; }
};

TEST(KokkosProgramDualViewGpu, FunctorsRunOnTheirOwnSpaceFromACount) {
  using Device = Kokkos::DefaultExecutionSpace;
  using Host = Kokkos::DefaultHostExecutionSpace;
  if (Device().concurrency() == 0) GTEST_SKIP() << "the default execution space has no device here";
  const int n = 5000;
  Kokkos::DualView<double*> d("d", n);
  for (int i = 0; i < n; ++i) d.h_view(i) = i;
  d.modify_host();
  Kokkos::parallel_for(n, ScaleOnItsSide<Device>(d, 2.0));  // on the device (or the default host space)
  Kokkos::parallel_for(n, ScaleOnItsSide<Host>(d, 3.0));    // on the host: syncs the device's result back first
  Kokkos::fence();
  d.sync_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(d.h_view(i), 6.0 * i) << i;
}

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard guard(argc, argv);
  return RUN_ALL_TESTS();
}
