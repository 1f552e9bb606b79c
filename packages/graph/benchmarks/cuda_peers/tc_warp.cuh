#pragma once
// Triangle-counting peer: a degree-oriented graph, then a warp per oriented
// edge intersecting the two out-lists (the GraphChallenge GPU pattern, e.g.
// Bisson and Fatica, "Static Graph Challenge on GPU", HPEC 2017; the
// orientation is Schank and Wagner's, as the library's by_degree order).
//
//   orient  u -> v when deg(u) < deg(v), ties to the smaller id: every
//           triangle is found once, at its edge between its two lowest
//           vertices, and no out-list is longer than sqrt(2m). A warp per
//           vertex counts its out-neighbours (ballot + popc),
//           cub::DeviceScan::ExclusiveSum makes the offsets, a second warp
//           pass writes the kept targets in order (so each out-list stays
//           sorted: no sort needed) and the source of each oriented edge.
//   count   a warp per oriented edge (u, v): the lanes take the elements of
//           the shorter of N+(u), N+(v) and binary-search each in the longer;
//           per-lane counts are summed by the warp and added once per warp.
//
// Orientation is part of the timed run, as in the library's count_triangles.
#include "device.cuh"

#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace tessera_bench_graph_cuda {

namespace tc_peer {

constexpr int block = 256;
constexpr int warps_per_block = block / 32;

__device__ inline bool keeps(const std::int64_t* rows, std::int32_t u, std::int32_t v, std::int64_t du) {
  const std::int64_t dv = rows[v + 1] - rows[v];
  return du < dv || (du == dv && u < v);
}

__global__ void count_out(const std::int64_t* rows, const std::int32_t* adj, std::int64_t* out_degree, std::int64_t n) {
  const std::int64_t u = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (u >= n) return;
  const std::int64_t b = rows[u], e = rows[u + 1], du = e - b;
  std::int64_t kept = 0;
  for (std::int64_t k0 = b; k0 < e; k0 += 32) {
    const std::int64_t k = k0 + lane;
    const bool keep = k < e && keeps(rows, std::int32_t(u), adj[k], du);
    kept += __popc(__ballot_sync(0xffffffffu, keep));
  }
  if (lane == 0) out_degree[u] = kept;
}

__global__ void fill_out(const std::int64_t* rows, const std::int32_t* adj, const std::int64_t* orows,
                         std::int32_t* oadj, std::int32_t* osrc, std::int64_t n) {
  const std::int64_t u = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (u >= n) return;
  const std::int64_t b = rows[u], e = rows[u + 1], du = e - b;
  std::int64_t at = orows[u];
  for (std::int64_t k0 = b; k0 < e; k0 += 32) {
    const std::int64_t k = k0 + lane;
    const std::int32_t v = k < e ? adj[k] : 0;
    const bool keep = k < e && keeps(rows, std::int32_t(u), v, du);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (keep) {
      const std::int64_t to = at + __popc(ballot & ((1u << lane) - 1));
      oadj[to] = v;
      osrc[to] = std::int32_t(u);
    }
    at += __popc(ballot);
  }
}

// Whether x is in the sorted [p, p + len).
__device__ inline bool contains(const std::int32_t* p, std::int64_t len, std::int32_t x) {
  std::int64_t lo = 0, hi = len;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (p[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < len && p[lo] == x;
}

__global__ void count(const std::int64_t* orows, const std::int32_t* oadj, const std::int32_t* osrc, std::int64_t m,
                      unsigned long long* total) {
  using WarpReduce = cub::WarpReduce<unsigned long long>;
  __shared__ typename WarpReduce::TempStorage tmp[warps_per_block];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  unsigned long long found = 0;
  // Grid-stride over the edges, so each warp adds to the total once.
  for (std::int64_t edge = std::int64_t(blockIdx.x) * warps_per_block + warp; edge < m; edge += warps) {
    const std::int32_t u = osrc[edge], v = oadj[edge];
    const std::int32_t* a = oadj + orows[u];
    const std::int32_t* c = oadj + orows[v];
    std::int64_t la = orows[u + 1] - orows[u], lc = orows[v + 1] - orows[v];
    if (la > lc) {
      const std::int32_t* t = a;
      a = c;
      c = t;
      const std::int64_t l = la;
      la = lc;
      lc = l;
    }
    if (la == 0) continue;
    for (std::int64_t i = lane; i < la; i += 32) found += contains(c, lc, a[i]) ? 1 : 0;
  }
  const unsigned long long sum = WarpReduce(tmp[warp]).Sum(found);
  if (lane == 0 && sum) atomicAdd(total, sum);
}

}  // namespace tc_peer

class WarpTriangles {
 public:
  WarpTriangles(const DeviceCsr& g, cudaStream_t stream)
      : m_g(g), m_stream(stream), m_orows(g.n + 1), m_oadj(g.nnz / 2 + 1), m_osrc(g.nnz / 2 + 1), m_total(1) {
    std::size_t bytes = 0;
    TBG_CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, m_orows.data(), m_orows.data(), g.n + 1, stream));
    m_scan_tmp = DeviceArray<char>(bytes ? bytes : 1);
    TBG_CK(cudaMallocHost(&m_host, sizeof(unsigned long long) + sizeof(std::int64_t)));
    int sms = 0, dev = 0;
    TBG_CK(cudaGetDevice(&dev));
    TBG_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    m_count_blocks = unsigned(sms) * 16;  // enough warps to hide the searches' latency
  }
  ~WarpTriangles() {
    if (m_host) cudaFreeHost(m_host);
  }
  WarpTriangles(const WarpTriangles&) = delete;
  WarpTriangles& operator=(const WarpTriangles&) = delete;

  // Builds the orientation, then counts.
  std::int64_t run() {
    orient();
    return count();
  }

  void orient() {
    using namespace tc_peer;
    const std::int64_t n = m_g.n;
    count_out<<<blocks_for(n * 32, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_orows.data(), n);
    TBG_LAUNCHED();
    TBG_CK(cudaMemsetAsync(m_orows.data() + n, 0, sizeof(std::int64_t), m_stream));
    std::size_t bytes = m_scan_tmp.size();
    TBG_CK(cub::DeviceScan::ExclusiveSum(m_scan_tmp.data(), bytes, m_orows.data(), m_orows.data(), n + 1, m_stream));
    fill_out<<<blocks_for(n * 32, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_orows.data(), m_oadj.data(),
                                                                m_osrc.data(), n);
    TBG_LAUNCHED();
    TBG_CK(cudaMemcpyAsync(&m_host->oriented, m_orows.data() + n, sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                           m_stream));
    TBG_CK(cudaStreamSynchronize(m_stream));
    m_m = m_host->oriented;
    if (m_m != m_g.nnz / 2)
      throw std::runtime_error("triangle peer: " + std::to_string(m_m) + " oriented edges for " +
                               std::to_string(m_g.nnz) + " stored slots (a self-loop or a missing reverse edge?)");
  }

  // Counts on the orientation built last.
  std::int64_t count() {
    TBG_CK(cudaMemsetAsync(m_total.data(), 0, sizeof(unsigned long long), m_stream));
    tc_peer::count<<<m_count_blocks, tc_peer::block, 0, m_stream>>>(m_orows.data(), m_oadj.data(), m_osrc.data(), m_m,
                                                                    m_total.data());
    TBG_LAUNCHED();
    TBG_CK(cudaMemcpyAsync(&m_host->total, m_total.data(), sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                           m_stream));
    TBG_CK(cudaStreamSynchronize(m_stream));
    return std::int64_t(m_host->total);
  }

 private:
  struct HostResults {
    unsigned long long total;
    std::int64_t oriented;
  };
  DeviceCsr m_g;
  cudaStream_t m_stream;
  DeviceArray<std::int64_t> m_orows;
  DeviceArray<std::int32_t> m_oadj, m_osrc;
  DeviceArray<unsigned long long> m_total;
  DeviceArray<char> m_scan_tmp;
  HostResults* m_host = nullptr;
  std::int64_t m_m = 0;
  unsigned m_count_blocks = 0;
};

}  // namespace tessera_bench_graph_cuda
