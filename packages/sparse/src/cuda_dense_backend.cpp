// DenseBackend<Cuda>: cuBLAS and cuSOLVER calls of the level driver
// (detail/dense_backend_cuda.hpp). Compiled only in CUDA builds (cuda_*.cpp),
// by nvcc: sytrf's interchanges are widened by a Tessera kernel.
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/dense_backend.hpp>

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <string>
#include <vector>

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
  // Stream 0 is the instance's (not owned); the others are made for their
  // Handles, blocking streams as CudaSpace's stream-ordered allocations
  // assume (cuda_space.cpp: a block is usable at once on a blocking stream,
  // and freed after its work), with an event that join() waits for.
  cudaStream_t stream = nullptr;
  bool owns_stream = false;
  cudaEvent_t done = nullptr;
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  // potrf's workspace, from the stream-ordered pool (CudaSpace).
  View<double*, CudaSpace> work;
  int work_count = 0;
  // sytrf's workspace and its 32-bit interchanges (widened into the
  // caller's 64-bit ones, which sytrs reads); sytrs's workspaces and info.
  View<double*, CudaSpace> sytrf_work;
  int sytrf_work_count = 0;
  View<int*, CudaSpace> ipiv32;
  View<unsigned char*, CudaSpace> sytrs_work;
  std::vector<unsigned char> sytrs_host_work;
  View<int*, CudaSpace> sytrs_info;

  ~Handles() {
    // Its workspaces' Views are freed after this body, on the legacy
    // stream: its own stream's work must be over by then.
    if (owns_stream) cudaStreamSynchronize(stream);
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
    if (done) cudaEventDestroy(done);
    if (owns_stream) cudaStreamDestroy(stream);
  }
};

DenseBackend<Cuda>::DenseBackend(const Cuda& exec) : m_exec(exec) {}
DenseBackend<Cuda>::~DenseBackend() {
  m_lanes.clear();
  if (m_fork_event) cudaEventDestroy(static_cast<cudaEvent_t>(m_fork_event));
}

DenseBackend<Cuda>::Handles& DenseBackend<Cuda>::lane(int stream) {
  if (std::size_t(stream) < m_lanes.size() && m_lanes[std::size_t(stream)]) return *m_lanes[std::size_t(stream)];
  Cuda::impl_require_available("tessera::sparse::Cholesky on Cuda");
  if (m_lanes.size() <= std::size_t(stream)) m_lanes.resize(std::size_t(stream) + 1);
  auto h = std::make_unique<Handles>();
  if (stream == 0) {
    h->stream = m_exec.cuda_stream();
  } else {
    cudaError_t e = cudaStreamCreate(&h->stream);
    if (e != cudaSuccess)
      throw sparse_error("Cholesky on Cuda: creating library stream " + std::to_string(stream) +
                         " (Options::dense_streams) failed: " + cudaGetErrorString(e));
    h->owns_stream = true;
    e = cudaEventCreateWithFlags(&h->done, cudaEventDisableTiming);
    if (e != cudaSuccess)
      throw sparse_error(std::string("Cholesky on Cuda: creating a stream's event failed: ") + cudaGetErrorString(e));
  }
  check(cublasCreate(&h->blas), "cublasCreate");
  check(cublasSetStream(h->blas, h->stream), "cublasSetStream");
  check(cusolverDnCreate(&h->solver), "cusolverDnCreate");
  check(cusolverDnSetStream(h->solver, h->stream), "cusolverDnSetStream");
  m_lanes[std::size_t(stream)] = std::move(h);
  return *m_lanes[std::size_t(stream)];
}

DenseBackend<Cuda>::Handles& DenseBackend<Cuda>::handles() { return lane(m_current); }

void DenseBackend<Cuda>::fork(int streams) {
  if (streams <= 1) return;
  Handles& zero = lane(0);
  for (int i = 1; i < streams; ++i) lane(i);
  if (m_fork_event == nullptr) {
    cudaEvent_t event = nullptr;
    const cudaError_t e = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (e != cudaSuccess)
      throw sparse_error(std::string("Cholesky on Cuda: creating the fork event failed: ") + cudaGetErrorString(e));
    m_fork_event = event;
  }
  auto fork_event = static_cast<cudaEvent_t>(m_fork_event);
  cudaError_t e = cudaEventRecord(fork_event, zero.stream);
  for (int i = 1; i < streams && e == cudaSuccess; ++i)
    e = cudaStreamWaitEvent(m_lanes[std::size_t(i)]->stream, fork_event, 0);
  if (e != cudaSuccess)
    throw sparse_error(std::string("Cholesky on Cuda: ordering the library streams after the level's kernels "
                                   "failed: ") +
                       cudaGetErrorString(e));
  m_current = 0;
}

void DenseBackend<Cuda>::use_stream(int stream) { m_current = stream; }

void DenseBackend<Cuda>::join(int streams) {
  m_current = 0;
  if (streams <= 1) return;
  Handles& zero = lane(0);
  cudaError_t e = cudaSuccess;
  for (int i = 1; i < streams && e == cudaSuccess; ++i) {
    Handles& h = *m_lanes[std::size_t(i)];
    e = cudaEventRecord(h.done, h.stream);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(zero.stream, h.done, 0);
  }
  if (e != cudaSuccess)
    throw sparse_error(std::string("Cholesky on Cuda: ordering the level's later work after the library streams "
                                   "failed: ") +
                       cudaGetErrorString(e));
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

void DenseBackend<Cuda>::gemm_ab_minus(std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                                       std::int64_t lda, const double* b, std::int64_t ldb, double* c,
                                       std::int64_t ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  const double minus_one = -1.0, one = 1.0;
  check(cublasDgemm(handles().blas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &minus_one, a,
                    as_int(lda), b, as_int(ldb), &one, c, as_int(ldc)),
        "dgemm");
}

void DenseBackend<Cuda>::copy(bool transpose, std::int64_t m, std::int64_t n, const double* a, std::int64_t lda,
                              double* b, std::int64_t ldb) {
  if (m == 0 || n == 0) return;
  // geam: b := 1 op(a) + 0 b (b as its own second operand, which cuBLAS
  // allows for an untransposed b).
  const double one = 1.0, zero = 0.0;
  check(cublasDgeam(handles().blas, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), &one, a,
                    as_int(lda), &zero, b, as_int(ldb), b, as_int(ldb)),
        "dgeam");
}

void DenseBackend<Cuda>::reserve_sytrf(std::int64_t n, std::int64_t lda) {
  m_sytrf_n = std::max(m_sytrf_n, n);
  m_sytrf_lda = std::max(m_sytrf_lda, lda);
}

void DenseBackend<Cuda>::sytrf_lower(std::int64_t n, double* a, std::int64_t lda, std::int64_t* ipiv, int* info) {
  if (n == 0) return;  // the level driver never factors an empty block
  Handles& h = handles();
  int lwork = 0;
  if (h.sytrf_work_count == 0 && m_sytrf_n > 0)
    check(cusolverDnDsytrf_bufferSize(h.solver, as_int(m_sytrf_n), a, as_int(m_sytrf_lda), &lwork),
          "dsytrf_bufferSize");
  int need = 0;
  check(cusolverDnDsytrf_bufferSize(h.solver, as_int(n), a, as_int(lda), &need), "dsytrf_bufferSize");
  lwork = std::max({lwork, need, 1});
  if (lwork > h.sytrf_work_count) {
    h.sytrf_work =
        View<double*, CudaSpace>(view_alloc("sparse::sytrf_workspace", WithoutInitializing), std::size_t(lwork));
    h.sytrf_work_count = lwork;
  }
  const std::int64_t piv_need = std::max(n, m_sytrf_n);
  if (std::int64_t(h.ipiv32.extent(0)) < n)
    h.ipiv32 = View<int*, CudaSpace>(view_alloc("sparse::sytrf_ipiv", WithoutInitializing), std::size_t(piv_need));
  check(cusolverDnDsytrf(h.solver, CUBLAS_FILL_MODE_LOWER, as_int(n), a, as_int(lda), h.ipiv32.data(),
                         h.sytrf_work.data(), h.sytrf_work_count, info),
        "dsytrf");
  auto piv = h.ipiv32;
  parallel_for(
      "sparse::sytrf_widen_ipiv", RangePolicy<Cuda>(m_exec, 0, n),
      TESSERA_LAMBDA(std::int64_t k) { ipiv[k] = std::int64_t(piv(k)); });
}

void DenseBackend<Cuda>::sytrs_lower(std::int64_t n, std::int64_t nrhs, const double* a, std::int64_t lda,
                                     const std::int64_t* ipiv, double* x, std::int64_t ldx) {
  if (n == 0 || nrhs == 0) return;
  Handles& h = handles();
  std::size_t device_bytes = 0, host_bytes = 0;
  check(cusolverDnXsytrs_bufferSize(h.solver, CUBLAS_FILL_MODE_LOWER, n, nrhs, CUDA_R_64F, a, lda, ipiv, CUDA_R_64F, x,
                                    ldx, &device_bytes, &host_bytes),
        "Xsytrs_bufferSize");
  if (device_bytes > h.sytrs_work.extent(0))
    h.sytrs_work = View<unsigned char*, CudaSpace>(view_alloc("sparse::sytrs_workspace", WithoutInitializing),
                                                   device_bytes);
  if (host_bytes > h.sytrs_host_work.size()) {
    // An earlier Xsytrs still queued may use the old host buffer.
    m_exec.fence();
    h.sytrs_host_work.resize(host_bytes);
  }
  if (h.sytrs_info.extent(0) == 0) h.sytrs_info = View<int*, CudaSpace>("sparse::sytrs_info", 1);
  // info < 0 only for an invalid argument, which the status reports.
  check(cusolverDnXsytrs(h.solver, CUBLAS_FILL_MODE_LOWER, n, nrhs, CUDA_R_64F, a, lda, ipiv, CUDA_R_64F, x, ldx,
                         h.sytrs_work.data(), device_bytes, h.sytrs_host_work.data(), host_bytes,
                         h.sytrs_info.data()),
        "Xsytrs");
}

}  // namespace tessera::sparse::detail
