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
// back once per level.
#include <tessera/core.hpp>
#include <tessera/sparse/detail/dense_kernels.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera::sparse::detail {

template <class Space>
class DenseBackend {
  static_assert(is_host_execution_space<Space>::value,
                "DenseBackend: host spaces use OpenBLAS/LAPACKE; Cuda has its own specialization "
                "(detail/dense_backend_cuda.hpp)");

 public:
  explicit DenseBackend(const Space& = Space()) {}

  // Workspace hint for a potrf of order n (Cuda sizes cuSOLVER's workspace
  // from these; nothing to do on the host).
  void reserve_potrf(std::int64_t /*n*/, std::int64_t /*lda*/) {}

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
};

}  // namespace tessera::sparse::detail

#if TESSERA_ENABLE_CUDA
#include <tessera/sparse/detail/dense_backend_cuda.hpp>
#endif
