#pragma once
// Iterative refinement of the solution of A x = b given a solver for A,
// and when to stop it.
//
// A step computes r = b - A x (the SpMV in parallel on Space), d = A^-1 r
// with the factor, and x + d. Its measure is the normwise backward error
//     berr(x) = ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)
// (Rigal and Gaches): the smallest relative change of A and b, in the
// infinity norm, that makes x an exact solution. A backward-stable solve
// gives a small multiple of eps. Refinement in working precision repairs a
// solve that was not backward stable (LDL^T pivots grown inside their
// supernode, a pivot tolerance) down to about eps, and no further, since
// the residual carries errors of that size itself. Hence the stopping
// test, LAPACK's in dsyrfs/dgerfs with the normwise measure in place of
// its componentwise one:
//   - berr <= eps: nothing left to gain;
//   - the step did not halve berr: stagnation. The step is kept when berr
//     fell at all, and undone otherwise, so refinement never returns a
//     worse x than it was given;
//   - max_steps steps.
// Several right-hand sides are refined together (one solve per step) and
// each stops on its own. T is double or std::complex<double> (|.| the
// modulus).
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/spmv.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::sparse::detail {

struct RefinementResult {
  int steps = 0;              // solves with the factor after the first
  double backward_error = 0;  // berr of the returned x (largest over the right-hand sides)
};

// x (n x nrhs, ld n) holds A^-1 b from the factor; solve(rhs, out) applies
// A^-1 to n x nrhs columns. anorm = ||A||_inf.
template <class Space, class T, class Solve>
RefinementResult refine(const CrsMatrix<T>& A, double anorm, const T* b, T* x, std::int64_t nrhs, int max_steps,
                        const Solve& solve) {
  const std::int64_t n = A.num_rows();
  const double eps = std::numeric_limits<double>::epsilon();
  std::vector<T> r(std::size_t(n * nrhs)), d(std::size_t(n * nrhs)), ax(static_cast<std::size_t>(n));
  // berr of xc, leaving bc - A xc in rc.
  auto measure = [&](const T* xc, const T* bc, T* rc) {
    multiply<Space>(A, xc, ax.data());
    double rmax = 0, xmax = 0, bmax = 0;
    const T* axp = ax.data();
    parallel_reduce(
        "sparse::refinement_residual", RangePolicy<Space>(0, n),
        [=](std::int64_t i, double& rm, double& xm, double& bm) {
          rc[i] = bc[i] - axp[i];
          rm = std::max(rm, std::abs(rc[i]));
          xm = std::max(xm, std::abs(xc[i]));
          bm = std::max(bm, std::abs(bc[i]));
        },
        Max<double>(rmax), Max<double>(xmax), Max<double>(bmax));
    rmax = std::max(rmax, 0.0), xmax = std::max(xmax, 0.0), bmax = std::max(bmax, 0.0);  // n = 0: -inf
    const double denom = anorm * xmax + bmax;
    return denom > 0 ? rmax / denom : rmax > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  };
  std::vector<double> berr(static_cast<std::size_t>(nrhs));
  std::vector<char> active(static_cast<std::size_t>(nrhs));
  std::int64_t live = 0;
  for (std::int64_t c = 0; c < nrhs; ++c) {
    berr[c] = measure(x + c * n, b + c * n, r.data() + c * n);
    active[c] = berr[c] > eps;
    live += active[c];
  }
  RefinementResult out;
  while (live > 0 && out.steps < max_steps) {
    for (std::int64_t c = 0; c < nrhs; ++c)  // finished columns: a zero right-hand side costs nothing wrong
      if (!active[c]) std::fill(r.begin() + c * n, r.begin() + (c + 1) * n, T(0));
    solve(r.data(), d.data());
    ++out.steps;
    for (std::int64_t c = 0; c < nrhs; ++c) {
      if (!active[c]) continue;
      T* xc = x + c * n;
      T* candidate = d.data() + c * n;
      for (std::int64_t i = 0; i < n; ++i) candidate[i] += xc[i];
      const double e = measure(candidate, b + c * n, r.data() + c * n);
      if (e < berr[c]) {
        std::copy(candidate, candidate + n, xc);
        active[c] = e <= 0.5 * berr[c] && e > eps;
        berr[c] = e;
      } else {
        active[c] = 0;  // no better: keep x as it was
      }
      live -= !active[c];
    }
  }
  for (std::int64_t c = 0; c < nrhs; ++c) out.backward_error = std::max(out.backward_error, berr[c]);
  return out;
}

}  // namespace tessera::sparse::detail
