// A real Kokkos first, then Tessera's compatibility headers: must not compile.
#ifdef TESSERA_TEST_REAL_KOKKOS_CORE
#include TESSERA_TEST_REAL_KOKKOS_CORE
#else
#include "fake_kokkos/Kokkos_Core.hpp"
#endif
#include <tessera/kokkos/Kokkos_Core.hpp>
int main() { return 0; }
