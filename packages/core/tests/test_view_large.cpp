// Views whose indices or offsets do not fit in 32 bits: extents, strides
// and offsets are 64-bit everywhere.
#include "tessera_test_spaces.hpp"

#include <cstdint>
#include <fstream>
#include <string>

namespace {

// MemAvailable from /proc/meminfo in bytes (0 when unknown).
std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

constexpr std::int64_t kBig = (std::int64_t(1) << 31) + 16;

}  // namespace

template <class Space>
class ViewLarge : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ViewLarge, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(ViewLarge, IndexBeyondTwoToThe31) {
  using Space = TypeParam;
  if (available_memory() < (std::uint64_t(6) << 30)) GTEST_SKIP() << "needs about 2 GiB of free memory";
  // Not initialized: the test is about addressing, and filling 2 GiB would
  // only cost time. Only the last 16 bytes are written and read.
  tessera::View<char*, Space> big(tessera::view_alloc(tessera::WithoutInitializing, "big"), kBig);
  EXPECT_EQ(big.extent(0), std::size_t(kBig));
  EXPECT_EQ(big.size(), std::size_t(kBig));
  using Policy = tessera::RangePolicy<Space, tessera::IndexType<std::int64_t>>;
  const std::int64_t first = std::int64_t(1) << 31;
  tessera::parallel_for(Policy(first, kBig), TESSERA_LAMBDA(std::int64_t i) { big(i) = char(i - first + 1); });
  std::int64_t sum = 0;
  tessera::parallel_reduce(Policy(first, kBig), TESSERA_LAMBDA(std::int64_t i, std::int64_t & s) { s += big(i); },
                           sum);
  EXPECT_EQ(sum, 16 * 17 / 2);

  // The same memory as 2 x 2^30+8: (1, j) reaches offsets past 2^31 with int indices.
  tessera::View<char**, Space, tessera::MemoryUnmanaged> two(big.data(), 2, (std::size_t(1) << 30) + 8);
  const int last = (1 << 30) + 7;
  char got = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 1),
                           TESSERA_LAMBDA(int, char& g) { g = two(1, last); }, got);
  EXPECT_EQ(got, 16);
  EXPECT_EQ(two.span(), std::size_t(kBig));
}

// Offsets past 2^32 computed from a strided View over a small buffer: only
// the mapping is exercised, nothing is dereferenced there.
TEST(ViewLargeMapping, StridedOffsetsBeyondTwoToThe32) {
  double buf[4] = {1, 2, 3, 4};
  const std::size_t s0 = std::size_t(1) << 32;
  tessera::View<double**, tessera::LayoutStride, tessera::HostSpace, tessera::MemoryUnmanaged> v(
      buf, tessera::LayoutStride(3, s0, 4, 1));
  EXPECT_EQ(v.stride(0), s0);
  EXPECT_EQ(v.impl_map()(2, 3), 2 * s0 + 3);
  EXPECT_EQ(v.span(), 2 * s0 + 4);
  EXPECT_FALSE(v.span_is_contiguous());
  EXPECT_EQ(v(0, 3), 4.0);
  // A View of 2^33 + 1 elements in LayoutLeft: its last stride exceeds 32 bits.
  tessera::View<char**, tessera::LayoutLeft, tessera::HostSpace, tessera::MemoryUnmanaged> l(
      reinterpret_cast<char*>(buf), std::size_t(1) << 33, 3);
  EXPECT_EQ(l.stride(1), std::size_t(1) << 33);
  EXPECT_EQ(l.size(), 3 * (std::size_t(1) << 33));
  EXPECT_EQ(l.impl_map()(5, 2), 2 * (std::size_t(1) << 33) + 5);
}
