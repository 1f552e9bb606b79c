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

// The stopping rule above, over storage that only `ops` knows (host
// vectors in refine() below, device arrays in the level-set Cholesky):
//   ops.measure_x(c)          berr of x's column c, leaving b - A x in r's;
//   ops.clear_residual(c)     r's column c := 0 (a finished column);
//   ops.correct()             d := A^-1 r, every column at once;
//   ops.measure_candidate(c)  berr of x + d in column c, leaving its
//                             residual in r's column c;
//   ops.accept(c)             x's column c := that x + d.
template <class Ops>
RefinementResult refinement_steps(Ops& ops, std::int64_t nrhs, int max_steps) {
  const double eps = std::numeric_limits<double>::epsilon();
  std::vector<double> berr(static_cast<std::size_t>(nrhs));
  std::vector<char> active(static_cast<std::size_t>(nrhs));
  std::int64_t live = 0;
  for (std::int64_t c = 0; c < nrhs; ++c) {
    berr[c] = ops.measure_x(c);
    active[c] = berr[c] > eps;
    live += active[c];
  }
  RefinementResult out;
  while (live > 0 && out.steps < max_steps) {
    for (std::int64_t c = 0; c < nrhs; ++c)  // finished columns: a zero right-hand side costs nothing wrong
      if (!active[c]) ops.clear_residual(c);
    ops.correct();
    ++out.steps;
    for (std::int64_t c = 0; c < nrhs; ++c) {
      if (!active[c]) continue;
      const double e = ops.measure_candidate(c);
      if (e < berr[c]) {
        ops.accept(c);
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

// berr from the infinity norms of r, x and b (n = 0: all are 0).
inline double normwise_backward_error(double rmax, double anorm, double xmax, double bmax) {
  const double denom = anorm * xmax + bmax;
  return denom > 0 ? rmax / denom : rmax > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// x (n x nrhs, ld n) holds A^-1 b from the factor; solve(rhs, out) applies
// A^-1 to n x nrhs columns. anorm = ||A||_inf. Host memory; the SpMV and the
// residual run in parallel on Space.
template <class Space, class T, class Solve>
RefinementResult refine(const CrsMatrix<T>& A, double anorm, const T* b, T* x, std::int64_t nrhs, int max_steps,
                        const Solve& solve) {
  struct HostOps {
    const CrsMatrix<T>& A;
    double anorm;
    const T* b;
    T* x;
    const Solve& solve;
    std::int64_t n;
    std::vector<T> r, d, ax;
    // berr of xc, leaving bc - A xc in rc.
    double measure(const T* xc, const T* bc, T* rc) {
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
      return normwise_backward_error(std::max(rmax, 0.0), anorm, std::max(xmax, 0.0), std::max(bmax, 0.0));
    }
    double measure_x(std::int64_t c) { return measure(x + c * n, b + c * n, r.data() + c * n); }
    void clear_residual(std::int64_t c) { std::fill(r.begin() + c * n, r.begin() + (c + 1) * n, T(0)); }
    void correct() { solve(r.data(), d.data()); }
    double measure_candidate(std::int64_t c) {
      T* candidate = d.data() + c * n;
      const T* xc = x + c * n;
      for (std::int64_t i = 0; i < n; ++i) candidate[i] += xc[i];
      return measure(candidate, b + c * n, r.data() + c * n);
    }
    void accept(std::int64_t c) { std::copy(d.begin() + c * n, d.begin() + (c + 1) * n, x + c * n); }
  };
  const std::int64_t n = A.num_rows();
  HostOps ops{A,
              anorm,
              b,
              x,
              solve,
              n,
              std::vector<T>(std::size_t(n * nrhs)),
              std::vector<T>(std::size_t(n * nrhs)),
              std::vector<T>(static_cast<std::size_t>(n))};
  return refinement_steps(ops, nrhs, max_steps);
}

}  // namespace tessera::sparse::detail
