#pragma once
// MemoryCopy specializations for every pair of spaces that involves CUDA
// memory (CudaSpace, CudaHostPinnedSpace, CudaUVMSpace, with each other and
// with HostSpace). All go through cudaMemcpyAsync with cudaMemcpyDefault
// (unified addressing tells the runtime where each pointer lives):
//   - with a Cuda instance, the copy is queued on that instance's stream and
//     the caller fences (deep_copy(exec, ...) semantics);
//   - with a host execution space (or none), the copy is queued on the
//     default instance's stream and waited for, so that it is complete when
//     the call returns.
#include <tessera/core/backends/cuda/cuda_space.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera::detail {

template <class DstSpace, class SrcSpace>
struct MemoryCopy;

// exec == nullptr: synchronous copy ordered after the default instance's work.
void cuda_memcpy(const Cuda* exec, void* dst, const void* src, std::size_t bytes);
// Copies `bytes` from host memory to `dst` on `exec` and waits.
void cuda_store_bytes(const Cuda& exec, void* dst, const void* src, std::size_t bytes);

template <class DstSpace, class SrcSpace>
  requires(is_cuda_memory_space<DstSpace>::value || is_cuda_memory_space<SrcSpace>::value)
struct MemoryCopy<DstSpace, SrcSpace> {
  template <class Exec>
  static void copy(const Exec& exec, void* dst, const void* src, std::size_t bytes) {
    if constexpr (std::is_same_v<Exec, Cuda>) {
      cuda_memcpy(&exec, dst, src, bytes);
    } else {
      (void)exec;
      cuda_memcpy(nullptr, dst, src, bytes);
    }
  }
};

}  // namespace tessera::detail
