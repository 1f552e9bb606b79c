// resize (keeps the overlapping values) and realloc (drops them).
#include "tessera_test_spaces.hpp"

namespace {
template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}
}  // namespace

template <class Space>
class Resize : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Resize, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(Resize, KeepsOverlappingValues) {
  using Space = TypeParam;
  tessera::View<int**, Space> v("grid", 4, 5);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 5; ++j) v(i, j) = 10 * i + j + 1;
  });
  auto old = v;
  tessera::resize(v, 6, 3);  // grow one extent, shrink the other
  EXPECT_EQ(v.label(), "grid");
  EXPECT_EQ(v.extent(0), 6u);
  EXPECT_EQ(v.extent(1), 3u);
  EXPECT_NE(v.data(), old.data());
  EXPECT_EQ(old.use_count(), 1) << "other copies keep the old allocation";
  auto h = to_host(v);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(h(i, j), i < 4 ? 10 * i + j + 1 : 0) << i << "," << j;
  // Same extents: nothing happens.
  auto* before = v.data();
  tessera::resize(v, 6, 3);
  EXPECT_EQ(v.data(), before);
}

TYPED_TEST(Resize, CompileTimeExtentsAndNullViews) {
  using Space = TypeParam;
  tessera::View<double* [2], Space> v("pairs", 3);
  tessera::deep_copy(v, 2.5);
  tessera::resize(v, 5);
  EXPECT_EQ(v.extent(0), 5u);
  EXPECT_EQ(v.extent(1), 2u);
  auto h = to_host(v);
  EXPECT_EQ(h(2, 1), 2.5);
  EXPECT_EQ(h(4, 1), 0.0);
  tessera::View<int*, Space> null_view;
  tessera::resize(null_view, 7);
  EXPECT_EQ(null_view.extent(0), 7u);
  tessera::resize(tessera::WithoutInitializing, null_view, 9);
  EXPECT_EQ(null_view.extent(0), 9u);
}

TYPED_TEST(Resize, ReallocDropsValues) {
  using Space = TypeParam;
  tessera::View<int*, Space> v("buf", 10);
  tessera::deep_copy(v, 4);
  tessera::realloc(v, 20);
  EXPECT_EQ(v.extent(0), 20u);
  EXPECT_EQ(v.label(), "buf");
  {
    auto h = to_host(v);  // on host back-ends this is v itself: a second owner
    for (int i = 0; i < 20; ++i) EXPECT_EQ(h(i), 0);
  }
  // Same extents and sole owner: the memory is reused but re-initialized.
  tessera::deep_copy(v, 4);
  auto* before = v.data();
  tessera::realloc(v, 20);
  EXPECT_EQ(v.data(), before);
  EXPECT_EQ(to_host(v)(19), 0);
  tessera::realloc(tessera::WithoutInitializing, v, 3);
  EXPECT_EQ(v.extent(0), 3u);
  EXPECT_EQ(v.label(), "buf");
}
