// create_mirror, create_mirror_view, create_mirror_view_and_copy: new
// allocations where needed, the View itself where it is already reachable.
#include "tessera_test_spaces.hpp"

#include <string>
#include <type_traits>

template <class Space>
class Mirror : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Mirror, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(Mirror, CreateMirrorAlwaysAllocates) {
  using Space = TypeParam;
  tessera::View<int**, Space> v("v", 3, 4);
  tessera::deep_copy(v, 5);
  auto m = tessera::create_mirror(v);
  static_assert(std::is_same_v<decltype(m), typename decltype(v)::HostMirror>);
  EXPECT_NE(m.data(), v.data());
  EXPECT_EQ(m.label(), "v_mirror");
  EXPECT_EQ(m.extent(0), 3u);
  EXPECT_EQ(m.extent(1), 4u);
  EXPECT_EQ(m(2, 3), 0) << "create_mirror does not copy";
  tessera::deep_copy(m, v);
  EXPECT_EQ(m(2, 3), 5);
  auto w = tessera::create_mirror(tessera::WithoutInitializing, v);
  EXPECT_NE(w.data(), v.data());
  // A mirror in the View's own space.
  auto d = tessera::create_mirror(Space(), m);
  static_assert(std::is_same_v<typename decltype(d)::memory_space, typename Space::memory_space>);
  EXPECT_NE(static_cast<const void*>(d.data()), static_cast<const void*>(m.data()));
  EXPECT_EQ(d.extent(1), 4u);
}

TYPED_TEST(Mirror, CreateMirrorViewReusesReachableMemory) {
  using Space = TypeParam;
  tessera::View<double*, Space> v("v", 10);
  auto m = tessera::create_mirror_view(v);
  static_assert(std::is_same_v<typename decltype(m)::memory_space, tessera::HostSpace>);
  if constexpr (std::is_same_v<typename Space::memory_space, tessera::HostSpace>) {
    EXPECT_EQ(m.data(), v.data()) << "host Views are their own mirror";
    EXPECT_EQ(v.use_count(), 2);
  } else {
    EXPECT_NE(static_cast<const void*>(m.data()), static_cast<const void*>(v.data()));
  }
  auto same = tessera::create_mirror_view(Space(), v);
  EXPECT_EQ(same.data(), v.data()) << "a mirror in the View's own space is the View";
  auto wo = tessera::create_mirror_view(tessera::WithoutInitializing, v);
  EXPECT_EQ(wo.extent(0), 10u);
}

TYPED_TEST(Mirror, CreateMirrorViewAndCopy) {
  using Space = TypeParam;
  tessera::View<int**, tessera::LayoutLeft, tessera::HostSpace> h("h", 4, 6);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) h(i, j) = i * 6 + j;
  auto d = tessera::create_mirror_view_and_copy(Space(), h);
  static_assert(std::is_same_v<typename decltype(d)::array_layout, tessera::LayoutLeft>);
  static_assert(std::is_same_v<typename decltype(d)::memory_space, typename Space::memory_space>);
  long sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i, long& s) {
    for (int j = 0; j < 6; ++j) s += d(i, j) * (i * 6 + j == d(i, j) ? 1 : 1000);
  }, sum);
  EXPECT_EQ(sum, 23 * 24 / 2);
  auto back = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d);
  EXPECT_EQ(back(3, 5), 23);
}

TYPED_TEST(Mirror, StridedAndConstSourcesGetCompactWritableMirrors) {
  using Space = TypeParam;
  tessera::View<int**, Space> v("v", 5, 6);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 5), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 6; ++j) v(i, j) = 10 * i + j;
  });
  auto col = tessera::subview(v, tessera::ALL, 3);  // LayoutStride, stride 6
  auto m = tessera::create_mirror(col);
  EXPECT_EQ(m.extent(0), 5u);
  EXPECT_EQ(m.stride(0), 1u) << "a mirror never copies holes";
  tessera::deep_copy(m, col);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(m(i), 10 * i + 3);
  tessera::View<const int**, Space> c = v;
  auto cm = tessera::create_mirror(c);
  static_assert(std::is_same_v<typename decltype(cm)::value_type, int>);
  tessera::deep_copy(cm, c);
  EXPECT_EQ(cm(4, 5), 45);
}
