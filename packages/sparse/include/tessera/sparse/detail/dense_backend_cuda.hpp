#pragma once
// DenseBackend<Cuda>: the level driver's dense kernels through cuBLAS
// (dtrsm, dsyrk, dgemm, dgeam) and cuSOLVER (dpotrf, dsytrf, Xsytrs) with
// handles bound to the instance's stream (see detail/dense_backend.hpp for the contract). The
// definitions are in src/cuda_dense_backend.cpp, the only file that sees
// the cuBLAS and cuSOLVER headers: the handles hide behind a pointer, so
// code that includes the sparse headers needs neither header nor library
// path of its own.
//
// The handles are created by the first call that needs them, so that
// constructing a solver costs nothing on a machine without a GPU; on such
// a machine that first call throws the CUDA back-end's reason.
#include <tessera/core.hpp>

#include <cstdint>
#include <memory>
#include <vector>

// Empty in a build without the CUDA back-end (there is no Cuda space to
// specialize for), so that the header still compiles on its own there.
#if TESSERA_ENABLE_CUDA

namespace tessera::sparse::detail {

template <class Space>
class DenseBackend;

template <>
class DenseBackend<Cuda> {
 public:
  explicit DenseBackend(const Cuda& exec = Cuda());
  ~DenseBackend();
  DenseBackend(const DenseBackend&) = delete;
  DenseBackend& operator=(const DenseBackend&) = delete;

  void reserve_potrf(std::int64_t n, std::int64_t lda);
  void potrf_lower(std::int64_t n, double* a, std::int64_t lda, int* info);
  void trsm_right_lower_trans(std::int64_t m, std::int64_t n, const double* l, std::int64_t ldl, double* b,
                              std::int64_t ldb);
  void syrk_lower_minus(std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, double* c,
                        std::int64_t ldc);
  void trsm_left_lower(bool transpose, std::int64_t m, std::int64_t nrhs, const double* l, std::int64_t ldl, double* x,
                       std::int64_t ldx);
  void gemm_ab(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, const double* b,
               std::int64_t ldb, double beta, double* c, std::int64_t ldc);
  void gemm_atb(double alpha, std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                const double* b, std::int64_t ldb, double* c, std::int64_t ldc);
  void gemm_ab_minus(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                     const double* b, std::int64_t ldb, double* c, std::int64_t ldc);
  void copy(bool transpose, std::int64_t m, std::int64_t n, const double* a, std::int64_t lda, double* b,
            std::int64_t ldb);
  void reserve_sytrf(std::int64_t n, std::int64_t lda);
  void sytrf_lower(std::int64_t n, double* a, std::int64_t lda, std::int64_t* ipiv, int* info);
  void sytrs_lower(std::int64_t n, std::int64_t nrhs, const double* a, std::int64_t lda, const std::int64_t* ipiv,
                   double* x, std::int64_t ldx);

  // Streams for independent calls (detail/dense_backend.hpp): stream 0 is
  // the instance's; streams 1 .. k-1 are made by the first fork that needs
  // them (blocking streams, as CudaSpace's stream-ordered allocations
  // assume; each with its own handles and potrf workspace) and ordered
  // against the instance by events.
  void fork(int streams);
  void use_stream(int stream);
  void join(int streams);

 private:
  struct Handles;  // a stream's cuBLAS and cuSOLVER handles, its potrf workspace
  Handles& handles();
  Handles& lane(int stream);
  Cuda m_exec;
  std::int64_t m_potrf_n = 0, m_potrf_lda = 0;  // the largest potrf reserved
  std::int64_t m_sytrf_n = 0, m_sytrf_lda = 0;  // the largest sytrf reserved
  std::vector<std::unique_ptr<Handles>> m_lanes;  // [0]: the instance's stream
  int m_current = 0;                              // the stream of the next calls
  void* m_fork_event = nullptr;                   // cudaEvent_t, made by the first fork
};

}  // namespace tessera::sparse::detail

#endif  // TESSERA_ENABLE_CUDA
