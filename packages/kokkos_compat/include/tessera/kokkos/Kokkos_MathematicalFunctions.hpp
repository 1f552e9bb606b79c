// Tessera's Kokkos compatibility layer: Kokkos_MathematicalFunctions.hpp, mapped onto
// <tessera/core/math.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_MATHEMATICALFUNCTIONS_HPP
#define TESSERA_KOKKOS_COMPAT_MATHEMATICALFUNCTIONS_HPP
#include <tessera/core.hpp>
#endif
