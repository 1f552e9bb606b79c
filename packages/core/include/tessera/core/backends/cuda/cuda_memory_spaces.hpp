#pragma once
// The CUDA memory spaces:
//   CudaSpace            device memory; reachable from Cuda only. Taken from
//                        CUDA's stream-ordered pool (cudaMallocAsync /
//                        cudaFreeAsync) by default, so that freeing a
//                        temporary does not wait for the whole device the way
//                        cudaFree does; --tessera-cuda-malloc-async=0 (or
//                        TESSERA_CUDA_MALLOC_ASYNC=0) selects cudaMalloc.
//   CudaHostPinnedSpace  page-locked host memory (cudaMallocHost); reachable
//                        from host code and from Cuda (over the bus)
//   CudaUVMSpace         managed memory (cudaMallocManaged); reachable from both,
//                        pages migrate on demand
// Every allocation throws allocation_error naming the label, the size, the
// space and the CUDA error; when the CUDA back-end is unavailable (no driver,
// no device) it throws std::runtime_error carrying the back-end's reason.
#include <tessera/core/memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

class Cuda;

class CudaSpace {
 public:
  using memory_space = CudaSpace;
  using execution_space = Cuda;
  using device_type = Device<Cuda, CudaSpace>;
  using size_type = std::size_t;
  // cudaMalloc returns 256-byte aligned memory.
  static constexpr std::size_t alignment = 256;

  static constexpr const char* name() { return "Cuda"; }

  void* allocate(const char* label, std::size_t bytes) const;
  void* allocate(std::size_t bytes) const { return allocate("(unlabeled)", bytes); }
  void deallocate(const char* label, void* ptr, std::size_t bytes) const;
  void deallocate(void* ptr, std::size_t bytes) const { deallocate("(unlabeled)", ptr, bytes); }
  // What Views call: `total_bytes` includes the View's label header,
  // `logical_bytes` is what the user asked for (reported to profiling tools
  // and named in errors).
  void* impl_allocate(const char* label, std::size_t total_bytes, std::size_t logical_bytes) const;
  void impl_deallocate(const char* label, void* ptr, std::size_t total_bytes, std::size_t logical_bytes) const;
};

class CudaHostPinnedSpace {
 public:
  using memory_space = CudaHostPinnedSpace;
  // Pinned memory is host memory, worked on by the host (as in Kokkos).
  using execution_space = DefaultHostExecutionSpace;
  using device_type = Device<execution_space, CudaHostPinnedSpace>;
  using size_type = std::size_t;
  static constexpr std::size_t alignment = 256;

  static constexpr const char* name() { return "CudaHostPinned"; }

  void* allocate(const char* label, std::size_t bytes) const;
  void* allocate(std::size_t bytes) const { return allocate("(unlabeled)", bytes); }
  void deallocate(const char* label, void* ptr, std::size_t bytes) const;
  void deallocate(void* ptr, std::size_t bytes) const { deallocate("(unlabeled)", ptr, bytes); }
  // What Views call: `total_bytes` includes the View's label header,
  // `logical_bytes` is what the user asked for (reported to profiling tools
  // and named in errors).
  void* impl_allocate(const char* label, std::size_t total_bytes, std::size_t logical_bytes) const;
  void impl_deallocate(const char* label, void* ptr, std::size_t total_bytes, std::size_t logical_bytes) const;
};

class CudaUVMSpace {
 public:
  using memory_space = CudaUVMSpace;
  using execution_space = Cuda;
  using device_type = Device<Cuda, CudaUVMSpace>;
  using size_type = std::size_t;
  static constexpr std::size_t alignment = 256;

  static constexpr const char* name() { return "CudaUVM"; }

  void* allocate(const char* label, std::size_t bytes) const;
  void* allocate(std::size_t bytes) const { return allocate("(unlabeled)", bytes); }
  void deallocate(const char* label, void* ptr, std::size_t bytes) const;
  void deallocate(void* ptr, std::size_t bytes) const { deallocate("(unlabeled)", ptr, bytes); }
  // What Views call: `total_bytes` includes the View's label header,
  // `logical_bytes` is what the user asked for (reported to profiling tools
  // and named in errors).
  void* impl_allocate(const char* label, std::size_t total_bytes, std::size_t logical_bytes) const;
  void impl_deallocate(const char* label, void* ptr, std::size_t total_bytes, std::size_t logical_bytes) const;
};

namespace detail {

template <class M>
struct is_cuda_memory_space : std::false_type {};
template <>
struct is_cuda_memory_space<CudaSpace> : std::true_type {};
template <>
struct is_cuda_memory_space<CudaHostPinnedSpace> : std::true_type {};
template <>
struct is_cuda_memory_space<CudaUVMSpace> : std::true_type {};

// Host code may dereference pinned and managed memory, never CudaSpace.
template <>
struct host_accessible<CudaHostPinnedSpace> : std::true_type {};
template <>
struct host_accessible<CudaUVMSpace> : std::true_type {};

// Host execution spaces (memory HostSpace) reach pinned and managed memory.
template <>
struct memory_reachable<HostSpace, CudaHostPinnedSpace> : std::true_type {};
template <>
struct memory_reachable<HostSpace, CudaUVMSpace> : std::true_type {};
// Cuda (memory CudaSpace) reaches managed memory and, through the bus,
// pinned host memory; plain HostSpace stays out of reach.
template <>
struct memory_reachable<CudaSpace, CudaUVMSpace> : std::true_type {};
template <>
struct memory_reachable<CudaSpace, CudaHostPinnedSpace> : std::true_type {};

}  // namespace detail
}  // namespace tessera
