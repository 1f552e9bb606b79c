// Tessera's Kokkos compatibility layer: Kokkos_Pair.hpp, mapped onto
// <tessera/core/pair.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_PAIR_HPP
#define TESSERA_KOKKOS_COMPAT_PAIR_HPP
#include <tessera/core.hpp>
#endif
