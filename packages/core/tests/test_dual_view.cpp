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

// The member types a Kokkos program names (Kokkos' DualView derives them from
// ViewTraits), and the View types of each side accept the DualView's Views.
TYPED_TEST(DualViewTest, KokkosMemberTypes) {
  using Space = TypeParam;
  using DV = tessera::DualView<double* [3], Space>;
  using Dev = typename DV::device_type;
  using HostDev = typename DV::host_mirror_space;
  static_assert(std::is_same_v<typename DV::data_type, double* [3]>);
  static_assert(std::is_same_v<typename DV::const_data_type, const double* [3]>);
  static_assert(std::is_same_v<typename DV::non_const_data_type, double* [3]>);
  static_assert(std::is_same_v<typename DV::scalar_array_type, double* [3]>);
  static_assert(std::is_same_v<typename DV::const_scalar_array_type, const double* [3]>);
  static_assert(std::is_same_v<typename DV::non_const_scalar_array_type, double* [3]>);
  static_assert(std::is_same_v<typename DV::execution_space, Space>);
  static_assert(std::is_same_v<typename DV::memory_space, typename Space::memory_space>);
  static_assert(std::is_same_v<Dev, tessera::Device<Space, typename Space::memory_space>>);
  static_assert(std::is_same_v<HostDev, typename DV::t_host::device_type>);
  static_assert(std::is_same_v<typename HostDev::memory_space, tessera::HostSpace>);
  static_assert(std::is_same_v<typename DV::memory_traits, tessera::MemoryManaged>);
  static_assert(DV::is_managed && !DV::is_random_access && !DV::is_atomic);
  static_assert(DV::is_hostspace == std::is_same_v<typename Space::memory_space, tessera::HostSpace>);
  static_assert(DV::impl_dualview_is_single_device == std::is_same_v<Dev, HostDev>);
  static_assert(std::is_same_v<typename DV::t_dev_const, typename tessera::View<const double* [3], Space>::type>);
  static_assert(std::is_same_v<typename DV::t_host_const::value_type, const double>);
  static_assert(std::is_same_v<typename DV::t_dev_um::memory_traits, tessera::MemoryUnmanaged>);
  static_assert(std::is_same_v<typename DV::t_host_um::device_type, HostDev>);
  static_assert(std::is_same_v<typename DV::t_dev_const_um::value_type, const double>);
  static_assert(std::is_same_v<typename DV::t_host_const_um::device_type, HostDev>);
  static_assert(DV::t_dev_const_randomread::memory_traits::is_random_access);
  static_assert(!DV::t_dev_const_randomread::memory_traits::is_unmanaged);
  static_assert(DV::t_host_const_randomread::memory_traits::is_random_access);
  static_assert(DV::t_dev_const_randomread_um::memory_traits::is_unmanaged);
  static_assert(std::is_same_v<typename DV::t_host_const_randomread_um::device_type, HostDev>);
  static_assert(tessera::is_dual_view_v<DV> && tessera::is_dual_view_v<const DV>);
  static_assert(!tessera::is_dual_view_v<typename DV::t_dev>);

  DV a("a", 7);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j) a.h_view(i, j) = 10 * i + j;
  a.modify_host();
  a.sync_device();
  typename DV::t_dev_const dc = a.d_view;
  typename DV::t_dev_um du = a.d_view;
  typename DV::t_dev_const_um dcu = a.d_view;
  typename DV::t_dev_const_randomread dr = a.d_view;
  typename DV::t_dev_const_randomread_um dru = a.d_view;
  typename DV::t_host_const hc = a.h_view;
  typename DV::t_host_um hu = a.h_view;
  typename DV::t_host_const_um hcu = a.h_view;
  typename DV::t_host_const_randomread hr = a.h_view;
  typename DV::t_host_const_randomread_um hru = a.h_view;
  EXPECT_EQ(dc.data(), a.d_view.data());
  EXPECT_EQ(du.data(), a.d_view.data());
  EXPECT_EQ(dcu.data(), a.d_view.data());
  EXPECT_EQ(dru.data(), a.d_view.data());
  EXPECT_EQ(hu.data(), a.h_view.data());
  EXPECT_EQ(hcu.data(), a.h_view.data());
  EXPECT_EQ(hru.data(), a.h_view.data());
  EXPECT_EQ(hc(6, 2), 62.0);
  EXPECT_EQ(hr(3, 1), 31.0);
  double sum = 0;
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, 7), TESSERA_LAMBDA(int i, double& s) { s += dr(i, 0) + dr(i, 1) + dr(i, 2); },
      sum);
  EXPECT_EQ(sum, 30.0 * 21 + 3 * 7);  // sum over i, j of 10 i + j
}

// subview of a DualView: both sides cut the same way, flags shared with the
// whole; a modification through the subview syncs the whole.
TYPED_TEST(DualViewTest, SubviewSharesFlagsAndData) {
  using Space = TypeParam;
  using DV = tessera::DualView<int**, Space>;
  DV a("a", 6, 4);
  auto row = tessera::subview(a, 2, tessera::ALL);
  auto box = tessera::subview(a, std::make_pair(1, 4), std::make_pair(1, 3));
  static_assert(tessera::is_dual_view_v<decltype(row)>);
  static_assert(decltype(row)::rank == 1 && decltype(box)::rank == 2);
  EXPECT_EQ(row.extent(0), 4u);
  EXPECT_EQ(box.extent(0), 3u);
  EXPECT_EQ(box.extent(1), 2u);
  EXPECT_EQ(row.d_view.data(), &a.d_view(2, 0));
  EXPECT_EQ(row.h_view.data(), &a.h_view(2, 0));
  for (int j = 0; j < 4; ++j) row.h_view(j) = 100 + j;
  row.modify_host();
  EXPECT_TRUE(a.need_sync_device()) << "the subview shares the whole's flags";
  a.sync_device();
  EXPECT_FALSE(row.need_sync_device());
  auto d = box.d_view;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 3), TESSERA_LAMBDA(int i) {
    d(i, 0) += 1;
    d(i, 1) += 2;
  });
  box.modify_device();
  a.sync_host();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      const int base = i == 2 ? 100 + j : 0;
      const int inc = (i >= 1 && i < 4) ? (j == 1 ? 1 : j == 2 ? 2 : 0) : 0;
      ASSERT_EQ(a.h_view(i, j), base + inc) << i << "," << j;
    }
  // The subview constructor itself, as Kokkos code spells it.
  tessera::DualView<int*, tessera::LayoutStride, Space> col(a, tessera::ALL, 3);
  EXPECT_EQ(col.extent(0), 6u);
  EXPECT_EQ(col.h_view(2), 103);
}

// deep_copy(DualView, DualView) copies the source's newer side into the
// same side of the destination and marks it modified.
TYPED_TEST(DualViewTest, DeepCopyBetweenDualViews) {
  using Space = TypeParam;
  using DV = tessera::DualView<double*, Space>;
  DV src("src", 50), dst("dst", 50);
  for (int i = 0; i < 50; ++i) src.h_view(i) = 0.5 * i;
  src.modify_host();
  tessera::deep_copy(dst, src);  // host side newer in src: host to host
  EXPECT_TRUE(dst.need_sync_device());
  for (int i = 0; i < 50; ++i) ASSERT_EQ(dst.h_view(i), 0.5 * i);
  src.sync_device();
  dst.sync_device();
  auto d = src.d_view;
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 50), TESSERA_LAMBDA(int i) { d(i) = -d(i); });
  src.modify_device();
  tessera::deep_copy(Space(), dst, src);  // device side newer: device to device
  Space().fence();
  EXPECT_TRUE(dst.need_sync_host());
  dst.sync_host();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(dst.h_view(i), -0.5 * i);
}
