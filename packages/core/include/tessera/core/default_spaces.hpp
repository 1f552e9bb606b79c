#pragma once
// The default execution spaces, chosen from the enabled back-ends:
// Cuda > OpenMP > Threads > Serial for DefaultExecutionSpace, and the best
// host space for DefaultHostExecutionSpace.
#include <tessera/config.hpp>
#include <tessera/core/backends/serial/serial.hpp>
#if TESSERA_ENABLE_THREADS
#include <tessera/core/backends/threads/threads.hpp>
#endif
#if TESSERA_ENABLE_OPENMP
#include <tessera/core/backends/openmp/openmp.hpp>
#endif
#if TESSERA_ENABLE_CUDA
#include <tessera/core/backends/cuda/cuda_space.hpp>
#endif

namespace tessera {

// DefaultHostExecutionSpace (OpenMP > Threads > Serial) is declared in
// memory_space.hpp, as HostSpace::execution_space.

#if TESSERA_ENABLE_CUDA
using DefaultExecutionSpace = Cuda;
#else
using DefaultExecutionSpace = DefaultHostExecutionSpace;
#endif

namespace detail {
// The execution space that works on memory of MemSpace by default (used by
// View initialization and deep_copy).
template <class MemSpace>
struct default_execution_space_for {
  using type = DefaultHostExecutionSpace;
};
#if TESSERA_ENABLE_CUDA
// Device and managed memory are initialized and copied by kernels; pinned
// memory is host memory, worked on by the host (as in Kokkos).
template <>
struct default_execution_space_for<CudaSpace> {
  using type = Cuda;
};
template <>
struct default_execution_space_for<CudaUVMSpace> {
  using type = Cuda;
};
#endif
}  // namespace detail

// Memory reachable from the host and from DefaultExecutionSpace (Kokkos 4):
// managed memory with CUDA, host memory otherwise; and the same for pinned
// host memory. Both always exist here.
#if TESSERA_ENABLE_CUDA
using SharedSpace = CudaUVMSpace;
using SharedHostPinnedSpace = CudaHostPinnedSpace;
#else
using SharedSpace = HostSpace;
using SharedHostPinnedSpace = HostSpace;
#endif
inline constexpr bool has_shared_space = true;
inline constexpr bool has_shared_host_pinned_space = true;

// Threads of DefaultHostExecutionSpace, and the GPU in use (-1 without one),
// as Kokkos::num_threads() / Kokkos::device_id().
inline int num_threads() { return DefaultHostExecutionSpace().concurrency(); }
inline int device_id() {
#if TESSERA_ENABLE_CUDA
  return Cuda::impl_is_available() ? Cuda().cuda_device() : -1;
#else
  return -1;
#endif
}

// Fences every enabled execution space.
inline void fence(const std::string& label = "") {
#if TESSERA_ENABLE_CUDA
  Cuda::impl_static_fence(label);  // every instance; a no-op when CUDA is unavailable
#endif
  (void)label;
}

}  // namespace tessera
