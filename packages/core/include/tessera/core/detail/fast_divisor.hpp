#pragma once
// FastDivisor: unsigned 32-bit division by a divisor fixed ahead of time.
#include <tessera/core/macros.hpp>

#include <cstdint>

namespace tessera::detail {

// Division by a divisor fixed at launch, for 32-bit numerators, by a
// multiply-high, an add and a shift (Granlund and Montgomery, "Division by
// invariant integers using multiplication", PLDI 1994): mapping a thread to
// its point by 64-bit division costs dozens of instructions per dimension,
// which made a 3-D stencil compute-bound at half a raw kernel's speed.
// Valid for divisors 1 .. 2^31 and every 32-bit numerator (the test in
// core_test_utilities checks it against plain division).
struct FastDivisor {
  std::uint32_t divisor = 1, multiplier = 1, shift = 0;
  FastDivisor() = default;
  explicit FastDivisor(std::uint32_t d) : divisor(d) {
    while ((std::uint64_t(1) << shift) < d) ++shift;
    multiplier = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - d)) / d + 1);
  }
  TESSERA_INLINE_FUNCTION std::uint32_t divide(std::uint32_t n) const {
#if TESSERA_IMPL_ON_DEVICE
    const std::uint32_t high = __umulhi(n, multiplier);
#else
    const std::uint32_t high = std::uint32_t((std::uint64_t(n) * multiplier) >> 32);
#endif
    return std::uint32_t((std::uint64_t(high) + n) >> shift);
  }
};

}  // namespace tessera::detail
