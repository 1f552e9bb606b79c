// Tessera's Kokkos compatibility layer: Kokkos_Sort.hpp, mapped onto
// <tessera/core/sort.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_SORT_HPP
#define TESSERA_KOKKOS_COMPAT_SORT_HPP
#include <tessera/core.hpp>
#endif
