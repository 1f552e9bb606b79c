#pragma once
// Independent references for the complex Hermitian tests: LAPACK's dense
// complex routines (zpotrf/zpotrs, zheev, zgesv, zgetri) on the dense copy
// of A, which share nothing with the supernodal code but the BLAS, and the
// error measures, written out here rather than taken from the library.
#include "sparse_test_util.hpp"

#include <complex>
#include <random>
#include <vector>

namespace sparse_test {

using cplx = std::complex<double>;

// LAPACKE declares its complex type as C99's double _Complex; this hands
// it a std::complex<double>* (two doubles, the same layout) without naming
// that type (Clang warns where it is named).
struct ZPtr {
  cplx* p;
  template <class U>
  operator U*() const {
    return reinterpret_cast<U*>(p);
  }
};

// Dense column-major copy of A.
inline std::vector<cplx> dense(const ts::CrsMatrix<cplx>& A) {
  const std::int64_t n = A.num_rows();
  std::vector<cplx> d(std::size_t(n * n), cplx(0));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      d[i + A.col_idx()[k] * n] = A.values()[k];
  return d;
}

// Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||), infinity
// norms (moduli); NaN if x or the residual has one.
inline double backward_error(const ts::CrsMatrix<cplx>& A, const cplx* x, const cplx* b) {
  const std::int64_t n = A.num_rows();
  std::vector<cplx> ax(n);
  A.multiply(x, ax.data());
  double r = 0, xn = 0, bn = 0, an = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    r = max_nan(r, std::abs(b[i] - ax[i]));
    xn = max_nan(xn, std::abs(x[i]));
    bn = max_nan(bn, std::abs(b[i]));
    double row = 0;
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) row += std::abs(A.values()[k]);
    an = std::max(an, row);
  }
  return r / (an * xn + bn);
}

// A reproducible complex right-hand side (nrhs columns).
inline std::vector<cplx> random_rhs(std::int64_t n, std::int64_t nrhs, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cplx> b(std::size_t(n * nrhs));
  for (auto& v : b) v = cplx(u(gen), u(gen));
  return b;
}

// max_i |x_i - y_i| / max_i |y_i|.
inline double relative_difference(const std::vector<cplx>& x, const std::vector<cplx>& y) {
  double d = 0, m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d = max_nan(d, std::abs(x[i] - y[i]));
    m = max_nan(m, std::abs(y[i]));
  }
  return d / m;
}

// Dense Cholesky of a Hermitian positive definite A (zpotrf), its solve
// (zpotrs) and log det A = 2 sum log L(j, j).
struct DenseCholesky {
  bool ok = false;
  std::vector<cplx> x;
  double log_det = 0;
};
inline DenseCholesky dense_cholesky_solve(const ts::CrsMatrix<cplx>& A, std::vector<cplx> b,
                                          std::int64_t nrhs) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  DenseCholesky out;
  out.ok = LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', int(n), ZPtr{d.data()}, int(n)) == 0;
  if (!out.ok) return out;
  EXPECT_EQ(LAPACKE_zpotrs(LAPACK_COL_MAJOR, 'L', int(n), int(nrhs), ZPtr{d.data()}, int(n), ZPtr{b.data()},
                           int(n)),
            0);
  for (std::int64_t j = 0; j < n; ++j) out.log_det += 2.0 * std::log(d[j + j * n].real());
  out.x = std::move(b);
  return out;
}

// x = A^-1 b by dense LU with partial pivoting (zgesv): a reference that
// knows nothing of A being Hermitian.
inline std::vector<cplx> dense_solve(const ts::CrsMatrix<cplx>& A, std::vector<cplx> b, std::int64_t nrhs) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<lapack_int> ipiv(n);
  EXPECT_EQ(LAPACKE_zgesv(LAPACK_COL_MAJOR, int(n), int(nrhs), ZPtr{d.data()}, int(n), ipiv.data(),
                          ZPtr{b.data()}, int(n)),
            0);
  return b;
}

// The real eigenvalues of Hermitian A (zheev), ascending.
inline std::vector<double> dense_eigenvalues(const ts::CrsMatrix<cplx>& A) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<double> w(n);
  EXPECT_EQ(LAPACKE_zheev(LAPACK_COL_MAJOR, 'N', 'L', int(n), ZPtr{d.data()}, int(n), w.data()), 0);
  return w;
}

// Inertia and log-determinant from a list of eigenvalues; an eigenvalue
// within n eps max|lambda| of zero counts as zero (its sign is not known).
inline ts::Inertia inertia_of(const std::vector<double>& w) {
  double big = 0;
  for (double v : w) big = std::max(big, std::abs(v));
  const double tol = double(w.size()) * 2.3e-16 * big;
  ts::Inertia in;
  for (double v : w) (v > tol ? in.positive : v < -tol ? in.negative : in.zero) += 1;
  return in;
}
inline ts::LogDeterminant log_det_of(const std::vector<double>& w) {
  ts::LogDeterminant ld;
  for (double v : w) {
    ld.sign *= v > 0 ? 1 : v < 0 ? -1 : 0;
    ld.log_abs += std::log(std::abs(v));
  }
  return ld;
}

// ||A^-1||_1 from the dense inverse (zgetrf, zgetri).
inline double dense_inverse_norm1(const ts::CrsMatrix<cplx>& A) {
  const std::int64_t n = A.num_rows();
  auto d = dense(A);
  std::vector<lapack_int> ipiv(n);
  EXPECT_EQ(LAPACKE_zgetrf(LAPACK_COL_MAJOR, int(n), int(n), ZPtr{d.data()}, int(n), ipiv.data()), 0);
  EXPECT_EQ(LAPACKE_zgetri(LAPACK_COL_MAJOR, int(n), ZPtr{d.data()}, int(n), ipiv.data()), 0);
  return max_column_abs_sum(d, n);
}

}  // namespace sparse_test
