#pragma once
// Shared helpers of the sparse tests: where the data lives, independent
// references (dense Cholesky, dense matrices) and error measures.
#include "tessera_test_spaces.hpp"

#include <tessera/sparse.hpp>

#include <lapacke.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace sparse_test {

namespace ts = tessera::sparse;

// The repository's examples/data; a missing file is a failure, not a skip.
inline std::string data_file(const std::string& relative) {
  const std::string path = std::string(TESSERA_DATA_DIR) + "/" + relative;
  if (!std::filesystem::exists(path)) ADD_FAILURE() << "test data file missing: " << path;
  return path;
}

// Dense column-major copy of A.
inline std::vector<double> dense(const ts::CrsMatrix<double>& A) {
  const std::int64_t n = A.num_rows();
  std::vector<double> d(std::size_t(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) d[i + A.col_idx()[k] * n] = A.values()[k];
  return d;
}

// Textbook dense Cholesky (lower, column-major), independent of the library's
// code and of LAPACK; returns false for a non-positive pivot.
inline bool dense_cholesky(std::vector<double>& a, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    double d = a[j + j * n];
    for (std::int64_t k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
    if (!(d > 0)) return false;
    a[j + j * n] = std::sqrt(d);
    for (std::int64_t i = j + 1; i < n; ++i) {
      double s = a[i + j * n];
      for (std::int64_t k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = s / a[j + j * n];
    }
  }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < j; ++i) a[i + j * n] = 0;
  return true;
}

// The dense L of the library's factor, in the final (permuted) order.
inline std::vector<double> factor_as_dense(const ts::SymbolicFactor& f, const double* lx) {
  const std::int64_t n = f.n;
  std::vector<double> l(std::size_t(n * n), 0.0);
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t m = f.nrows(s), nc = f.ncols(s), c0 = f.super_ptr[s];
    for (std::int64_t c = 0; c < nc; ++c)
      for (std::int64_t a = c; a < m; ++a) l[f.rows[f.rows_ptr[s] + a] + (c0 + c) * n] = lx[f.lx_ptr[s] + a + c * m];
  }
  return l;
}

// P A P^T, dense, for perm[new] = old.
inline std::vector<double> permuted_dense(const ts::CrsMatrix<double>& A, const std::vector<std::int64_t>& perm) {
  const std::int64_t n = A.num_rows();
  const auto d = dense(A);
  std::vector<double> p(std::size_t(n * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) p[i + j * n] = d[perm[i] + perm[j] * n];
  return p;
}

// max(m, v) that keeps a NaN: std::max(m, NaN) is m, and a NaN solution
// would pass every bound.
inline double max_nan(double m, double v) { return v <= m ? m : v; }

// Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||), infinity
// norms; NaN if x or the residual has one.
inline double backward_error(const ts::CrsMatrix<double>& A, const double* x, const double* b) {
  const std::int64_t n = A.num_rows();
  std::vector<double> ax(n);
  A.multiply(x, ax.data());
  double r = 0, xn = 0, bn = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    r = max_nan(r, std::abs(b[i] - ax[i]));
    xn = max_nan(xn, std::abs(x[i]));
    bn = max_nan(bn, std::abs(b[i]));
  }
  return r / (A.norm_inf() * xn + bn);
}

// The references below are LAPACK's dense routines on the dense copy of A:
// they share nothing with the supernodal code but the BLAS.

// The eigenvalues of the Dirichlet Laplacian on the nx^dim grid (dim 2 or
// 3; diagonal 2 dim, neighbours -1) plus a shift, in closed form: the sum
// over the axes of 2 - 2 cos(j pi / (nx + 1)), j = 1..nx, plus shift.
inline std::vector<double> grid_laplacian_eigenvalues(std::int64_t nx, double shift, int dim = 2) {
  const double pi = std::acos(-1.0);
  std::vector<double> axis;
  for (std::int64_t j = 1; j <= nx; ++j) axis.push_back(2.0 - 2.0 * std::cos(double(j) * pi / double(nx + 1)));
  std::vector<double> w;
  for (double a : axis)
    for (double b : axis) {
      if (dim == 2) w.push_back(a + b + shift);
      else
        for (double c : axis) w.push_back(a + b + c + shift);
    }
  return w;
}

// x = A^-1 b by dense LU with partial pivoting (dgesv).
inline std::vector<double> dense_solve(const ts::CrsMatrix<double>& A, std::vector<double> b) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<lapack_int> ipiv(n);
  EXPECT_EQ(LAPACKE_dgesv(LAPACK_COL_MAJOR, int(n), 1, d.data(), int(n), ipiv.data(), b.data(), int(n)), 0);
  return b;
}

// The inertia from the signs of the eigenvalues (dsyev). They are accurate
// to about n eps ||A||; closer to zero than that, the sign is not known
// and the eigenvalue counts as zero.
inline ts::Inertia dense_inertia(const ts::CrsMatrix<double>& A) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<double> w(n);
  EXPECT_EQ(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', int(n), d.data(), int(n), w.data()), 0);
  const double tol = double(n) * 2.3e-16 * std::max(std::abs(w.front()), std::abs(w.back()));
  ts::Inertia in;
  for (double v : w) (v > tol ? in.positive : v < -tol ? in.negative : in.zero) += 1;
  return in;
}

// sign and log|det A| from dense LU (dgetrf): the product of U's diagonal
// and the sign of the row interchanges.
inline ts::LogDeterminant dense_log_determinant(const ts::CrsMatrix<double>& A) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<lapack_int> ipiv(n);
  EXPECT_GE(LAPACKE_dgetrf(LAPACK_COL_MAJOR, int(n), int(n), d.data(), int(n), ipiv.data()), 0);
  ts::LogDeterminant ld;
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = d[i + i * n];
    ld.sign *= (u > 0 ? 1 : u < 0 ? -1 : 0) * (ipiv[i] != i + 1 ? -1 : 1);
    ld.log_abs += std::log(std::abs(u));
  }
  return ld;
}

// The 1-norm of a dense n x n column-major matrix (real or complex): the
// largest column sum of absolute values.
template <class T>
double max_column_abs_sum(const std::vector<T>& d, std::int64_t n) {
  double best = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += std::abs(d[std::size_t(i + j * n)]);
    best = std::max(best, s);
  }
  return best;
}

// ||A^-1||_1, the largest column sum of the dense inverse (dgetrf, dgetri).
inline double dense_inverse_norm1(const ts::CrsMatrix<double>& A) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<lapack_int> ipiv(n);
  EXPECT_EQ(LAPACKE_dgetrf(LAPACK_COL_MAJOR, int(n), int(n), d.data(), int(n), ipiv.data()), 0);
  EXPECT_EQ(LAPACKE_dgetri(LAPACK_COL_MAJOR, int(n), d.data(), int(n), ipiv.data()), 0);
  return max_column_abs_sum(d, n);
}

// b = A * ones: the right-hand side whose exact solution is all ones.
inline std::vector<double> rhs_of_ones(const ts::CrsMatrix<double>& A) {
  std::vector<double> one(A.num_rows(), 1.0), b(A.num_rows());
  A.multiply(one.data(), b.data());
  return b;
}

// A random sparse SPD matrix: a random symmetric pattern (about `degree`
// off-diagonal entries per row) with values in [-1, 1] and a dominant
// diagonal.
inline ts::CrsMatrix<double> random_spd(std::int64_t n, int degree, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  std::vector<double> rowsum(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (int k = 0; k < degree / 2 + 1; ++k) {
      const std::int64_t j = pick(gen);
      if (j >= i) continue;
      const double w = val(gen);
      r.push_back(i);
      c.push_back(j);
      v.push_back(w);
      rowsum[i] += std::abs(w);
      rowsum[j] += std::abs(w);
    }
  for (std::int64_t i = 0; i < n; ++i) {
    r.push_back(i);
    c.push_back(i);
    v.push_back(rowsum[i] + 1.0);
  }
  return ts::CrsMatrix<double>::from_triplets(n, r, c, v, ts::Storage::Lower, "random_spd");
}

// random_spd with every third diagonal entry negated: indefinite, the
// diagonal still dominant, so no pivot is small.
inline ts::CrsMatrix<double> random_indefinite(std::int64_t n, std::uint64_t seed) {
  auto A = random_spd(n, 6, seed);
  for (std::int64_t i = 0; i < n; i += 3)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      if (A.col_idx()[k] == i) A.values()[k] = -A.values()[k];
  return A;
}

}  // namespace sparse_test
