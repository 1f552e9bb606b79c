// Tessera's compatibility headers first, then a real Kokkos whose
// Kokkos_Core.hpp reaches <Kokkos_Macros.hpp> on the include path (Tessera's
// comes first there): must not compile.
#include <Kokkos_Core.hpp>
#include TESSERA_TEST_REAL_KOKKOS_CORE
int main() { return 0; }
