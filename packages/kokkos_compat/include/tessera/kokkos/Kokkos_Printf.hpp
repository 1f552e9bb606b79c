// Tessera's Kokkos compatibility layer: Kokkos_Printf.hpp, mapped onto
// <tessera/core/printf.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_PRINTF_HPP
#define TESSERA_KOKKOS_COMPAT_PRINTF_HPP
#include <tessera/core.hpp>
#endif
