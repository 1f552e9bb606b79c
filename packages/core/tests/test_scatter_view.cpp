// ScatterView: every op and strategy, contribute/reset semantics, nested
// dispatch, resize/realloc and errors, on every back-end.
#include "tessera_test_spaces.hpp"

#include <tessera/core/scatter_view.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

template <class Space>
class ScatterViewTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ScatterViewTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

template <class Space>
constexpr bool can_duplicate = tessera::is_host_execution_space<Space>::value;

// Scatters n contributions into `bins` bins through a ScatterView of the
// given strategy and checks the result against a serial computation.
template <class Space, class Dup, class Contrib>
void histogram_case() {
  const int n = 200000, bins = 37;
  tessera::View<long*, Space> hist("hist", bins);
  tessera::deep_copy(hist, 1000L);  // contribute keeps the destination's values
  auto sv = tessera::create_scatter_view<tessera::ScatterSum, Dup, Contrib>(hist);
  static_assert(std::is_same_v<typename decltype(sv)::duplication_type, Dup>);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    auto a = sv.access();
    a(i % bins) += 2;
    a(i % bins) -= 1;
    a((i * 7) % bins)++;
    ++a[(i * 11) % bins];
    --a[(i * 13) % bins];
    a(0) += 0;
  });
  tessera::contribute(hist, sv);
  std::vector<long> expect(bins, 1000);
  for (int i = 0; i < n; ++i) {
    expect[i % bins] += 1;
    expect[(i * 7) % bins] += 1;
    expect[(i * 11) % bins] += 1;
    expect[(i * 13) % bins] -= 1;
  }
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), hist);
  for (int b = 0; b < bins; ++b) ASSERT_EQ(h(b), expect[b]) << "bin " << b;
}

}  // namespace

TYPED_TEST(ScatterViewTest, DefaultsFollowTheExecutionSpace) {
  using Space = TypeParam;
  tessera::View<double*, Space> v("v", 10);
  auto sv = tessera::create_scatter_view(v);
  using SV = decltype(sv);
  static_assert(std::is_same_v<typename SV::op_type, tessera::ScatterSum>);
  if constexpr (std::is_same_v<Space, tessera::Serial>) {
    static_assert(std::is_same_v<typename SV::duplication_type, tessera::ScatterNonDuplicated>);
    static_assert(std::is_same_v<typename SV::contribution_type, tessera::ScatterNonAtomic>);
  } else if constexpr (tessera::is_host_execution_space<Space>::value) {
    static_assert(std::is_same_v<typename SV::duplication_type, tessera::ScatterDuplicated>);
    static_assert(std::is_same_v<typename SV::contribution_type, tessera::ScatterNonAtomic>);
    EXPECT_EQ(sv.impl_copies(), Space().concurrency());
  } else {
    static_assert(std::is_same_v<typename SV::duplication_type, tessera::ScatterNonDuplicated>);
    static_assert(std::is_same_v<typename SV::contribution_type, tessera::ScatterAtomic>);
  }
  EXPECT_EQ(sv.extent(0), 10u);
  EXPECT_TRUE(sv.is_allocated());
  // The Kokkos spelling.
  tessera::Experimental::ScatterView<double*, typename tessera::View<double*, Space>::array_layout, Space> kv(v);
  EXPECT_EQ(kv.extent(0), 10u);
}

TYPED_TEST(ScatterViewTest, HistogramEveryStrategy) {
  using Space = TypeParam;
  histogram_case<Space, tessera::ScatterNonDuplicated, tessera::ScatterAtomic>();
  if constexpr (std::is_same_v<Space, tessera::Serial>)
    histogram_case<Space, tessera::ScatterNonDuplicated, tessera::ScatterNonAtomic>();
  if constexpr (can_duplicate<Space>) {
    histogram_case<Space, tessera::ScatterDuplicated, tessera::ScatterNonAtomic>();
    histogram_case<Space, tessera::ScatterDuplicated, tessera::ScatterAtomic>();
  }
}

template <class Space, class Op, class Dup>
void op_case(double init, double expect_value, bool prod) {
  const int bins = 8, n = bins * 513;  // every bin gets i = b and 512 more
  tessera::View<double*, Space> out("out", bins);
  tessera::deep_copy(out, init);
  using Contrib = typename tessera::detail::DefaultContribution<Space, Dup>::type;
  auto sv = tessera::create_scatter_view(Op(), Dup(), Contrib(), out);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    auto a = sv.access();
    // Captures happen here, outside the constexpr-if (nvcc forbids first
    // captures inside one).
    const int b = i % bins, k = i / bins;
    if constexpr (std::is_same_v<Op, tessera::ScatterProd>) {
      // Bin b: *2 once, then *4 and /4 alternately 256 times each, so the
      // contributions multiply to exactly 2.
      if (k == 0) a(b) *= 2.0;
      else if (k % 2) a(b) *= 4.0;
      else a(b) /= 4.0;
    } else {
      a(b).update(double(i));
    }
  });
  tessera::contribute(out, sv);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int b = 0; b < bins; ++b) {
    const double want = prod ? expect_value
                        : std::is_same_v<Op, tessera::ScatterMin> ? std::min(init, double(b))
                                                                  : std::max(init, double(n - bins + b));
    ASSERT_DOUBLE_EQ(h(b), want) << "bin " << b;
  }
}

TYPED_TEST(ScatterViewTest, ProdMinMax) {
  using Space = TypeParam;
  using ND = tessera::ScatterNonDuplicated;
  op_case<Space, tessera::ScatterProd, ND>(3.0, 6.0, true);
  op_case<Space, tessera::ScatterMin, ND>(5.5, 0, false);
  op_case<Space, tessera::ScatterMax, ND>(1e9, 0, false);
  op_case<Space, tessera::ScatterMax, ND>(-1.0, 0, false);
  if constexpr (can_duplicate<Space>) {
    using D = tessera::ScatterDuplicated;
    op_case<Space, tessera::ScatterProd, D>(3.0, 6.0, true);
    op_case<Space, tessera::ScatterMin, D>(5.5, 0, false);
    op_case<Space, tessera::ScatterMin, D>(-3.0, 0, false);
    op_case<Space, tessera::ScatterMax, D>(-1.0, 0, false);
  }
}

TYPED_TEST(ScatterViewTest, Rank2LeftLayoutAndRepeatedUse) {
  using Space = TypeParam;
  const int rows = 13, cols = 5, n = 50000;
  tessera::View<int**, tessera::LayoutLeft, Space> m("m", rows, cols);
  auto sv = tessera::create_scatter_view(m);
  std::vector<int> expect(rows * cols, 0);
  for (int round = 0; round < 3; ++round) {
    tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
      auto a = sv.access();
      a(i % rows, (i / rows) % cols) += round + 1;
    });
    tessera::contribute(m, sv);
    sv.reset_except(m);  // ready for the next round without clearing m
    for (int i = 0; i < n; ++i) expect[(i % rows) * cols + (i / rows) % cols] += round + 1;
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), m);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) ASSERT_EQ(h(r, c), expect[r * cols + c]) << "round " << round << " at " << r << "," << c;
  }
}

TYPED_TEST(ScatterViewTest, ContributeIntoAnotherView) {
  using Space = TypeParam;
  const int n = 10000, bins = 10;
  tessera::View<float*, Space> a("a", bins);
  auto sv = tessera::create_scatter_view(a);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { sv.access()(i % bins) += 0.5f; });
  tessera::View<float*, Space> b("b", bins);
  tessera::deep_copy(b, 1.0f);
  tessera::contribute(b, sv);
  auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), b);
  for (int i = 0; i < bins; ++i) ASSERT_FLOAT_EQ(hb(i), 1.0f + 0.5f * (n / bins));
  // Wrong extents name both sides.
  tessera::View<float*, Space> wrong("wrong_dest", bins + 1);
  try {
    tessera::contribute(wrong, sv);
    FAIL() << "an extent mismatch must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("wrong_dest"), std::string::npos) << e.what();
  }
}

TYPED_TEST(ScatterViewTest, NestedDispatchUsesThePhysicalThread) {
  using Space = TypeParam;
  if constexpr (can_duplicate<Space>) {
    // Inner dispatches run serially on each outer thread; their accessors
    // must pick that thread's copy, or non-atomic updates would race.
    const int outer = 16, inner = 20000, bins = 4;
    tessera::View<long*, Space> hist("hist", bins);
    auto sv = tessera::create_scatter_view<tessera::ScatterSum, tessera::ScatterDuplicated, tessera::ScatterNonAtomic>(hist);
    tessera::parallel_for(tessera::RangePolicy<Space>(0, outer), [=](int) {
      tessera::parallel_for(tessera::RangePolicy<Space>(0, inner), [=](int j) { sv.access()(j % bins) += 1; });
    });
    tessera::contribute(hist, sv);
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), hist);
    for (int b = 0; b < bins; ++b) EXPECT_EQ(h(b), long(outer) * inner / bins) << "bin " << b;
  }
}

TYPED_TEST(ScatterViewTest, UsedFromAnotherHostSpaceStaysExact) {
  using Space = TypeParam;
  if constexpr (can_duplicate<Space> || std::is_same_v<Space, tessera::Serial>) {
    // A View of HostSpace belongs to the default host space (OpenMP when it is
    // enabled), and so does a ScatterView made from it. A Kokkos program
    // writes View<int*, Exec::memory_space> and scatters from a kernel of
    // Exec, which with OpenMP and Threads both enabled is another pool: its
    // threads must not share one private copy. The kernel's threads meet at
    // a barrier before each batch of updates, so that they overlap for
    // certain (a pool's threads can start milliseconds apart).
    using Host = tessera::DefaultHostExecutionSpace;
    const int threads = Space().concurrency(), batches = 200, per_batch = 5000, bins = 3;
    tessera::View<long*, tessera::HostSpace> hist("hist_of_the_default_host_space", bins);
    auto sv = tessera::create_scatter_view(hist);
    static_assert(std::is_same_v<typename decltype(sv)::execution_space, Host>);
    for (int round = 0; round < 2; ++round) {
      std::atomic<int> arrived{0};
      tessera::parallel_for(tessera::RangePolicy<Space>(0, threads), [&](int) {
        for (int batch = 1; batch <= batches; ++batch) {
          arrived.fetch_add(1);
          // Bounded: a space that runs the indices one after another goes on.
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
          while (arrived.load() < batch * threads && std::chrono::steady_clock::now() < give_up)
            std::this_thread::yield();
          for (int k = 0; k < per_batch; ++k) {
            sv.access()(k % bins) += 1;
            // Every update reaches memory, as in a kernel with other work: the
            // compiler may not sum in registers and store once at the end.
            std::atomic_signal_fence(std::memory_order_seq_cst);
          }
        }
      });
      // The default host space's own kernel, between the others.
      tessera::parallel_for(tessera::RangePolicy<Host>(0, 3000), [=](int i) { sv.access()(i % bins) += 2; });
    }
    tessera::contribute(hist, sv);
    for (int b = 0; b < bins; ++b) {
      const long own = 2 * 2 * (3000 / bins);
      const long foreign = 2L * threads * batches * ((per_batch - b + bins - 1) / bins);  // k % bins == b
      EXPECT_EQ(hist(b), own + foreign) << "bin " << b << ", kernels on " << Space::name();
    }
  }
}

TYPED_TEST(ScatterViewTest, OwnStorageResizeRealloc) {
  using Space = TypeParam;
  using SV = tessera::ScatterView<double*, typename tessera::View<double*, Space>::array_layout, Space,
                                  tessera::ScatterMax>;
  SV sv("maxes", 4);
  EXPECT_EQ(sv.extent(0), 4u);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 100), TESSERA_LAMBDA(int i) { sv.access()(i % 4).update(double(i)); });
  sv.resize(6);
  EXPECT_EQ(sv.extent(0), 6u);
  tessera::View<double*, Space> out("out", 6);
  tessera::deep_copy(out, -1.0);
  tessera::contribute(out, sv);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(h(b), double(96 + b)) << "resize keeps contributions, bin " << b;
  EXPECT_EQ(h(4), -1.0) << "new elements hold the identity";
  EXPECT_EQ(h(5), -1.0);
  tessera::realloc(sv, 3);
  EXPECT_EQ(sv.extent(0), 3u);
  tessera::View<double*, Space> out3("out3", 3);
  tessera::deep_copy(out3, 2.0);
  tessera::contribute(out3, sv);
  auto h3 = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out3);
  for (int b = 0; b < 3; ++b) EXPECT_EQ(h3(b), 2.0) << "realloc drops contributions";
  tessera::resize(sv, 8);
  EXPECT_EQ(sv.extent(0), 8u);
}

TYPED_TEST(ScatterViewTest, EmptyView) {
  using Space = TypeParam;
  tessera::View<int*, Space> e("e", 0);
  auto sv = tessera::create_scatter_view(e);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 0), TESSERA_LAMBDA(int i) { sv.access()(i) += 1; });
  tessera::contribute(e, sv);
  sv.reset();
  EXPECT_EQ(sv.size(), 0u);
}
