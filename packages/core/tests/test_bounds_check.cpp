// Bounds checking: an out-of-range index aborts with the View's label, the
// index, the dimension and the extent. This translation unit turns checking
// on for itself, whatever the build's Tessera_ENABLE_BOUNDS_CHECK says (Views
// have the same members either way, so it links with the shared test main).
#undef TESSERA_ENABLE_BOUNDS_CHECK
#define TESSERA_ENABLE_BOUNDS_CHECK 1
#include "tessera_test_spaces.hpp"

#include <vector>

static_assert(TESSERA_ENABLE_BOUNDS_CHECK == 1, "the override must win over the generated config");

template <class Space>
class BoundsCheck : public SpaceTest<Space> {
 protected:
  void SetUp() override {
    SpaceTest<Space>::SetUp();
    // Worker threads are running: re-execute the binary for each death test.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};
TYPED_TEST_SUITE(BoundsCheck, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(BoundsCheck, InRangeAccessesPass) {
  using Space = TypeParam;
  tessera::View<int**, Space> v("ok", 10, 3);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 3; ++j) v(i, j) = i + j;
    v.access(i) += 0;  // trailing indices default to 0
  });
  long sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i, long& s) { s += v(i, 2); }, sum);
  EXPECT_EQ(sum, 45 + 20);
}

TYPED_TEST(BoundsCheck, IndexPastTheExtentAborts) {
  using Space = TypeParam;
  tessera::View<double*, Space> v("checked_vector", 10);
  EXPECT_DEATH(
      {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 11), TESSERA_LAMBDA(int i) { v(i) = 1.0; });
        Space().fence();
      },
      "View bounds error in View 'checked_vector': index 10 of dimension 0 is outside \\[0, 10\\)");
}

TYPED_TEST(BoundsCheck, NegativeIndexAndHigherDimensions) {
  using Space = TypeParam;
  tessera::View<int***, Space> cube("cube", 2, 3, 4);
  EXPECT_DEATH(
      {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { cube(1, 2, 4) = 0; });
        Space().fence();
      },
      "View 'cube': index 4 of dimension 2 is outside \\[0, 4\\) \\(rank 3\\)");
  EXPECT_DEATH(
      {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int i) { cube(i - 1, 0, 0) = 0; });
        Space().fence();
      },
      "View 'cube': index -1 of dimension 0 is outside \\[0, 2\\)");
  // A subview keeps the label of its allocation; operator[] and access() are checked too.
  auto row = tessera::subview(cube, 1, 2, tessera::ALL);
  EXPECT_DEATH(
      {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { row[7] = 0; });
        Space().fence();
      },
      "View 'cube': index 7 of dimension 0 is outside \\[0, 4\\)");
  EXPECT_DEATH(
      {
        tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { cube.access(0, 3) = 0; });
        Space().fence();
      },
      "View 'cube': index 3 of dimension 1 is outside \\[0, 3\\)");
}

TEST(BoundsCheckHost, UnmanagedViewsAreCheckedWithoutALabel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> buf(6);
  tessera::View<int**, tessera::HostSpace, tessera::MemoryUnmanaged> u(buf.data(), 2, 3);
  u(1, 2) = 5;
  EXPECT_EQ(buf[5], 5);
  EXPECT_DEATH(u(2, 0) = 1, "View '\\(unmanaged\\)': index 2 of dimension 0 is outside \\[0, 2\\)");
}
