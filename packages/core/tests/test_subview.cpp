// subview: every argument form (integer, ALL, std::pair, tessera::pair,
// braced {b, e}), the layout of the result by Kokkos' rules, subviews of
// subviews, and the error messages for arguments outside the extents.
#include "tessera_test_layouts.hpp"
#include "tessera_test_spaces.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}

template <class V, class L>
constexpr bool has_layout = std::is_same_v<typename V::array_layout, L>;

using tessera::ALL;
using tessera::LayoutLeft;
using tessera::LayoutRight;
using tessera::LayoutStride;

void expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

}  // namespace

template <class Space>
class SubviewTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(SubviewTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// The result layouts, decided at compile time.
TYPED_TEST(SubviewTest, ResultLayouts) {
  using Space = TypeParam;
  using R3 = tessera::View<double***, LayoutRight, Space>;
  using L3 = tessera::View<double***, LayoutLeft, Space>;
  using S3 = tessera::View<double***, LayoutStride, Space>;
  R3 r("r", 4, 5, 6);
  L3 l("l", 4, 5, 6);
  S3 s("s", tessera::LayoutStride(4, 30, 5, 6, 6, 1));
  const auto p = std::make_pair(1, 3);
  // LayoutRight: integers, then one range, then ALLs stay LayoutRight.
  static_assert(has_layout<decltype(tessera::subview(r, 1, ALL, ALL)), LayoutRight>);
  static_assert(has_layout<decltype(tessera::subview(r, 1, 2, ALL)), LayoutRight>);
  static_assert(has_layout<decltype(tessera::subview(r, p, ALL, ALL)), LayoutRight>);
  static_assert(has_layout<decltype(tessera::subview(r, 1, p, ALL)), LayoutRight>);
  static_assert(has_layout<decltype(tessera::subview(r, 1, 2, 3)), LayoutRight>);
  // Rank <= 2 results keeping the unit-stride last dimension: LayoutRight with a padded stride.
  static_assert(has_layout<decltype(tessera::subview(r, 1, p, p)), LayoutRight>);
  static_assert(has_layout<decltype(tessera::subview(r, ALL, 2, p)), LayoutRight>);
  // Otherwise LayoutStride.
  static_assert(has_layout<decltype(tessera::subview(r, ALL, 2, 3)), LayoutStride>);
  static_assert(has_layout<decltype(tessera::subview(r, ALL, p, ALL)), LayoutStride>);
  static_assert(has_layout<decltype(tessera::subview(r, ALL, ALL, 3)), LayoutStride>);
  // LayoutLeft mirrors the rules.
  static_assert(has_layout<decltype(tessera::subview(l, ALL, ALL, 1)), LayoutLeft>);
  static_assert(has_layout<decltype(tessera::subview(l, ALL, p, 1)), LayoutLeft>);
  static_assert(has_layout<decltype(tessera::subview(l, p, 1, 2)), LayoutLeft>);
  static_assert(has_layout<decltype(tessera::subview(l, p, 1, p)), LayoutLeft>);
  static_assert(has_layout<decltype(tessera::subview(l, 1, ALL, ALL)), LayoutStride>);
  static_assert(has_layout<decltype(tessera::subview(l, ALL, p, ALL)), LayoutStride>);
  // A strided source stays strided.
  static_assert(has_layout<decltype(tessera::subview(s, 1, 2, ALL)), LayoutStride>);
  // Ranks.
  static_assert(decltype(tessera::subview(r, 1, ALL, ALL))::rank == 2);
  static_assert(decltype(tessera::subview(r, 1, 2, 3))::rank == 0);
  // Memory traits and spaces carry over.
  tessera::View<int**, Space, tessera::MemoryTraits<tessera::Atomic>> a("a", 2, 2);
  static_assert(decltype(tessera::subview(a, 0, ALL))::memory_traits::is_atomic);
  static_assert(std::is_same_v<typename decltype(tessera::subview(a, 0, ALL))::memory_space, typename Space::memory_space>);
  (void)s;
}

TYPED_TEST(SubviewTest, ArgumentFormsSelectTheRightElements) {
  using Space = TypeParam;
  tessera::View<int***, LayoutRight, Space> v("v", 4, 5, 6);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 6; ++k) v(i, j, k) = 100 * i + 10 * j + k;
  });
  auto a = tessera::subview(v, 2, ALL, ALL);                                  // integer + ALL
  auto b = tessera::subview(v, std::make_pair(1, 3), 4, ALL);                 // std::pair
  auto c = tessera::subview(v, tessera::make_pair(0, 4), ALL, 5);             // tessera::pair
  auto d = tessera::subview(v, 3, tessera::pair<int, int>(1, 4), {2, 6});     // braced {b, e}
  auto e = tessera::subview(v, 1, 2, 3);                                      // rank 0
  auto f = tessera::subview(v, {1, 2}, {0, v.extent(1)}, {1, 1});             // mixed index types, empty range
  EXPECT_EQ(a.extent(0), 5u);
  EXPECT_EQ(a.extent(1), 6u);
  EXPECT_EQ(b.extent(0), 2u);
  EXPECT_EQ(b.extent(1), 6u);
  EXPECT_EQ(b.stride(0), 30u);
  EXPECT_EQ(b.stride(1), 1u);
  EXPECT_FALSE(b.span_is_contiguous());
  EXPECT_EQ(c.extent(0), 4u);
  EXPECT_EQ(c.extent(1), 5u);
  EXPECT_EQ(c.stride(0), 30u);
  EXPECT_EQ(c.stride(1), 6u);
  EXPECT_EQ(d.extent(0), 3u);
  EXPECT_EQ(d.extent(1), 4u);
  EXPECT_EQ(f.extent(2), 0u);
  EXPECT_EQ(f.size(), 0u);
  EXPECT_EQ(a.label(), "v");
  EXPECT_EQ(v.use_count(), 7);

  auto ha = to_host(a);
  auto hb = to_host(b);
  auto hc = to_host(c);
  auto hd = to_host(d);
  for (int j = 0; j < 5; ++j)
    for (int k = 0; k < 6; ++k) EXPECT_EQ(ha(j, k), 200 + 10 * j + k);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 6; ++k) EXPECT_EQ(hb(i, k), 100 * (i + 1) + 40 + k);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(hc(i, j), 100 * i + 10 * j + 5);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(hd(j, k), 300 + 10 * (j + 1) + k + 2);
  int e_value = 0;
  tessera::deep_copy(e_value, e);
  EXPECT_EQ(e_value, 123);

  // Writes through a subview reach the parent.
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i) { c(i, 0) = -i; });
  auto hv = to_host(v);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(hv(i, 0, 5), -i);
}

TYPED_TEST(SubviewTest, LayoutLeftSourceAndSubviewOfSubview) {
  using Space = TypeParam;
  tessera::View<double**, LayoutLeft, Space> m("m", 6, 8);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 6), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 8; ++j) m(i, j) = 10 * i + j;
  });
  auto col = tessera::subview(m, ALL, 3);
  static_assert(has_layout<decltype(col), LayoutLeft>);
  EXPECT_EQ(col.stride(0), 1u);
  auto block = tessera::subview(m, std::make_pair(1, 5), std::make_pair(2, 7));  // 4 x 5, padded LayoutLeft
  static_assert(has_layout<decltype(block), LayoutLeft>);
  EXPECT_EQ(block.stride(1), 6u);
  EXPECT_FALSE(block.span_is_contiguous());
  auto inner = tessera::subview(block, std::make_pair(1, 3), ALL);  // rows 2..3 of m
  auto corner = tessera::subview(inner, 1, std::make_pair(3, 5));   // m(3, 5..6)
  auto point = tessera::subview(corner, 1);                         // m(3, 6)
  static_assert(decltype(point)::rank == 0);
  auto hcol = to_host(col);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(hcol(i), 10 * i + 3);
  auto hinner = to_host(inner);
  EXPECT_EQ(hinner.extent(0), 2u);
  EXPECT_EQ(hinner.extent(1), 5u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(hinner(i, j), 10 * (i + 2) + j + 2);
  auto hcorner = to_host(corner);
  EXPECT_EQ(hcorner(0), 35.0);
  EXPECT_EQ(hcorner(1), 36.0);
  double pv = 0;
  tessera::deep_copy(pv, point);
  EXPECT_EQ(pv, 36.0);
  EXPECT_EQ(point.label(), "m");
}

// The contiguous slices are the rows of a LayoutRight matrix and the columns of
// a LayoutLeft one; either converts to the space's default rank-1 View
// (LayoutRight or LayoutLeft, the same thing at rank 1).
TYPED_TEST(SubviewTest, SubviewConstructorAndConversions) {
  using Space = TypeParam;
  tessera::View<int**, LayoutRight, Space> m("m", 3, 4);
  tessera::View<int*, Space> row(m, 1, ALL);  // Kokkos' subview constructor
  EXPECT_EQ(row.extent(0), 4u);
  EXPECT_EQ(row.data(), m.data() + 4);
  tessera::View<const int*, LayoutStride, Space> col(m, ALL, 2);
  EXPECT_EQ(col.stride(0), 4u);
  // A padded 2-D block converts to LayoutStride implicitly.
  tessera::View<int**, LayoutStride, Space> blk = tessera::subview(m, std::make_pair(0, 2), std::make_pair(1, 3));
  EXPECT_EQ(blk.stride(0), 4u);
  EXPECT_EQ(blk.stride(1), 1u);
  EXPECT_EQ(blk.data(), m.data() + 1);

  // The same, transposed, in LayoutLeft.
  tessera::View<int**, LayoutLeft, Space> t("t", 4, 3);
  tessera::View<int*, Space> column(t, ALL, 1);
  EXPECT_EQ(column.extent(0), 4u);
  EXPECT_EQ(column.data(), t.data() + 4);
  tessera::View<const int*, LayoutStride, Space> line(t, 2, ALL);
  EXPECT_EQ(line.stride(0), 4u);
  tessera::View<int**, LayoutStride, Space> tblk = tessera::subview(t, std::make_pair(1, 3), std::make_pair(0, 2));
  EXPECT_EQ(tblk.stride(0), 1u);
  EXPECT_EQ(tblk.stride(1), 4u);
  EXPECT_EQ(tblk.data(), t.data() + 1);

  // A slice across the unit-stride dimension fits no rank-1 LayoutRight or LayoutLeft View.
  expect_error([&] { tessera::View<int*, Space> across(m, ALL, 2); },
               {"'m'", "stride 4 in dimension 0", "needs stride 1"});
  expect_error([&] { tessera::View<int*, Space> across(t, 2, ALL); },
               {"'t'", "stride 4 in dimension 0", "needs stride 1"});
}

TYPED_TEST(SubviewTest, OutOfRangeArgumentsNameLabelDimensionAndRange) {
  using Space = TypeParam;
  tessera::View<int***, Space> v("cube", 4, 5, 6);
  expect_error([&] { (void)tessera::subview(v, 4, ALL, ALL); },
               {"'cube'", "dimension 0", "index 4 is outside [0, 4)"});
  expect_error([&] { (void)tessera::subview(v, -1, ALL, ALL); },
               {"'cube'", "dimension 0", "index -1 is outside [0, 4)"});
  expect_error([&] { (void)tessera::subview(v, ALL, std::make_pair(2, 6), ALL); },
               {"'cube'", "dimension 1", "range [2, 6) is outside [0, 5)"});
  expect_error([&] { (void)tessera::subview(v, ALL, 0, std::make_pair(4, 2)); },
               {"'cube'", "dimension 2", "range [4, 2) ends before it begins"});
  expect_error([&] { (void)tessera::subview(v, ALL, 0, {-2, 3}); }, {"'cube'", "dimension 2", "[-2, 3)"});
  // A range ending exactly at the extent, and an empty one at the end, are fine.
  auto tail = tessera::subview(v, ALL, std::make_pair(5, 5), std::make_pair(0, 6));
  EXPECT_EQ(tail.size(), 0u);
}

// A subview taken inside a kernel (as Kokkos code does per row): contiguous
// in LayoutRight, strided in LayoutLeft. No Layout: the space's default.
template <class Space, class... Layout>
void subview_inside_a_kernel() {
  using V = tessera::View<int**, Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  V m("m", 50, 7);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 50), TESSERA_LAMBDA(int i) {
    auto row = tessera::subview(m, i, ALL);
    for (int j = 0; j < 7; ++j) row(j) = i * 7 + j;
  });
  EXPECT_EQ(m.use_count(), 1) << "copies made in kernels leave no references behind";
  auto h = to_host(m);
  for (int i = 0; i < 50; ++i)
    for (int j = 0; j < 7; ++j) ASSERT_EQ(h(i, j), i * 7 + j) << i << "," << j;
}

TYPED_TEST(SubviewTest, InsideAKernel) {
  subview_inside_a_kernel<TypeParam>();
  subview_inside_a_kernel<TypeParam, LayoutRight>();
  subview_inside_a_kernel<TypeParam, LayoutLeft>();
}
