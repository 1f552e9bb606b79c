#pragma once
// Mathematical functions, min/max/clamp, tessera_swap and the constants of
// tessera::numbers, callable on host and device (Kokkos' Kokkos::sqrt,
// Kokkos::min, Kokkos::kokkos_swap, Kokkos::numbers::pi, ...).
//
// On the host they are the <cmath> functions; in device code the CUDA math
// library's (sqrtf for float, sqrt for double). Integer arguments are
// computed in double, as <cmath> does.
//
// Every function here is a template, so an unqualified call such as
// sqrt(2.0) in code that says `using namespace tessera;` still picks the
// C library's non-template ::sqrt and is never ambiguous.
#include <tessera/core/macros.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace tessera {

namespace detail {
// The type <cmath> computes a mixed call in: long double if either is,
// float if both are float, double otherwise (integers count as double).
template <class T, class U>
using math_promote_t =
    std::conditional_t<std::is_same_v<T, long double> || std::is_same_v<U, long double>, long double,
                       std::conditional_t<std::is_same_v<T, float> && std::is_same_v<U, float>, float, double>>;
template <class T>
inline constexpr bool math_arg = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
}  // namespace detail

// ---- min, max, clamp, swap ----------------------------------------------------

template <class T>
TESSERA_INLINE_FUNCTION constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T>
TESSERA_INLINE_FUNCTION constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T>
TESSERA_INLINE_FUNCTION constexpr const T& clamp(const T& v, const T& lo, const T& hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}
template <class T, class Compare>
TESSERA_INLINE_FUNCTION constexpr const T& clamp(const T& v, const T& lo, const T& hi, Compare less) {
  return less(v, lo) ? lo : (less(hi, v) ? hi : v);
}
// Kokkos::kokkos_swap, renamed.
template <class T>
TESSERA_INLINE_FUNCTION constexpr void tessera_swap(T& a, T& b) noexcept(
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>) {
  T tmp = static_cast<T&&>(a);
  a = static_cast<T&&>(b);
  b = static_cast<T&&>(tmp);
}
template <class T, std::size_t N>
TESSERA_INLINE_FUNCTION constexpr void tessera_swap(T (&a)[N], T (&b)[N]) {
  for (std::size_t i = 0; i < N; ++i) tessera_swap(a[i], b[i]);
}

// ---- abs ----------------------------------------------------------------------

template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION auto abs(T x) {
  if constexpr (std::is_floating_point_v<T>) {
#if TESSERA_IMPL_ON_DEVICE
    if constexpr (std::is_same_v<T, float>) return ::fabsf(x);
    else return ::fabs(x);
#else
    return std::fabs(x);
#endif
  } else if constexpr (std::is_signed_v<T>) {
    return x < 0 ? T(-x) : x;
  } else {
    return x;
  }
}

// ---- functions of one argument --------------------------------------------------

// NAME(x) for float, double and long double (host), integers in double.
#if TESSERA_IMPL_ON_DEVICE
#define TESSERA_IMPL_MATH_CALL1(NAME, x)                     \
  if constexpr (std::is_same_v<T, float>) return ::NAME##f(x); \
  else return ::NAME(x);
#define TESSERA_IMPL_MATH_CALL2(NAME, x, y)                     \
  if constexpr (std::is_same_v<R, float>) return ::NAME##f(x, y); \
  else return ::NAME(x, y);
#define TESSERA_IMPL_MATH_CALL3(NAME, x, y, z)                     \
  if constexpr (std::is_same_v<R, float>) return ::NAME##f(x, y, z); \
  else return ::NAME(x, y, z);
#else
#define TESSERA_IMPL_MATH_CALL1(NAME, x) return std::NAME(x);
#define TESSERA_IMPL_MATH_CALL2(NAME, x, y) return std::NAME(x, y);
#define TESSERA_IMPL_MATH_CALL3(NAME, x, y, z) return std::NAME(x, y, z);
#endif

#define TESSERA_IMPL_MATH_UNARY(NAME)                                          \
  template <class T>                                                           \
    requires std::is_floating_point_v<T>                                       \
  TESSERA_INLINE_FUNCTION T NAME(T x) {                                        \
    TESSERA_IMPL_MATH_CALL1(NAME, x)                                           \
  }                                                                            \
  template <class T>                                                           \
    requires(detail::math_arg<T> && std::is_integral_v<T>)                     \
  TESSERA_INLINE_FUNCTION double NAME(T x) {                                   \
    return NAME(static_cast<double>(x));                                       \
  }

TESSERA_IMPL_MATH_UNARY(fabs)
TESSERA_IMPL_MATH_UNARY(sqrt)
TESSERA_IMPL_MATH_UNARY(cbrt)
TESSERA_IMPL_MATH_UNARY(exp)
TESSERA_IMPL_MATH_UNARY(exp2)
TESSERA_IMPL_MATH_UNARY(expm1)
TESSERA_IMPL_MATH_UNARY(log)
TESSERA_IMPL_MATH_UNARY(log2)
TESSERA_IMPL_MATH_UNARY(log10)
TESSERA_IMPL_MATH_UNARY(log1p)
TESSERA_IMPL_MATH_UNARY(sin)
TESSERA_IMPL_MATH_UNARY(cos)
TESSERA_IMPL_MATH_UNARY(tan)
TESSERA_IMPL_MATH_UNARY(asin)
TESSERA_IMPL_MATH_UNARY(acos)
TESSERA_IMPL_MATH_UNARY(atan)
TESSERA_IMPL_MATH_UNARY(sinh)
TESSERA_IMPL_MATH_UNARY(cosh)
TESSERA_IMPL_MATH_UNARY(tanh)
TESSERA_IMPL_MATH_UNARY(asinh)
TESSERA_IMPL_MATH_UNARY(acosh)
TESSERA_IMPL_MATH_UNARY(atanh)
TESSERA_IMPL_MATH_UNARY(erf)
TESSERA_IMPL_MATH_UNARY(erfc)
TESSERA_IMPL_MATH_UNARY(tgamma)
TESSERA_IMPL_MATH_UNARY(lgamma)
TESSERA_IMPL_MATH_UNARY(ceil)
TESSERA_IMPL_MATH_UNARY(floor)
TESSERA_IMPL_MATH_UNARY(trunc)
TESSERA_IMPL_MATH_UNARY(round)
TESSERA_IMPL_MATH_UNARY(nearbyint)
TESSERA_IMPL_MATH_UNARY(logb)
#undef TESSERA_IMPL_MATH_UNARY

// 1 / sqrt(x) (Kokkos::rsqrt).
template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION auto rsqrt(T x) {
  using R = std::conditional_t<std::is_floating_point_v<T>, T, double>;
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (std::is_same_v<R, float>) return ::rsqrtf(x);
  else return ::rsqrt(R(x));
#else
  return R(1) / std::sqrt(R(x));
#endif
}

// ---- functions of two and three arguments ------------------------------------------

#define TESSERA_IMPL_MATH_BINARY(NAME)                                                  \
  template <class T, class U>                                                           \
    requires(detail::math_arg<T> && detail::math_arg<U>)                                \
  TESSERA_INLINE_FUNCTION detail::math_promote_t<T, U> NAME(T x, U y) {                 \
    using R = detail::math_promote_t<T, U>;                                             \
    TESSERA_IMPL_MATH_CALL2(NAME, R(x), R(y))                                           \
  }

TESSERA_IMPL_MATH_BINARY(pow)
TESSERA_IMPL_MATH_BINARY(atan2)
TESSERA_IMPL_MATH_BINARY(fmod)
TESSERA_IMPL_MATH_BINARY(remainder)
TESSERA_IMPL_MATH_BINARY(fmin)
TESSERA_IMPL_MATH_BINARY(fmax)
TESSERA_IMPL_MATH_BINARY(fdim)
TESSERA_IMPL_MATH_BINARY(copysign)
TESSERA_IMPL_MATH_BINARY(nextafter)
#undef TESSERA_IMPL_MATH_BINARY

template <class T, class U>
  requires(detail::math_arg<T> && detail::math_arg<U>)
TESSERA_INLINE_FUNCTION detail::math_promote_t<T, U> hypot(T x, U y) {
  using R = detail::math_promote_t<T, U>;
  TESSERA_IMPL_MATH_CALL2(hypot, R(x), R(y))
}
template <class T, class U, class V>
  requires(detail::math_arg<T> && detail::math_arg<U> && detail::math_arg<V>)
TESSERA_INLINE_FUNCTION auto hypot(T x, U y, V z) {
  using R = detail::math_promote_t<detail::math_promote_t<T, U>, V>;
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (std::is_same_v<R, float>) return ::norm3df(x, y, z);
  else return ::norm3d(R(x), R(y), R(z));
#else
  return std::hypot(R(x), R(y), R(z));
#endif
}
template <class T, class U, class V>
  requires(detail::math_arg<T> && detail::math_arg<U> && detail::math_arg<V>)
TESSERA_INLINE_FUNCTION auto fma(T x, U y, V z) {
  using R = detail::math_promote_t<detail::math_promote_t<T, U>, V>;
  TESSERA_IMPL_MATH_CALL3(fma, R(x), R(y), R(z))
}

#undef TESSERA_IMPL_MATH_CALL1
#undef TESSERA_IMPL_MATH_CALL2
#undef TESSERA_IMPL_MATH_CALL3

// ---- classification -------------------------------------------------------------------

template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION bool isnan(T x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return x != x;
}
template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION bool isinf(T x) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (std::is_integral_v<T>) return false;
  else return ::isinf(x);
#else
  return std::isinf(x);
#endif
}
template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION bool isfinite(T x) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (std::is_integral_v<T>) return true;
  else return ::isfinite(x);
#else
  return std::isfinite(x);
#endif
}
template <class T>
  requires detail::math_arg<T>
TESSERA_INLINE_FUNCTION bool signbit(T x) {
#if TESSERA_IMPL_ON_DEVICE
  if constexpr (std::is_integral_v<T>) return x < 0;
  else return ::signbit(x);
#else
  return std::signbit(x);
#endif
}

// ---- constants (Kokkos::numbers, after std::numbers) ----------------------------------

namespace numbers {
template <class T>
inline constexpr T e_v = static_cast<T>(2.718281828459045235360287471352662498L);
template <class T>
inline constexpr T log2e_v = static_cast<T>(1.442695040888963407359924681001892137L);
template <class T>
inline constexpr T log10e_v = static_cast<T>(0.434294481903251827651128918916605082L);
template <class T>
inline constexpr T pi_v = static_cast<T>(3.141592653589793238462643383279502884L);
template <class T>
inline constexpr T inv_pi_v = static_cast<T>(0.318309886183790671537767526745028724L);
template <class T>
inline constexpr T inv_sqrtpi_v = static_cast<T>(0.564189583547756286948079451560772586L);
template <class T>
inline constexpr T ln2_v = static_cast<T>(0.693147180559945309417232121458176568L);
template <class T>
inline constexpr T ln10_v = static_cast<T>(2.302585092994045684017991454684364208L);
template <class T>
inline constexpr T sqrt2_v = static_cast<T>(1.414213562373095048801688724209698079L);
template <class T>
inline constexpr T sqrt3_v = static_cast<T>(1.732050807568877293527446341505872367L);
template <class T>
inline constexpr T inv_sqrt3_v = static_cast<T>(0.577350269189625764509148780501957456L);
template <class T>
inline constexpr T egamma_v = static_cast<T>(0.577215664901532860606512090082402431L);
template <class T>
inline constexpr T phi_v = static_cast<T>(1.618033988749894848204586834365638118L);

inline constexpr double e = e_v<double>;
inline constexpr double log2e = log2e_v<double>;
inline constexpr double log10e = log10e_v<double>;
inline constexpr double pi = pi_v<double>;
inline constexpr double inv_pi = inv_pi_v<double>;
inline constexpr double inv_sqrtpi = inv_sqrtpi_v<double>;
inline constexpr double ln2 = ln2_v<double>;
inline constexpr double ln10 = ln10_v<double>;
inline constexpr double sqrt2 = sqrt2_v<double>;
inline constexpr double sqrt3 = sqrt3_v<double>;
inline constexpr double inv_sqrt3 = inv_sqrt3_v<double>;
inline constexpr double egamma = egamma_v<double>;
inline constexpr double phi = phi_v<double>;
}  // namespace numbers

}  // namespace tessera
