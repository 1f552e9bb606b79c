// DualView: modify/sync flags, copies only when needed, errors, resize/realloc.
#include "tessera_test_spaces.hpp"

#include <tessera/core/dual_view.hpp>

#include <string>

template <class Space>
class DualViewTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(DualViewTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(DualViewTest, TypesAndAllocation) {
  using Space = TypeParam;
  using DV = tessera::DualView<double**, Space>;
  static_assert(std::is_same_v<typename DV::t_dev, tessera::View<double**, Space>>);
  static_assert(std::is_same_v<typename DV::t_host, typename tessera::View<double**, Space>::HostMirror>);
  static_assert(std::is_same_v<typename DV::memory_space, typename Space::memory_space>);
  DV a("a", 10, 3);
  EXPECT_EQ(a.extent(0), 10u);
  EXPECT_EQ(a.extent(1), 3u);
  EXPECT_EQ(a.size(), 30u);
  EXPECT_EQ(a.label(), "a");
  EXPECT_TRUE(a.is_allocated());
  EXPECT_EQ(a.h_view.extent(0), 10u);
  EXPECT_EQ(a.h_view.extent(1), 3u);
  if constexpr (DV::impl_single_allocation) {
    EXPECT_EQ(static_cast<const void*>(a.h_view.data()), static_cast<const void*>(a.d_view.data()))
        << "host-accessible device memory: h_view is the same allocation";
  } else {
    EXPECT_NE(static_cast<const void*>(a.h_view.data()), static_cast<const void*>(a.d_view.data()));
  }
  EXPECT_FALSE(a.need_sync_host());
  EXPECT_FALSE(a.need_sync_device());
  // view<Space>() picks by memory space, as Kokkos.
  EXPECT_EQ(a.template view<Space>().data(), a.d_view.data());
  EXPECT_EQ(a.template view<tessera::HostSpace>().data(),
            DV::impl_single_allocation ? a.d_view.data() : a.h_view.data());
  for (std::size_t i = 0; i < 10; ++i)
    for (std::size_t j = 0; j < 3; ++j) ASSERT_EQ(a.h_view(i, j), 0.0) << "value-initialized";
  DV empty;
  EXPECT_FALSE(empty.is_allocated());
  EXPECT_FALSE(empty.need_sync_host());
  empty.sync_host();  // a null DualView syncs as a no-op
}

TYPED_TEST(DualViewTest, HostToDeviceToHostRoundTrip) {
  using Space = TypeParam;
  const int n = 1000;
  tessera::DualView<int*, Space> a("a", n);
  for (int i = 0; i < n; ++i) a.h_view(i) = i;
  a.modify_host();
  EXPECT_TRUE(a.need_sync_device());
  EXPECT_FALSE(a.need_sync_host());
  EXPECT_TRUE(a.template need_sync<Space>());
  a.template sync<Space>();
  EXPECT_FALSE(a.need_sync_device());
  auto d = a.d_view;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { d(i) = 3 * d(i) + 1; });
  a.template modify<Space>();
  EXPECT_TRUE(a.need_sync_host());
  EXPECT_TRUE(a.template need_sync<tessera::HostSpace>());
  a.sync_host();
  EXPECT_FALSE(a.need_sync_host());
  for (int i = 0; i < n; ++i) ASSERT_EQ(a.h_view(i), 3 * i + 1) << i;
}

TYPED_TEST(DualViewTest, SyncCopiesOnlyWhenTheOtherSideWasModified) {
  using Space = TypeParam;
  tessera::DualView<int*, Space> a("a", 4);
  if constexpr (!tessera::DualView<int*, Space>::impl_single_allocation) {
    // Two allocations: an unmarked host write must not reach the device.
    a.h_view(0) = 5;
    a.sync_device();
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), a.d_view);
    EXPECT_EQ(h(0), 0) << "sync_device() copied although nothing was marked modified";
  }
  a.modify_device();
  a.sync_device();  // own side: nothing to do, flag stays
  EXPECT_TRUE(a.need_sync_host());
  a.modify_device();  // modifying the same side again is fine
  a.sync_host();
  EXPECT_FALSE(a.need_sync_host());
  EXPECT_FALSE(a.need_sync_device());
}

TYPED_TEST(DualViewTest, CopiesShareFlags) {
  using Space = TypeParam;
  tessera::DualView<float*, Space> a("shared", 8);
  auto b = a;
  b.modify_host();
  EXPECT_TRUE(a.need_sync_device()) << "copies of a DualView share their modified flags";
  a.sync_device();
  EXPECT_FALSE(b.need_sync_device());
  tessera::DualView<const float*, Space> c = a;  // const conversion shares too
  a.modify_device();
  EXPECT_TRUE(c.need_sync_host());
  c.sync_host();  // the host mirror of a const DualView is writable
  EXPECT_FALSE(a.need_sync_host());
}

TYPED_TEST(DualViewTest, ModifyingBothSidesWithoutSyncThrows) {
  using Space = TypeParam;
  tessera::DualView<double*, Space> a("velocity", 16);
  a.modify_device();
  try {
    a.modify_host();
    FAIL() << "modify_host() over unsynced device changes must throw";
  } catch (const std::runtime_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("velocity"), std::string::npos) << w;
    EXPECT_NE(w.find("modify_host"), std::string::npos) << w;
    EXPECT_NE(w.find("sync_host"), std::string::npos) << w;
  }
  EXPECT_TRUE(a.need_sync_host()) << "the failed call must not change the flags";
  a.sync_host();
  a.modify_host();  // fine after syncing
  EXPECT_THROW(a.modify_device(), std::runtime_error);
  EXPECT_THROW(a.template modify<Space>(), std::runtime_error);
  a.clear_sync_state();  // deliberately discard the host changes
  EXPECT_FALSE(a.need_sync_device());
  a.modify_device();
  EXPECT_TRUE(a.need_sync_host());
}

TYPED_TEST(DualViewTest, FromExistingViews) {
  using Space = TypeParam;
  tessera::View<int*, Space> d("dev", 5);
  tessera::DualView<int*, Space> a(d);
  EXPECT_EQ(a.d_view.data(), d.data());
  EXPECT_EQ(a.label(), "dev");
  auto h = tessera::create_mirror(d);
  tessera::DualView<int*, Space> b(d, h);
  EXPECT_EQ(b.h_view.data(), h.data());
  tessera::View<int*, Space> wrong("wrong_size", 6);
  auto hw = tessera::create_mirror(wrong);
  try {
    tessera::DualView<int*, Space> c(d, hw);
    FAIL() << "mismatched extents must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("dev"), std::string::npos) << e.what();
  }
  tessera::DualView<int*, Space> noinit(tessera::view_alloc(tessera::WithoutInitializing, "noinit"), 7);
  EXPECT_EQ(noinit.extent(0), 7u);
  EXPECT_EQ(noinit.label(), "noinit");
}

TYPED_TEST(DualViewTest, ResizeKeepsTheNewerSide) {
  using Space = TypeParam;
  tessera::DualView<int*, Space> a("a", 10);
  for (int i = 0; i < 10; ++i) a.h_view(i) = i + 1;
  a.modify_host();
  a.resize(15);
  EXPECT_EQ(a.extent(0), 15u);
  EXPECT_EQ(a.h_view.extent(0), 15u);
  EXPECT_EQ(a.d_view.extent(0), 15u);
  EXPECT_TRUE(a.need_sync_device()) << "the host side was newer and stays marked";
  a.sync_device();
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), a.d_view);
  for (int i = 0; i < 15; ++i) ASSERT_EQ(h(i), i < 10 ? i + 1 : 0) << i;

  // Device newer: its values survive a shrink.
  auto d = a.d_view;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 15), TESSERA_LAMBDA(int i) { d(i) = -i; });
  a.modify_device();
  a.resize(4);
  EXPECT_TRUE(a.need_sync_host());
  a.sync_host();
  ASSERT_EQ(a.h_view.extent(0), 4u);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(a.h_view(i), -i) << i;

  tessera::DualView<double**, Space> m("m", 3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m.h_view(i, j) = 10 * i + j;
  m.modify_host();
  m.resize(5, 2);
  m.sync_device();
  auto hm = tessera::create_mirror_view_and_copy(tessera::HostSpace(), m.d_view);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 2; ++j) ASSERT_EQ(hm(i, j), i < 3 ? 10 * i + j : 0) << i << "," << j;
}

TYPED_TEST(DualViewTest, ReallocDropsValuesAndClearsFlags) {
  using Space = TypeParam;
  tessera::DualView<int*, Space> a("a", 10);
  for (int i = 0; i < 10; ++i) a.h_view(i) = 7;
  a.modify_host();
  a.realloc(20);
  EXPECT_EQ(a.extent(0), 20u);
  EXPECT_EQ(a.label(), "a");
  EXPECT_FALSE(a.need_sync_device());
  EXPECT_FALSE(a.need_sync_host());
  for (int i = 0; i < 20; ++i) ASSERT_EQ(a.h_view(i), 0);
}

TYPED_TEST(DualViewTest, SyncWithExecutionSpaceInstance) {
  using Space = TypeParam;
  tessera::DualView<long*, Space> a("a", 100);
  for (int i = 0; i < 100; ++i) a.h_view(i) = i * i;
  a.modify_host();
  Space exec;
  a.sync_device(exec);
  exec.fence();
  EXPECT_FALSE(a.need_sync_device());
  long sum = 0;
  auto d = a.d_view;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 100), TESSERA_LAMBDA(int i, long& s) { s += d(i); }, sum);
  EXPECT_EQ(sum, 328350);
}
