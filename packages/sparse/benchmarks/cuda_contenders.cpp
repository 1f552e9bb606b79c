// bench_cholesky's GPU contenders (see cuda_contenders.hpp); compiled by nvcc.
#include "cuda_contenders.hpp"

#include <tessera/core.hpp>
#include <tessera/sparse.hpp>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
// csrchol is marked deprecated in favour of cuDSS, which the CUDA toolkit does
// not ship; it is the sparse Cholesky the toolkit has, so it is the peer.
#define DISABLE_CUSOLVER_DEPRECATED
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera::bench::gpu {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}
void check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(int(s)));
}

cudaStream_t stream() { return tessera::Cuda().cuda_stream(); }

// Device memory that frees itself; every contender's arrays are made before
// the timing starts.
template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : n(count) {
    check(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p(std::exchange(o.p, nullptr)), n(std::exchange(o.n, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
  ~DeviceArray() {
    if (p) cudaFree(p);
  }
  void upload(const T* host) { check(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  void download(T* host) const { check(cudaMemcpy(host, p, n * sizeof(T), cudaMemcpyDeviceToHost), "download"); }
};

__global__ void fill_kernel(double* a, std::size_t n, double scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = scale / double(1 + i % 97);
}

}  // namespace

std::string unusable_reason() {
  return tessera::Cuda::impl_is_available() ? std::string() : tessera::Cuda::impl_unavailable_reason();
}

int multiprocessors() {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, tessera::Cuda().cuda_device()), "cudaGetDeviceProperties");
  return p.multiProcessorCount;
}

std::string device_name() {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, tessera::Cuda().cuda_device()), "cudaGetDeviceProperties");
  return p.name;
}

std::string device_description() {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, tessera::Cuda().cuda_device()), "cudaGetDeviceProperties");
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f GiB", double(p.totalGlobalMem) / double(1ull << 30));
  return std::string(p.name) + ", " + std::to_string(p.multiProcessorCount) + " SMs, " + gib;
}

// ---- cuBLAS dgemm ----------------------------------------------------------

struct CublasDgemm::Impl {
  int n;
  cublasHandle_t handle = nullptr;
  DeviceArray<double> a, b, c;
  explicit Impl(int order)
      : n(order), a(std::size_t(order) * order), b(std::size_t(order) * order), c(std::size_t(order) * order) {
    check(cublasCreate(&handle), "cublasCreate");
    check(cublasSetStream(handle, stream()), "cublasSetStream");
    fill_kernel<<<1024, 256, 0, stream()>>>(a.p, a.n, 1.0);
    fill_kernel<<<1024, 256, 0, stream()>>>(b.p, b.n, 0.5);
    check(cudaStreamSynchronize(stream()), "dgemm operands");
  }
  ~Impl() {
    if (handle) cublasDestroy(handle);
  }
};

CublasDgemm::CublasDgemm(int n) : impl_(std::make_unique<Impl>(n)) {}
CublasDgemm::~CublasDgemm() = default;

void CublasDgemm::run() {
  const double one = 1.0, zero = 0.0;
  const int n = impl_->n;
  check(cublasDgemm(impl_->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, impl_->a.p, n, impl_->b.p, n, &zero,
                    impl_->c.p, n),
        "cublasDgemm");
  check(cudaStreamSynchronize(stream()), "cublasDgemm");
}

// ---- Tessera on Cuda ---------------------------------------------------------

struct TesseraCudaCholesky::Impl {
  const sparse::CrsMatrix<double>& A;
  sparse::Cholesky<double, tessera::Cuda> chol;
  static sparse::Options options(int small_front_rows, int dense_streams, int solve_small_front_rows) {
    sparse::Options o;
    o.dense_streams = dense_streams;
    o.ordering = sparse::Ordering::Metis;
    o.scheduler = sparse::Scheduler::LevelSet;  // what Cuda runs
    if (small_front_rows >= 0) o.small_front_rows = small_front_rows;
    if (solve_small_front_rows >= 0) o.solve_small_front_rows = solve_small_front_rows;
    return o;
  }
  Impl(const sparse::CrsMatrix<double>& m, int small_front_rows, int dense_streams, int solve_small_front_rows)
      : A(m), chol(options(small_front_rows, dense_streams, solve_small_front_rows)) {}
};

TesseraCudaCholesky::TesseraCudaCholesky(const sparse::CrsMatrix<double>& A, int small_front_rows, int dense_streams,
                                         int solve_small_front_rows)
    : impl_(std::make_unique<Impl>(A, small_front_rows, dense_streams, solve_small_front_rows)) {}
TesseraCudaCholesky::~TesseraCudaCholesky() = default;
void TesseraCudaCholesky::analyze() { impl_->chol.analyze(impl_->A); }
void TesseraCudaCholesky::factorize() {
  impl_->chol.factorize(impl_->A);
  tessera::Cuda().fence("bench_cholesky: tessera Cuda factorization");
}
void TesseraCudaCholesky::solve(const double* b, double* x) { impl_->chol.solve(x, b, 1); }
std::vector<std::int64_t> TesseraCudaCholesky::permutation() const { return impl_->chol.permutation(); }
double TesseraCudaCholesky::nnz_l() const { return double(impl_->chol.stats().nnz_l); }
double TesseraCudaCholesky::flops() const { return double(impl_->chol.stats().flops); }
std::size_t TesseraCudaCholesky::device_peak_bytes() const { return impl_->chol.stats().peak_factor_bytes; }

// ---- cuSOLVER csrchol --------------------------------------------------------

struct CusolverSparseCholesky::Impl {
  std::vector<std::int64_t> perm;  // perm[new] = old
  int n = 0, nnz = 0;
  DeviceArray<int> rows, cols;
  DeviceArray<double> vals, b, x, buffer;
  std::vector<double> bp, xp;  // permuted host right-hand side and solution
  cusolverSpHandle_t handle = nullptr;
  cusparseMatDescr_t descr = nullptr;
  csrcholInfo_t info = nullptr;
  std::size_t internal_bytes = 0, work_bytes = 0;

  Impl(const sparse::CrsMatrix<double>& A, std::vector<std::int64_t> p) : perm(std::move(p)) {
    const std::int64_t n64 = A.num_rows(), nnz64 = A.nnz();
    if (n64 > INT_MAX || nnz64 > INT_MAX)
      throw std::runtime_error("cuSOLVER csrchol takes 32-bit indices: " + std::to_string(nnz64) + " entries of order " +
                               std::to_string(n64) + " are too many");
    if (std::int64_t(perm.size()) != n64) throw std::runtime_error("cuSOLVER csrchol: the ordering's size is not the matrix's");
    n = int(n64);
    nnz = int(nnz64);
    // B = P A P^T: row i of B is row perm[i] of A, columns renumbered and sorted.
    std::vector<std::int64_t> iperm(n);
    for (int i = 0; i < n; ++i) iperm[perm[i]] = i;
    std::vector<int> hr(n + 1), hc(nnz);
    std::vector<double> hv(nnz);
    std::vector<std::pair<int, double>> row;
    const std::int64_t* rm = A.row_map();
    const std::int32_t* ci = A.col_idx();
    const double* va = A.values();
    hr[0] = 0;
    for (int i = 0; i < n; ++i) {
      const std::int64_t old = perm[i];
      row.clear();
      for (std::int64_t q = rm[old]; q < rm[old + 1]; ++q) row.emplace_back(int(iperm[ci[q]]), va[q]);
      std::sort(row.begin(), row.end());
      int at = hr[i];
      for (const auto& [c, v] : row) hc[at] = c, hv[at++] = v;
      hr[i + 1] = at;
    }
    rows = DeviceArray<int>(hr.size());
    cols = DeviceArray<int>(hc.size());
    vals = DeviceArray<double>(hv.size());
    b = DeviceArray<double>(n);
    x = DeviceArray<double>(n);
    rows.upload(hr.data());
    cols.upload(hc.data());
    vals.upload(hv.data());
    bp.resize(n);
    xp.resize(n);
    check(cusolverSpCreate(&handle), "cusolverSpCreate");
    check(cusolverSpSetStream(handle, stream()), "cusolverSpSetStream");
    check(cusparseCreateMatDescr(&descr), "cusparseCreateMatDescr");
    check(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    check(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
    check(cusolverSpCreateCsrcholInfo(&info), "cusolverSpCreateCsrcholInfo");
  }
  ~Impl() {
    if (info) cusolverSpDestroyCsrcholInfo(info);
    if (descr) cusparseDestroyMatDescr(descr);
    if (handle) cusolverSpDestroy(handle);
  }
};

CusolverSparseCholesky::CusolverSparseCholesky(const sparse::CrsMatrix<double>& A, std::vector<std::int64_t> perm)
    : impl_(std::make_unique<Impl>(A, std::move(perm))) {}
CusolverSparseCholesky::~CusolverSparseCholesky() = default;

void CusolverSparseCholesky::analyze() {
  Impl& s = *impl_;
  check(cusolverSpXcsrcholAnalysis(s.handle, s.n, s.nnz, s.descr, s.rows.p, s.cols.p, s.info), "csrcholAnalysis");
  check(cusolverSpDcsrcholBufferInfo(s.handle, s.n, s.nnz, s.descr, s.vals.p, s.rows.p, s.cols.p, s.info,
                                     &s.internal_bytes, &s.work_bytes),
        "csrcholBufferInfo");
  s.buffer = DeviceArray<double>((s.work_bytes + sizeof(double) - 1) / sizeof(double));
  check(cudaStreamSynchronize(stream()), "csrcholAnalysis");
}

void CusolverSparseCholesky::factorize() {
  Impl& s = *impl_;
  check(cusolverSpDcsrcholFactor(s.handle, s.n, s.nnz, s.descr, s.vals.p, s.rows.p, s.cols.p, s.info, s.buffer.p),
        "csrcholFactor");
  check(cudaStreamSynchronize(stream()), "csrcholFactor");
  int position = -1;
  check(cusolverSpDcsrcholZeroPivot(s.handle, s.info, 0.0, &position), "csrcholZeroPivot");
  if (position >= 0)
    throw std::runtime_error("cuSOLVER csrchol: zero pivot at column " + std::to_string(s.perm[position]) +
                             " (the matrix's numbering)");
}

void CusolverSparseCholesky::solve(const double* b, double* x) {
  Impl& s = *impl_;
  for (int i = 0; i < s.n; ++i) s.bp[i] = b[s.perm[i]];
  s.b.upload(s.bp.data());
  check(cusolverSpDcsrcholSolve(s.handle, s.n, s.b.p, s.x.p, s.info, s.buffer.p), "csrcholSolve");
  check(cudaStreamSynchronize(stream()), "csrcholSolve");
  s.x.download(s.xp.data());
  for (int i = 0; i < s.n; ++i) x[s.perm[i]] = s.xp[i];
}

const std::vector<std::int64_t>& CusolverSparseCholesky::permutation() const { return impl_->perm; }
std::size_t CusolverSparseCholesky::device_bytes() const { return impl_->internal_bytes + impl_->work_bytes; }

}  // namespace tessera::bench::gpu
