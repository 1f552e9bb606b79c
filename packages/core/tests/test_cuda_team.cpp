// TeamPolicy on the CUDA back-end: the limits it reports, the errors it
// gives, and the CUDA-specific paths of the team member (vector lanes as
// real threads, partial warps, multi-warp teams, values too large for the
// per-warp exchange slots, vector loops inside single(), array reductions,
// results in device memory, launch bounds). The typed team suites
// (test_team*.cpp) cover the portable semantics on Cuda as well.
//
// Without a usable GPU the policy must still be constructible and
// queryable, and dispatching must throw the back-end's reason; the GPU tests
// skip with that reason.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

#if TESSERA_ENABLE_CUDA

using tessera::Cuda;
using Policy = tessera::TeamPolicy<Cuda>;
using Member = Policy::member_type;

static_assert(std::is_same_v<Member::execution_space, Cuda>);
static_assert(std::is_same_v<Member::scratch_memory_space, tessera::ScratchMemorySpace<Cuda>>);

namespace {

template <class F>
std::string message_of(const F& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A value too large for the per-warp exchange slots (32 bytes).
struct Wide {
  double v[6];
};
struct WideSum {
  using value_type = Wide;
  using reducer = WideSum;
  Wide* ptr;
  TESSERA_INLINE_FUNCTION explicit WideSum(Wide& w) : ptr(&w) {}
  TESSERA_INLINE_FUNCTION void join(Wide& dst, const Wide& src) const {
    for (int k = 0; k < 6; ++k) dst.v[k] += src.v[k];
  }
  TESSERA_INLINE_FUNCTION void init(Wide& w) const {
    for (int k = 0; k < 6; ++k) w.v[k] = 0;
  }
  TESSERA_INLINE_FUNCTION Wide& reference() const { return *ptr; }
};

// Array reduction of runtime length over a TeamPolicy.
struct Histogram {
  using value_type = long[];
  unsigned value_count;
  TESSERA_INLINE_FUNCTION void operator()(const Member& m, long* bins) const {
    if (m.team_rank() == 0) bins[m.league_rank() % int(value_count)] += 1;
  }
};

}  // namespace

TEST(CudaTeam, LimitsAreThoseOfTheDeviceOrOfNvidiaGpus) {
  const Policy p(10, 1);
  const int threads = Cuda::impl_is_available() ? tessera::detail::cuda_device_info().max_threads_per_block : 1024;
  EXPECT_EQ(Policy::vector_length_max(), 32);
  for (int vl : {1, 2, 8, 32}) {
    const Policy q(10, 1, vl);
    EXPECT_EQ(q.team_size_max(0, tessera::ParallelForTag()), threads / vl) << "vector_length " << vl;
    EXPECT_EQ(q.team_size_max(0, tessera::ParallelReduceTag()), threads / vl);
    const int rec = q.team_size_recommended(0, tessera::ParallelForTag());
    EXPECT_GE(rec, 1);
    EXPECT_LE(rec * vl, 256) << "AUTO asks for 256 threads per block, counting lanes";
    EXPECT_EQ(Policy(10, tessera::AUTO, vl).team_size(), rec);
  }
  // Level 0 is a block's shared memory less the team's exchange buffer.
  const std::size_t shared =
      Cuda::impl_is_available() ? std::size_t(tessera::detail::cuda_device_info().max_shared_per_block) : 48 * 1024;
  EXPECT_LT(Policy::scratch_size_max(0), shared);
  EXPECT_GE(Policy::scratch_size_max(0), shared - 2048);
  EXPECT_GT(Policy::scratch_size_max(1), Policy::scratch_size_max(0));
  // A full block of scratch-free teams is allowed; one lane more is not.
  EXPECT_NO_THROW(Policy(4, threads / 32, 32));
  std::string msg = message_of([&] { Policy(4, threads / 32 + 1, 32); });
  EXPECT_TRUE(contains(msg, "team_size " + std::to_string(threads / 32 + 1))) << msg;
  msg = message_of([] { Policy(4, 1, 64); });
  EXPECT_TRUE(contains(msg, "vector_length 64 exceeds vector_length_max() = 32 on Cuda")) << msg;
  msg = message_of([] { Policy(4, 1).set_scratch_size(0, tessera::PerTeam(std::int64_t(Policy::scratch_size_max(0)) + 8)); });
  EXPECT_TRUE(contains(msg, "scratch_size_max(0) is " + std::to_string(Policy::scratch_size_max(0)) + " bytes on Cuda"))
      << msg;
}

TEST(CudaTeam, DispatchWithoutAGpuThrowsTheReason) {
  if (Cuda::impl_is_available()) GTEST_SKIP() << "a GPU is present";
  const std::string reason = Cuda::impl_unavailable_reason();
  std::string msg = message_of([] { tessera::parallel_for(Policy(4, 2), TESSERA_LAMBDA(const Member&){}); });
  EXPECT_TRUE(contains(msg, "tessera::parallel_for(TeamPolicy) on Cuda")) << msg;
  EXPECT_TRUE(contains(msg, reason)) << msg;
  long s = 0;
  msg = message_of([&] {
    tessera::parallel_reduce(Policy(4, 2), TESSERA_LAMBDA(const Member&, long& v) { v += 1; }, s);
  });
  EXPECT_TRUE(contains(msg, "tessera::parallel_reduce(TeamPolicy) on Cuda")) << msg;
  EXPECT_TRUE(contains(msg, reason)) << msg;
  // An empty league does nothing, but still needs the device.
  msg = message_of([] { tessera::parallel_for(Policy(0, 1), TESSERA_LAMBDA(const Member&){}); });
  EXPECT_TRUE(contains(msg, reason)) << msg;
}

class CudaTeamGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Cuda::impl_is_available()) GTEST_SKIP() << Cuda::impl_unavailable_reason();
  }
};

// Vector lanes are threads: vector loops split over them, vector reductions
// and scans combine them, and code outside vector loops runs on every lane.
TEST_F(CudaTeamGpu, VectorLanesSplitReduceAndScan) {
  const int league = 9, n = 45;
  tessera::View<int**, Cuda> hits("hits", league, n);
  tessera::View<int*, Cuda> errors("errors", 6);
  for (int vl : {2, 8, 32}) {
    for (int ts : {1, 3, 5}) {  // 3 x 2 = 6 threads: a partial warp; 5 x 32: five warps
      tessera::deep_copy(hits, 0);
      tessera::parallel_for(Policy(league, ts, vl), TESSERA_LAMBDA(const Member& m) {
        const int l = m.league_rank();
        tessera::parallel_for(tessera::TeamThreadRange(m, n), [&](int i) {
          tessera::parallel_for(tessera::ThreadVectorRange(m, 1), [&](int) { tessera::atomic_add(&hits(l, i), 1); });
        });
        long s = 0;
        tessera::parallel_reduce(tessera::ThreadVectorRange(m, n), [&](int i, long& acc) { acc += i; }, s);
        if (s != long(n) * (n - 1) / 2) tessera::atomic_add(&errors(0), 1);
        long t = 0;
        tessera::parallel_reduce(tessera::TeamVectorRange(m, n), [&](int i, long& acc) { acc += 2 * i; }, t);
        if (t != long(n) * (n - 1)) tessera::atomic_add(&errors(1), 1);
        long total = 0;
        tessera::parallel_scan(tessera::ThreadVectorRange(m, n), [&](int i, long& update, bool final) {
          if (final && update != long(i) * (i - 1) / 2) tessera::atomic_add(&errors(2), 1);
          update += i;
        }, total);
        if (total != long(n) * (n - 1) / 2) tessera::atomic_add(&errors(3), 1);
        // A vector loop inside single() runs on the one lane that runs single().
        long one = -1;
        tessera::single(tessera::PerTeam(m), [&](long& out) {
          long u = 0;
          tessera::parallel_reduce(tessera::ThreadVectorRange(m, n), [&](int i, long& acc) { acc += 1 + 0 * i; }, u);
          out = u;
        }, one);
        if (one != n) tessera::atomic_add(&errors(4), 1);
        // team_reduce over a partial warp and over several warps.
        int r = m.team_rank() + 1;
        m.team_reduce(tessera::Sum<int>(r));
        if (r != m.team_size() * (m.team_size() + 1) / 2) tessera::atomic_add(&errors(5), 1);
      });
      auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), hits);
      for (int l = 0; l < league; ++l)
        for (int i = 0; i < n; ++i) ASSERT_EQ(h(l, i), 1) << "vl " << vl << " ts " << ts;
    }
  }
  auto he = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(he(k), 0) << "check " << k;
}

// Values larger than the exchange slots go through the buffer one warp at a time.
TEST_F(CudaTeamGpu, WideValuesAcrossManyWarps) {
  tessera::View<int*, Cuda> errors("errors", 3);
  tessera::parallel_for(Policy(7, 256), TESSERA_LAMBDA(const Member& m) {
    Wide w;
    for (int k = 0; k < 6; ++k) w.v[k] = m.team_rank() + k;
    m.team_reduce(WideSum(w));
    const double n = m.team_size();
    for (int k = 0; k < 6; ++k)
      if (w.v[k] != n * (n - 1) / 2 + n * k) tessera::atomic_add(&errors(0), 1);
    Wide b;
    for (int k = 0; k < 6; ++k) b.v[k] = m.team_rank() == 100 ? 7.0 * k : -1.0;
    m.team_broadcast(b, 100);
    for (int k = 0; k < 6; ++k)
      if (b.v[k] != 7.0 * k) tessera::atomic_add(&errors(1), 1);
    const long pre = m.team_scan(long(1));
    if (pre != m.team_rank()) tessera::atomic_add(&errors(2), 1);
    // The same path through a nested reduction (and the reducer's init).
    Wide t;
    tessera::parallel_reduce(tessera::TeamThreadRange(m, 1000), [&](int i, Wide& acc) {
      for (int k = 0; k < 6; ++k) acc.v[k] += i + k;
    }, WideSum(t));
    for (int k = 0; k < 6; ++k)
      if (t.v[k] != 999.0 * 1000 / 2 + 1000.0 * k) tessera::atomic_add(&errors(0), 1);
  });
  auto he = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(he(k), 0) << "check " << k;
}

// Leagues longer than the grid, array results of runtime length, results
// into device Views, and the empty league.
TEST_F(CudaTeamGpu, ReductionsOverLongLeaguesArraysAndDeviceResults) {
  const int league = 200000;
  long s = 0;
  tessera::parallel_reduce(Policy(league, 64), TESSERA_LAMBDA(const Member& m, long& acc) {
    if (m.team_rank() == 0) acc += m.league_rank();
  }, s);
  EXPECT_EQ(s, long(league) * (league - 1) / 2);
  long bins[5] = {-1, -1, -1, -1, -1};
  long* result = bins;
  tessera::parallel_reduce(Policy(league, 4), Histogram{5}, result);
  for (int b = 0; b < 5; ++b) EXPECT_EQ(bins[b], league / 5) << "bin " << b;
  tessera::View<double, Cuda> d("d");
  tessera::parallel_reduce(Policy(1000, 32, 4), TESSERA_LAMBDA(const Member& m, double& acc) {
    double part = 0;
    tessera::parallel_reduce(tessera::TeamVectorRange(m, 10), [&](int i, double& a) { a += i; }, part);
    if (m.team_rank() == 0) acc += part;
  }, d);
  auto hd = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d);
  EXPECT_EQ(hd(), 45.0 * 1000);
  double e = 3;
  tessera::parallel_reduce(Policy(0, 8), TESSERA_LAMBDA(const Member&, double& acc) { acc += 1; }, e);
  EXPECT_EQ(e, 0.0);
}

// Scratch: level 0 close to the limit, level 1 larger than shared memory,
// and enough league ranks per block that regions are reused.
TEST_F(CudaTeamGpu, ScratchNearTheLimitsIsUsable) {
  using Ints = tessera::View<int*, Cuda::scratch_memory_space, tessera::MemoryUnmanaged>;
  const int league = 5000, ts = 32;
  const int n0 = int((Policy::scratch_size_max(0) - 64) / sizeof(int)) - 64;
  const int n1 = 1 << 18;  // 1 MiB per team
  Policy p(league, ts);
  p.set_scratch_size(0, tessera::PerTeam(Ints::shmem_size(n0))).set_scratch_size(1, tessera::PerTeam(Ints::shmem_size(n1)));
  tessera::View<int*, Cuda> errors("errors", 1);
  tessera::parallel_for(p, TESSERA_LAMBDA(const Member& m) {
    Ints a(m.team_scratch(0), n0);
    Ints b(m.team_scratch(1), n1);
    const int l = m.league_rank();
    tessera::parallel_for(tessera::TeamThreadRange(m, n0), [&](int i) { a(i) = l + i; });
    tessera::parallel_for(tessera::TeamThreadRange(m, n1 / 997), [&](int i) { b(997 * i) = l - i; });
    m.team_barrier();
    tessera::parallel_for(tessera::TeamThreadRange(m, n0), [&](int i) {
      if (a(n0 - 1 - i) != l + n0 - 1 - i) tessera::atomic_add(&errors(0), 1);
    });
    tessera::parallel_for(tessera::TeamThreadRange(m, n1 / 997), [&](int i) {
      const int j = n1 / 997 - 1 - i;
      if (b(997 * j) != l - j) tessera::atomic_add(&errors(0), 1);
    });
  });
  auto he = tessera::create_mirror_view_and_copy(tessera::HostSpace(), errors);
  EXPECT_EQ(he(0), 0);
}

// A team wider than LaunchBounds allows is refused; AUTO adapts to it.
TEST_F(CudaTeamGpu, LaunchBoundsCapTheTeam) {
  using Bounded = tessera::TeamPolicy<Cuda, tessera::LaunchBounds<64, 1>>;
  using BMember = Bounded::member_type;
  const std::string msg = message_of([] { tessera::parallel_for(Bounded(4, 128), TESSERA_LAMBDA(const BMember&){}); });
  EXPECT_TRUE(contains(msg, "team_size 128 x vector_length 1 = 128 threads per block")) << msg;
  EXPECT_TRUE(contains(msg, "at most 64")) << msg;
  tessera::View<int*, Cuda> width("width", 1);
  tessera::parallel_for(Bounded(4, tessera::AUTO), TESSERA_LAMBDA(const BMember& m) {
    if (m.team_rank() == 0) tessera::atomic_max(&width(0), m.team_size());
  });
  auto hw = tessera::create_mirror_view_and_copy(tessera::HostSpace(), width);
  EXPECT_GE(hw(0), 1);
  EXPECT_LE(hw(0), 64);
}

#else
TEST(CudaTeam, NotEnabled) { GTEST_SKIP() << "configure with -DTessera_ENABLE_CUDA=ON"; }
#endif
