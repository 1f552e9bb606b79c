// Tessera's Kokkos compatibility layer (component kokkos_compat): the
// KOKKOS_* macros of a Kokkos program, mapped onto Tessera's.
//
// This header is on the include path only through Tessera::kokkos_compat. It
// refuses to be mixed with a real Kokkos installation in one translation
// unit: the two would define the same names differently.

// No include guard on this check, so that it fires however often the file is
// reached: a real Kokkos_Core.hpp defines KOKKOS_CORE_HPP before including
// <Kokkos_Macros.hpp>, which then resolves to this file.
#if defined(KOKKOS_CORE_HPP) || (defined(KOKKOS_MACROS_HPP) && !defined(TESSERA_KOKKOS_COMPAT))
#error "Tessera kokkos_compat: a real Kokkos installation's headers are being included in the same translation unit as Tessera's Kokkos compatibility headers. Link either Kokkos::kokkos or Tessera::kokkos_compat, not both."
#endif

#ifndef TESSERA_KOKKOS_COMPAT_MACROS_HPP
#define TESSERA_KOKKOS_COMPAT_MACROS_HPP

// Defined by every header of this layer: code may test it, and the real
// Kokkos headers' guard (KOKKOS_MACROS_HPP) is left undefined so that the
// check above can tell the two apart.
#define TESSERA_KOKKOS_COMPAT 1

#include <tessera/config.hpp>
#include <tessera/core/macros.hpp>

#define KOKKOS_FUNCTION TESSERA_FUNCTION
#define KOKKOS_INLINE_FUNCTION TESSERA_INLINE_FUNCTION
#define KOKKOS_FORCEINLINE_FUNCTION TESSERA_FORCEINLINE_FUNCTION
#define KOKKOS_DEFAULTED_FUNCTION TESSERA_DEFAULTED_FUNCTION
#define KOKKOS_LAMBDA TESSERA_LAMBDA
#define KOKKOS_CLASS_LAMBDA TESSERA_CLASS_LAMBDA
#define KOKKOS_IF_ON_HOST(code) TESSERA_IF_ON_HOST(code)
#define KOKKOS_IF_ON_DEVICE(code) TESSERA_IF_ON_DEVICE(code)
#define KOKKOS_RESTRICT TESSERA_IMPL_RESTRICT
#define KOKKOS_IMPL_STRINGIFY(x) #x

// The back-ends this Tessera was built with, under Kokkos's names.
#if TESSERA_ENABLE_SERIAL
#define KOKKOS_ENABLE_SERIAL
#endif
#if TESSERA_ENABLE_THREADS
#define KOKKOS_ENABLE_THREADS
#endif
#if TESSERA_ENABLE_OPENMP
#define KOKKOS_ENABLE_OPENMP
#endif
#if TESSERA_ENABLE_CUDA
#define KOKKOS_ENABLE_CUDA
#define KOKKOS_ENABLE_CUDA_LAMBDA
#endif
#if TESSERA_ENABLE_BOUNDS_CHECK
#define KOKKOS_ENABLE_DEBUG_BOUNDS_CHECK
#endif

// Programs that test the Kokkos version see Tessera's, under its own name;
// KOKKOS_VERSION is left undefined (it identifies a real Kokkos).
#define KOKKOS_TESSERA_VERSION TESSERA_VERSION

#endif  // TESSERA_KOKKOS_COMPAT_MACROS_HPP
