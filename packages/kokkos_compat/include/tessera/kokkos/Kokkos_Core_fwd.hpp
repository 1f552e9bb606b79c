// Tessera's Kokkos compatibility layer: namespace Kokkos is namespace
// tessera. Every Tessera name a Kokkos program uses (View, parallel_for,
// RangePolicy, TeamPolicy, deep_copy, DualView, ...) is found as Kokkos::name
// through the using-directives below; Kokkos::Experimental holds the names
// Kokkos keeps there (ScatterView, ...).
#include "Kokkos_Macros.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_CORE_FWD_HPP
#define TESSERA_KOKKOS_COMPAT_CORE_FWD_HPP

namespace tessera {
namespace Experimental {}
}  // namespace tessera

namespace Kokkos {
using namespace ::tessera;
namespace Experimental {
using namespace ::tessera::Experimental;
using namespace ::tessera;
}  // namespace Experimental
}  // namespace Kokkos

#endif  // TESSERA_KOKKOS_COMPAT_CORE_FWD_HPP
