// Stand-in for a real Kokkos's Kokkos_Macros.hpp (see Kokkos_Core.hpp here).
#ifndef KOKKOS_MACROS_HPP
#define KOKKOS_MACROS_HPP
#endif
