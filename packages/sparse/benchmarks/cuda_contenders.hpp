#pragma once
// bench_cholesky's GPU contenders (CUDA builds, `--gpu`): Tessera's Cholesky
// on Cuda, cuSOLVER's sparse Cholesky and cuBLAS dgemm as the ceiling. They
// live in cuda_contenders.cpp, which nvcc compiles, behind this header, which
// names no CUDA type: bench_cholesky.cpp, with CHOLMOD's, MUMPS's and METIS's
// headers, stays a host translation unit.
#include <tessera/sparse/crs_matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bench::gpu {

// Empty when Tessera's Cuda space can run here; otherwise why not.
std::string unusable_reason();
// The card, for every table: "NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB".
std::string device_description();
// The card's name alone ("NVIDIA H100 80GB HBM3"): the --json run's "device"
// note, which names the report's column.
std::string device_name();
int multiprocessors();

// cuBLAS dgemm C = A B of order n on device arrays filled once; run() queues
// one call on Tessera's default stream and waits for it.
class CublasDgemm {
 public:
  explicit CublasDgemm(int n);
  ~CublasDgemm();
  CublasDgemm(const CublasDgemm&) = delete;
  CublasDgemm& operator=(const CublasDgemm&) = delete;
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// tessera::sparse::Cholesky<double, Cuda>: METIS order, the host's symbolic
// analysis, the numeric factorization level by level on the device; fronts
// of at most small_front_rows rows factored by teams and of at most
// solve_small_front_rows rows solved by teams (-1: Options' defaults; 0:
// every front by cuSOLVER and cuBLAS).
class TesseraCudaCholesky {
 public:
  // small_front_rows, solve_small_front_rows -1: the defaults; dense_streams: Options::dense_streams.
  explicit TesseraCudaCholesky(const sparse::CrsMatrix<double>& A, int small_front_rows = -1, int dense_streams = 1,
                               int solve_small_front_rows = -1);
  ~TesseraCudaCholesky();
  TesseraCudaCholesky(const TesseraCudaCholesky&) = delete;
  TesseraCudaCholesky& operator=(const TesseraCudaCholesky&) = delete;
  void analyze();
  void factorize();  // returns once the factor is complete on the device
  void solve(const double* b, double* x);
  std::vector<std::int64_t> permutation() const;  // perm[new] = old
  double nnz_l() const;
  double flops() const;
  std::size_t device_peak_bytes() const;  // factor panels + update matrices at their peak

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// cuSOLVER's sparse Cholesky through its low-level csrchol API (analysis,
// factor, solve apart, so that the factorization alone is timed as for every
// other contender). csrchol does not reorder: the matrix is permuted on the
// host by the ordering given (the other peers' METIS_NodeND), untimed, and b
// and x are permuted around the solve. 32-bit indices: a matrix with more
// than 2^31 - 1 entries is refused.
class CusolverSparseCholesky {
 public:
  CusolverSparseCholesky(const sparse::CrsMatrix<double>& A, std::vector<std::int64_t> perm);
  ~CusolverSparseCholesky();
  CusolverSparseCholesky(const CusolverSparseCholesky&) = delete;
  CusolverSparseCholesky& operator=(const CusolverSparseCholesky&) = delete;
  void analyze();
  void factorize();  // throws, naming the column in A's numbering, on a zero pivot
  void solve(const double* b, double* x);
  const std::vector<std::int64_t>& permutation() const;
  std::size_t device_bytes() const;  // cuSOLVER's internal data + workspace, as it reports them

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::bench::gpu
