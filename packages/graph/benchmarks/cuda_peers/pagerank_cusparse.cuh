#pragma once
// PageRank peer: power iteration as cuSPARSE SpMV (cusparseSpMV, CSR, FP64)
// plus one fused update kernel per iteration, with tessera::graph::pagerank's
// formulation and stopping rule, so the two compute the same iterates:
//
//   c(u) = r(u) / deg(u)  (0 when deg(u) = 0),  dangling = sum of r(u) with deg(u) = 0
//   r'(v) = (1 - d)/n + d * dangling/n + d * (A c)(v)
//   stop when sum |r' - r| < tolerance, or after max_iterations
//
// A is the graph's symmetric adjacency matrix (undirected: A = A^T, so A c
// pulls each vertex's in-neighbour contributions). The update kernel writes
// r and the next c, and reduces sum |r' - r| and the next dangling mass
// (cub::BlockReduce, then one double atomicAdd per block); the host reads
// the two sums each iteration to test the stopping rule, as the library does.
//
// cuSPARSE takes the library's column array as it is; it gets int32 row
// offsets (a copy, made once: it wants both index arrays of one width, and
// the library's offsets are int64) and an array of ones as values (a
// pattern matrix has none): 8 more bytes read per stored edge than a pull
// over the pattern alone. That is the cost of using the library; the
// comparison is with what a user gets from cuSPARSE.
#include "device.cuh"

#include <cub/block/block_reduce.cuh>

#include <cmath>
#include <limits>

namespace tessera_bench_graph_cuda {

namespace pagerank_peer {

__global__ void narrow_rows(const std::int64_t* rows, std::int32_t* rows32, std::int64_t n1) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n1) rows32[i] = std::int32_t(rows[i]);
}

__global__ void fill_ones(double* v, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 1.0;
}

// sums[0] += sum |r' - r| (unused by init), sums[1] += dangling mass.
template <int Block>
__device__ void add_sums(double l1, double dangling, double* sums) {
  using Reduce = cub::BlockReduce<double, Block>;
  __shared__ typename Reduce::TempStorage tmp;
  const double a = Reduce(tmp).Sum(l1);
  __syncthreads();  // tmp is reused
  const double b = Reduce(tmp).Sum(dangling);
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], a);
    atomicAdd(&sums[1], b);
  }
}

template <int Block>
__global__ void init(const std::int32_t* rows32, double* r, double* c, double* sums, std::int64_t n) {
  const std::int64_t v = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  double dangling = 0;
  if (v < n) {
    const double inv_n = 1.0 / double(n);
    const std::int32_t d = rows32[v + 1] - rows32[v];
    r[v] = inv_n;
    c[v] = d > 0 ? inv_n / double(d) : 0.0;
    dangling = d > 0 ? 0.0 : inv_n;
  }
  add_sums<Block>(0.0, dangling, sums);
}

template <int Block>
__global__ void update(const std::int32_t* rows32, const double* y, double* r, double* c, double* sums, double base,
                       double damping, std::int64_t n) {
  const std::int64_t v = std::int64_t(blockIdx.x) * Block + threadIdx.x;
  double l1 = 0, dangling = 0;
  if (v < n) {
    const double x = base + damping * y[v];
    l1 = std::fabs(x - r[v]);
    r[v] = x;
    const std::int32_t d = rows32[v + 1] - rows32[v];
    c[v] = d > 0 ? x / double(d) : 0.0;
    dangling = d > 0 ? 0.0 : x;
  }
  add_sums<Block>(l1, dangling, sums);
}

}  // namespace pagerank_peer

class CusparsePagerank {
 public:
  static constexpr int block = 256;

  CusparsePagerank(const DeviceCsr& g, cudaStream_t stream)
      : m_g(g), m_stream(stream), m_rows32(g.n + 1), m_ones(g.nnz), m_r(g.n), m_c(g.n), m_y(g.n), m_sums(2) {
    if (g.nnz > std::numeric_limits<std::int32_t>::max())
      throw std::runtime_error("cuSPARSE PageRank peer: " + std::to_string(g.nnz) +
                               " stored edges do not fit its int32 row offsets");
    pagerank_peer::narrow_rows<<<blocks_for(g.n + 1), 256, 0, stream>>>(g.rows, m_rows32.data(), g.n + 1);
    TBG_LAUNCHED();
    pagerank_peer::fill_ones<<<blocks_for(g.nnz), 256, 0, stream>>>(m_ones.data(), g.nnz);
    TBG_LAUNCHED();
    TBG_CK(cudaMallocHost(&m_host_sums, 2 * sizeof(double)));
    TBG_CK(cusparseCreate(&m_handle));
    TBG_CK(cusparseSetStream(m_handle, stream));
    TBG_CK(cusparseCreateCsr(&m_A, g.n, g.n, g.nnz, m_rows32.data(), const_cast<std::int32_t*>(g.adj), m_ones.data(),
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    TBG_CK(cusparseCreateDnVec(&m_x, g.n, m_c.data(), CUDA_R_64F));
    TBG_CK(cusparseCreateDnVec(&m_yv, g.n, m_y.data(), CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    std::size_t bytes = 0;
    TBG_CK(cusparseSpMV_bufferSize(m_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m_A, m_x, &zero, m_yv, CUDA_R_64F,
                                   CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    m_buffer = DeviceArray<char>(bytes ? bytes : 1);
    // Analysis once, outside the timing (a user iterating SpMV does the same).
    TBG_CK(cusparseSpMV_preprocess(m_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m_A, m_x, &zero, m_yv, CUDA_R_64F,
                                   CUSPARSE_SPMV_ALG_DEFAULT, m_buffer.data()));
    TBG_CK(cudaStreamSynchronize(stream));
  }
  ~CusparsePagerank() {
    if (m_x) cusparseDestroyDnVec(m_x);
    if (m_yv) cusparseDestroyDnVec(m_yv);
    if (m_A) cusparseDestroySpMat(m_A);
    if (m_handle) cusparseDestroy(m_handle);
    if (m_host_sums) cudaFreeHost(m_host_sums);
  }
  CusparsePagerank(const CusparsePagerank&) = delete;
  CusparsePagerank& operator=(const CusparsePagerank&) = delete;

  // Runs from r = 1/n; returns the iterations run.
  int run(double damping, double tolerance, int max_iterations) {
    const std::int64_t n = m_g.n;
    if (n == 0) return 0;
    const double inv_n = 1.0 / double(n);
    read_sums([&] {
      pagerank_peer::init<block><<<blocks_for(n, block), block, 0, m_stream>>>(m_rows32.data(), m_r.data(), m_c.data(),
                                                                              m_sums.data(), n);
    });
    double dangling = m_host_sums[1];
    int it = 0;
    const double one = 1.0, zero = 0.0;
    while (it < max_iterations) {
      ++it;
      const double base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
      TBG_CK(cusparseSpMV(m_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m_A, m_x, &zero, m_yv, CUDA_R_64F,
                          CUSPARSE_SPMV_ALG_DEFAULT, m_buffer.data()));
      read_sums([&] {
        pagerank_peer::update<block><<<blocks_for(n, block), block, 0, m_stream>>>(
            m_rows32.data(), m_y.data(), m_r.data(), m_c.data(), m_sums.data(), base, damping, n);
      });
      dangling = m_host_sums[1];
      if (m_host_sums[0] < tolerance) break;
    }
    return it;
  }

  const double* ranks() const { return m_r.data(); }

 private:
  // Clears the device sums, runs `launch`, copies the sums to the host.
  template <class F>
  void read_sums(const F& launch) {
    TBG_CK(cudaMemsetAsync(m_sums.data(), 0, 2 * sizeof(double), m_stream));
    launch();
    TBG_LAUNCHED();
    TBG_CK(cudaMemcpyAsync(m_host_sums, m_sums.data(), 2 * sizeof(double), cudaMemcpyDeviceToHost, m_stream));
    TBG_CK(cudaStreamSynchronize(m_stream));
  }

  DeviceCsr m_g;
  cudaStream_t m_stream;
  DeviceArray<std::int32_t> m_rows32;
  DeviceArray<double> m_ones, m_r, m_c, m_y, m_sums;
  double* m_host_sums = nullptr;
  cusparseHandle_t m_handle = nullptr;
  cusparseSpMatDescr_t m_A = nullptr;
  cusparseDnVecDescr_t m_x = nullptr, m_yv = nullptr;
  DeviceArray<char> m_buffer;
};

}  // namespace tessera_bench_graph_cuda
