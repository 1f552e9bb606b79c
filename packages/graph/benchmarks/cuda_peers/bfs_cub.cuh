#pragma once
// BFS peer: direction-optimizing breadth-first search (Beamer, Asanovic and
// Patterson, "Direction-Optimizing Breadth-First Search", SC 2012) with CUB,
// giving each vertex its depth (-1: unreached).
//
//   top-down   load-balanced over the frontier's edges (Merrill, Garland and
//              Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012): the
//              frontier's degrees are scanned (cub::DeviceScan) and a thread
//              takes each edge, finding its vertex by binary search, so the
//              hub that is the first frontier is spread over the whole GPU;
//              a vertex is claimed by atomicCAS on its depth; each warp
//              appends what it claimed with one atomicAdd (ballot + popc)
//              and sums the claimed vertices' degrees with cub::WarpReduce
//              (the next frontier's edge count)
//   bottom-up  a thread per vertex: an unreached vertex scans its neighbours
//              for one at the current depth and stops at the first
//   switching  Beamer's rule with the library's defaults (alpha 14, beta 24):
//              bottom-up when the frontier's edges exceed the unexplored
//              edges / alpha, back top-down when the frontier holds fewer than
//              n / beta vertices; the queue is then rebuilt from the depths
//              with cub::DeviceSelect::If
//
// One small copy to the host per level (the next frontier's size and edge
// count) drives the loop, as in Gunrock and in the library today.
#include "device.cuh"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace tessera_bench_graph_cuda {

namespace bfs_peer {

struct Counters {
  unsigned long long vertices;  // claimed this level
  unsigned long long edges;     // their degrees summed
};

constexpr int block = 256;
constexpr int warps_per_block = block / 32;

// Each frontier vertex's degree, for the scan that load-balances top_down.
__global__ void frontier_degrees(const std::int64_t* rows, const std::int32_t* queue, std::int64_t queue_size,
                                 std::int64_t* degrees) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < queue_size) degrees[i] = rows[queue[i] + 1] - rows[queue[i]];
}

// A thread per frontier edge: edge t belongs to the frontier vertex i with
// offsets[i] <= t < offsets[i + 1] (a binary search of the scanned degrees),
// so a hub's edges are spread over as many threads as they number.
__global__ void top_down(const std::int64_t* rows, const std::int32_t* adj, const std::int32_t* queue,
                         std::int64_t queue_size, const std::int64_t* offsets, std::int64_t frontier_edges,
                         std::int32_t* next, std::int32_t* depth, std::int32_t level, Counters* counters) {
  using WarpReduce = cub::WarpReduce<unsigned long long>;
  __shared__ typename WarpReduce::TempStorage tmp[warps_per_block];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t t = std::int64_t(blockIdx.x) * block + threadIdx.x;
  bool mine = false;
  std::int32_t w = 0;
  if (t < frontier_edges) {
    std::int64_t lo = 0, hi = queue_size - 1;  // the last i with offsets[i] <= t
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) >> 1;
      if (offsets[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    w = adj[rows[queue[lo]] + (t - offsets[lo])];
    mine = depth[w] < 0 && atomicCAS(reinterpret_cast<int*>(&depth[w]), -1, level + 1) == -1;
  }
  // The warp appends what it claimed with one atomicAdd; no lane has left.
  const unsigned ballot = __ballot_sync(0xffffffffu, mine);
  unsigned long long claimed_edges = 0;
  if (ballot) {
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(&counters->vertices, (unsigned long long)__popc(ballot));
    at = __shfl_sync(0xffffffffu, at, 0);
    if (mine) {
      next[at + __popc(ballot & ((1u << lane) - 1))] = w;
      claimed_edges = (unsigned long long)(rows[w + 1] - rows[w]);
    }
  }
  const unsigned long long sum = WarpReduce(tmp[warp]).Sum(claimed_edges);
  if (lane == 0 && sum) atomicAdd(&counters->edges, sum);
}

__global__ void bottom_up(const std::int64_t* rows, const std::int32_t* adj, std::int32_t* depth, std::int64_t n,
                          std::int32_t level, Counters* counters) {
  const std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long found = 0, edges = 0;
  if (v < n && depth[v] < 0) {
    const std::int64_t b = rows[v], e = rows[v + 1];
    for (std::int64_t k = b; k < e; ++k)
      if (depth[adj[k]] == level) {
        depth[v] = level + 1;  // only this thread writes v this level; readers test == level
        found = 1;
        edges = (unsigned long long)(e - b);
        break;
      }
  }
  // Counters: one atomic per warp.
  for (int o = 16; o > 0; o >>= 1) {
    found += __shfl_down_sync(0xffffffffu, found, o);
    edges += __shfl_down_sync(0xffffffffu, edges, o);
  }
  if ((threadIdx.x & 31) == 0 && found) {
    atomicAdd(&counters->vertices, found);
    atomicAdd(&counters->edges, edges);
  }
}

__global__ void start(std::int32_t* depth, std::int32_t* queue, std::int32_t source) {
  depth[source] = 0;
  queue[0] = source;
}

struct AtDepth {
  const std::int32_t* depth;
  std::int32_t level;
  __device__ bool operator()(std::int32_t v) const { return depth[v] == level; }
};

}  // namespace bfs_peer

class CubBfs {
 public:
  double alpha = 14.0, beta = 24.0;

  CubBfs(const DeviceCsr& g, cudaStream_t stream)
      : m_g(g), m_stream(stream), m_depth(g.n), m_q0(g.n), m_q1(g.n), m_offsets(g.n), m_counters(1), m_selected(1) {
    TBG_CK(cudaMallocHost(&m_host, sizeof(bfs_peer::Counters) + sizeof(std::int64_t)));
    // Scratch of DeviceSelect::If over all n vertices, sized once.
    std::size_t bytes = 0;
    thrust::counting_iterator<std::int32_t> ids(0);
    TBG_CK(cub::DeviceSelect::If(nullptr, bytes, ids, m_q0.data(), m_selected.data(), g.n,
                                 bfs_peer::AtDepth{m_depth.data(), 0}, stream));
    m_select_tmp = DeviceArray<char>(bytes ? bytes : 1);
    bytes = 0;
    TBG_CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, m_offsets.data(), m_offsets.data(), g.n, stream));
    m_scan_tmp = DeviceArray<char>(bytes ? bytes : 1);
  }
  ~CubBfs() {
    if (m_host) cudaFreeHost(m_host);
  }
  CubBfs(const CubBfs&) = delete;
  CubBfs& operator=(const CubBfs&) = delete;

  struct Stats {
    int levels = 0, bottom_up_levels = 0;
    std::int64_t reached = 0;
  };

  Stats run(std::int32_t source) {
    using namespace bfs_peer;
    const std::int64_t n = m_g.n;
    Stats st;
    TBG_CK(cudaMemsetAsync(m_depth.data(), 0xff, n * sizeof(std::int32_t), m_stream));  // all -1
    start<<<1, 1, 0, m_stream>>>(m_depth.data(), m_q0.data(), source);
    TBG_LAUNCHED();
    std::int32_t* queue = m_q0.data();
    std::int32_t* next = m_q1.data();
    std::int64_t nf = 1;
    if (source != m_source) m_source = source, m_source_degree = host_degree(source);  // once: the untimed check run pays it
    std::int64_t mf = m_source_degree;
    std::int64_t mu = m_g.nnz - mf;  // edges not yet looked at from a reached vertex
    bool top = true;
    st.reached = 1;
    for (std::int32_t level = 0; nf > 0; ++level) {
      if (top && double(mf) > double(mu) / alpha) {
        top = false;
      } else if (!top && double(nf) < double(n) / beta) {
        top = true;
        std::size_t bytes = m_select_tmp.size();
        thrust::counting_iterator<std::int32_t> ids(0);
        TBG_CK(cub::DeviceSelect::If(m_select_tmp.data(), bytes, ids, queue, m_selected.data(), n,
                                     AtDepth{m_depth.data(), level}, m_stream));
      }
      TBG_CK(cudaMemsetAsync(m_counters.data(), 0, sizeof(Counters), m_stream));
      if (top) {
        frontier_degrees<<<blocks_for(nf, block), block, 0, m_stream>>>(m_g.rows, queue, nf, m_offsets.data());
        TBG_LAUNCHED();
        std::size_t bytes = m_scan_tmp.size();
        TBG_CK(cub::DeviceScan::ExclusiveSum(m_scan_tmp.data(), bytes, m_offsets.data(), m_offsets.data(), nf,
                                             m_stream));
        if (mf > 0) {
          top_down<<<blocks_for(mf, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, queue, nf, m_offsets.data(), mf,
                                                                  next, m_depth.data(), level, m_counters.data());
          TBG_LAUNCHED();
        }
        std::swap(queue, next);
      } else {
        bottom_up<<<blocks_for(n, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_depth.data(), n, level,
                                                                m_counters.data());
        TBG_LAUNCHED();
        ++st.bottom_up_levels;
      }
      TBG_CK(cudaMemcpyAsync(m_host, m_counters.data(), sizeof(Counters), cudaMemcpyDeviceToHost, m_stream));
      TBG_CK(cudaStreamSynchronize(m_stream));
      ++st.levels;
      nf = std::int64_t(m_host->vertices);
      mf = std::int64_t(m_host->edges);
      mu -= mf;
      st.reached += nf;
    }
    return st;
  }

  const std::int32_t* depths() const { return m_depth.data(); }

 private:
  std::int64_t host_degree(std::int32_t v) const {
    std::int64_t b[2];
    TBG_CK(cudaMemcpy(b, m_g.rows + v, 2 * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
    return b[1] - b[0];
  }

  DeviceCsr m_g;
  cudaStream_t m_stream;
  std::int32_t m_source = -1;
  std::int64_t m_source_degree = 0;
  DeviceArray<std::int32_t> m_depth, m_q0, m_q1;
  DeviceArray<std::int64_t> m_offsets;  // the frontier's scanned degrees
  DeviceArray<bfs_peer::Counters> m_counters;
  DeviceArray<std::int64_t> m_selected;
  DeviceArray<char> m_select_tmp, m_scan_tmp;
  bfs_peer::Counters* m_host = nullptr;
};

}  // namespace tessera_bench_graph_cuda
