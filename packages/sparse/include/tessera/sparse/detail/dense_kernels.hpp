#pragma once
// Dense block kernels of the factorizations and solves: thin wrappers over
// OpenBLAS (CBLAS) and LAPACK (LAPACKE, the _work entry points, which skip
// LAPACKE's O(n^2) NaN scan of every input) on column-major blocks, plus an
// inline kernel for fronts so small that a BLAS call costs more than the
// arithmetic.
//
// Each kernel has a double and a std::complex<double> overload. The
// complex ones are the Hermitian counterparts (zpotrf, ztrsm, zherk,
// zgemm): where a comment below says ^T, read ^H (conjugate transpose) for
// complex blocks, so that one text of the numeric code factors A = L L^T
// or A = L L^H.
#include <tessera/sparse/detail/scalar.hpp>

#include <cblas.h>
#include <lapacke.h>

#include <cmath>
#include <complex>
#include <cstdint>

namespace tessera::sparse::detail {

// A column-major block: element (i, j) at p[i + j * ld].
template <class T>
struct Block {
  T* p = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 1;
  T& operator()(std::int64_t i, std::int64_t j) const { return p[i + j * ld]; }
};

// Cholesky of the lower triangle in place. Returns 0, or the 1-based column
// whose pivot is not positive (LAPACK's info); the pivot's value is then on
// the diagonal at that column.
inline int potrf(Block<double> a) {
  return int(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', int(a.rows), a.p, int(a.ld)));
}
// b := b * L^-T (L lower, non-unit or unit diagonal).
inline void trsm_right_lower_trans(Block<const double> l, Block<double> b, bool unit = false) {
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, unit ? CblasUnit : CblasNonUnit, int(b.rows),
              int(b.cols), 1.0, l.p, int(l.ld), b.p, int(b.ld));
}
// c := c - a * a^T (lower triangle of c).
inline void syrk_minus(Block<const double> a, Block<double> c) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, int(c.rows), int(a.cols), -1.0, a.p, int(a.ld), 1.0, c.p,
              int(c.ld));
}
// c := c - a * b^T.
inline void gemm_minus_abt(Block<const double> a, Block<const double> b, Block<double> c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, int(c.rows), int(c.cols), int(a.cols), -1.0, a.p, int(a.ld),
              b.p, int(b.ld), 1.0, c.p, int(c.ld));
}
// c := c + alpha * a^T * b.
inline void gemm_atb(double alpha, Block<const double> a, Block<const double> b, Block<double> c) {
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.rows), alpha, a.p, int(a.ld),
              b.p, int(b.ld), 1.0, c.p, int(c.ld));
}
// c := beta * c + a * b.
inline void gemm_ab(Block<const double> a, Block<const double> b, double beta, Block<double> c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.cols), 1.0, a.p, int(a.ld),
              b.p, int(b.ld), beta, c.p, int(c.ld));
}
// x := L^-1 x or L^-T x for a block of right-hand sides (L lower).
inline void trsm_left_lower(Block<const double> l, Block<double> x, bool transpose, bool unit) {
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, transpose ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              int(x.rows), int(x.cols), 1.0, l.p, int(l.ld), x.p, int(x.ld));
}

// c := c - a * b.
inline void gemm_minus_ab(Block<const double> a, Block<const double> b, Block<double> c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.cols), -1.0, a.p, int(a.ld),
              b.p, int(b.ld), 1.0, c.p, int(c.ld));
}

// ---- complex Hermitian (^T means ^H) ---------------------------------------

// LAPACKE spells its complex type as C99's double _Complex, which C++
// compilers warn about when it is named (Clang: -Wc99-extensions); this
// converts a std::complex<double>* (layout-compatible: two doubles) to
// whatever pointer type the callee declares, without naming it.
struct LapackComplexPointer {
  std::complex<double>* p;
  template <class U>
  operator U*() const {
    return reinterpret_cast<U*>(p);
  }
};

inline int potrf(Block<std::complex<double>> a) {
  return int(LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', int(a.rows), LapackComplexPointer{a.p}, int(a.ld)));
}
inline void trsm_right_lower_trans(Block<const std::complex<double>> l, Block<std::complex<double>> b,
                                   bool unit = false) {
  const std::complex<double> one(1.0);
  cblas_ztrsm(CblasColMajor, CblasRight, CblasLower, CblasConjTrans, unit ? CblasUnit : CblasNonUnit, int(b.rows),
              int(b.cols), &one, l.p, int(l.ld), b.p, int(b.ld));
}
// c := c - a * a^H (zherk: its alpha and beta are real, and it leaves c's
// diagonal exactly real).
inline void syrk_minus(Block<const std::complex<double>> a, Block<std::complex<double>> c) {
  cblas_zherk(CblasColMajor, CblasLower, CblasNoTrans, int(c.rows), int(a.cols), -1.0, a.p, int(a.ld), 1.0, c.p,
              int(c.ld));
}
inline void gemm_minus_abt(Block<const std::complex<double>> a, Block<const std::complex<double>> b,
                           Block<std::complex<double>> c) {
  const std::complex<double> minus_one(-1.0), one(1.0);
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, int(c.rows), int(c.cols), int(a.cols), &minus_one, a.p,
              int(a.ld), b.p, int(b.ld), &one, c.p, int(c.ld));
}
inline void gemm_atb(double alpha, Block<const std::complex<double>> a, Block<const std::complex<double>> b,
                     Block<std::complex<double>> c) {
  const std::complex<double> al(alpha), one(1.0);
  cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.rows), &al, a.p, int(a.ld),
              b.p, int(b.ld), &one, c.p, int(c.ld));
}
inline void gemm_ab(Block<const std::complex<double>> a, Block<const std::complex<double>> b, double beta,
                    Block<std::complex<double>> c) {
  const std::complex<double> one(1.0), be(beta);
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.cols), &one, a.p, int(a.ld),
              b.p, int(b.ld), &be, c.p, int(c.ld));
}
inline void gemm_minus_ab(Block<const std::complex<double>> a, Block<const std::complex<double>> b,
                          Block<std::complex<double>> c) {
  const std::complex<double> minus_one(-1.0), one(1.0);
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.rows), int(c.cols), int(a.cols), &minus_one, a.p,
              int(a.ld), b.p, int(b.ld), &one, c.p, int(c.ld));
}
inline void trsm_left_lower(Block<const std::complex<double>> l, Block<std::complex<double>> x, bool transpose,
                            bool unit) {
  const std::complex<double> one(1.0);
  cblas_ztrsm(CblasColMajor, CblasLeft, CblasLower, transpose ? CblasConjTrans : CblasNoTrans,
              unit ? CblasUnit : CblasNonUnit, int(x.rows), int(x.cols), &one, l.p, int(l.ld), x.p, int(x.ld));
}

// ---------------------------------------------------------------------------

// Bunch-Kaufman ("rook", bounded) LDL^T of the lower triangle in place:
// A = P L D L^T P^T with L unit lower, D block diagonal with 1x1 and 2x2
// blocks (diagonal in a, subdiagonal in e), P the interchanges in ipiv as
// LAPACK's dsytrf_rk returns them. Returns info (> 0: D(info, info) is 0).
inline int sytrf_rk(Block<double> a, double* e, lapack_int* ipiv) {
  double query = 0;
  lapack_int info =
      LAPACKE_dsytrf_rk_work(LAPACK_COL_MAJOR, 'L', int(a.rows), a.p, int(a.ld), e, ipiv, &query, -1);
  if (info != 0) return int(info);
  const int lwork = int(query) > 1 ? int(query) : 1;
  double stack_work[256];
  double* work = lwork <= 256 ? stack_work : new double[lwork];
  info = LAPACKE_dsytrf_rk_work(LAPACK_COL_MAJOR, 'L', int(a.rows), a.p, int(a.ld), e, ipiv, work, lwork);
  if (work != stack_work) delete[] work;
  return int(info);
}

// The whole dense front F = [F11; F21 | F22] of an inline (tiny) supernode:
// F11 = L11 L11^T, F21 := F21 L11^-T, F22 := F22 - F21 F21^T, by columns
// (^H and a real diagonal for complex T, as zpotrf).
// panel: m x nc (ld m); update: (m - nc) x (m - nc) (ld m - nc).
// Returns 0 or the 1-based failing column, as potrf (the pivot's real
// value left on the diagonal).
template <class T>
int front_cholesky_inline(T* panel, std::int64_t m, std::int64_t nc, T* update) {
  const std::int64_t mu = m - nc;
  for (std::int64_t j = 0; j < nc; ++j) {
    T* cj = panel + j * m;
    const double d = real_part(cj[j]);
    if (!(d > 0.0)) {
      cj[j] = T(d);
      return int(j + 1);
    }
    const double r = std::sqrt(d);
    cj[j] = T(r);
    const double inv = 1.0 / r;
    for (std::int64_t i = j + 1; i < m; ++i) cj[i] *= inv;
    for (std::int64_t k = j + 1; k < nc; ++k) {
      T* ck = panel + k * m;
      const T lkj = conj_if(cj[k]);
      for (std::int64_t i = k; i < m; ++i) ck[i] -= cj[i] * lkj;
    }
    for (std::int64_t k = nc; k < m; ++k) {
      T* uk = update + (k - nc) * mu - nc;  // uk[i] = U(i - nc, k - nc)
      const T lkj = conj_if(cj[k]);
      for (std::int64_t i = k; i < m; ++i) uk[i] -= cj[i] * lkj;
    }
  }
  return 0;
}

}  // namespace tessera::sparse::detail
