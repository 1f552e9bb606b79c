#pragma once
// DenseBackend<Space>: the dense kernels of the level-by-level factorization
// (detail/level_numeric.hpp), on column-major blocks that live in Space's
// memory. The level driver is written once over this seam and Tessera's
// parallel_for; only these calls differ between a host space (OpenBLAS and
// LAPACKE, through detail/dense_kernels.hpp) and Cuda (cuBLAS and cuSOLVER
// on the instance's stream, detail/dense_backend_cuda.hpp). So the host
// tests of the level driver run the very orchestration the GPU runs.
//
// Every call is ordered after the work queued before it on the instance
// (host: it runs at once; Cuda: stream order) and returns without waiting
// for the device. potrf_lower does not report its result to the host: it
// writes LAPACK's info (0, or the 1-based column whose pivot is not
// positive) to `info`, an int in Space's memory, which the driver reads
// back once per level. sytrf_lower does the same with the 1-based position
// of an exactly zero pivot of D.
//
// LDL^T (Bunch-Kaufman, the classic dsytrf of LAPACK and cuSOLVER): the
// interchanges are kept as std::int64_t in Space's memory, LAPACK's
// convention (k >= 0 at entry k: a 1x1 pivot, rows k and ipiv[k]-1 swapped;
// ipiv[k] = ipiv[k+1] < 0: a 2x2 pivot at k, k+1), because cuSOLVER's
// sytrs reads 64-bit ones while its sytrf writes 32-bit ones.
//
// Streams: calls that do not depend on each other (the fronts of one level)
// may be spread over several streams: fork(k) orders streams 1 .. k-1 after
// the work queued so far on the instance (stream 0), use_stream(i) sends the
// next calls to stream i, and join(k) orders the instance's later work after
// everything queued on them and makes stream 0 current again. A host space
// runs every call at once on the calling thread, so there all three are
// no-ops and the calls keep their order.
#include <tessera/core.hpp>
#include <tessera/sparse/detail/dense_kernels.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace tessera::sparse::detail {

template <class Space>
class DenseBackend {
  static_assert(is_host_execution_space<Space>::value,
                "DenseBackend: host spaces use OpenBLAS/LAPACKE; Cuda has its own specialization "
                "(detail/dense_backend_cuda.hpp)");

 public:
  explicit DenseBackend(const Space& = Space()) {}

  // Streams for independent calls (see above): no-ops on a host space.
  void fork(int /*streams*/) {}
  void use_stream(int /*stream*/) {}
  void join(int /*streams*/) {}

  // Workspace hint for a potrf of order n (Cuda sizes cuSOLVER's workspace
  // from these; nothing to do on the host).
  void reserve_potrf(std::int64_t /*n*/, std::int64_t /*lda*/) {}

  void reserve_sytrf(std::int64_t /*n*/, std::int64_t /*lda*/) {}

  // a := L with L L^T = a (lower triangle, order n); *info := LAPACK's info.
  void potrf_lower(std::int64_t n, double* a, std::int64_t lda, int* info) { *info = potrf({a, n, n, lda}); }
  // b := b L^-T; b is m x n, L lower n x n.
  void trsm_right_lower_trans(std::int64_t m, std::int64_t n, const double* l, std::int64_t ldl, double* b,
                              std::int64_t ldb) {
    detail::trsm_right_lower_trans({l, n, n, ldl}, {b, m, n, ldb});
  }
  // c := c - a a^T (lower triangle of the n x n c; a is n x k).
  void syrk_lower_minus(std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, double* c,
                        std::int64_t ldc) {
    syrk_minus({a, n, k, lda}, {c, n, n, ldc});
  }
  // x := L^-1 x (transpose: L^-T x); x is m x nrhs, L lower m x m.
  void trsm_left_lower(bool transpose, std::int64_t m, std::int64_t nrhs, const double* l, std::int64_t ldl, double* x,
                       std::int64_t ldx) {
    detail::trsm_left_lower({l, m, m, ldl}, {x, m, nrhs, ldx}, transpose, false);
  }
  // c := beta c + a b; a is m x k, b k x n.
  void gemm_ab(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, const double* b,
               std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
    detail::gemm_ab({a, m, k, lda}, {b, k, n, ldb}, beta, {c, m, n, ldc});
  }
  // c := c + alpha a^T b; a is k x m, b k x n.
  void gemm_atb(double alpha, std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                const double* b, std::int64_t ldb, double* c, std::int64_t ldc) {
    detail::gemm_atb(alpha, {a, k, m, lda}, {b, k, n, ldb}, {c, m, n, ldc});
  }
  // c := c - a b; a is m x k, b k x n.
  void gemm_ab_minus(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                     const double* b, std::int64_t ldb, double* c, std::int64_t ldc) {
    if (m == 0 || n == 0 || k == 0) return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), -1.0, a, int(lda), b, int(ldb), 1.0,
                c, int(ldc));
  }
  // b := a (transpose: a^T); b is m x n.
  void copy(bool transpose, std::int64_t m, std::int64_t n, const double* a, std::int64_t lda, double* b,
            std::int64_t ldb) {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) b[i + j * ldb] = transpose ? a[j + i * lda] : a[i + j * lda];
  }
  // a := the L and D of a = P L D L^T P^T (lower triangle, order n), the
  // interchanges into ipiv[0, n); *info := LAPACK's info.
  void sytrf_lower(std::int64_t n, double* a, std::int64_t lda, std::int64_t* ipiv, int* info) {
    if (n == 0) {
      *info = 0;
      return;
    }
    std::vector<lapack_int> piv(static_cast<std::size_t>(n));
    double query = 0;
    lapack_int r = LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', lapack_int(n), a, lapack_int(lda), piv.data(), &query, -1);
    std::vector<double> work(static_cast<std::size_t>(std::max(1.0, query)));
    if (r == 0)
      r = LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', lapack_int(n), a, lapack_int(lda), piv.data(), work.data(),
                              lapack_int(work.size()));
    for (std::int64_t k = 0; k < n; ++k) ipiv[k] = piv[std::size_t(k)];
    *info = int(r);
  }
  // x := A^-1 x with A's factor from sytrf_lower; x is n x nrhs.
  void sytrs_lower(std::int64_t n, std::int64_t nrhs, const double* a, std::int64_t lda, const std::int64_t* ipiv,
                   double* x, std::int64_t ldx) {
    if (n == 0 || nrhs == 0) return;
    std::vector<lapack_int> piv(ipiv, ipiv + n);
    LAPACKE_dsytrs_work(LAPACK_COL_MAJOR, 'L', lapack_int(n), lapack_int(nrhs), a, lapack_int(lda), piv.data(), x,
                        lapack_int(ldx));
  }
};

}  // namespace tessera::sparse::detail

#if TESSERA_ENABLE_CUDA
#include <tessera/sparse/detail/dense_backend_cuda.hpp>
#endif
