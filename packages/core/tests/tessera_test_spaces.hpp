#pragma once
// The execution spaces every typed test runs on: all enabled back-ends.
#include <gtest/gtest.h>
#include <tessera/core.hpp>

#include <string>
#include <type_traits>

#include "tessera_test_nvcc_gtest.hpp"  // public TestBody() under nvcc, for TESSERA_LAMBDA

namespace tessera::test {

using ExecutionSpaces = ::testing::Types<tessera::Serial
#if TESSERA_ENABLE_THREADS
                                         , tessera::Threads
#endif
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
using HostExecutionSpaces = ::testing::Types<tessera::Serial
#if TESSERA_ENABLE_THREADS
                                             , tessera::Threads
#endif
#if TESSERA_ENABLE_OPENMP
                                             , tessera::OpenMP
#endif
                                             >;
// clang-format on

// Name printed by gtest for each typed instantiation.
struct SpaceNames {
  template <class T>
  static std::string GetName(int) {
    return T::name();
  }
};

// The default layout differs between back-ends (LayoutRight on the host
// spaces, LayoutLeft on Cuda, as in Kokkos), so a test must not assume
// either: it takes the layout from the View type, compares through the
// View's operator(), or names the layout it is about. A body whose checks
// depend on where elements sit in memory is a template over an optional
// layout, View<T, Layout..., Space>, run with none (the space's default) and
// with LayoutRight and LayoutLeft each: a host-only build then checks the
// order Cuda uses as well.
template <class Layout>
std::string layout_name() {
  if constexpr (std::is_same_v<Layout, tessera::LayoutRight>) return "LayoutRight";
  else if constexpr (std::is_same_v<Layout, tessera::LayoutLeft>) return "LayoutLeft";
  else if constexpr (std::is_same_v<Layout, tessera::LayoutStride>) return "LayoutStride";
  else return "another layout";
}

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
