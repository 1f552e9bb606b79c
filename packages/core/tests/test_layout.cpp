// Layouts (Right, Left, Stride, Tiled): strides, element order in memory,
// default layout per space; memory traits Atomic, RandomAccess, Restrict,
// Unmanaged and the Kokkos aliases.
#include "tessera_test_spaces.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace {
template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}
}  // namespace

template <class Space>
class LayoutTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(LayoutTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(LayoutTest, DefaultLayoutOfTheSpace) {
  using Space = TypeParam;
  using V = tessera::View<int**, Space>;
#if TESSERA_ENABLE_CUDA
  // The host branch must sit in an else: a static_assert after a return in a
  // discarded-or-not if constexpr is still instantiated for Cuda.
  if constexpr (std::is_same_v<Space, tessera::Cuda>) {
    static_assert(std::is_same_v<typename V::array_layout, tessera::LayoutLeft>);
    static_assert(std::is_same_v<typename V::memory_space, tessera::CudaSpace>);
  } else
#endif
  {
    static_assert(std::is_same_v<typename V::array_layout, tessera::LayoutRight>, "host spaces default to LayoutRight");
    static_assert(std::is_same_v<typename V::memory_space, tessera::HostSpace>);
    static_assert(std::is_same_v<typename V::execution_space, Space>);
  }
}

TYPED_TEST(LayoutTest, RightAndLeftStridesAndElementOrder) {
  using Space = TypeParam;
  tessera::View<int***, tessera::LayoutRight, Space> r("r", 2, 3, 4);
  tessera::View<int***, tessera::LayoutLeft, Space> l("l", 2, 3, 4);
  EXPECT_EQ(r.stride(0), 12u);
  EXPECT_EQ(r.stride(1), 4u);
  EXPECT_EQ(r.stride(2), 1u);
  EXPECT_EQ(l.stride(0), 1u);
  EXPECT_EQ(l.stride(1), 2u);
  EXPECT_EQ(l.stride(2), 6u);
  EXPECT_TRUE(r.span_is_contiguous());
  EXPECT_TRUE(l.span_is_contiguous());
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 2), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        r(i, j, k) = 100 * i + 10 * j + k;
        l(i, j, k) = 100 * i + 10 * j + k;
      }
  });
  auto hr = to_host(r);
  auto hl = to_host(l);
  // Memory order: the last index runs fastest in LayoutRight, the first in LayoutLeft.
  EXPECT_EQ(hr.data()[1], 1);
  EXPECT_EQ(hr.data()[4], 10);
  EXPECT_EQ(hr.data()[12], 100);
  EXPECT_EQ(hl.data()[1], 100);
  EXPECT_EQ(hl.data()[2], 10);
  EXPECT_EQ(hl.data()[6], 1);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(hr.data()[i * 12 + j * 4 + k], 100 * i + 10 * j + k);
        EXPECT_EQ(hl.data()[i + 2 * j + 6 * k], 100 * i + 10 * j + k);
      }
  auto lay = l.layout();
  EXPECT_EQ(lay.dimension[0], 2u);
  EXPECT_EQ(lay.dimension[2], 4u);
}

TYPED_TEST(LayoutTest, StrideWithPadding) {
  using Space = TypeParam;
  // 3 x 4, rows padded to 6 elements.
  tessera::View<double**, tessera::LayoutStride, Space> s("padded", tessera::LayoutStride(3, 6, 4, 1));
  EXPECT_EQ(s.extent(0), 3u);
  EXPECT_EQ(s.extent(1), 4u);
  EXPECT_EQ(s.stride(0), 6u);
  EXPECT_EQ(s.stride(1), 1u);
  EXPECT_EQ(s.size(), 12u);
  EXPECT_EQ(s.span(), 16u);
  EXPECT_FALSE(s.span_is_contiguous());
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 3), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 4; ++j) s(i, j) = 10 * i + j;
  });
  auto h = to_host(s);  // a compact mirror
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(h(i, j), 10 * i + j);
  auto lay = s.layout();
  EXPECT_EQ(lay.stride[0], 6u);
  EXPECT_EQ(lay.dimension[1], 4u);

  // Column-major through strides.
  tessera::View<int**, tessera::LayoutStride, Space> c("colmajor", tessera::LayoutStride(3, 1, 5, 3));
  EXPECT_TRUE(c.span_is_contiguous());
  EXPECT_EQ(c.span(), 15u);
}

TYPED_TEST(LayoutTest, RightAndLeftConvertToStride) {
  using Space = TypeParam;
  tessera::View<int**, tessera::LayoutLeft, Space> l("l", 3, 5);
  tessera::View<int**, tessera::LayoutStride, Space> s = l;
  EXPECT_EQ(s.stride(0), 1u);
  EXPECT_EQ(s.stride(1), 3u);
  EXPECT_EQ(s.data(), l.data());
  // Back to LayoutLeft works (stride 1 where LayoutLeft needs it) ...
  tessera::View<int**, tessera::LayoutLeft, Space> back = s;
  EXPECT_EQ(back.stride(1), 3u);
  // ... to LayoutRight it does not, with a message naming the View.
  try {
    tessera::View<int**, tessera::LayoutRight, Space> bad = s;
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'l'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stride 1"), std::string::npos) << e.what();
  }
  // Rank 1: Right and Left are the same thing.
  tessera::View<int*, tessera::LayoutRight, Space> r1("r1", 4);
  tessera::View<int*, tessera::LayoutLeft, Space> l1 = r1;
  EXPECT_EQ(l1.data(), r1.data());
}

TYPED_TEST(LayoutTest, TiledMatchesRowMajorValues) {
  using Space = TypeParam;
  using Tiled = tessera::View<double**, tessera::LayoutTiled<4, 4>, Space>;
  Tiled t("tiled", 10, 7);
  EXPECT_EQ(t.extent(0), 10u);
  EXPECT_EQ(t.extent(1), 7u);
  EXPECT_EQ(t.size(), 70u);
  EXPECT_EQ(t.span(), 3u * 2u * 16u) << "padded up to whole tiles";
  EXPECT_FALSE(t.span_is_contiguous());
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 7; ++j) t(i, j) = 100 * i + j;
  });
  tessera::View<double**, tessera::LayoutRight, Space> r("r", 10, 7);
  tessera::deep_copy(r, t);
  auto h = to_host(r);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(h(i, j), 100 * i + j);
}

// Tiles are host-side views of tiled host memory.
TEST(LayoutTiled, TileViewsAndEdgeClipping) {
  tessera::View<int**, tessera::LayoutTiled<4, 3>, tessera::HostSpace> t("tiles", 10, 7);
  EXPECT_EQ(t.tiles(0), 3u);
  EXPECT_EQ(t.tiles(1), 3u);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 7; ++j) t(i, j) = 100 * i + j;
  // Element order: tile (0,0) first, row-major inside, then tile (0,1).
  EXPECT_EQ(t.data()[0], 0);
  EXPECT_EQ(t.data()[1], 1);
  EXPECT_EQ(t.data()[3], 100);
  EXPECT_EQ(t.data()[12], 3) << "tile (0,1) starts after the 12 elements of tile (0,0)";
  for (std::size_t ti = 0; ti < 3; ++ti)
    for (std::size_t tj = 0; tj < 3; ++tj) {
      auto tile = t.tile(ti, tj);
      static_assert(std::is_same_v<typename decltype(tile)::array_layout, tessera::LayoutStride>);
      EXPECT_EQ(tile.extent(0), ti < 2 ? 4u : 2u) << "the last tile row is clipped to the extent";
      EXPECT_EQ(tile.extent(1), tj < 2 ? 3u : 1u);
      EXPECT_EQ(tile.stride(0), 3u);
      EXPECT_EQ(tile.stride(1), 1u);
      for (std::size_t a = 0; a < tile.extent(0); ++a)
        for (std::size_t b = 0; b < tile.extent(1); ++b)
          EXPECT_EQ(tile(a, b), int(100 * (ti * 4 + a) + tj * 3 + b));
    }
  t.tile(1, 2)(0, 0) = -5;  // a tile writes through to the View
  EXPECT_EQ(t(4, 6), -5);
  try {
    (void)t.tile(3, 0);
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'tiles'"), std::string::npos) << what;
    EXPECT_NE(what.find("tile(3, 0)"), std::string::npos) << what;
    EXPECT_NE(what.find("3 x 3 tiles"), std::string::npos) << what;
  }
  // Extents that are multiples of the tile leave no padding.
  tessera::View<int**, tessera::LayoutTiled<4, 4>, tessera::HostSpace> exact("exact", 8, 8);
  EXPECT_TRUE(exact.span_is_contiguous());
}

TYPED_TEST(LayoutTest, AtomicTraitMakesEveryAccessAtomic) {
  using Space = TypeParam;
  using Atomic = tessera::MemoryTraits<tessera::Atomic>;
  tessera::View<long*, Space, Atomic> count("count", 7);
  tessera::View<double*, Space, Atomic> total("total", 1);
  static_assert(!decltype(count)::reference_type_is_lvalue_reference);
  const int n = 200000;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    count(i % 7) += 1;
    count(0)++;
    total(0) += 0.5;  // exact in binary: the sum is exact whatever the order
  });
  tessera::View<long*, Space> plain = count;  // the same memory without the trait
  auto h = to_host(plain);
  long all = 0;
  for (int k = 1; k < 7; ++k) all += h(k);
  EXPECT_EQ(h(0), n + (n + 6) / 7);
  EXPECT_EQ(all + h(0) - n, n);
  auto ht = to_host(tessera::View<double*, Space>(total));
  EXPECT_EQ(ht(0), 0.5 * n);
  // Assigning one atomic element to another copies the value.
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { count(6) = count(0); });
  EXPECT_EQ(to_host(plain)(6), h(0));
}

TYPED_TEST(LayoutTest, RandomAccessRestrictAndUnmanagedTraits) {
  using Space = TypeParam;
  static_assert(tessera::MemoryUnmanaged::is_unmanaged);
  static_assert(tessera::MemoryRandomAccess::is_random_access && tessera::MemoryRandomAccess::is_unmanaged,
                "Kokkos' MemoryRandomAccess is Unmanaged | RandomAccess");
  static_assert(tessera::MemoryTraits<tessera::Restrict>::is_restrict);
  tessera::View<int*, Space> v("v", 100);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 100), TESSERA_LAMBDA(int i) { v(i) = i; });
  tessera::View<const int*, Space, tessera::MemoryRandomAccess> ra = v;
  EXPECT_EQ(v.use_count(), 1) << "a MemoryRandomAccess view is unmanaged";
  tessera::View<int*, Space, tessera::MemoryTraits<tessera::Restrict>> out("out", 100);
  EXPECT_EQ(out.use_count(), 1);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 100), TESSERA_LAMBDA(int i) { out(i) = 2 * ra(99 - i); });
  auto h = to_host(out);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(h(i), 2 * (99 - i));
}
