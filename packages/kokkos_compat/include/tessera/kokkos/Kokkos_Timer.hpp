// Tessera's Kokkos compatibility layer: Kokkos_Timer.hpp, mapped onto
// <tessera/core/timer.hpp> (names under namespace Kokkos, see Kokkos_Core_fwd.hpp).
#include "Kokkos_Core_fwd.hpp"

#ifndef TESSERA_KOKKOS_COMPAT_TIMER_HPP
#define TESSERA_KOKKOS_COMPAT_TIMER_HPP
#include <tessera/core.hpp>
#endif
