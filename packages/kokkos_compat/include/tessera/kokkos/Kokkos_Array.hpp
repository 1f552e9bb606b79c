// Tessera's Kokkos compatibility layer: Kokkos_Array.hpp, mapped onto
// <tessera/core/array.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_ARRAY_HPP
#define TESSERA_KOKKOS_COMPAT_ARRAY_HPP
#include <tessera/core.hpp>
#endif
