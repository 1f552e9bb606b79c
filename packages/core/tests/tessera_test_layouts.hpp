#pragma once
// Layout helpers for tests whose checks depend on where elements sit in memory.
#include <tessera/core.hpp>

#include <string>
#include <type_traits>

namespace tessera::test {

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

}  // namespace tessera::test
