// Tessera's Kokkos compatibility layer: Kokkos_DualView.hpp, mapped onto
// <tessera/core/dual_view.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_DUALVIEW_HPP
#define TESSERA_KOKKOS_COMPAT_DUALVIEW_HPP
#include <tessera/core.hpp>
#endif
