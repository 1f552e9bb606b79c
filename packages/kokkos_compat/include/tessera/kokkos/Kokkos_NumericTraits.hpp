// Tessera's Kokkos compatibility layer: Kokkos_NumericTraits.hpp, mapped onto
// <tessera/core/numeric_traits.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_NUMERICTRAITS_HPP
#define TESSERA_KOKKOS_COMPAT_NUMERICTRAITS_HPP
#include <tessera/core.hpp>
#endif
