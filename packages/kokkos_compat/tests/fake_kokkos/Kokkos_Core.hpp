// A stand-in for a real Kokkos installation's Kokkos_Core.hpp, with the same
// include-guard order as Kokkos 3 and 4: the guard first, then
// Kokkos_Core_fwd.hpp, which includes <Kokkos_Macros.hpp>, whose own guard is
// KOKKOS_MACROS_HPP. Only the refusal-to-mix tests use it.
#ifndef KOKKOS_CORE_HPP
#define KOKKOS_CORE_HPP
#include <Kokkos_Macros.hpp>
#ifndef KOKKOS_MACROS_HPP
#define KOKKOS_MACROS_HPP
#endif
namespace Kokkos {
struct RealKokkosStandIn {};
}  // namespace Kokkos
#endif
