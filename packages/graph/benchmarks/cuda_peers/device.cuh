#pragma once
// What the peers of bench_graph_cuda.cpp share: error checks that throw (the
// program reports them and exits nonzero) and a move-only device array.
// Peers take the graph as the library stores it, on the device: row offsets
// (int64, n + 1) and sorted targets (int32), each undirected edge in both
// rows, no self-loops, no duplicates (build_options::simple()).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera_bench_graph_cuda {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
inline void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}
#define TBG_CK(call) ::tessera_bench_graph_cuda::check((call), #call)
// After a launch: a bad configuration shows here, a fault at the next sync.
#define TBG_LAUNCHED() TBG_CK(cudaGetLastError())

// The graph as the peers see it: the library's own device arrays.
struct DeviceCsr {
  std::int64_t n = 0;
  std::int64_t nnz = 0;              // stored slots (2 x undirected edges)
  const std::int64_t* rows = nullptr;
  const std::int32_t* adj = nullptr;
};

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : m_n(n) {
    if (n) TBG_CK(cudaMalloc(&m_p, n * sizeof(T)));
  }
  ~DeviceArray() {
    if (m_p) cudaFree(m_p);
  }
  DeviceArray(DeviceArray&& o) noexcept : m_p(std::exchange(o.m_p, nullptr)), m_n(std::exchange(o.m_n, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(m_p, o.m_p);
    std::swap(m_n, o.m_n);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() const { return m_p; }
  std::size_t size() const { return m_n; }

 private:
  T* m_p = nullptr;
  std::size_t m_n = 0;
};

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) TBG_CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

inline unsigned blocks_for(std::int64_t threads, int block = 256) {
  const std::int64_t b = (threads + block - 1) / block;
  return unsigned(b < 1 ? 1 : b);
}

}  // namespace tessera_bench_graph_cuda
