#pragma once
// An estimate of ||B||_1 for a matrix known only through products B x and
// B^T x: Hager's method with Higham's refinements ("FORTRAN codes for
// estimating the one-norm of a real or complex matrix", ACM TOMS 14, 1988,
// Algorithm 4.1), step for step LAPACK's dlacn2. With B = A^-1 (a product
// is a solve with the factor) it gives the 1-norm condition number
// ||A||_1 ||A^-1||_1 at the cost of a few solves instead of n.
//
// Why it works: ||B||_1 is the maximum of the convex function
// f(x) = ||B x||_1 over the unit 1-norm ball, attained at a vertex e_j.
// xi = sign(B x) is a subgradient of f, z = B^T xi, and f(e_j) >= f(x) +
// z^T (e_j - x): moving to the vertex j = argmax |z_j| cannot decrease f,
// and |z_j| <= z^T x means x is a local maximum. The iteration stops
// there, at a repeated sign vector, when the estimate stops growing, or
// after five products with B^T. Every estimate is ||B v||_1 for some v
// with ||v||_1 = 1, so it never exceeds ||B||_1 (in exact arithmetic): a
// lower bound, usually within a factor of 3 and often exact. A last
// product with the alternating vector x_i = (-1)^i (1 + i / (n - 1)) guards
// against the rare matrices that fool the gradient steps.
//
// Complex B (T = std::complex<double>), as LAPACK's zlacn2 (Higham's
// Algorithm 4.1 for complex matrices): the subgradient's entries are the
// phases xi_i = x_i / |x_i| (1 where x_i = 0) in place of the signs, the
// transposed products are products with B^H, the search stops when the
// estimate stops growing (there is no finite set of sign vectors to repeat),
// and the vertex test compares moduli.
#include <tessera/sparse/detail/scalar.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace tessera::sparse::detail {

// apply(v): v := B v; apply_transpose(v): v := B^T v (B^H for complex),
// both on n entries of T.
template <class T = double, class Apply, class ApplyTranspose>
double estimate_norm1(std::int64_t n, const Apply& apply, const ApplyTranspose& apply_transpose) {
  if (n <= 0) return 0;
  std::vector<T> x(static_cast<std::size_t>(n), T(1.0 / double(n)));
  auto norm1 = [&] {
    double s = 0;
    for (const T& v : x) s += std::abs(v);
    return s;
  };
  auto argmax_abs = [&] {
    std::int64_t j = 0;
    for (std::int64_t i = 1; i < n; ++i)
      if (std::abs(x[i]) > std::abs(x[j])) j = i;
    return j;
  };
  auto sign = [](T v) -> T {
    if constexpr (is_complex_v<T>) {
      const double m = std::abs(v);
      return m > 0 ? v / m : T(1);
    } else {
      return v >= 0 ? 1.0 : -1.0;
    }
  };
  apply(x.data());
  if (n == 1) return std::abs(x[0]);
  double est = norm1();
  std::vector<T> xi(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[i] = xi[i] = sign(x[i]);
  apply_transpose(x.data());
  std::int64_t j = argmax_abs();
  constexpr int max_iterations = 5;
  for (int iteration = 2;; ++iteration) {
    // x = B e_j
    std::fill(x.begin(), x.end(), T(0));
    x[j] = T(1);
    apply(x.data());
    const double previous = est;
    est = norm1();
    bool repeated = !is_complex_v<T>;
    for (std::int64_t i = 0; i < n && repeated; ++i) repeated = sign(x[i]) == xi[i];
    if (repeated || est <= previous) {
      est = std::max(est, previous);  // dlacn2 keeps the last; both are lower bounds
      break;
    }
    for (std::int64_t i = 0; i < n; ++i) x[i] = xi[i] = sign(x[i]);
    apply_transpose(x.data());
    const std::int64_t last = j;
    j = argmax_abs();
    const bool at_vertex = is_complex_v<T> ? std::abs(x[last]) == std::abs(x[j]) : real_part(x[last]) == std::abs(x[j]);
    if (at_vertex || iteration >= max_iterations) break;
  }
  // The alternating-sign vector, of 1-norm 3n/2: its estimate is
  // ||B x||_1 / ||x||_1 = 2 ||B x||_1 / (3n).
  for (std::int64_t i = 0; i < n; ++i) x[i] = T((i % 2 == 0 ? 1.0 : -1.0) * (1.0 + double(i) / double(n - 1)));
  apply(x.data());
  return std::max(est, 2.0 * norm1() / (3.0 * double(n)));
}

}  // namespace tessera::sparse::detail
