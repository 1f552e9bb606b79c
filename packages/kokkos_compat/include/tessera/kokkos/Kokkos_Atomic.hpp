// Tessera's Kokkos compatibility layer: Kokkos_Atomic.hpp, mapped onto
// <tessera/core/atomics.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_ATOMIC_HPP
#define TESSERA_KOKKOS_COMPAT_ATOMIC_HPP
#include <tessera/core.hpp>
#endif
