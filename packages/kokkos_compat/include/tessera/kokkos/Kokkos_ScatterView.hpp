// Tessera's Kokkos compatibility layer: Kokkos_ScatterView.hpp, mapped onto
// <tessera/core/scatter_view.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_SCATTERVIEW_HPP
#define TESSERA_KOKKOS_COMPAT_SCATTERVIEW_HPP
#include <tessera/core.hpp>
#endif
