#pragma once
// CholeskyCommon<Derived, T>: what the two Cholesky drivers share, so that
// Cholesky<T, Host> (the task-DAG solver, cholesky.hpp) and
// LevelCholesky<T, Space> (the level-set one that Cuda runs,
// detail/level_cholesky.hpp) present one API with one text: the options,
// the analysis's results, the statistics, the View forms of solve and
// their argument checks, the log determinant and the condition estimate.
//
// Derived (CRTP) provides
//   void solve(T* x, const T* b, std::int64_t nrhs);            with refinement
//   void solve_with_factor(const T* b, T* x, std::int64_t nrhs); without; x may be b
// and fills the protected state in analyze() and factorize().
#include <tessera/core.hpp>
#include <tessera/sparse/cholesky_options.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/analyzed_input.hpp>
#include <tessera/sparse/detail/norm1_estimate.hpp>
#include <tessera/sparse/ordering.hpp>
#include <tessera/sparse/symbolic.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::sparse::detail {

template <class Derived, class T>
class CholeskyCommon {
 public:
  using value_type = T;

  // x := A^-1 b. Rank 1, or rank 2 (n x nrhs, LayoutLeft) for several
  // right-hand sides at once. x and b may be the same View.
  void solve(View<T*, HostSpace> x, View<const T*, HostSpace> b) {
    if (std::int64_t(x.extent(0)) != m_sym.n || std::int64_t(b.extent(0)) != m_sym.n)
      throw sparse_error("solve: x has " + std::to_string(x.extent(0)) + " rows and b " + std::to_string(b.extent(0)) +
                         ", the matrix has order " + std::to_string(m_sym.n));
    self().solve(x.data(), b.data(), 1);
  }
  void solve(View<T**, LayoutLeft, HostSpace> x, View<const T**, LayoutLeft, HostSpace> b) {
    if (std::int64_t(x.extent(0)) != m_sym.n || std::int64_t(b.extent(0)) != m_sym.n || x.extent(1) != b.extent(1))
      throw sparse_error("solve: x is " + std::to_string(x.extent(0)) + " x " + std::to_string(x.extent(1)) +
                         " and b " + std::to_string(b.extent(0)) + " x " + std::to_string(b.extent(1)) +
                         " for a matrix of order " + std::to_string(m_sym.n));
    if (x.stride(1) != x.extent(0) || b.stride(1) != b.extent(0))
      throw sparse_error("solve: x and b must be contiguous (n x nrhs, LayoutLeft, no subview with a stride)");
    self().solve(x.data(), b.data(), std::int64_t(x.extent(1)));
  }

  bool analyzed() const { return m_analyzed; }
  bool factorized() const { return m_factorized; }
  const Options& options() const { return m_opt; }
  const Stats& stats() const { return m_stats; }
  const SymbolicFactor& symbolic() const { return m_sym; }
  const OrderingResult& ordering() const { return m_ordering; }
  // perm[new] = old: the final elimination order (ordering, then postorder).
  const std::vector<std::int64_t>& permutation() const { return m_sym.perm; }
  // The inertia of A (counts of positive, negative and zero eigenvalues)
  // from the pivots, by Sylvester's law: D's 1x1 and 2x2 blocks for LDLt,
  // all positive for a completed Cholesky.
  Inertia inertia() const { return m_stats.inertia; }
  // sign and log|det(A)| from the factor: 2 sum log L(j, j) for Cholesky,
  // the 1x1 and 2x2 blocks of D for LDLt.
  LogDeterminant log_determinant() const {
    if (!m_factorized) throw sparse_error("log_determinant: no successful factorize() before it");
    return m_log_det;
  }
  // An estimate of the reciprocal 1-norm condition number
  // 1 / (||A||_1 ||A^-1||_1), ||A^-1||_1 by Hager and Higham's estimator
  // (LAPACK's dlacon/dlacn2) from a few solves with the factor (A is
  // symmetric: solves with A^-T are solves with A^-1). The estimate of
  // ||A^-1||_1 is a lower bound, so rcond() is at least the true value (up
  // to rounding) and usually within a factor of 3 of it. Computed on the
  // first call after each factorize.
  double rcond() {
    if (!m_factorized) throw sparse_error("rcond: no successful factorize() before it");
    if (m_rcond >= 0) return m_rcond;
    const double anorm = norm_a();
    if (m_sym.n == 0) {
      m_rcond = 1;  // as LAPACK's dpocon for an empty matrix
    } else if (anorm == 0) {
      m_rcond = 0;
    } else {
      // A = A^T (A = A^H for complex): products with the transpose are solves too.
      auto inverse = [&](T* v) { self().solve_with_factor(v, v, 1); };
      const double inverse_norm = estimate_norm1<T>(m_sym.n, inverse, inverse);
      m_rcond = inverse_norm > 0 ? 1.0 / (anorm * inverse_norm) : 0.0;
    }
    return m_rcond;
  }

 protected:
  explicit CholeskyCommon(const Options& options) : m_opt(options) {}
  CholeskyCommon(const CholeskyCommon&) = delete;
  CholeskyCommon& operator=(const CholeskyCommon&) = delete;
  ~CholeskyCommon() = default;

  // ||A||_inf = ||A||_1 of the factorized matrix, computed once per factorize.
  double norm_a() {
    if (m_norm_a < 0) m_norm_a = m_A.norm_inf();
    return m_norm_a;
  }

  Options m_opt;
  bool m_analyzed = false, m_factorized = false;
  OrderingResult m_ordering;
  SymbolicFactor m_sym;
  std::vector<std::vector<std::int64_t>> m_levels;
  AnalyzedInput m_input;  // what the analysis depended on, checked by factorize
  CrsMatrix<T> m_A;       // the factorized matrix (shared Views), for refinement and rcond
  LogDeterminant m_log_det;
  double m_norm_a = -1, m_rcond = -1;  // -1: not computed since the last factorize
  Stats m_stats;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace tessera::sparse::detail
