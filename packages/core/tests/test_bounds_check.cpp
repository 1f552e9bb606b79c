// Bounds checking: an out-of-range index aborts with the View's label, the
// index, the dimension and the extent. On a GPU the kernel cannot end the
// process: it prints the same message and traps, and the next fence throws
// an error that quotes the report (packages/core/docs/cuda.md, "Device-side
// errors"); EXPECT_BOUNDS_ERROR checks each contract on its own back-end. This translation unit turns checking
// on for itself, whatever the build's Tessera_ENABLE_BOUNDS_CHECK says (Views
// have the same members either way, so it links with the shared test main).
#undef TESSERA_ENABLE_BOUNDS_CHECK
#define TESSERA_ENABLE_BOUNDS_CHECK 1
#include "tessera_test_spaces.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

// Host back-ends: the process dies (SIGABRT) with the message. Device
// back-ends: the device's message (its printf, sent to stderr here so the
// death test sees it) and then the fence's exception, both naming the View,
// the index and the extent; the child exits with code 3 only if the fence threw.
template <class Space>
std::function<bool(int)> bounds_error_exit() {
  if constexpr (tessera::is_host_execution_space<Space>::value) return ::testing::KilledBySignal(SIGABRT);
  else return ::testing::ExitedWithCode(3);
}
template <class Space>
std::string bounds_error_output(const std::string& message) {
  if constexpr (tessera::is_host_execution_space<Space>::value) return message;
  else return message + ".*fence threw: tessera: device-side .*" + message;
}
#define EXPECT_BOUNDS_ERROR(Space, statement, message)                                             \
  EXPECT_EXIT(                                                                                     \
      {                                                                                            \
        ::dup2(2, 1);                                                                              \
        try {                                                                                      \
          statement;                                                                               \
          Space().fence();                                                                         \
        } catch (const std::exception& e) {                                                        \
          std::fprintf(stderr, "fence threw: %s\n", e.what());                                     \
          std::fflush(nullptr);                                                                    \
          std::_Exit(3);                                                                           \
        }                                                                                          \
        std::fflush(nullptr);                                                                      \
        std::_Exit(0);                                                                             \
      },                                                                                           \
      bounds_error_exit<Space>(), bounds_error_output<Space>(message))

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
  EXPECT_BOUNDS_ERROR(
      Space, tessera::parallel_for(tessera::RangePolicy<Space>(0, 11), TESSERA_LAMBDA(int i) { v(i) = 1.0; });,
      "View bounds error in View 'checked_vector': index 10 of dimension 0 is outside \\[0, 10\\)");
}

TYPED_TEST(BoundsCheck, NegativeIndexAndHigherDimensions) {
  using Space = TypeParam;
  tessera::View<int***, Space> cube("cube", 2, 3, 4);
  EXPECT_BOUNDS_ERROR(
      Space, tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { cube(1, 2, 4) = 0; });,
      "View 'cube': index 4 of dimension 2 is outside \\[0, 4\\) \\(rank 3\\)");
  EXPECT_BOUNDS_ERROR(
      Space, tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int i) { cube(i - 1, 0, 0) = 0; });,
      "View 'cube': index -1 of dimension 0 is outside \\[0, 2\\)");
  // A subview keeps the label of its allocation; operator[] and access() are checked too.
  auto row = tessera::subview(cube, 1, 2, tessera::ALL);
  EXPECT_BOUNDS_ERROR(
      Space, tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { row[7] = 0; });,
      "View 'cube': index 7 of dimension 0 is outside \\[0, 4\\)");
  EXPECT_BOUNDS_ERROR(
      Space, tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { cube.access(0, 3) = 0; });,
      "View 'cube': index 3 of dimension 1 is outside \\[0, 3\\)");
}

TEST(BoundsCheckHost, UnmanagedViewsAreCheckedWithoutALabel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> buf(6);
  tessera::View<int**, tessera::HostSpace, tessera::MemoryUnmanaged> u(buf.data(), 2, 3);
  u(1, 2) = 5;
  EXPECT_EQ(buf[5], 5);
  // A run-time row: GCC's -Warray-bounds otherwise sees the constant index's
  // store past buf's end on a path the check makes unreachable.
  volatile int row = 2;
  EXPECT_DEATH(u(row, 0) = 1, "View '\\(unmanaged\\)': index 2 of dimension 0 is outside \\[0, 2\\)");
}
