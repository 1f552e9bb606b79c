// deep_copy between every pair of layouts, scalar fills, rank-0 Views,
// copies ordered on an execution-space instance, aliasing copies (which must
// behave as copies from a snapshot) and the error for mismatched extents.
#include "tessera_test_layouts.hpp"
#include "tessera_test_spaces.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}

constexpr int N0 = 5, N1 = 4, N2 = 3;
int value_at(int i, int j, int k) { return 100 * i + 10 * j + k; }

// A rank-3 View of the requested layout (LayoutStride: padded, column-major strides).
template <class Layout, class Space>
auto make_view(const std::string& label) {
  using V = tessera::View<int***, Layout, Space>;
  if constexpr (std::is_same_v<Layout, tessera::LayoutStride>)
    return V(label, tessera::LayoutStride(N0, 1, N1, N0 + 2, N2, (N0 + 2) * N1));
  else
    return V(label, N0, N1, N2);
}

template <class V>
void fill_pattern(const V& v) {
  using Exec = typename V::execution_space;
  tessera::parallel_for(tessera::RangePolicy<Exec>(0, N0), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < N1; ++j)
      for (int k = 0; k < N2; ++k) v(i, j, k) = 100 * i + 10 * j + k;
  });
}

template <class V>
void expect_pattern(const V& v, const std::string& what) {
  auto h = to_host(v);
  for (int i = 0; i < N0; ++i)
    for (int j = 0; j < N1; ++j)
      for (int k = 0; k < N2; ++k) ASSERT_EQ(h(i, j, k), value_at(i, j, k)) << what << " at " << i << "," << j << "," << k;
}

template <class DL, class SL, class Space>
void check_copy(const std::string& what) {
  auto src = make_view<SL, Space>("src");
  auto dst = make_view<DL, Space>("dst");
  fill_pattern(src);
  tessera::deep_copy(dst, src);
  expect_pattern(dst, what);
  // And into host memory of yet another layout.
  tessera::View<int***, DL, tessera::HostSpace> h("h", N0, N1, N2);
  if constexpr (!std::is_same_v<DL, tessera::LayoutStride>) {
    tessera::deep_copy(h, src);
    expect_pattern(h, what + " (to host)");
  }
}

}  // namespace

template <class Space>
class DeepCopy : public SpaceTest<Space> {};
TYPED_TEST_SUITE(DeepCopy, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(DeepCopy, BetweenAllLayouts) {
  using Space = TypeParam;
  using tessera::LayoutLeft;
  using tessera::LayoutRight;
  using tessera::LayoutStride;
  check_copy<LayoutRight, LayoutRight, Space>("Right <- Right");
  check_copy<LayoutRight, LayoutLeft, Space>("Right <- Left");
  check_copy<LayoutRight, LayoutStride, Space>("Right <- Stride");
  check_copy<LayoutLeft, LayoutRight, Space>("Left <- Right");
  check_copy<LayoutLeft, LayoutLeft, Space>("Left <- Left");
  check_copy<LayoutLeft, LayoutStride, Space>("Left <- Stride");
  check_copy<LayoutStride, LayoutRight, Space>("Stride <- Right");
  check_copy<LayoutStride, LayoutLeft, Space>("Stride <- Left");
  check_copy<LayoutStride, LayoutStride, Space>("Stride <- Stride");
}

TYPED_TEST(DeepCopy, TiledToAndFromOtherLayouts) {
  using Space = TypeParam;
  tessera::View<int**, tessera::LayoutLeft, Space> l("l", 9, 6);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 9), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 6; ++j) l(i, j) = 10 * i + j;
  });
  tessera::View<int**, tessera::LayoutTiled<4, 4>, Space> t("t", 9, 6);
  tessera::View<int**, tessera::LayoutTiled<4, 4>, Space> t2("t2", 9, 6);
  tessera::deep_copy(t, l);
  tessera::deep_copy(t2, t);  // same tiled layout: one raw copy including the padding
  tessera::View<int**, tessera::LayoutRight, Space> r("r", 9, 6);
  tessera::deep_copy(r, t2);
  auto h = to_host(r);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(h(i, j), 10 * i + j);
}

// No Layout: the space's default. A column is strided in LayoutRight and
// contiguous in LayoutLeft, so the two layouts together fill both kinds.
template <class Space, class... Layout>
void scalar_fills() {
  using V = tessera::View<double**, Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  V m("m", 6, 5);
  tessera::deep_copy(m, 1.5);
  auto col = tessera::subview(m, tessera::ALL, 2);
  tessera::deep_copy(col, -2.0);
  auto block = tessera::subview(m, std::make_pair(4, 6), std::make_pair(0, 2));  // padded
  tessera::deep_copy(block, 7.0);
  auto h = to_host(m);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) {
      const double expected = j == 2 ? -2.0 : (i >= 4 && j < 2 ? 7.0 : 1.5);
      EXPECT_EQ(h(i, j), expected) << i << "," << j;
    }
}

TYPED_TEST(DeepCopy, ScalarFillContiguousAndStrided) {
  scalar_fills<TypeParam>();
  scalar_fills<TypeParam, tessera::LayoutRight>();
  scalar_fills<TypeParam, tessera::LayoutLeft>();
}

TYPED_TEST(DeepCopy, RankZeroAndScalars) {
  using Space = TypeParam;
  tessera::View<long, Space> a("a"), b("b");
  tessera::deep_copy(a, 41L);
  tessera::deep_copy(b, a);
  long out = 0;
  tessera::deep_copy(out, b);
  EXPECT_EQ(out, 41);
  tessera::deep_copy(Space(), out, a);
  EXPECT_EQ(out, 41);
  tessera::View<long, Space> null_view;
  EXPECT_THROW(tessera::deep_copy(out, null_view), std::runtime_error);
}

TYPED_TEST(DeepCopy, WithAnExecutionSpaceInstance) {
  using Space = TypeParam;
  Space exec;
  tessera::View<int**, tessera::LayoutLeft, Space> src("src", 30, 20);
  tessera::View<int**, tessera::LayoutRight, Space> dst("dst", 30, 20);
  tessera::View<int**, tessera::LayoutRight, Space> same("same", 30, 20);
  tessera::deep_copy(exec, src, 3);
  tessera::deep_copy(exec, dst, src);  // layouts differ: element by element on `exec`
  tessera::deep_copy(exec, same, dst);  // same layout: a raw copy ordered on `exec`
  exec.fence();
  auto h = to_host(same);
  for (std::size_t k = 0; k < h.size(); ++k) ASSERT_EQ(h.data()[k], 3);
}

// No Layout: the space's default. The column is strided in LayoutRight and
// contiguous in LayoutLeft.
template <class Space, class... Layout>
void copy_onto_itself() {
  using V = tessera::View<int**, Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  V v("v", 8, 9);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 8), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 9; ++j) v(i, j) = i * 9 + j;
  });
  tessera::deep_copy(v, v);
  auto col = tessera::subview(v, tessera::ALL, 4);
  tessera::deep_copy(col, col);
  auto h = to_host(v);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 9; ++j) ASSERT_EQ(h(i, j), i * 9 + j) << i << "," << j;
}

TYPED_TEST(DeepCopy, OntoItselfIsANoOp) {
  copy_onto_itself<TypeParam>();
  copy_onto_itself<TypeParam, tessera::LayoutRight>();
  copy_onto_itself<TypeParam, tessera::LayoutLeft>();
}

// Overlapping matrices, for OverlappingSubviewsCopyFromASnapshot. No Layout:
// the space's default.
template <class Space, class... Layout>
void overlapping_matrix_copies() {
  using V = tessera::View<int**, Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  // Shift the columns of a matrix right by one: padded blocks in LayoutRight,
  // one contiguous block in LayoutLeft.
  V m("m", 6, 7);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 6), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 7; ++j) m(i, j) = 10 * i + j;
  });
  tessera::deep_copy(tessera::subview(m, tessera::ALL, std::make_pair(1, 7)),
                     tessera::subview(m, tessera::ALL, std::make_pair(0, 6)));
  auto hm = to_host(m);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(hm(i, 0), 10 * i);
    for (int j = 1; j < 7; ++j) ASSERT_EQ(hm(i, j), 10 * i + j - 1) << i << "," << j;
  }

  // In-place transpose through a strided alias of the same memory: sq's
  // strides swapped make t(i, j) the element sq(j, i), whatever sq's layout.
  V sq("sq", 5, 5);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 5), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 5; ++j) sq(i, j) = 10 * i + j;
  });
  tessera::View<int**, tessera::LayoutStride, Space, tessera::MemoryUnmanaged> t(
      sq.data(), tessera::LayoutStride(5, sq.stride(1), 5, sq.stride(0)));
  tessera::deep_copy(sq, t);
  auto hs = to_host(sq);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) ASSERT_EQ(hs(i, j), 10 * j + i) << i << "," << j;
}

// Overlapping source and destination in one allocation: the result must be
// what a copy from an untouched snapshot of the source gives.
TYPED_TEST(DeepCopy, OverlappingSubviewsCopyFromASnapshot) {
  using Space = TypeParam;
  const int n = 1000;
  tessera::View<int*, Space> a("a", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { a(i) = i; });
  // Contiguous, shifted right by 3 (a forward element loop would smear a(0..2)).
  tessera::deep_copy(tessera::subview(a, std::make_pair(3, n)), tessera::subview(a, std::make_pair(0, n - 3)));
  auto h = to_host(a);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(h(i), i);
  for (int i = 3; i < n; ++i) ASSERT_EQ(h(i), i - 3) << i;

  overlapping_matrix_copies<Space>();
  overlapping_matrix_copies<Space, tessera::LayoutRight>();
  overlapping_matrix_copies<Space, tessera::LayoutLeft>();
}

TYPED_TEST(DeepCopy, ExtentMismatchNamesBothViews) {
  using Space = TypeParam;
  tessera::View<int**, Space> dst("destination", 3, 4);
  tessera::View<int**, tessera::LayoutLeft, Space> src("source", 3, 5);
  try {
    tessera::deep_copy(dst, src);
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'destination' (3 x 4)"), std::string::npos) << what;
    EXPECT_NE(what.find("'source' (3 x 5)"), std::string::npos) << what;
  }
  // Empty Views of equal extents copy nothing and are fine.
  tessera::View<int**, Space> e1("e1", 0, 4), e2("e2", 0, 4);
  tessera::deep_copy(e1, e2);
}
