#pragma once
// Turning CUDA runtime errors into exceptions whose message names the
// operation that failed and the CUDA error (name and description). Host only.
#include <cuda_runtime_api.h>

#include <string>

namespace tessera::detail {

// "cudaErrorMemoryAllocation (out of memory)"
std::string cuda_error_text(cudaError_t error);

// Throws std::runtime_error("<what>: <cuda_error_text(error)>") and clears
// the runtime's last-error state first.
[[noreturn]] void throw_cuda_error(cudaError_t error, const std::string& what);

inline void cuda_check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw_cuda_error(error, what);
}

}  // namespace tessera::detail
