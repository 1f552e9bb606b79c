// Tessera's Kokkos compatibility layer: Kokkos_Random.hpp, mapped onto
// <tessera/core/random.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_RANDOM_HPP
#define TESSERA_KOKKOS_COMPAT_RANDOM_HPP
#include <tessera/core.hpp>
#endif
