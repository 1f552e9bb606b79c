#pragma once
// The execution spaces every typed test runs on: all enabled back-ends.
#include <gtest/gtest.h>
#include <tessera/core.hpp>

#include "tessera_test_nvcc_gtest.hpp"  // public TestBody() under nvcc, for TESSERA_LAMBDA

namespace tessera::test {

// TESSERA_TEST_WITHOUT_THREADS (ci/gpu.sh defines it): the GPU check's build
// enables Threads for the benchmarks' 16-core host columns, but its cases
// run on Cuda alone, so the typed suites leave Threads out (half the host
// code to compile and to pack).
// TESSERA_TEST_WITHOUT_SERIAL (CMake's Tessera_TEST_WITHOUT_SERIAL_IN names
// the packages; the ASan row sets it): the suites run on Threads instead of
// Serial and Threads. Ignored when Threads is not among the spaces, so
// every list keeps a host back-end.
#if TESSERA_ENABLE_THREADS && !defined(TESSERA_TEST_WITHOUT_THREADS)
#if defined(TESSERA_TEST_WITHOUT_SERIAL)
#define TESSERA_TEST_SERIAL_AND_THREADS tessera::Threads
#else
#define TESSERA_TEST_SERIAL_AND_THREADS tessera::Serial, tessera::Threads
#endif
#else
#define TESSERA_TEST_SERIAL_AND_THREADS tessera::Serial
#endif

using ExecutionSpaces = ::testing::Types<TESSERA_TEST_SERIAL_AND_THREADS
#if TESSERA_ENABLE_OPENMP
                                         , tessera::OpenMP
#endif
#if TESSERA_ENABLE_CUDA
                                         , tessera::Cuda
#endif
                                         >;

// The host back-ends only, for code that runs on the host by design (the
// dist package: each rank's local work; MPI is called from the host).
// clang-format off
using HostExecutionSpaces = ::testing::Types<TESSERA_TEST_SERIAL_AND_THREADS
#if TESSERA_ENABLE_OPENMP
                                             , tessera::OpenMP
#endif
                                             >;
// clang-format on
#undef TESSERA_TEST_SERIAL_AND_THREADS

// Name printed by gtest for each typed instantiation.
struct SpaceNames {
  template <class T>
  static std::string GetName(int) {
    return T::name();
  }
};

// Skips the current test, with the back-end's reason, when Space cannot run here.
template <class Space>
bool skip_if_unavailable() {
#if TESSERA_ENABLE_CUDA
  if constexpr (std::is_same_v<Space, tessera::Cuda>) {
    if (!tessera::Cuda::impl_is_available()) return true;
  }
#endif
  return false;
}

}  // namespace tessera::test

// Fixture base: every typed test derives from this so CUDA tests skip with
// the driver's message on machines without a GPU.
template <class Space>
class SpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if TESSERA_ENABLE_CUDA
    if constexpr (std::is_same_v<Space, tessera::Cuda>) {
      if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
    }
#endif
  }
};
