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

#if TESSERA_ENABLE_OPENMP
using DefaultHostExecutionSpace = OpenMP;
#elif TESSERA_ENABLE_THREADS
using DefaultHostExecutionSpace = Threads;
#else
using DefaultHostExecutionSpace = Serial;
#endif

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

// Fences every enabled execution space.
inline void fence(const std::string& label = "") {
#if TESSERA_ENABLE_CUDA
  Cuda::impl_static_fence(label);  // every instance; a no-op when CUDA is unavailable
#endif
  (void)label;
}

}  // namespace tessera
