// DenseBackend<Cuda>: cuBLAS and cuSOLVER calls of the level driver
// (detail/dense_backend_cuda.hpp). Compiled only in CUDA builds (cuda_*.cpp).
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/dense_backend.hpp>

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <string>

namespace tessera::sparse::detail {

namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw sparse_error(std::string("Cholesky on Cuda: cuBLAS ") + what + " failed: " + cublasGetStatusName(status) +
                       " (" + cublasGetStatusString(status) + ")");
}

void check(cusolverStatus_t status, const char* what) {
  // cuSOLVER has no status-to-text function: the enumerator's value, which
  // cusolver_common.h lists.
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw sparse_error(std::string("Cholesky on Cuda: cuSOLVER ") + what + " failed: cusolverStatus_t " +
                       std::to_string(int(status)));
}

int as_int(std::int64_t v) { return int(v); }  // fronts are far below 2^31 rows

}  // namespace

struct DenseBackend<Cuda>::Handles {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  // potrf's workspace, from the stream-ordered pool (CudaSpace).
  View<double*, CudaSpace> work;
  int work_count = 0;

  ~Handles() {
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
  }
};

DenseBackend<Cuda>::DenseBackend(const Cuda& exec) : m_exec(exec) {}
DenseBackend<Cuda>::~DenseBackend() = default;

DenseBackend<Cuda>::Handles& DenseBackend<Cuda>::handles() {
  if (m_handles) return *m_handles;
  Cuda::impl_require_available("tessera::sparse::Cholesky on Cuda");
  auto h = std::make_unique<Handles>();
  check(cublasCreate(&h->blas), "cublasCreate");
  check(cublasSetStream(h->blas, m_exec.cuda_stream()), "cublasSetStream");
  check(cusolverDnCreate(&h->solver), "cusolverDnCreate");
  check(cusolverDnSetStream(h->solver, m_exec.cuda_stream()), "cusolverDnSetStream");
  m_handles = std::move(h);
  return *m_handles;
}

void DenseBackend<Cuda>::reserve_potrf(std::int64_t n, std::int64_t lda) {
  m_potrf_n = std::max(m_potrf_n, n);
  m_potrf_lda = std::max(m_potrf_lda, lda);
}

void DenseBackend<Cuda>::potrf_lower(std::int64_t n, double* a, std::int64_t lda, int* info) {
  Handles& h = handles();
  // The workspace is sized once for the largest front reserved, then grown
  // only if some front asks for more (the query is a host computation).
  int lwork = 0;
  if (h.work_count == 0 && m_potrf_n > 0)
    check(cusolverDnDpotrf_bufferSize(h.solver, CUBLAS_FILL_MODE_LOWER, as_int(m_potrf_n), a, as_int(m_potrf_lda),
                                      &lwork),
          "dpotrf_bufferSize");
  int need = 0;
  check(cusolverDnDpotrf_bufferSize(h.solver, CUBLAS_FILL_MODE_LOWER, as_int(n), a, as_int(lda), &need),
        "dpotrf_bufferSize");
  lwork = std::max({lwork, need, 1});
  if (lwork > h.work_count) {
    h.work = View<double*, CudaSpace>(view_alloc("sparse::potrf_workspace", WithoutInitializing), std::size_t(lwork));
    h.work_count = lwork;
  }
  check(cusolverDnDpotrf(h.solver, CUBLAS_FILL_MODE_LOWER, as_int(n), a, as_int(lda), h.work.data(), h.work_count,
                         info),
        "dpotrf");
}

void DenseBackend<Cuda>::trsm_right_lower_trans(std::int64_t m, std::int64_t n, const double* l, std::int64_t ldl,
                                                double* b, std::int64_t ldb) {
  const double one = 1.0;
  check(cublasDtrsm(handles().blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                    as_int(m), as_int(n), &one, l, as_int(ldl), b, as_int(ldb)),
        "dtrsm");
}

void DenseBackend<Cuda>::syrk_lower_minus(std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, double* c,
                                          std::int64_t ldc) {
  const double minus_one = -1.0, one = 1.0;
  check(cublasDsyrk(handles().blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, as_int(n), as_int(k), &minus_one, a,
                    as_int(lda), &one, c, as_int(ldc)),
        "dsyrk");
}

void DenseBackend<Cuda>::trsm_left_lower(bool transpose, std::int64_t m, std::int64_t nrhs, const double* l,
                                         std::int64_t ldl, double* x, std::int64_t ldx) {
  const double one = 1.0;
  check(cublasDtrsm(handles().blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                    CUBLAS_DIAG_NON_UNIT, as_int(m), as_int(nrhs), &one, l, as_int(ldl), x, as_int(ldx)),
        "dtrsm");
}

void DenseBackend<Cuda>::gemm_ab(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                                 const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  const double one = 1.0;
  check(cublasDgemm(handles().blas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &one, a, as_int(lda), b,
                    as_int(ldb), &beta, c, as_int(ldc)),
        "dgemm");
}

void DenseBackend<Cuda>::gemm_atb(double alpha, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                                  std::int64_t lda, const double* b, std::int64_t ldb, double* c, std::int64_t ldc) {
  const double one = 1.0;
  check(cublasDgemm(handles().blas, CUBLAS_OP_T, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &alpha, a, as_int(lda),
                    b, as_int(ldb), &one, c, as_int(ldc)),
        "dgemm");
}

}  // namespace tessera::sparse::detail
