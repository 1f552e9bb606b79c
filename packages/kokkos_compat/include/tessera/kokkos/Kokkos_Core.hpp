// Tessera's Kokkos compatibility layer: the Kokkos_Core.hpp of a Kokkos
// program. See packages/kokkos_compat/docs/README.md for what differs.
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_CORE_HPP
#define TESSERA_KOKKOS_COMPAT_CORE_HPP
#include <tessera/core.hpp>
#endif
