// The CUDA back-end: spaces, accessibility, availability, copies between
// every pair of spaces, and the range patterns' CUDA-specific paths (results
// written straight to device memory, array reductions larger than shared
// memory, functors larger than the kernel-parameter limit, launch bounds,
// user streams).
//
// Written for both kinds of machine: without a usable GPU the back-end must
// report why and refuse work with that reason while the host back-ends keep
// working; with one, the same tests check real behaviour.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if TESSERA_ENABLE_CUDA
#include <cuda_runtime_api.h>

using tessera::Cuda;
using tessera::CudaHostPinnedSpace;
using tessera::CudaSpace;
using tessera::CudaUVMSpace;
using tessera::HostSpace;
using tessera::SpaceAccessibility;
using Host = tessera::DefaultHostExecutionSpace;

// ---- compile-time facts ---------------------------------------------------------

static_assert(std::is_same_v<tessera::DefaultExecutionSpace, Cuda>, "Cuda is the default execution space when enabled");
static_assert(tessera::is_execution_space_v<Cuda>);
static_assert(!tessera::is_host_execution_space<Cuda>::value);
static_assert(tessera::is_memory_space_v<CudaSpace> && tessera::is_memory_space_v<CudaHostPinnedSpace> &&
              tessera::is_memory_space_v<CudaUVMSpace>);
static_assert(std::is_same_v<Cuda::memory_space, CudaSpace>);
static_assert(std::is_same_v<Cuda::array_layout, tessera::LayoutLeft>, "Cuda's default layout is LayoutLeft");

// Views pick the execution space and layout of their memory space.
static_assert(std::is_same_v<tessera::View<double*, Cuda>::memory_space, CudaSpace>);
static_assert(std::is_same_v<tessera::View<double**, Cuda>::array_layout, tessera::LayoutLeft>);
static_assert(std::is_same_v<tessera::View<double*, CudaSpace>::execution_space, Cuda>);
static_assert(std::is_same_v<tessera::View<double*, CudaUVMSpace>::execution_space, Cuda>);
static_assert(std::is_same_v<tessera::View<double*, CudaHostPinnedSpace>::execution_space, Host>);
static_assert(std::is_same_v<tessera::View<double*, Cuda>::HostMirror::memory_space, HostSpace>);

// Who can touch what.
static_assert(SpaceAccessibility<Cuda, CudaSpace>::accessible);
static_assert(SpaceAccessibility<Cuda, CudaUVMSpace>::accessible);
static_assert(SpaceAccessibility<Cuda, CudaHostPinnedSpace>::accessible);
static_assert(!SpaceAccessibility<Cuda, HostSpace>::accessible);
static_assert(!SpaceAccessibility<Host, CudaSpace>::accessible);
static_assert(!SpaceAccessibility<tessera::Serial, CudaSpace>::accessible);
static_assert(!SpaceAccessibility<HostSpace, CudaSpace>::accessible);
static_assert(SpaceAccessibility<Host, CudaUVMSpace>::accessible);
static_assert(SpaceAccessibility<Host, CudaHostPinnedSpace>::accessible);
static_assert(SpaceAccessibility<Host, HostSpace>::accessible);
static_assert(!SpaceAccessibility<Cuda, CudaUVMSpace>::assignable);
static_assert(tessera::is_view_host_accessible_v<tessera::View<int*, CudaUVMSpace>>);
static_assert(tessera::is_view_host_accessible_v<tessera::View<int*, CudaHostPinnedSpace>>);
static_assert(!tessera::is_view_host_accessible_v<tessera::View<int*, CudaSpace>>);

namespace {

bool available() { return Cuda::impl_is_available(); }

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// ---- availability -------------------------------------------------------------------

TEST(CudaBackend, InitializationSucceedsAndReportsAvailability) {
  // test_main's ScopeGuard initialized every back-end without throwing.
  ASSERT_TRUE(tessera::is_initialized());
  const std::string reason = Cuda::impl_unavailable_reason();
  if (available()) {
    EXPECT_TRUE(reason.empty()) << reason;
    EXPECT_GT(Cuda().concurrency(), 0);
    EXPECT_GE(Cuda().cuda_device(), 0);
    EXPECT_NE(Cuda().cuda_stream(), nullptr) << "the default instance uses a Tessera-owned stream";
    int current = -1;
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, Cuda().cuda_device());
  } else {
    EXPECT_TRUE(contains(reason, "CUDA back-end unavailable: ")) << reason;
    EXPECT_GT(reason.size(), std::string("CUDA back-end unavailable: ").size()) << "the reason names the CUDA error";
    EXPECT_EQ(Cuda().concurrency(), 0);
    EXPECT_EQ(Cuda().cuda_device(), -1);
  }
}

TEST(CudaBackend, FencesNeverThrow) {
  // Host-only programs call tessera::fence(); it must work whether or not a GPU is present.
  EXPECT_NO_THROW(tessera::fence());
  EXPECT_NO_THROW(tessera::fence("labelled"));
  EXPECT_NO_THROW(Cuda().fence());
  EXPECT_NO_THROW(Cuda::impl_static_fence("static"));
}

TEST(CudaBackend, PrintConfigurationMentionsTheDeviceOrTheReason) {
  std::ostringstream out;
  tessera::print_configuration(out, true);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "Cuda")) << text;
  if (available()) {
    EXPECT_TRUE(contains(text, "compute capability")) << text;
  } else {
    EXPECT_TRUE(contains(text, Cuda::impl_unavailable_reason())) << text;
  }
}

TEST(CudaBackend, HostBackEndsKeepWorking) {
  std::int64_t sum = 0;
  tessera::parallel_reduce(
      tessera::RangePolicy<Host>(0, 1000), TESSERA_LAMBDA(std::int64_t i, std::int64_t & s) { s += i; }, sum);
  EXPECT_EQ(sum, 999 * 1000 / 2);
  tessera::View<double*, HostSpace> h("host_view", 10);
  tessera::deep_copy(h, 2.5);
  EXPECT_EQ(h(9), 2.5);
}

// ---- allocation ---------------------------------------------------------------------

template <class Space>
class CudaMemorySpaces : public ::testing::Test {};
using CudaMemorySpaceTypes = ::testing::Types<CudaSpace, CudaHostPinnedSpace, CudaUVMSpace>;
struct MemorySpaceNames {
  template <class T>
  static std::string GetName(int) {
    return T::name();
  }
};
TYPED_TEST_SUITE(CudaMemorySpaces, CudaMemorySpaceTypes, MemorySpaceNames);

TYPED_TEST(CudaMemorySpaces, ViewAllocationLandsInTheRightMemoryOrFailsWithTheReason) {
  using Space = TypeParam;
  if (!available()) {
    const std::string what = message_of([] { tessera::View<double*, Space> v("cuda_alloc_probe", 100); });
    EXPECT_TRUE(contains(what, "cuda_alloc_probe")) << what;
    EXPECT_TRUE(contains(what, Space::name())) << what;
    EXPECT_TRUE(contains(what, Cuda::impl_unavailable_reason())) << what;
    EXPECT_THROW((tessera::View<double*, Space>("cuda_alloc_probe", 100)), std::runtime_error);
    EXPECT_THROW(Space().allocate("raw", 64), std::runtime_error);
    return;
  }
  tessera::View<double*, Space> v("cuda_alloc_probe", 1000);
  ASSERT_NE(v.data(), nullptr);
  EXPECT_EQ(v.label(), "cuda_alloc_probe");
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, v.data()), cudaSuccess);
  if constexpr (std::is_same_v<Space, CudaSpace>) EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  if constexpr (std::is_same_v<Space, CudaHostPinnedSpace>) EXPECT_EQ(attr.type, cudaMemoryTypeHost);
  if constexpr (std::is_same_v<Space, CudaUVMSpace>) EXPECT_EQ(attr.type, cudaMemoryTypeManaged);
  // Allocation value-initializes.
  auto h = tessera::create_mirror_view_and_copy(HostSpace(), v);
  for (std::size_t i = 0; i < h.extent(0); ++i) ASSERT_EQ(h(i), 0.0) << i;
  // Zero bytes gives a distinct non-null pointer, as in HostSpace.
  void* p = Space().allocate("empty", 0);
  EXPECT_NE(p, nullptr);
  Space().deallocate("empty", p, 0);
}

TYPED_TEST(CudaMemorySpaces, ImpossibleAllocationNamesLabelSizeAndSpace) {
  using Space = TypeParam;
  if (!available()) GTEST_SKIP() << Cuda::impl_unavailable_reason();
  if constexpr (std::is_same_v<Space, CudaUVMSpace>) GTEST_SKIP() << "managed memory may oversubscribe";
  const std::size_t huge = std::size_t(1) << 60;
  try {
    (void)Space().allocate("too_big", huge);
    FAIL() << "allocating 2^60 bytes succeeded";
  } catch (const tessera::allocation_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "too_big")) << what;
    EXPECT_TRUE(contains(what, std::to_string(huge))) << what;
    EXPECT_TRUE(contains(what, Space::name())) << what;
    EXPECT_TRUE(contains(what, "cudaError")) << what;
  }
  // The failure is not sticky: the back-end still works.
  tessera::View<int*, Space> ok("after_failure", 10);
  EXPECT_NE(ok.data(), nullptr);
}

// ---- work on an unavailable back-end ------------------------------------------------

TEST(CudaBackend, DispatchWithoutAGpuThrowsTheReason) {
  if (available()) GTEST_SKIP() << "a GPU is present";
  const std::string reason = Cuda::impl_unavailable_reason();
  auto body = TESSERA_LAMBDA(int) {};
  const std::string w1 = message_of([&] { tessera::parallel_for("probe", tessera::RangePolicy<Cuda>(0, 10), body); });
  EXPECT_TRUE(contains(w1, "parallel_for")) << w1;
  EXPECT_TRUE(contains(w1, reason)) << w1;
  // Even an empty range is refused: the program is asking for a device it does not have.
  const std::string w0 = message_of([&] { tessera::parallel_for(tessera::RangePolicy<Cuda>(0, 0), body); });
  EXPECT_TRUE(contains(w0, reason)) << w0;
  double s = 0;
  const std::string w2 = message_of([&] {
    tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, 10), TESSERA_LAMBDA(int i, double& a) { a += i; }, s);
  });
  EXPECT_TRUE(contains(w2, "parallel_reduce")) << w2;
  EXPECT_TRUE(contains(w2, reason)) << w2;
  long total = 0;
  const std::string w3 = message_of([&] {
    tessera::parallel_scan(
        tessera::RangePolicy<Cuda>(0, 10), TESSERA_LAMBDA(int i, long& u, bool) { u += i; }, total);
  });
  EXPECT_TRUE(contains(w3, "parallel_scan")) << w3;
  EXPECT_TRUE(contains(w3, reason)) << w3;
  EXPECT_THROW(Cuda().impl_internal(), std::runtime_error);
}

TEST(CudaBackend, CopiesInvolvingCudaMemoryWithoutAGpuThrowTheReason) {
  if (available()) GTEST_SKIP() << "a GPU is present";
  // An unmanaged View claiming CudaSpace: no allocation, so the copy itself must refuse.
  static double fake[4];
  tessera::View<double*, CudaSpace, tessera::MemoryUnmanaged> d(fake, 4);
  tessera::View<double*, HostSpace> h("h", 4);
  const std::string what = message_of([&] { tessera::deep_copy(d, h); });
  EXPECT_TRUE(contains(what, Cuda::impl_unavailable_reason())) << what;
  EXPECT_TRUE(contains(what, "deep_copy")) << what;
}

// ---- behaviour on a GPU ---------------------------------------------------------------

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!available()) GTEST_SKIP() << Cuda::impl_unavailable_reason();
  }
};

template <class Dst, class Src>
void round_trip(const char* what) {
  const int n = 4097;
  tessera::View<int*, HostSpace> in("in", n), out("out", n);
  for (int i = 0; i < n; ++i) in(i) = 3 * i - 7;
  tessera::View<int*, Src> src("src", n);
  tessera::View<int*, Dst> dst("dst", n);
  tessera::deep_copy(src, in);
  tessera::deep_copy(dst, src);
  tessera::deep_copy(out, dst);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out(i), 3 * i - 7) << what << " at " << i;
}

TEST_F(CudaGpu, DeepCopyBetweenEveryPairOfSpaces) {
  round_trip<CudaSpace, CudaSpace>("Cuda <- Cuda");
  round_trip<CudaSpace, CudaHostPinnedSpace>("Cuda <- Pinned");
  round_trip<CudaSpace, CudaUVMSpace>("Cuda <- UVM");
  round_trip<CudaHostPinnedSpace, CudaSpace>("Pinned <- Cuda");
  round_trip<CudaHostPinnedSpace, CudaUVMSpace>("Pinned <- UVM");
  round_trip<CudaUVMSpace, CudaSpace>("UVM <- Cuda");
  round_trip<CudaUVMSpace, CudaHostPinnedSpace>("UVM <- Pinned");
  round_trip<HostSpace, CudaSpace>("Host <- Cuda");
  round_trip<CudaSpace, HostSpace>("Cuda <- Host");
}

TEST_F(CudaGpu, DeepCopyAcrossLayoutsAndAsyncOnAnInstance) {
  const int r = 37, c = 53;
  tessera::View<double**, tessera::LayoutRight, HostSpace> h("h", r, c), back("back", r, c);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) h(i, j) = i * 1000 + j;
  tessera::View<double**, Cuda> d("d", r, c);  // LayoutLeft
  tessera::deep_copy(d, h);
  tessera::deep_copy(Cuda(), back, d);
  Cuda().fence();
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) ASSERT_EQ(back(i, j), i * 1000 + j);
}

TEST_F(CudaGpu, UserStreamInstance) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    Cuda inst(stream);
    EXPECT_EQ(inst.cuda_stream(), stream);
    EXPECT_FALSE(inst == Cuda());
    const int n = 100000;
    tessera::View<int*, Cuda> v(tessera::view_alloc("on_stream", inst), n);
    tessera::parallel_for(tessera::RangePolicy<Cuda>(inst, 0, n), TESSERA_LAMBDA(int i) { v(i) = i % 17; });
    long sum = 0;
    tessera::parallel_reduce(tessera::RangePolicy<Cuda>(inst, 0, n), TESSERA_LAMBDA(int i, long& s) { s += v(i); }, sum);
    long expect = 0;
    for (int i = 0; i < n; ++i) expect += i % 17;
    EXPECT_EQ(sum, expect);
    inst.fence();
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(CudaGpu, ReduceIntoDeviceViewDoesNotNeedAHostCopy) {
  const int n = 1 << 20;
  tessera::View<double, CudaSpace> result("result");
  tessera::View<int, tessera::CudaHostPinnedSpace> pinned_result("pinned_result");
  tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i, double& s) { s += 0.5 * i; }, result);
  tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i, int& m) {
        if (i % 1000 > m) m = i % 1000;
      },
      tessera::Max<int, tessera::CudaHostPinnedSpace>(pinned_result));
  Cuda().fence();
  double host = 0;
  tessera::deep_copy(host, result);
  EXPECT_EQ(host, 0.5 * double(n) * double(n - 1) / 2);
  EXPECT_EQ(pinned_result(), 999);
}

// A reduction whose value is an array too large for a block of shared memory.
struct WideHistogram {
  using value_type = long[];
  std::size_t value_count;
  TESSERA_INLINE_FUNCTION void operator()(int i, long* bins) const { bins[std::size_t(i) % value_count] += 1; }
};

TEST_F(CudaGpu, ArrayReductionsSmallAndLargerThanSharedMemory) {
  for (std::size_t bins : {std::size_t(1), std::size_t(7), std::size_t(300), std::size_t(9000)}) {
    const int n = 123457;
    std::vector<long> got(bins, -1);
    tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n), WideHistogram{bins}, got.data());
    for (std::size_t b = 0; b < bins; ++b) {
      const long expect = long(n / bins) + (b < std::size_t(n) % bins ? 1 : 0);
      ASSERT_EQ(got[b], expect) << "bins=" << bins << " b=" << b;
    }
  }
}

// A functor beyond the kernel-parameter limit reaches the kernel through device scratch.
struct BigFunctor {
  double table[1024];  // 8 KiB
  tessera::View<double*, Cuda> out;
  TESSERA_INLINE_FUNCTION void operator()(int i) const { out(i) = table[i % 1024]; }
  TESSERA_INLINE_FUNCTION void operator()(int i, double& s) const { s += table[i % 1024]; }
};

TEST_F(CudaGpu, FunctorsLargerThanTheParameterLimit) {
  static_assert(sizeof(BigFunctor) > 4096);
  BigFunctor f;
  double expect = 0;
  for (int k = 0; k < 1024; ++k) f.table[k] = k * 0.25;
  const int n = 5000;
  for (int i = 0; i < n; ++i) expect += f.table[i % 1024];
  f.out = tessera::View<double*, Cuda>("out", n);
  tessera::parallel_for(tessera::RangePolicy<Cuda>(0, n), f);
  double sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n), f, sum);
  EXPECT_EQ(sum, expect);
  auto h = tessera::create_mirror_view_and_copy(HostSpace(), f.out);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), f.table[i % 1024]);
}

struct TagA {};
TEST_F(CudaGpu, LaunchBoundsTagsAndIndexTypes) {
  const std::int64_t n = 300001;
  tessera::View<std::int64_t*, Cuda> v("v", n);
  using P = tessera::RangePolicy<Cuda, tessera::LaunchBounds<128, 2>, TagA, tessera::IndexType<std::int64_t>>;
  tessera::parallel_for(P(0, n), TESSERA_LAMBDA(TagA, std::int64_t i) { v(i) = i; });
  std::int64_t total = 0;
  tessera::parallel_scan(P(0, n), TESSERA_LAMBDA(TagA, std::int64_t i, std::int64_t & u, bool final) {
        u += v(i);
        if (final) v(i) = u;  // inclusive scan in place
      },
      total);
  EXPECT_EQ(total, n * (n - 1) / 2);
  auto h = tessera::create_mirror_view_and_copy(HostSpace(), v);
  for (std::int64_t i = 0; i < n; i += 997) ASSERT_EQ(h(i), i * (i + 1) / 2) << i;
  using U = tessera::RangePolicy<Cuda, tessera::IndexType<unsigned>>;
  unsigned count = 0;
  tessera::parallel_reduce(U(5u, 1005u), TESSERA_LAMBDA(unsigned i, unsigned& c) { c += (i >= 5u) ? 1u : 0u; }, count);
  EXPECT_EQ(count, 1000u);
}

TEST_F(CudaGpu, ReducersAndSeveralResultsAtOnce) {
  const int n = 77777;
  tessera::View<double*, Cuda> v("v", n);
  tessera::parallel_for(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i) { v(i) = (i * 7919) % 10007 - 5000.0; });
  auto h = tessera::create_mirror_view_and_copy(HostSpace(), v);
  double lo = 1e300, hi = -1e300;
  int lo_at = -1;
  for (int i = 0; i < n; ++i) {
    if (h(i) < lo) lo = h(i), lo_at = i;
    hi = std::max(hi, h(i));
  }
  tessera::ValLocScalar<double, int> minloc{};
  double mx = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n),
                           TESSERA_LAMBDA(int i, tessera::ValLocScalar<double, int>& m, double& x) {
                             if (v(i) < m.val || (v(i) == m.val && i < m.loc)) m = {v(i), i};
                             if (v(i) > x) x = v(i);
                           },
                           tessera::MinLoc<double, int>(minloc), tessera::Max<double>(mx));
  EXPECT_EQ(minloc.val, lo);
  EXPECT_EQ(minloc.loc, lo_at);
  EXPECT_EQ(mx, hi);
}

TEST_F(CudaGpu, MDRangeTilesLargerThanABlockAndEdgeTiles) {
  const int n0 = 45, n1 = 301, n2 = 7;
  tessera::View<int***, Cuda> v("v", n0, n1, n2);
  // Tiles of 9 x 40 x 7 = 2520 points: more than one block-width, and the
  // last tile along dimension 1 is clipped.
  using P = tessera::MDRangePolicy<Cuda, tessera::Rank<3, tessera::Iterate::Right, tessera::Iterate::Left>>;
  tessera::parallel_for(P({0, 0, 0}, {n0, n1, n2}, {9, 40, 7}),
                        TESSERA_LAMBDA(int i, int j, int k) { v(i, j, k) += 1 + i + 100 * j + 100000 * k; });
  long sum = 0;
  tessera::parallel_reduce(tessera::MDRangePolicy<Cuda, tessera::Rank<3>>({0, 0, 0}, {n0, n1, n2}),
                           TESSERA_LAMBDA(int i, int j, int k, long& s) { s += v(i, j, k); }, sum);
  long expect = 0;
  auto h = tessera::create_mirror_view_and_copy(HostSpace(), v);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) {
        ASSERT_EQ(h(i, j, k), 1 + i + 100 * j + 100000 * k) << i << "," << j << "," << k;
        expect += h(i, j, k);
      }
  EXPECT_EQ(sum, expect);
  // An empty box still produces the identity.
  long empty = -1;
  tessera::parallel_reduce(tessera::MDRangePolicy<Cuda, tessera::Rank<2>>({0, 0}, {0, 5}),
                           TESSERA_LAMBDA(int, int, long& s) { s += 1; }, empty);
  EXPECT_EQ(empty, 0);
}

TEST(CudaBackend, MDRangeWithoutAGpuThrowsTheReason) {
  if (available()) GTEST_SKIP() << "a GPU is present";
  const std::string what = message_of([] {
    tessera::parallel_for(tessera::MDRangePolicy<Cuda, tessera::Rank<2>>({0, 0}, {4, 4}), TESSERA_LAMBDA(int, int) {});
  });
  EXPECT_TRUE(contains(what, "MDRangePolicy")) << what;
  EXPECT_TRUE(contains(what, Cuda::impl_unavailable_reason())) << what;
}

// Events: a kernel on one stream, another stream made to wait for it without
// the host blocking, then a kernel there that reads what the first wrote.
// The first kernel is made slow (a spin of ~20 ms) so that a missing wait
// would let the reader run too early.
TEST_F(CudaGpu, AnInstanceWaitsForAnotherInstancesEvent) {
  cudaStream_t s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  {
    Cuda a(s1), b(s2);
    const int n = 1 << 16;
    tessera::View<int*, Cuda> v("v", n), w("w", n);
    Cuda().fence();  // the Views' initialization, on the default instance
    tessera::parallel_for(tessera::RangePolicy<Cuda>(a, 0, n), TESSERA_LAMBDA(int i) {
#if defined(__CUDA_ARCH__)
      if (i == 0) {
        const long long start = clock64();
        while (clock64() - start < 30000000ll) {
        }
      }
#endif
      v(i) = i + 1;
    });
    const tessera::CudaEvent written = a.record_event();
    EXPECT_FALSE(written.empty());
    b.wait(written);
    tessera::parallel_for(tessera::RangePolicy<Cuda>(b, 0, n), TESSERA_LAMBDA(int i) { w(i) = v(i); });
    Cuda c(s1);
    c.wait(b);  // instance-to-instance form: s1 after everything queued on s2
    b.fence();
    EXPECT_TRUE(written.is_complete());
    auto h = tessera::create_mirror_view_and_copy(HostSpace(), w);
    for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), i + 1) << "the reader ran before the writer finished";
    tessera::CudaEvent empty;
    EXPECT_TRUE(empty.is_complete());
    b.wait(empty);  // waiting for an empty event is a no-op
    a.fence();
  }
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
}

// Stream-ordered allocation: many short-lived temporaries in a loop, each
// written by a kernel and summed; freed blocks are reused without the host
// waiting for the device, and every result is right.
TEST_F(CudaGpu, TemporariesFromTheStreamOrderedPoolAreReusedCorrectly) {
  std::ostringstream config;
  Cuda::print_configuration(config, true);
  EXPECT_NE(config.str().find(Cuda::impl_uses_malloc_async() ? "cudaMallocAsync" : "cudaMalloc"), std::string::npos)
      << config.str();
  for (int round = 0; round < 50; ++round) {
    const int n = 1000 + 997 * round;
    tessera::View<long*, Cuda> tmp("tmp", n);
    tessera::parallel_for(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i) { tmp(i) = i + round; });
    long sum = 0;
    tessera::parallel_reduce(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i, long& s) { s += tmp(i); }, sum);
    ASSERT_EQ(sum, long(n) * (n - 1) / 2 + long(n) * round) << "round " << round;
  }
}

// The single-pass scan on the GPU: long and double over sizes around the
// tile size and far beyond (many tiles, every power-of-two level of the
// tile prefixes); integers exact, doubles the same bits run after run.
TEST_F(CudaGpu, ScanIsExactForIntegersAndBitwiseRepeatableForDoubles) {
  for (const long n : {1l, 31l, 3071l, 3072l, 3073l, 100000l, 9437185l}) {
    tessera::View<long*, Cuda> in("in", n), out("out", n);
    tessera::parallel_for(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(long i) { in(i) = (i * 7919) % 1000 - 500; });
    long total = 0;
    tessera::parallel_scan(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(long i, long& update, bool final) {
          if (final) out(i) = update;
          update += in(i);
        }, total);
    auto hin = tessera::create_mirror_view_and_copy(HostSpace(), in);
    auto hout = tessera::create_mirror_view_and_copy(HostSpace(), out);
    long run = 0;
    for (long i = 0; i < n; ++i) {
      ASSERT_EQ(hout(i), run) << "n " << n << ", index " << i;
      run += hin(i);
    }
    EXPECT_EQ(total, run) << "n " << n;

    tessera::View<double*, Cuda> x("x", n), y("y", n), y2("y2", n);
    tessera::parallel_for(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(long i) { x(i) = 1.0 / double(i + 1); });
    double t1 = 0, t2 = 0;
    tessera::parallel_scan(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(long i, double& u, bool final) {
          if (final) y(i) = u;
          u += x(i);
        }, t1);
    tessera::parallel_scan(tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(long i, double& u, bool final) {
          if (final) y2(i) = u;
          u += x(i);
        }, t2);
    EXPECT_EQ(std::memcmp(&t1, &t2, sizeof(double)), 0) << "the total differs between two runs, n " << n;
    auto hy = tessera::create_mirror_view_and_copy(HostSpace(), y);
    auto hy2 = tessera::create_mirror_view_and_copy(HostSpace(), y2);
    double harmonic = 0;
    for (long i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(&hy(i), &hy2(i), sizeof(double)), 0) << "run-to-run difference at " << i << ", n " << n;
      ASSERT_NEAR(hy(i), harmonic, 1e-9 * (1 + harmonic)) << "index " << i << ", n " << n;
      harmonic += 1.0 / double(i + 1);
    }
  }
}

#else
TEST(CudaBackend, NotEnabled) { GTEST_SKIP() << "configure with -DTessera_ENABLE_CUDA=ON"; }
#endif
