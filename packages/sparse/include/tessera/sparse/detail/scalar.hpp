#pragma once
// The two scalars of the direct solver, double (symmetric matrices,
// A = L L^T, L D L^T) and std::complex<double> (Hermitian matrices,
// A = L L^H, L D L^H), and the few operations whose meaning differs between
// them. The numeric code is written once against these: wherever the real
// code transposes, the complex code takes the conjugate transpose, and
// conj() of a double is the double itself, so the real instantiation
// compiles to exactly the arithmetic it had before.
#include <complex>
#include <type_traits>

namespace tessera::sparse::detail {

template <class T>
inline constexpr bool is_complex_v = false;
template <class R>
inline constexpr bool is_complex_v<std::complex<R>> = true;

// x for a real scalar, its complex conjugate for a complex one.
inline double conj_if(double x) { return x; }
inline std::complex<double> conj_if(const std::complex<double>& x) { return std::conj(x); }

// The real part (the scalar itself for double): the diagonal of a
// Hermitian matrix, its pivots and the 1x1 blocks of D are real, and
// rounding may leave a trace of an imaginary part on them that must not
// count.
inline double real_part(double x) { return x; }
inline double real_part(const std::complex<double>& x) { return x.real(); }

// "double" or "complex<double>", for messages.
template <class T>
constexpr const char* scalar_name() {
  return is_complex_v<T> ? "complex<double>" : "double";
}

}  // namespace tessera::sparse::detail
