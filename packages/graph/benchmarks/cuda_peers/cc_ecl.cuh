#pragma once
// Connected-components peer in the style of ECL-CC (Jaiganesh and Burtscher,
// "A High-Performance Connected Components Implementation for GPUs", HPDC
// 2018): each vertex starts at its first smaller neighbour (or itself),
// every edge {v, u} with v > u is visited once and hooks the larger of the
// two representatives under the smaller by compare-and-swap, finding
// representatives with intermediate pointer jumping (path halving); the
// vertices are split by degree into three kernels: a thread (degree <= 16),
// a warp (<= 352) or a block per vertex, from worklists built by the
// initialization. A last pass points every vertex at its root.
//
// Roots only ever hook under smaller roots, so each component's label is its
// smallest vertex id, as the library's; the check compares partitions up to
// labels all the same.
#include "device.cuh"

namespace tessera_bench_graph_cuda {

namespace cc_peer {

constexpr int thread_max = 16, warp_max = 352, block = 256;

// Representative of v, halving the path on the way (parents only move toward
// roots, so racing plain stores are safe; the loads are volatile so a
// racing hook is seen rather than a value cached in a register).
__device__ std::int32_t representative(std::int32_t v, volatile std::int32_t* parent) {
  std::int32_t curr = parent[v];
  if (curr != v) {
    std::int32_t next, prev = v;
    while (curr > (next = parent[curr])) {
      parent[prev] = next;
      prev = curr;
      curr = next;
    }
  }
  return curr;
}

// Hooks the larger of two representatives under the smaller; a failed
// compare-and-swap (another thread hooked that root first) retries with the
// new parent. Returns the smaller, the joint representative afterwards.
__device__ std::int32_t hook(std::int32_t vstat, std::int32_t ostat, std::int32_t* parent) {
  bool repeat;
  do {
    repeat = false;
    if (vstat != ostat) {
      std::int32_t ret;
      if (vstat < ostat) {
        if ((ret = atomicCAS(&parent[ostat], ostat, vstat)) != ostat) ostat = ret, repeat = true;
      } else {
        if ((ret = atomicCAS(&parent[vstat], vstat, ostat)) != vstat) vstat = ret, repeat = true;
      }
    }
  } while (repeat);
  return vstat < ostat ? vstat : ostat;
}

// worklist: warp vertices from the front (wl_top), block vertices from the
// back (wl_bottom, counting down from n).
__global__ void init(const std::int64_t* rows, const std::int32_t* adj, std::int32_t* parent, std::int32_t* worklist,
                     int* counters, std::int64_t n) {
  const std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const std::int64_t b = rows[v], e = rows[v + 1];
  std::int32_t m = std::int32_t(v);
  for (std::int64_t k = b; m == std::int32_t(v) && k < e; ++k) m = adj[k] < m ? adj[k] : m;
  parent[v] = m;
  const std::int64_t d = e - b;
  if (d > thread_max) {
    if (d <= warp_max) worklist[atomicAdd(&counters[0], 1)] = std::int32_t(v);
    else worklist[atomicSub(&counters[1], 1) - 1] = std::int32_t(v);
  }
}

__global__ void by_thread(const std::int64_t* rows, const std::int32_t* adj, std::int32_t* parent, std::int64_t n) {
  const std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const std::int64_t b = rows[v], e = rows[v + 1];
  if (e - b > thread_max) return;
  std::int32_t vstat = representative(std::int32_t(v), parent);
  for (std::int64_t k = b; k < e; ++k) {
    const std::int32_t u = adj[k];
    if (v > u) vstat = hook(vstat, representative(u, parent), parent);
  }
}

__global__ void by_warp(const std::int64_t* rows, const std::int32_t* adj, std::int32_t* parent,
                        const std::int32_t* worklist, const int* counters) {
  const std::int64_t w = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (w >= counters[0]) return;
  const std::int32_t v = worklist[w];
  const std::int64_t b = rows[v], e = rows[v + 1];
  std::int32_t vstat = representative(v, parent);
  for (std::int64_t k = b + lane; k < e; k += 32) {
    const std::int32_t u = adj[k];
    if (v > u) vstat = hook(vstat, representative(u, parent), parent);
  }
}

__global__ void by_block(const std::int64_t* rows, const std::int32_t* adj, std::int32_t* parent,
                         const std::int32_t* worklist, const int* counters, std::int64_t n) {
  const std::int64_t at = std::int64_t(counters[1]) + blockIdx.x;
  if (at >= n) return;
  const std::int32_t v = worklist[at];
  const std::int64_t b = rows[v], e = rows[v + 1];
  std::int32_t vstat = representative(v, parent);
  for (std::int64_t k = b + threadIdx.x; k < e; k += blockDim.x) {
    const std::int32_t u = adj[k];
    if (v > u) vstat = hook(vstat, representative(u, parent), parent);
  }
}

__global__ void flatten(std::int32_t* parent, std::int64_t n) {
  const std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  std::int32_t vstat = parent[v];
  const std::int32_t old = vstat;
  std::int32_t next;
  while (vstat > (next = parent[vstat])) vstat = next;
  if (old != vstat) parent[v] = vstat;
}

__global__ void reset_counters(int* counters, std::int64_t n) {
  counters[0] = 0;
  counters[1] = int(n);
}

}  // namespace cc_peer

class EclCc {
 public:
  EclCc(const DeviceCsr& g, cudaStream_t stream)
      : m_g(g), m_stream(stream), m_parent(g.n), m_worklist(g.n), m_counters(2), m_host_counters(2) {}

  // Labels every vertex with its component's smallest vertex id.
  void run() {
    using namespace cc_peer;
    const std::int64_t n = m_g.n;
    if (n == 0) return;
    reset_counters<<<1, 1, 0, m_stream>>>(m_counters.data(), n);
    TBG_LAUNCHED();
    init<<<blocks_for(n, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_parent.data(), m_worklist.data(),
                                                       m_counters.data(), n);
    TBG_LAUNCHED();
    by_thread<<<blocks_for(n, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_parent.data(), n);
    TBG_LAUNCHED();
    // The worklists' lengths size the two launches: copied to the host, as
    // ECL-CC does (one round trip per run).
    TBG_CK(cudaMemcpyAsync(m_host_counters.data(), m_counters.data(), 2 * sizeof(int), cudaMemcpyDeviceToHost,
                           m_stream));
    TBG_CK(cudaStreamSynchronize(m_stream));
    const std::int64_t warps = m_host_counters[0], blocks = n - m_host_counters[1];
    if (warps > 0) {
      by_warp<<<blocks_for(warps * 32, block), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_parent.data(),
                                                                     m_worklist.data(), m_counters.data());
      TBG_LAUNCHED();
    }
    if (blocks > 0) {
      by_block<<<unsigned(blocks), block, 0, m_stream>>>(m_g.rows, m_g.adj, m_parent.data(), m_worklist.data(),
                                                         m_counters.data(), n);
      TBG_LAUNCHED();
    }
    flatten<<<blocks_for(n, block), block, 0, m_stream>>>(m_parent.data(), n);
    TBG_LAUNCHED();
  }

  const std::int32_t* labels() const { return m_parent.data(); }

 private:
  DeviceCsr m_g;
  cudaStream_t m_stream;
  DeviceArray<std::int32_t> m_parent, m_worklist;
  DeviceArray<int> m_counters;
  std::vector<int> m_host_counters;
};

}  // namespace tessera_bench_graph_cuda
